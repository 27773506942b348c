package conversation

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// Golden numbers for the real transcripts, each checked against the file
// with jq (see the report): entries = non-blank lines; imported = user,
// assistant, summary and system compact_boundary/api_error entries;
// records = their content blocks (a string content is one block).
var ccGolden = []struct {
	file                                string
	entries, imported, records          int
	skipped                             map[string]int
	toolUse, toolResult, errors, compat int
}{
	{"entireio__cli__cc_90f6622c5b_1_full.jsonl", 1073, 803, 803,
		map[string]int{"file-history-snapshot": 35, "progress": 178, "queue-operation": 10, "system:stop_hook_summary": 31, "system:turn_duration": 16},
		222, 222, 17, 1},
	{"obsessiondb__chkit__fa_02322a2710_0_full.jsonl", 513, 427, 427,
		map[string]int{"progress": 70, "queue-operation": 14, "system:stop_hook_summary": 2},
		147, 146, 12, 1},
	{"theogbrand__napoli-matcha__0c_c3173e5050_0_full.jsonl", 375, 135, 135,
		map[string]int{"file-history-snapshot": 17, "progress": 216, "system:stop_hook_summary": 5, "system:turn_duration": 2},
		38, 38, 1, 1},
}

func TestImportClaudeCodeReal(t *testing.T) {
	shared := sharedtest.Dir(t)
	for _, g := range ccGolden {
		t.Run(g.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(shared, "transcripts", g.file))
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			recs, rep, err := ImportClaudeCode(f)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Entries != rep.Imported+rep.SkippedTotal() {
				t.Errorf("entries %d != imported %d + skipped %d", rep.Entries, rep.Imported, rep.SkippedTotal())
			}
			if rep.Entries != g.entries || rep.Imported != g.imported || rep.Records != g.records || len(recs) != g.records {
				t.Errorf("entries/imported/records = %d/%d/%d (len %d), want %d/%d/%d", rep.Entries, rep.Imported, rep.Records, len(recs), g.entries, g.imported, g.records)
			}
			if len(rep.Skipped) != len(g.skipped) {
				t.Errorf("skipped = %v, want %v", rep.Skipped, g.skipped)
			}
			for k, v := range g.skipped {
				if rep.Skipped[k] != v {
					t.Errorf("skipped[%s] = %d, want %d", k, rep.Skipped[k], v)
				}
			}
			var uses, results, errs, compact, boundaries int
			calls := map[string]bool{}
			ids := map[string]bool{}
			for _, r := range recs {
				if ids[r.ID] {
					t.Errorf("duplicate record id %s", r.ID)
				}
				ids[r.ID] = true
				if len(r.ToolCalls) > 0 {
					uses++
					calls[r.ToolCalls[0].ID] = true
					if r.ToolCalls[0].Arguments == "" || r.ToolCalls[0].Arguments[0] != '{' {
						t.Errorf("%s: arguments %q", r.ID, r.ToolCalls[0].Arguments)
					}
				}
				if r.Role == RoleTool {
					results++
					if !calls[r.ToolCallID] {
						t.Errorf("%s: tool result before its call %s", r.ID, r.ToolCallID)
					}
				}
				if r.IsError && r.Role == RoleTool {
					errs++
				}
				if r.CompactSummary {
					compact++
					if !strings.Contains(r.Content, "continued from a previous conversation") {
						t.Errorf("compact summary %s: %.80q", r.ID, r.Content)
					}
				}
				if r.Event == EventCompactBoundary {
					boundaries++
				}
			}
			if uses != g.toolUse || results != g.toolResult || errs != g.errors || compact != g.compat || boundaries != 1 {
				t.Errorf("tool_use %d tool_result %d errors %d compact %d boundaries %d, want %d %d %d %d 1",
					uses, results, errs, compact, boundaries, g.toolUse, g.toolResult, g.errors, g.compat)
			}
			if len(rep.Diagnostics) != 0 {
				t.Errorf("diagnostics: %v", rep.Diagnostics)
			}
			// Importing twice adds nothing.
			s := newStore(t)
			ctx := context.Background()
			if err := s.Create(ctx, "imp", Meta{AgentType: "claude-code"}); err != nil {
				t.Fatal(err)
			}
			if n, err := s.AppendNew(ctx, "imp", recs...); err != nil || n != len(recs) {
				t.Fatalf("first import appended %d, %v", n, err)
			}
			if n, err := s.AppendNew(ctx, "imp", recs...); err != nil || n != 0 {
				t.Errorf("second import appended %d, %v", n, err)
			}
			c, diags, err := s.Read("imp")
			if err != nil || len(diags) != 0 {
				t.Fatal(err, diags)
			}
			if len(c.Messages)+len(c.Events) != len(recs) || len(c.Events) != g.records-(len(c.Messages)) {
				t.Errorf("read back %d messages + %d events, want %d records", len(c.Messages), len(c.Events), len(recs))
			}
		})
	}
}

