package conversation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/markdown"
)

// fixedClock returns a clock that starts at t0 and advances one second per
// call.
func fixedClock(t0 time.Time) func() time.Time {
	n := 0
	return func() time.Time {
		n++
		return t0.Add(time.Duration(n) * time.Second)
	}
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), ".planning", "conversations"))
	if err != nil {
		t.Fatal(err)
	}
	s.Now = fixedClock(t0)
	return s
}

func msg(role, content string) Record {
	return Record{Kind: KindMessage, Role: role, Content: content}
}

func contents(recs []Record) string {
	var b []string
	for _, r := range recs {
		b = append(b, r.Content)
	}
	return strings.Join(b, ",")
}

func TestInvalidIDs(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	bad := []string{"", "../x", "/abs", "a/b", "a\x00b", strings.Repeat("a", 200), ".hidden", "-x", "a b", `a\b`, "..", "é"}
	for _, id := range bad {
		t.Run(strings.ReplaceAll(id, "/", "_"), func(t *testing.T) {
			checks := map[string]error{
				"Create": s.Create(ctx, id, Meta{}),
				"Append": s.Append(ctx, id, msg(RoleUser, "x")),
				"Fork":   s.Fork(ctx, "ok", 0, id),
			}
			_, _, err := s.Read(id)
			checks["Read"] = err
			_, err = s.Tail(id, 1)
			checks["Tail"] = err
			checks["Archive"] = s.Archive(ctx, id)
			for op, err := range checks {
				if op == "Fork" {
					continue // parent "ok" does not exist; checked below
				}
				if !errors.Is(err, ErrInvalidID) {
					t.Errorf("%s(%q) = %v, want ErrInvalidID", op, id, err)
				} else if !strings.Contains(err.Error(), strconv.Quote(id)) {
					t.Errorf("%s(%q) error %q does not quote the id", op, id, err)
				}
			}
		})
	}
	// Nothing escaped the conversations folder.
	root := filepath.Dir(filepath.Dir(s.Dir))
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("unexpected file %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, "ok", Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Fork(ctx, "ok", 0, "../x"); !errors.Is(err, ErrInvalidID) {
		t.Errorf("Fork to ../x = %v, want ErrInvalidID", err)
	}
	for _, id := range []string{"a", "A.b_c-d", strings.Repeat("z", 128), "0"} {
		if err := ValidateID(id); err != nil {
			t.Errorf("ValidateID(%q) = %v, want nil", id, err)
		}
	}
}

