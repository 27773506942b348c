package conversation

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// secretRe is the secret form of these tests: the Redactor below replaces
// it as the engine's does a real rule (the engine's tests use the real
// rules).
var secretRe = regexp.MustCompile(`SECRET-[A-Za-z0-9]+`)

func testRedactor(text string) (string, int) {
	n := 0
	out := secretRe.ReplaceAllStringFunc(text, func(string) string { n++; return "⟨secret:test:00000000⟩" })
	return out, n
}

func redactingStore(t *testing.T) *Store {
	t.Helper()
	s := newStore(t)
	s.Redact = testRedactor
	s.RawDir = filepath.Join(filepath.Dir(s.Dir), ".recite", "raw")
	return s
}

// TestAppendRedacts: every record written by Create and the appends holds
// placeholders, the raw form of each changed record is kept by id in
// RawDir with mode 0600, and the records AppendStamped returns are the
// ones written. Tool arguments stay valid JSON.
func TestAppendRedacts(t *testing.T) {
	ctx := context.Background()
	s := redactingStore(t)
	if err := s.Create(ctx, "c", Meta{Title: "deploy with SECRET-title1", Tags: []string{"SECRET-tag"}}); err != nil {
		t.Fatal(err)
	}
	written, err := s.AppendStamped(ctx, "c",
		Record{Role: RoleUser, Content: "my key is SECRET-abc123 ok"},
		Record{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "t1", Name: "sh", Arguments: `{"cmd":"export K=SECRET-xyz"}`}}},
		Record{Role: RoleAssistant, Content: "nothing here"})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.AppendNew(ctx, "c", Record{ID: "imp-1", Role: RoleUser, Content: "SECRET-imported"}); err != nil || n != 1 {
		t.Fatalf("AppendNew = %d, %v", n, err)
	}
	log, err := os.ReadFile(filepath.Join(s.Dir, "c.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if secretRe.Match(log) {
		t.Fatalf("the log holds a secret:\n%s", log)
	}
	if got := strings.Count(string(log), "⟨secret:test:00000000⟩"); got != 5 {
		t.Errorf("%d placeholders in the log, want 5:\n%s", got, log)
	}
	if written[0].Content != "my key is ⟨secret:test:00000000⟩ ok" || !json.Valid([]byte(written[1].ToolCalls[0].Arguments)) {
		t.Errorf("AppendStamped returned %+v", written)
	}
	raw, err := s.RawRecords("c")
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 4 {
		t.Errorf("%d raw records, want 4 (meta, user, tool call, import): %v", len(raw), raw)
	}
	if r := raw[written[0].ID]; r.Content != "my key is SECRET-abc123 ok" {
		t.Errorf("raw record of %s = %+v", written[0].ID, r)
	}
	if _, ok := raw[written[2].ID]; ok {
		t.Error("a record without secrets was kept raw")
	}
	if r := raw["imp-1"]; r.Content != "SECRET-imported" {
		t.Errorf("raw import = %+v", r)
	}
	for p, want := range map[string]os.FileMode{s.RawDir: 0o700, s.rawPath("c"): 0o600} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode().Perm(), err, want)
		}
	}
	c, _, err := s.Read("c")
	if err != nil || c.Meta.Title != "deploy with ⟨secret:test:00000000⟩" || c.Meta.Tags[0] != "⟨secret:test:00000000⟩" {
		t.Errorf("meta = %+v, %v", c.Meta, err)
	}
}