// Aider golden numbers, checked with awk (blocks) and grep -c (lines).
var aiderGolden = []struct {
	file                                 string
	sessions, users, outputs, assistants int
	userLines, outputLines               int
}{
	{"AlexShchuka__mozgoslav__.aider.chat.history.md", 3, 21, 31, 16, 305, 114},
	{"BjornNordblom__pocketflow-text2sql-gui__.aider.chat.history.md", 1, 63, 77, 63, 2611, 401},
}

func TestImportAiderReal(t *testing.T) {
	shared := sharedtest.Dir(t)
	for _, g := range aiderGolden {
		t.Run(g.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(shared, "transcripts", "aider", g.file))
			if err != nil {
				t.Fatal(err)
			}
			recs, rep, err := ImportAider(strings.NewReader(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			want := g.sessions + g.users + g.outputs + g.assistants
			if rep.Entries != want || rep.Imported != want || rep.SkippedTotal() != 0 || len(recs) != want {
				t.Errorf("entries %d imported %d skipped %v records %d, want %d", rep.Entries, rep.Imported, rep.Skipped, len(recs), want)
			}
			var s, u, o, a, ul, ol int
			for _, r := range recs {
				lines := strings.Count(r.Content, "\n") + 1
				switch {
				case r.Event == EventSessionStart:
					s++
				case r.Role == RoleUser:
					u++
					ul += lines
				case r.Role == RoleSystem:
					o++
					ol += lines
				case r.Role == RoleAssistant:
					a++
				}
			}
			if s != g.sessions || u != g.users || o != g.outputs || a != g.assistants || ul != g.userLines || ol != g.outputLines {
				t.Errorf("sessions/users/outputs/assistants = %d/%d/%d/%d, lines %d/%d; want %d/%d/%d/%d, %d/%d",
					s, u, o, a, ul, ol, g.sessions, g.users, g.outputs, g.assistants, g.userLines, g.outputLines)
			}
			// Read order equals file order.
			sorted := Normalize(append([]Record(nil), recs...))
			for i := range recs {
				if sorted[i].ID != recs[i].ID {
					t.Fatalf("read order differs from file order at %d: %s vs %s", i, sorted[i].ID, recs[i].ID)
				}
			}
		})
	}
}

func TestImportClaudeCodeSmall(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"user","uuid":"u1","timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"fix the build"}}`,
		`{"type":"assistant","uuid":"a1","timestamp":"2026-02-01T10:00:01Z","message":{"role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"hmm"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go build ./...", "n": 1}}]}}`,
		`{"type":"user","uuid":"u2","timestamp":"2026-02-01T10:00:02Z","isSidechain":true,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"exit 1"},{"type":"image"}]}]}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"s1","timestamp":"2026-02-01T10:00:03Z","content":"Conversation compacted","compactMetadata":{"trigger":"manual","preTokens":500}}`,
		`{"type":"user","uuid":"u3","timestamp":"2026-02-01T10:00:04Z","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}`,
		`{"type":"progress","uuid":"p1"}`,
		``,
		`{"type":"user","uuid":"u4","timestamp":"nope","message":{"role":"user","content":"x"}}`,
		`{not json`,
		`{"type":"assistant","uuid":"a2","timestamp":"2026-02-01T10:00:05Z","message":{"role":"assistant","content":[]}}`,
	}, "\n")
	recs, rep, err := ImportClaudeCode(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{ID: "cc-u1", Role: RoleUser, Content: "fix the build"},
		{ID: "cc-a1-0", Role: RoleAssistant, Internal: true, Content: "hmm", Model: "claude-x"},
		{ID: "cc-a1-1", Role: RoleAssistant, Model: "claude-x", ToolCalls: []ToolCall{{ID: "toolu_1", Name: "Bash", Arguments: `{"command":"go build ./...", "n": 1}`}}},
		{ID: "cc-u2", Role: RoleTool, ToolCallID: "toolu_1", IsError: true, Sidechain: true, Content: "exit 1\n[image]"},
		{ID: "cc-s1", Kind: KindMeta, Event: EventCompactBoundary, Content: "Conversation compacted (trigger manual, 500 tokens before)"},
		{ID: "cc-u3", Role: RoleUser, CompactSummary: true, Content: "This session is being continued"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(want), recs)
	}
	for i, w := range want {
		r := recs[i]
		if r.ID != w.ID || r.Role != w.Role || r.Content != w.Content || r.Internal != w.Internal || r.IsError != w.IsError ||
			r.Sidechain != w.Sidechain || r.CompactSummary != w.CompactSummary || r.Event != w.Event || r.ToolCallID != w.ToolCallID ||
			r.Model != w.Model || len(r.ToolCalls) != len(w.ToolCalls) || (len(w.ToolCalls) > 0 && r.ToolCalls[0] != w.ToolCalls[0]) {
			t.Errorf("record %d = %+v\nwant %+v", i, r, w)
		}
	}
	if rep.Entries != 9 || rep.Imported != 5 || rep.Skipped["progress"] != 1 || rep.Skipped["malformed JSON"] != 1 ||
		rep.Skipped["malformed: bad timestamp"] != 1 || rep.Skipped["empty content"] != 1 {
		t.Errorf("report %+v", rep)
	}
	if len(rep.Diagnostics) != 2 || rep.Diagnostics[0].Line != 8 || rep.Diagnostics[1].Line != 9 {
		t.Errorf("diagnostics %v, want lines 8 and 9", rep.Diagnostics)
	}
}

