package conversation

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImportGluedLine: two entries glued on one line (a writer lost the
// newline) are both read, the second an error result that must not be
// lost, and the line is reported; junk after the last object is one
// malformed entry on that line.
func TestImportGluedLine(t *testing.T) {
	call := `{"type":"assistant","uuid":"a1","timestamp":"2026-02-01T10:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"npx tsc"}}]}}`
	result := `{"type":"user","uuid":"u2","timestamp":"2026-02-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":"Exit code 2\nsrc/a.ts(1,2): error TS2322: Type 'x' is wrong."}]}}`
	in := `{"type":"user","uuid":"u1","timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"fix it"}}` + "\n" +
		call + result + "\n" +
		call + " {\"type\":\"user\",\"uuid\"\n"
	recs, rep, err := ImportClaudeCode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, ",") != "cc-u1,cc-a1,cc-u2,cc-a1" {
		t.Errorf("records %v", ids)
	}
	if r := recs[2]; !r.IsError || r.ToolName != "Bash" || !strings.Contains(r.Content, "error TS2322") {
		t.Errorf("glued error result = %+v", r)
	}
	if rep.Entries != 5 || rep.Imported != 4 || rep.Skipped["malformed JSON"] != 1 || rep.Entries != rep.Imported+rep.SkippedTotal() {
		t.Errorf("report %+v", rep)
	}
	var lines []string
	for _, d := range rep.Diagnostics {
		lines = append(lines, d.String())
	}
	want := []string{"claude-code:2: 2 JSON objects glued on one line; each was read as an entry", "claude-code:3: malformed JSON"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("diagnostics %q, want %q", lines, want)
	}
}

// TestImportToolResults: a tool result carries its call's tool name; a
// TaskOutput whose nested task failed is an error although the block is
// not flagged; a failed background task's notification is an error.
func TestImportToolResults(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"assistant","uuid":"a1","timestamp":"2026-02-01T10:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"TaskOutput","input":{"task_id":"b1x2"}}]}}`,
		`{"type":"user","uuid":"u1","timestamp":"2026-02-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"<retrieval_status>success</retrieval_status>\n\n<status>failed</status>\n\n<exit_code>1</exit_code>\n\n<output>\nFAIL\tgithub.com/acme/calc\t0.002s\n</output>"}]},"toolUseResult":{"retrieval_status":"success","task":{"task_id":"b1x2","task_type":"local_bash","status":"failed","description":"Run tests","output":"FAIL\tgithub.com/acme/calc\t0.002s\n","exitCode":1}}}`,
		`{"type":"user","uuid":"u2","timestamp":"2026-02-01T10:00:03Z","message":{"role":"user","content":"<task-notification>\n<task-id>b8d2377</task-id>\n<status>failed</status>\n<summary>Background command \"Push to remote\" failed with exit code 1</summary>\n</task-notification>"}}`,
		`{"type":"user","uuid":"u3","timestamp":"2026-02-01T10:00:04Z","message":{"role":"user","content":"<task-notification>\n<task-id>b9</task-id>\n<status>completed</status>\n<summary>Background command \"Build\" completed (exit code 0)</summary>\n</task-notification>"}}`,
	}, "\n")
	recs, _, err := ImportClaudeCode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	if r := recs[1]; r.ToolName != "TaskOutput" || !r.IsError {
		t.Errorf("TaskOutput result: tool %q error %v", r.ToolName, r.IsError)
	}
	if !recs[2].IsError || recs[3].IsError || recs[2].Role != RoleUser {
		t.Errorf("notifications: failed %v, completed %v", recs[2].IsError, recs[3].IsError)
	}
}

// FuzzSplitObjects: the glued-line reader returns valid JSON values that,
// with the rest, cover the line in order.
func FuzzSplitObjects(f *testing.F) {
	f.Add(`{"a":1}{"b":2}`)
	f.Add(`{"a":1} {"b"`)
	f.Add(`{bad`)
	f.Add(`1 2 "x"`)
	f.Fuzz(func(t *testing.T, line string) {
		objs, rest := splitObjects([]byte(line))
		var joined []byte
		for _, o := range objs {
			if !json.Valid(o) {
				t.Fatalf("invalid object %q", o)
			}
			joined = append(joined, o...)
		}
		joined = append(joined, rest...)
		squeeze := func(b []byte) []byte { return bytes.Join(bytes.Fields(b), nil) }
		if len(squeeze(joined)) > len(squeeze([]byte(line))) {
			t.Fatalf("objects and rest %q longer than the line %q", joined, line)
		}
	})
}

// TestImportCodexGluedLine: a Codex rollout whose function call and its
// output (an error in a command that exited 0) are glued on one line reads
// as the same records as the file with the newline, and the line is
// reported.
func TestImportCodexGluedLine(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "codex", "rollout-2026-03-01T10-00-00-0199a1b2-0c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if !strings.Contains(lines[11], `"call_id":"call_C3"`) || !strings.Contains(lines[12], "cat: config.json: No such file or directory") {
		t.Fatalf("fixture lines 12 and 13 are not the cat call and its output:\n%s%s", lines[11], lines[12])
	}
	glued := strings.Join(lines[:11], "") + strings.TrimSuffix(lines[11], "\n") + lines[12] + strings.Join(lines[13:], "")
	want, wantRep, err := ImportCodex(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	got, rep, err := ImportCodex(strings.NewReader(glued))
	if err != nil {
		t.Fatal(err)
	}
	// The same records but for their ids and sources, which name the
	// lines; the ids stay distinct.
	ids := map[string]bool{}
	for i := range got {
		if ids[got[i].ID] {
			t.Errorf("id %s twice", got[i].ID)
		}
		ids[got[i].ID] = true
		got[i].ID, got[i].Source = "", ""
	}
	for i := range want {
		want[i].ID, want[i].Source = "", ""
	}
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	if !bytes.Equal(wj, gj) {
		t.Errorf("records differ when two lines are glued:\n%s\nwant\n%s", gj, wj)
	}
	if !ids["codex-0199a1b2-0c3d-7e4f-8a9b-0c1d2e3f4a5b-00000012.1"] {
		t.Errorf("no record of the second object of line 12: %v", ids)
	}
	if rep.Entries != wantRep.Entries || rep.Imported != wantRep.Imported {
		t.Errorf("report %+v, want the entries and imports of %+v", rep, wantRep)
	}
	var diags []string
	for _, d := range rep.Diagnostics {
		diags = append(diags, d.String())
	}
	if !slices.Contains(diags, "codex:12: 2 JSON objects glued on one line; each was read as an entry") {
		t.Errorf("diagnostics %q", diags)
	}
}