// TestRedactLog migrates a log written without redaction: values replaced
// and counted, ids, times and line order kept, a record without secrets
// and a blank line byte for byte, a torn line with a secret redacted as
// text, the raw records kept, the index rebuilt; a second run changes
// nothing.
func TestRedactLog(t *testing.T) {
	ctx := context.Background()
	plain := newStore(t)
	if err := plain.Create(ctx, "c", Meta{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	recs := []Record{
		{Role: RoleUser, Content: "token SECRET-one and SECRET-two"},
		{Role: RoleAssistant, Content: "fine"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "t", Name: "sh", Arguments: `{"cmd":"SECRET-three"}`}}},
	}
	if err := plain.Append(ctx, "c", recs...); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(plain.Dir, "c.jsonl")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n{\"id\":\"torn\",\"content\":\"SECRET-torn"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, _ := os.ReadFile(p)
	oldRecs, _ := ParseLog(p, before)
	if _, err := plain.Tail("c", 10); err != nil { // an index to go stale
		t.Fatal(err)
	}

	s := redactingStore(t)
	s.Dir, s.LockDir, s.IndexDir = plain.Dir, plain.LockDir, plain.IndexDir
	n, kept, err := s.RedactLog(ctx, "c")
	if err != nil || n != 4 || kept != 0 {
		t.Fatalf("RedactLog = %d, %d, %v; want 4 values, 0 kept", n, kept, err)
	}
	after, _ := os.ReadFile(p)
	if secretRe.Match(after) {
		t.Fatalf("secrets left:\n%s", after)
	}
	newRecs, diags := ParseLog(p, after)
	if len(diags) != 1 || len(newRecs) != len(oldRecs) {
		t.Fatalf("records %d → %d, diagnostics %v", len(oldRecs), len(newRecs), diags)
	}
	for i := range oldRecs {
		if newRecs[i].ID != oldRecs[i].ID || !newRecs[i].Time.Equal(oldRecs[i].Time) {
			t.Errorf("record %d: %s %v → %s %v", i, oldRecs[i].ID, oldRecs[i].Time, newRecs[i].ID, newRecs[i].Time)
		}
	}
	bl, al := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
	if len(bl) != len(al) || bl[0] != al[0] || bl[2] != al[2] || bl[4] != al[4] {
		t.Errorf("lines without secrets changed:\n%s\n→\n%s", before, after)
	}
	raw, _ := s.RawRecords("c")
	if raw[oldRecs[1].ID].Content != recs[0].Content || len(raw) != 2 {
		t.Errorf("raw records = %v", raw)
	}
	tail, err := s.Tail("c", 10)
	if err != nil || len(tail) != len(recs) || tail[0].Content != "token ⟨secret:test:00000000⟩ and ⟨secret:test:00000000⟩" {
		t.Errorf("Tail after the rewrite = %+v, %v", tail, err)
	}
	st, _ := os.Stat(p)
	if n, _, err := s.RedactLog(ctx, "c"); err != nil || n != 0 {
		t.Errorf("second RedactLog = %d, %v", n, err)
	}
	if st2, _ := os.Stat(p); !st2.ModTime().Equal(st.ModTime()) || !os.SameFile(st, st2) {
		t.Error("the second run rewrote the log")
	}
}

// TestRedactLogConcurrentAppends: appends racing a migration lose
// nothing: every record appended before, during and after is in the log
// once, in order.
func TestRedactLogConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	s := redactingStore(t)
	s.NoSync = true
	if err := s.Create(ctx, "c", Meta{}); err != nil {
		t.Fatal(err)
	}
	plain, err := Open(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	plain.NoSync = true
	var wg sync.WaitGroup
	const writers, each = 4, 50
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := plain.Append(ctx, "c", Record{Role: RoleUser, Content: "SECRET-x", Agent: string(rune('a' + w)), Iteration: i + 1}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for range 5 {
		wg.Go(func() {
			if _, _, err := s.RedactLog(ctx, "c"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if _, _, err := s.RedactLog(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	c, _, err := s.Read("c")
	if err != nil || len(c.Messages) != writers*each {
		t.Fatalf("%d messages, want %d (%v)", len(c.Messages), writers*each, err)
	}
	last := map[string]int{}
	for _, m := range c.Messages {
		if m.Iteration != last[m.Agent]+1 || m.Content != "⟨secret:test:00000000⟩" {
			t.Fatalf("writer %s: message %d after %d: %q", m.Agent, m.Iteration, last[m.Agent], m.Content)
		}
		last[m.Agent] = m.Iteration
	}
}

// FuzzRedactLines: whatever the log holds, redactLines keeps every record
// the log had, in order, with its id, and leaves no secret in a record.
func FuzzRedactLines(f *testing.F) {
	f.Add([]byte("{\"id\":\"1\",\"conversation\":\"c\",\"kind\":\"message\",\"ts\":\"2025-01-01T00:00:00Z\",\"content\":\"SECRET-a\"}\n"))
	f.Add([]byte("{\"id\":\"1\",\"kind\":\"message\",\"extra\":\"SECRET-b\"}\r\n\n{torn SECRET-c"))
	f.Add([]byte("\n\n{\"id\":\"2\",\"kind\":\"meta\",\"meta\":{\"title\":\"SECRET-d\"}}"))
	s := &Store{Redact: testRedactor}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, _, _ := s.redactLines(data)
		before, _ := ParseLog("in", data)
		after, _ := ParseLog("out", out)
		if len(before) != len(after) {
			t.Fatalf("%d records → %d", len(before), len(after))
		}
		for i := range before {
			if before[i].ID != after[i].ID || before[i].Kind != after[i].Kind || !before[i].Time.Equal(after[i].Time) {
				t.Fatalf("record %d: %+v → %+v", i, before[i], after[i])
			}
			r := after[i]
			if RedactRecord(&r, testRedactor) != 0 {
				t.Fatalf("record %d keeps a secret: %+v", i, after[i])
			}
		}
		if !slices.Equal(out, data) && len(before) == 0 && !secretRe.Match(data) {
			t.Fatalf("a log without secrets changed")
		}
	})
}

// TestRedactRecordEveryField puts a secret in every string field of a
// record, found by reflection so a field added later is covered too, and
// checks that RedactRecord replaces it unless IdentityFields names the
// field; a secret behind escaped quotes in a JSON text is found decoded,
// and the arguments stay valid JSON.
func TestRedactRecordEveryField(t *testing.T) {
	var r Record
	r.ToolCalls = []ToolCall{{}}
	r.Meta = &Meta{Tags: []string{""}, Deliverables: []string{""}}
	r.FilesModified = []string{""}
	var paths []string
	var fill func(v reflect.Value, path string)
	fill = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.String:
			v.SetString("x SECRET-" + strings.NewReplacer(".", "", "[0]", "").Replace(path) + " y")
			paths = append(paths, path)
		case reflect.Pointer:
			if !v.IsNil() {
				fill(v.Elem(), path)
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				fill(v.Index(i), path)
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(time.Time{}) {
				return
			}
			for i := 0; i < v.NumField(); i++ {
				name := v.Type().Field(i).Name
				if path != "" {
					name = path + "." + name
				}
				fill(v.Field(i), name)
			}
		}
	}
	fill(reflect.ValueOf(&r).Elem(), "")
	r.ToolCalls[0].Arguments = `{"command":"export KEY=\"SECRET-inquotes\"","env":{"SECRET-key":1}}`
	RedactRecord(&r, testRedactor)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		mark := "SECRET-" + strings.ReplaceAll(p, ".", "")
		if p == "ToolCalls.Arguments" {
			mark = "SECRET-inquotes"
		}
		kept := bytes.Contains(b, []byte(mark))
		if identity := slices.Contains(IdentityFields, p); kept != identity {
			t.Errorf("field %s: secret kept %v, identity field %v", p, kept, identity)
		}
	}
	if a := r.ToolCalls[0].Arguments; !json.Valid([]byte(a)) || strings.Contains(a, "SECRET-") || !strings.Contains(a, `"command":"export KEY=\"⟨secret:test:00000000⟩\""`) {
		t.Errorf("arguments: %s", a)
	}
	for _, f := range IdentityFields {
		if !slices.Contains(paths, f) {
			t.Errorf("IdentityFields names %s, which is no string field of Record", f)
		}
	}
}

// TestRedactJSONEscapedQuotes: a secret that only a rule over the decoded
// string finds (here: a quoted value right after "=") is redacted inside
// a JSON document with escaped quotes, nested documents too, and a text
// that is not JSON is left to the text pass.
func TestRedactJSONEscapedQuotes(t *testing.T) {
	quoted := regexp.MustCompile(`KEY="([^"]+)"`)
	red := func(s string) (string, int) {
		n := 0
		out := quoted.ReplaceAllStringFunc(s, func(m string) string {
			if strings.Contains(m, "⟨") {
				return m
			}
			n++
			return `KEY="⟨secret:test:00000000⟩"`
		})
		return out, n
	}
	tests := []struct{ in, want string }{
		{`{"command":"SECRET_KEY=\"abc123\" ./run"}`, `{"command":"SECRET_KEY=\"⟨secret:test:00000000⟩\" ./run"}`},
		{`[1, "KEY=\"a\"", {"n": null}]`, `[1, "KEY=\"⟨secret:test:00000000⟩\"", {"n": null}]`},
		{`{"inner":"{\"cmd\":\"KEY=\\\"deep\\\"\"}"}`, `{"inner":"{\"cmd\":\"KEY=\\\"⟨secret:test:00000000⟩\\\"\"}"}`},
		{`{"broken": "KEY=\"x\"`, `{"broken": "KEY=\"x\"`},
	}
	for _, tt := range tests {
		got, _ := redactText(tt.in, red, 0)
		if got != tt.want {
			t.Errorf("redactText(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}
