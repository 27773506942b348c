package planning

import (
	"strings"
	"testing"
)

// handoffFixture is a HANDOFF.json in the shape GSD's pause-work writes
// (get-shit-done/workflows/pause-work.md).
const handoffFixture = `{
  "version": "1.0",
  "timestamp": "2026-06-02T17:40:12.000Z",
  "phase": "03",
  "phase_name": "import",
  "plan": 2,
  "task": 2,
  "total_tasks": 3,
  "status": "paused",
  "completed_tasks": [
    {"id": 1, "name": "ING columns mapped", "status": "done", "commit": "a1b2c3d"},
    {"id": 2, "name": "Decimal comma parsing", "status": "in_progress", "progress": "accepts 1.234,56"}
  ],
  "remaining_tasks": [
    {"id": 3, "name": "Rabobank format"}
  ],
  "blockers": [
    {"description": "ING exports hold real IBANs", "type": "human_action", "workaround": "anonymise by hand"},
    {"description": "None", "type": "technical"}
  ],
  "human_actions_pending": [
    {"action": "Export Rabobank statements", "context": "no fixture", "blocking": true},
    {"action": "Review the README", "blocking": false}
  ],
  "decisions": [
    {"decision": "Parse amounts with an explicit locale", "rationale": "banks disagree", "phase": "03"}
  ],
  "uncommitted_files": ["internal/parse/ing.go"],
  "next_action": "Finish decimal comma parsing",
  "context_notes": "same export tool as ING"
}
`

// TestParseHandoff reads every part of GSD's HANDOFF.json with its line,
// and reports a malformed file or a key of the wrong type at its line.
func TestParseHandoff(t *testing.T) {
	h, blockers, decisions, diags := parseHandoff("HANDOFF.json", []byte(handoffFixture))
	if h == nil || len(diags) != 0 {
		t.Fatalf("handoff %+v, diagnostics %v", h, diags)
	}
	if h.Phase != "03" || h.Plan != "2" || h.Task != "2" || h.TotalTasks != "3" || h.Status != "paused" {
		t.Errorf("position %+v", h)
	}
	if h.NextAction != "Finish decimal comma parsing" || h.NextActionLine != 29 {
		t.Errorf("next action %q at %d", h.NextAction, h.NextActionLine)
	}
	var open []string
	for _, tk := range h.OpenTasks() {
		open = append(open, tk.Name+"@"+tk.Status)
	}
	if strings.Join(open, "|") != "Decimal comma parsing@in_progress|Rabobank format@not_started" {
		t.Errorf("open tasks %q", open)
	}
	if len(blockers) != 2 || blockers[0].Source != "HANDOFF.json:18" || blockers[1].Source != "HANDOFF.json:22" ||
		blockers[0].Title != "(human action) ING exports hold real IBANs — workaround: anonymise by hand" ||
		blockers[1].Title != "(human action) Export Rabobank statements — no fixture" {
		t.Errorf("blockers %+v", blockers)
	}
	if len(decisions) != 1 || decisions[0].Text != "Parse amounts with an explicit locale — banks disagree" || decisions[0].Source != "HANDOFF.json:26" {
		t.Errorf("decisions %+v", decisions)
	}
	if len(h.UncommittedFiles) != 1 {
		t.Errorf("uncommitted files %q", h.UncommittedFiles)
	}

	for _, tc := range []struct {
		name, src string
		read      bool
		want      string // "line: message" of the one diagnostic
	}{
		{"a missing comma", "{\n  \"phase\": \"01\"\n  \"next_action\": \"x\"\n}\n", false, "3: invalid JSON (invalid character '\"' after object key:value pair); HANDOFF.json not read"},
		{"cut short", "{\n  \"phase\": \"01\",\n  \"blockers\": [\n", false, "3: invalid JSON (the file ends inside a value); HANDOFF.json not read"},
		{"not an object", "\n[1]\n", false, "2: HANDOFF.json is not a JSON object; not read"},
		{"trailing text", "{}\nmore\n", false, "2: invalid JSON (more after the JSON value); HANDOFF.json not read"},
		{"wrong type", "{\n  \"blockers\": \"none\",\n  \"next_action\": \"go\"\n}\n", true, "2: blockers: expected a list, got a string; ignored"},
	} {
		h, _, _, diags := parseHandoff("HANDOFF.json", []byte(tc.src))
		if (h != nil) != tc.read {
			t.Errorf("%s: read = %v, want %v", tc.name, h != nil, tc.read)
		}
		if len(diags) != 1 || strings.TrimPrefix(diags[0].String(), "HANDOFF.json:") != tc.want {
			t.Errorf("%s: diagnostics %v, want [HANDOFF.json:%s]", tc.name, diags, tc.want)
		}
	}
}