func TestCreateAppendRead(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	meta := Meta{AgentType: "backend-developer", Epic: "auth", Phase: "jwt", Deliverables: []string{"auth.ts"}, Tags: []string{"t1"}}
	if err := s.Create(ctx, "auth-1", meta); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, "auth-1", meta); !errors.Is(err, ErrExists) {
		t.Fatalf("second Create = %v, want ErrExists", err)
	}
	conf := 0.95
	pass := true
	err := s.Append(ctx, "auth-1",
		msg(RoleUser, "Implement JWT auth"),
		Record{Role: RoleAssistant, Agent: "backend-developer", Content: "created auth.ts",
			Confidence: &conf, Iteration: 1, FilesModified: []string{"auth.ts", "auth.test.ts"}, Provider: "anthropic"},
		Record{Role: RoleAssistant, Agent: "tester", ToolCalls: []ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"cmd": "go test ./..."}`}}},
		Record{Role: RoleTool, ToolCallID: "call_1", ToolName: "bash", Content: "FAIL", IsError: true},
		Record{Kind: KindIteration, Iteration: 1, TestsPassing: &pass, FilesModified: []string{"jwt.go"}},
		Record{Kind: KindMeta, Meta: &Meta{Phase: "refresh", Tags: []string{"t2"}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	c, diags, err := s.Read("auth-1")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if got := contents(c.Messages); got != "Implement JWT auth,created auth.ts,,FAIL" {
		t.Errorf("messages = %q", got)
	}
	if c.Meta.AgentType != "backend-developer" || c.Meta.Phase != "refresh" || strings.Join(c.Meta.Tags, ",") != "t1,t2" {
		t.Errorf("meta = %+v", c.Meta)
	}
	if got := strings.Join(c.Deliverables, ","); got != "auth.ts,auth.test.ts,jwt.go" {
		t.Errorf("deliverables = %q", got)
	}
	if c.TestsPassing == nil || !*c.TestsPassing {
		t.Errorf("tests passing = %v", c.TestsPassing)
	}
	if len(c.Iterations) != 1 || c.Messages[2].ToolCalls[0].Arguments != `{"cmd": "go test ./..."}` {
		t.Errorf("iterations %d, tool call %+v", len(c.Iterations), c.Messages[2].ToolCalls)
	}
	// The newest message or iteration (the iteration record), not the
	// meta record written after it.
	if want := t0.Add(6 * time.Second); !c.LastActivity.Equal(want) {
		t.Errorf("last activity %v, want %v", c.LastActivity, want)
	}
	if err := s.Append(ctx, "missing", msg(RoleUser, "x")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Append to missing = %v", err)
	}

	// The bytes on disk: fixed key order, UTC RFC 3339, one record a line.
	data, err := os.ReadFile(filepath.Join(s.Dir, "auth-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines, want 7", len(lines))
	}
	first := lines[1]
	wantPrefix := `{"id":"`
	if !strings.HasPrefix(first, wantPrefix) || !strings.Contains(first, `","conversation":"auth-1","kind":"message","ts":"2026-03-01T12:00:02Z","role":"user","content":"Implement JWT auth"}`) {
		t.Errorf("line 2 = %s", first)
	}
}

func TestTimesAreUTC(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	loc := time.FixedZone("X", 5*3600)
	s.Now = func() time.Time { return time.Date(2026, 1, 1, 17, 0, 0, 0, loc) }
	if err := s.Create(ctx, "c", Meta{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(s.Dir, "c.jsonl"))
	if !strings.Contains(string(data), `"ts":"2026-01-01T12:00:00Z"`) {
		t.Errorf("log = %s", data)
	}
}

func TestTornLines(t *testing.T) {
	tests := []struct {
		name      string
		inject    string // bytes appended to the log after 2 messages
		wantDiags []int  // lines reported
		movedOut  bool   // a torn tail the next append moves out of the log (docs/formats.md#torn-records)
	}{
		{"torn tail", `{"id":"x","conversation":"c","kind":"mess`, []int{4}, true},
		{"garbage tail", "\x00\x00\x00", []int{4}, true},
		{"conflict marker", "<<<<<<< HEAD\n", []int{4}, false},
		{"no kind", `{"id":"y","ts":"2026-01-01T00:00:00Z"}` + "\n", []int{4}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			ctx := context.Background()
			if err := s.Create(ctx, "c", Meta{}); err != nil {
				t.Fatal(err)
			}
			if err := s.Append(ctx, "c", msg(RoleUser, "a"), msg(RoleAssistant, "b")); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(s.Dir, "c.jsonl")
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(tt.inject); err != nil {
				t.Fatal(err)
			}
			_ = f.Close()
			c, diags, err := s.Read("c")
			if err != nil {
				t.Fatal(err)
			}
			if got := contents(c.Messages); got != "a,b" {
				t.Errorf("before append: %q", got)
			}
			checkDiagLines(t, diags, p, tt.wantDiags)
			// Appending after the damage starts on a new line and stays readable.
			if err := s.Append(ctx, "c", msg(RoleUser, "d")); err != nil {
				t.Fatal(err)
			}
			c, diags, err = s.Read("c")
			if err != nil {
				t.Fatal(err)
			}
			if got := contents(c.Messages); got != "a,b,d" {
				t.Errorf("after append: %q", got)
			}
			if tt.movedOut {
				tt.wantDiags = nil
				if kept, err := os.ReadFile(filepath.Join(s.tornDir(), "c.jsonl")); err != nil || string(kept) != tt.inject+"\n" {
					t.Errorf("torn tail kept aside: %q, %v", kept, err)
				}
			}
			checkDiagLines(t, diags, p, tt.wantDiags)
			tail, err := s.Tail("c", 5)
			if err != nil || contents(tail) != "a,b,d" {
				t.Errorf("tail = %q, %v", contents(tail), err)
			}
		})
	}
}

func checkDiagLines(t *testing.T, diags []markdown.Diagnostic, path string, want []int) {
	t.Helper()
	if len(diags) != len(want) {
		t.Fatalf("diagnostics %v, want lines %v", diags, want)
	}
	for i, d := range diags {
		if d.Path != path || d.Line != want[i] {
			t.Errorf("diagnostic %v, want %s:%d", d, path, want[i])
		}
	}
}

func TestReadDedupAndOrder(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir)
	log := strings.Join([]string{
		`{"id":"m","conversation":"c","kind":"meta","ts":"2026-01-01T00:00:00Z","meta":{"agent_type":"dev"}}`,
		`{"id":"03","conversation":"c","kind":"message","ts":"2026-01-01T00:00:03Z","role":"user","content":"three"}`,
		`{"id":"01","conversation":"c","kind":"message","ts":"2026-01-01T00:00:01Z","role":"user","content":"one"}`,
		`{"id":"03","conversation":"c","kind":"message","ts":"2026-01-01T00:00:03Z","role":"user","content":"three"}`,
		`{"id":"02b","conversation":"c","kind":"message","ts":"2026-01-01T00:00:02Z","role":"user","content":"two-b"}`,
		`{"id":"02a","conversation":"c","kind":"message","ts":"2026-01-01T01:00:02+01:00","role":"user","content":"two-a"}`,
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	c, diags, err := s.Read("c")
	if err != nil || len(diags) != 0 {
		t.Fatal(err, diags)
	}
	if got := contents(c.Messages); got != "one,two-a,two-b,three" {
		t.Errorf("messages = %q", got)
	}
	tail, err := s.Tail("c", 3)
	if err != nil || contents(tail) != "two-a,two-b,three" {
		t.Errorf("tail = %q %v", contents(tail), err)
	}
}

func TestTail(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if err := s.Create(ctx, "c", Meta{}); err != nil {
		t.Fatal(err)
	}
	// Messages of varied sizes so lines straddle the 64 KiB blocks.
	var recs []Record
	var all []string
	for i := range 300 {
		c := strings.Repeat(string(rune('a'+i%26)), 1+(i*977)%5000) + "#" + strconv.Itoa(i)
		all = append(all, c)
		recs = append(recs, msg(RoleUser, c))
	}
	if err := s.Append(ctx, "c", recs...); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 20, 299, 300, 301, 1000} {
		got, err := s.Tail("c", n)
		if err != nil {
			t.Fatal(err)
		}
		want := all[max(0, len(all)-n):]
		if n == 0 {
			want = nil
		}
		if strings.Join(want, ",") != contents(got) {
			t.Errorf("Tail(%d): %d messages, want %d", n, len(got), len(want))
		}
	}
	if _, err := s.Tail("nope", 3); !errors.Is(err, ErrNotFound) {
		t.Errorf("Tail(nope) = %v", err)
	}
}

func TestForkListArchive(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if err := s.Create(ctx, "p", Meta{AgentType: "dev", Epic: "e"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "p", msg(RoleUser, "u1"), msg(RoleAssistant, "a1"), msg(RoleUser, "u2"), msg(RoleAssistant, "a2")); err != nil {
		t.Fatal(err)
	}
	if err := s.Fork(ctx, "p", 2, "f"); err != nil {
		t.Fatal(err)
	}
	if err := s.Fork(ctx, "p", 5, "g"); err == nil {
		t.Error("fork past the end succeeded")
	}
	if err := s.Fork(ctx, "p", 2, "f"); !errors.Is(err, ErrExists) {
		t.Errorf("fork onto existing = %v", err)
	}
	if err := s.Append(ctx, "f", msg(RoleUser, "u2'"), msg(RoleAssistant, "a2'")); err != nil {
		t.Fatal(err)
	}
	if err := s.Fork(ctx, "f", 3, "ff"); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "ff", msg(RoleUser, "u3''")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id, want string
		tail     int
		wantTail string
	}{
		{"p", "u1,a1,u2,a2", 2, "u2,a2"},
		{"f", "u1,a1,u2',a2'", 3, "a1,u2',a2'"},
		{"ff", "u1,a1,u2',u3''", 3, "a1,u2',u3''"},
		{"ff", "u1,a1,u2',u3''", 10, "u1,a1,u2',u3''"},
	} {
		c, _, err := s.Read(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if got := contents(c.Messages); got != tc.want {
			t.Errorf("Read(%s) = %q, want %q", tc.id, got, tc.want)
		}
		tail, err := s.Tail(tc.id, tc.tail)
		if err != nil || contents(tail) != tc.wantTail {
			t.Errorf("Tail(%s, %d) = %q %v, want %q", tc.id, tc.tail, contents(tail), err, tc.wantTail)
		}
	}
	// The fork copied nothing: one meta line plus its own two messages.
	data, _ := os.ReadFile(filepath.Join(s.Dir, "f.jsonl"))
	if n := strings.Count(string(data), "\n"); n != 3 || !strings.Contains(string(data), `"parent":"p","fork_at":2`) {
		t.Errorf("fork log:\n%s", data)
	}

	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range list {
		got = append(got, c.ID+":"+c.AgentType+":"+strconv.Itoa(c.Messages)+":"+c.Parent)
	}
	if strings.Join(got, " ") != "f:dev:4:p ff:dev:4:f p:dev:4:" {
		t.Errorf("List = %v", got)
	}

	// The clock is at t0+13s after 13 stamps; p's last record is at t0+5s.
	cut := t0.Add(5*time.Second + 30*time.Minute)
	done, err := s.ArchiveOlderThan(ctx, 30*time.Minute-time.Second, cut)
	if err != nil || strings.Join(done, ",") != "p" {
		t.Fatalf("ArchiveOlderThan = %v %v", done, err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, ArchiveDir, "p.jsonl")); err != nil {
		t.Error(err)
	}
	// Forks still read through the archived parent.
	if c, _, err := s.Read("f"); err != nil || contents(c.Messages) != "u1,a1,u2',a2'" {
		t.Errorf("fork of archived parent: %v %v", c, err)
	}
	if err := s.Archive(ctx, "p"); !errors.Is(err, ErrNotFound) {
		t.Errorf("archive twice = %v", err)
	}
	if err := s.Create(ctx, "p", Meta{}); !errors.Is(err, ErrExists) {
		t.Errorf("create over archived = %v", err)
	}
	list, _ = s.List()
	if len(list) != 2 {
		t.Errorf("List after archive = %v", list)
	}
}

func TestForkCycle(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir)
	for _, p := range [][2]string{{"a", "b"}, {"b", "a"}} {
		line := `{"id":"m-` + p[0] + `","conversation":"` + p[0] + `","kind":"meta","ts":"2026-01-01T00:00:00Z","meta":{"parent":"` + p[1] + `","fork_at":1}}` + "\n"
		if err := os.WriteFile(filepath.Join(dir, p[0]+".jsonl"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.Read("a"); err == nil || !strings.Contains(err.Error(), "loops") {
		t.Errorf("Read(a) = %v, want a cycle error", err)
	}
}

// TestListSkipsBrokenFork: a fork whose parent log is gone is left out of
// List with a diagnostic; the other conversations are still listed.
func TestListSkipsBrokenFork(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for _, id := range []string{"c", "d"} {
		if err := s.Create(ctx, id, Meta{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Append(ctx, "c", Record{Role: RoleUser, Content: "a"}, Record{Role: RoleUser, Content: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Fork(ctx, "c", 1, "k1"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(s.Dir, "c.jsonl")); err != nil {
		t.Fatal(err)
	}
	list, diags, err := s.ListDiagnosed()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "d" {
		t.Errorf("List = %+v, want d only", list)
	}
	if len(diags) != 1 || !strings.HasSuffix(diags[0].Path, "k1.jsonl") || !strings.Contains(diags[0].Message, `conversation not found: "c"`) {
		t.Errorf("diagnostics = %v", diags)
	}
	if l2, err := s.List(); err != nil || len(l2) != 1 {
		t.Errorf("List() = %v %v", l2, err)
	}
}

func TestAppendNew(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if err := s.Create(ctx, "c", Meta{}); err != nil {
		t.Fatal(err)
	}
	recs := []Record{{ID: "x1", Role: RoleUser, Content: "a"}, {ID: "x2", Role: RoleUser, Content: "b"}, {ID: "x1", Role: RoleUser, Content: "a"}}
	for i, want := range []int{2, 0} {
		n, err := s.AppendNew(ctx, "c", recs...)
		if err != nil || n != want {
			t.Errorf("AppendNew #%d = %d %v, want %d", i, n, err, want)
		}
	}
	c, _, _ := s.Read("c")
	if contents(c.Messages) != "a,b" {
		t.Errorf("messages %q", contents(c.Messages))
	}
}

func TestLockHonoursContext(t *testing.T) {
	s := newStore(t)
	if err := s.Create(context.Background(), "c", Meta{}); err != nil {
		t.Fatal(err)
	}
	err := s.withLock(context.Background(), "c", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		// flock locks are per open file description, so a second Flock in
		// the same process blocks like another process would.
		if err := s.Append(ctx, "c", msg(RoleUser, "x")); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Append under a held lock = %v, want deadline exceeded", err)
		}
		if _, _, err := s.Window(ctx, "c", WindowOptions{Messages: 1}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Window under a held lock = %v, want deadline exceeded", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLastActivityOfImport is the imported-log case: the conversation is
// created now, its messages were written weeks before; the list shows the
// newest message's time, and a conversation with no message yet its
// creation time.
func TestLastActivityOfImport(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	created := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { return created }
	for _, id := range []string{"imported", "fresh"} {
		if err := s.Create(ctx, id, Meta{AgentType: "claude-code"}); err != nil {
			t.Fatal(err)
		}
	}
	last := time.Date(2026, 2, 12, 3, 58, 0, 0, time.UTC)
	if err := s.Append(ctx, "imported",
		Record{ID: "cc-1", Role: RoleUser, Content: "hi", Time: last.Add(-time.Hour)},
		Record{ID: "cc-2", Role: RoleAssistant, Content: "hello", Time: last},
		Record{ID: "cc-s", Kind: KindMeta, Event: EventSummary, Content: "a session", Time: time.Unix(0, 0).UTC()},
	); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]time.Time{}
	for _, c := range list {
		got[c.ID] = c.LastActivity
	}
	if !got["imported"].Equal(last) || !got["fresh"].Truncate(time.Second).Equal(created) {
		t.Errorf("last activity imported %v (want %v), fresh %v (want %v)", got["imported"], last, got["fresh"], created)
	}
}

// TestLogLinkOutside: a log that is a symbolic link leading out of the
// conversations folder (to another project's log, or dangling) is neither
// read nor appended to, and the error names the link and its target; a
// link to a log inside the folder is read.
func TestLogLinkOutside(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	other := newStore(t)
	if err := other.Create(ctx, "theirs", Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := other.Append(ctx, "theirs", msg(RoleUser, "a secret plan")); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, "mine", Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "mine", msg(RoleUser, "hello")); err != nil {
		t.Fatal(err)
	}
	outside, _ := other.Path("theirs")
	gone := filepath.Join(t.TempDir(), "gone.jsonl")
	for name, target := range map[string]string{"out": outside, "dangling": gone} {
		link := filepath.Join(s.Dir, name+".jsonl")
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
		if _, _, err := s.Read(name); !errors.Is(err, ErrLinkOutside) || !strings.Contains(err.Error(), link) {
			t.Errorf("Read(%s): %v, want ErrLinkOutside naming %s", name, err, link)
		}
		if _, _, err := s.Window(ctx, name, WindowOptions{Messages: 10}); !errors.Is(err, ErrLinkOutside) {
			t.Errorf("Window(%s): %v, want ErrLinkOutside", name, err)
		}
		if err := s.Append(ctx, name, msg(RoleUser, "leak")); !errors.Is(err, ErrLinkOutside) {
			t.Errorf("Append(%s): %v, want ErrLinkOutside", name, err)
		}
	}
	if _, err := os.Stat(gone); err == nil {
		t.Error("append through a dangling link created its target")
	}
	if c, _, _ := other.Read("theirs"); c == nil || len(c.Messages) != 1 {
		t.Errorf("the other project's log changed: %+v", c)
	}
	mine, _ := s.Path("mine")
	if err := os.Symlink(mine, filepath.Join(s.Dir, "alias.jsonl")); err != nil {
		t.Fatal(err)
	}
	if c, _, err := s.Read("alias"); err != nil || len(c.Messages) != 1 {
		t.Errorf("link inside the folder: %v, %+v", err, c)
	}
}