func TestImportAiderSmall(t *testing.T) {
	in := "intro text\n\n# aider chat started at 2026-04-22 22:40:12\n\n> Aider v0.86.2  \n>  \n> Model: x  \n\n#### hi  \n#### there  \n\nHello!\n\n```go\n#### not a user line (aider's rule)\n```\n\n> Applied edit to a.go  \n# aider chat started at bad\n"
	recs, rep, err := ImportAider(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.ID+"|"+r.Role+r.Event+"|"+r.Content)
	}
	want := []string{
		"aider-00000001|assistant|intro text",
		"aider-00000003|session_start|2026-04-22 22:40:12",
		"aider-00000005|system|Aider v0.86.2\n\nModel: x",
		"aider-00000009|user|hi\nthere",
		"aider-00000012|assistant|Hello!\n\n```go",
		"aider-00000015|user|not a user line (aider's rule)",
		"aider-00000016|assistant|```",
		"aider-00000018|system|Applied edit to a.go",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if recs[0].Time.Unix() != 0 || recs[3].Time.Format("2006-01-02T15:04:05Z07:00") != "2026-04-22T22:40:12Z" {
		t.Errorf("times %v %v", recs[0].Time, recs[3].Time)
	}
	if rep.Entries != 9 || rep.Imported != 8 || rep.Skipped["malformed session marker"] != 1 || len(rep.Diagnostics) != 1 || rep.Diagnostics[0].Line != 19 {
		t.Errorf("report %+v", rep)
	}
}

// TestImportWrongFormat gives each importer the other's format, and inputs
// of neither: every one is a *FormatError naming the expected format, with
// no record, and the hint at the other importer where it applies. The real
// files of ../shared/transcripts are used when present.
func TestImportWrongFormat(t *testing.T) {
	aider := "# aider chat started at 2026-04-22 22:40:12\n\n> Aider v0.86.2  \n\n#### add a health check  \n\nAdded `/healthz`.\n"
	cc := `{"type":"user","uuid":"u1","timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"hi"}}` + "\n"
	tests := []struct {
		name, in string
		imp      func(io.Reader) ([]Record, Report, error)
		what     string
		reasons  []string // substrings of the error
		realdata string   // a file of ../shared/transcripts used instead of in
	}{
		{"claude-code on aider", aider, ImportClaudeCode, ccWhat, []string{"none of its 4 non-blank lines", "line 1: malformed JSON", "use `recite import aider`"}, ""},
		{"claude-code on JSON objects without a type", `{"role":"user"}` + "\n[1,2]\n", ImportClaudeCode, ccWhat, []string{"none of its 2 non-blank lines", "line 1: malformed: no type"}, ""},
		{"claude-code on empty", "\n\n", ImportClaudeCode, ccWhat, []string{"it is empty"}, ""},
		{"aider on JSONL", "\n" + cc, ImportAider, aiderWhat, []string{"line 2 is a JSON object", "use `recite import claude-code`"}, ""},
		{"aider on plain text", "just some notes\n\n> a quote\n", ImportAider, aiderWhat, []string{"none of its 3 lines is a \"#### \" user line"}, ""},
		{"aider on empty", "", ImportAider, aiderWhat, []string{"it is empty"}, ""},
		{"claude-code on real aider", "", ImportClaudeCode, ccWhat, []string{"non-blank lines is a transcript entry", "use `recite import aider`"}, "aider/AlexShchuka__mozgoslav__.aider.chat.history.md"},
		{"aider on real claude-code", "", ImportAider, aiderWhat, []string{"line 1 is a JSON object"}, "theogbrand__napoli-matcha__0c_c3173e5050_0_full.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tt.in)
			if tt.realdata != "" {
				f, err := os.Open(filepath.Join(sharedtest.Dir(t), "transcripts", filepath.FromSlash(tt.realdata)))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				r = f
			}
			recs, _, err := tt.imp(r)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FormatError", err)
			}
			if recs != nil || fe.What != tt.what {
				t.Errorf("%d records, format %q; want none, %q", len(recs), fe.What, tt.what)
			}
			for _, want := range tt.reasons {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
	// The right importer on the same inputs still succeeds.
	if _, _, err := ImportAider(strings.NewReader(aider)); err != nil {
		t.Errorf("aider: %v", err)
	}
	if _, _, err := ImportClaudeCode(strings.NewReader(cc)); err != nil {
		t.Errorf("claude-code: %v", err)
	}
}
