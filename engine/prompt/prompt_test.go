package prompt

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixtureProject is a small planning model built by hand.
func fixtureProject() *planning.Project {
	plan := &planning.Plan{
		Path: "phases/02-api/02-02-PLAN.md", ID: "02-02", Title: "Redirects",
		FilesModified: []string{"internal/api/handler.go"},
		Tasks: []planning.Task{
			{Text: "Task 1: Redirect handler", State: "done", Line: 20},
			{Text: "Task 2: JSON errors", State: "todo", Line: 30, Files: []string{"internal/api/errors.go"}},
			{Text: "Task 3: Browser check", State: "todo", Line: 40},
		},
		Markdown: markdown.Parse("02-02-PLAN.md", []byte("---\nphase: 02-api\n---\n# Plan 02-02: Redirects\n\n<task type=\"auto\"><name>Task 1: Redirect handler</name></task>\n")),
	}
	ph := &planning.Phase{Number: "2", Name: "HTTP API", Goal: "Links redirect", Status: "in_progress", Plans: []*planning.Plan{plan}}
	return &planning.Project{
		Flavor:       planning.FlavorGSD,
		Brief:        &planning.Doc{Path: "PROJECT.md", Markdown: markdown.Parse("PROJECT.md", []byte("# shortlink\n\nA URL shortener. 短链接。\n"))},
		Phases:       []*planning.Phase{{Number: "1", Name: "Storage", Status: "complete"}, ph},
		CurrentPhase: ph,
		CurrentPlan:  plan,
		NextTask:     &plan.Tasks[1],
		State:        &planning.State{Path: "STATE.md", Status: "executing", LastActivity: "2026-03-04 — started 02-02"},
		Blockers:     []planning.Blocker{{ID: "BLOCKER-001", Priority: "P1", Title: "Redirect returns 404", Status: "open", Source: "BLOCKERS.md:12"}, {ID: "B-02", Title: "old", Status: "resolved", Source: "BLOCKERS.md:20"}},
		Decisions:    []planning.Decision{{Text: "Use net/http patterns"}, {Text: "302 not 301"}, {Text: "Slugs of 7 runes"}, {Text: "writeError helper"}},
	}
}

func fixtureMessages() []Message {
	return []Message{
		{ID: "m1", Role: "user", Content: "Implement task 2."},
		{ID: "m2", Role: "assistant", Agent: "developer", Content: "Running the tests first.", ToolCalls: []ToolCall{
			{ID: "call_1", Name: "bash", Arguments: `{"cmd":"go test ./..."}`},
			{ID: "call_2", Name: "read", Arguments: `{"path": "internal/api/handler.go"`}, // invalid JSON, kept verbatim
		}},
		{ID: "m3", Role: "tool", ToolCallID: "call_1", ToolName: "bash", IsError: true, Content: "--- FAIL: TestRedirect (0.00s)\n    handler_test.go:41: got 404, want 302"},
		{ID: "m4", Role: "tool", ToolCallID: "call_2", ToolName: "read", Content: "package api"},
		{ID: "m5", Role: "assistant", Agent: "developer", Content: "The store lookup uses the wrong key."},
		{ID: "m6", Role: "user", Content: "Fix it."},
		{ID: "m7", Role: "user", Content: "And add a test."},
	}
}

func fixtureInput() Input {
	return Input{
		Target: "agent", Role: "implementer",
		RoleTemplate: "You are the implementer.",
		System:       []File{{Path: "AGENTS.md", Text: "Run go test before commits."}},
		Project:      fixtureProject(), PlanningDir: ".planning",
		Health:       []string{"State: PROGRESS", "Circuit breaker: HEALTHY (stall 0/3, spin 1/3)"},
		Approach:     []string{"Fix the lookup key in the store"},
		Preserved:    &File{Path: ".planning/context-preserved.md", Text: "## Context Preservation Block (auto-generated)\ntrigger: manual"},
		Errors:       []string{"handler_test.go:41: got 404, want 302"},
		ErrorSources: []string{"conversations/main.jsonl"},
		Messages:     fixtureMessages(),
		Conversation: ".planning/conversations/main.jsonl",
	}
}

func TestRenderGolden(t *testing.T) {
	p := Assemble(fixtureInput())
	for _, prov := range Providers() {
		t.Run(prov, func(t *testing.T) {
			body, err := Render(p, prov, RenderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := validateBody(prov, body); err != nil {
				t.Fatalf("invalid %s body: %v", prov, err)
			}
			again, _ := Render(p, prov, RenderOptions{})
			if !bytes.Equal(body, again) {
				t.Fatal("two renders differ")
			}
			golden(t, "conversation."+prov, body)
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file; run go test -update and review the diff\ngot:\n%s", name, got)
	}
}

func TestSectionOrder(t *testing.T) {
	p := Assemble(fixtureInput())
	var ids []string
	for _, s := range p.Sections {
		ids = append(ids, s.ID+":"+s.Tier.String())
	}
	want := "system:stable,brief:stable,plan:stable,state:semi,health:semi,conversation:dynamic,preserved:dynamic,errors:dynamic,recitation:dynamic"
	if got := strings.Join(ids, ","); got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}

// TestCheckRejects: each body breaks one rule a provider enforces, and
// Check names it.
func TestCheckRejects(t *testing.T) {
	const (
		an = `"model":"claude-sonnet-5-5","max_tokens":10,`
		oa = `"model":"gpt-6.1-sol",`
		ol = `"model":"gemma4","stream":false,"options":{"num_ctx":4096,"num_predict":16},`
		u  = `{"role":"user","content":[{"type":"text","text":"a"}]}`
	)
	tu := `{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}`
	mark := `{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}`
	for _, tc := range []struct{ prov, body, want string }{
		{Anthropic, `{"max_tokens":10,"messages":[` + u + `]}`, "model: missing"},
		{Anthropic, `{"model":"claude-sonnet-5-5","messages":[` + u + `]}`, "max_tokens: missing"},
		{Anthropic, `{` + an + `"messages":[{"role":"assistant","content":[{"type":"text","text":"x"}]}]}`, "first message must be a user turn"},
		{Anthropic, `{` + an + `"messages":[` + u + `,` + u + `]}`, "two user turns in a row"},
		{Anthropic, `{` + an + `"tools":[{"name":"x","input_schema":{"type":"object"}}],"messages":[` + u + `,` + tu + `,{"role":"user","content":[{"type":"text","text":"b"},{"type":"tool_result","tool_use_id":"t"}]}]}`, "results come first"},
		{Anthropic, `{` + an + `"messages":[` + u + `,` + tu + `,` + u + `]}`, "which \"tools\" does not define"},
		{Anthropic, `{` + an + `"tools":[{"name":"x","input_schema":{"type":"object"}}],"messages":[` + u + `,` + tu + `,` + u + `]}`, "not answered"},
		{Anthropic, `{` + an + `"system":[` + strings.Repeat(mark+",", 4) + mark + `],"messages":[` + u + `]}`, "5 cache_control breakpoints"},
		{Anthropic, `{` + an + `"messages":[` + u + `],"temperature":1}`, "unknown field"},
		{Anthropic, `{` + an + `"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`, "empty text block"},
		{OpenAI, `{"messages":[{"role":"user","content":"x"}]}`, "model: missing"},
		{OpenAI, `{` + oa + `"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"x","arguments":"{}"}}]}]}`, "not answered"},
		{OpenAI, `{` + oa + `"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"x","arguments":{}}}]},{"role":"tool","tool_call_id":"a","content":"r"}]}`, "must be a JSON string"},
		{OpenAI, `{` + oa + `"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"b","type":"function","function":{"name":"x","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"r"},{"role":"tool","tool_call_id":"b","content":"r"}]}`, `tool message for "a"`},
		{OpenAI, `{` + oa + `"input":[{"type":"function_call","call_id":"c","name":"x","arguments":"{}"}]}`, "not answered"},
		{OpenAI, `{` + oa + `"input":[{"type":"function_call_output","call_id":"c","output":"r"}]}`, "no earlier function_call"},
		{Gemini, `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"text":"no response"}]}]}`, "first content must be a user turn"},
		{Gemini, `{"contents":[{"role":"assistant","parts":[{"text":"x"}]}]}`, `role "assistant"`},
		{Gemini, `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"text":"no response"}]}]}`, "not answered by a functionResponse"},
		{Gemini, `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "without its thoughtSignature"},
		{Ollama, `{"model":"gemma4","messages":[{"role":"user","content":"x"}]}`, "num_ctx: missing"},
		{Ollama, `{` + ol + `"messages":[{"role":"system","content":"s"},{"role":"tool","content":"r"}]}`, "no assistant message right before it called"},
		{Ollama, `{` + ol + `"messages":[{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}]}`, "must be a JSON object"},
		{Ollama, `{"model":"gemma4","options":{"num_ctx":200000,"num_predict":1},"messages":[{"role":"user","content":"x"}]}`, "over gemma4's context length"},
	} {
		probs := Check(tc.prov, []byte(tc.body), CheckOptions{})
		if !strings.Contains(fmt.Sprint(probs), tc.want) {
			t.Errorf("%s %s: problems %v, want one saying %q", tc.prov, tc.body, probs, tc.want)
		}
	}
	// The window: a prompt over num_ctx, counted with a counter.
	words := func(s string) int { return len(strings.Fields(s)) }
	body := `{"model":"gemma4","stream":false,"options":{"num_ctx":20,"num_predict":5},"messages":[{"role":"user","content":"` + strings.Repeat("w ", 16) + `"}]}`
	if probs := Check(Ollama, []byte(body), CheckOptions{Count: words}); !strings.Contains(fmt.Sprint(probs), "over options.num_ctx") {
		t.Errorf("a 16-word prompt in num_ctx 20 less 5: %v", probs)
	}
}

// TestEarlierTiersUnchanged checks
// docs/architecture.md#earlier-tiers-never-move: editing a semi or dynamic
// section never changes the bytes of an earlier tier, and a new message
// changes only bytes after the previous last message.
func TestEarlierTiersUnchanged(t *testing.T) {
	in := fixtureInput()
	a := Assemble(in)
	in2 := fixtureInput()
	in2.Project.State.Status = "verifying"
	in2.Health = []string{"State: STALLED"}
	b := Assemble(in2)
	in3 := fixtureInput()
	in3.Messages = append(in3.Messages, Message{ID: "m8", Role: "assistant", Content: "Done: fixed the key."})
	c := Assemble(in3)
	stable := a.TierText(Stable)
	lastMsg := fixtureMessages()[len(fixtureMessages())-1].Content
	for _, prov := range Providers() {
		ab, _ := Render(a, prov, RenderOptions{})
		bb, _ := Render(b, prov, RenderOptions{})
		cb, _ := Render(c, prov, RenderOptions{})
		end := endOf(t, ab, stable)
		if n := commonPrefix(ab, bb); n < end {
			t.Errorf("%s: a semi edit changed byte %d, inside the stable tier (ends at %d)", prov, n, end)
		}
		if !a.Section(IDConversation).Pinned && (prov == Markdown || prov == Text) {
			continue
		}
		endMsg := endOf(t, ab, lastMsg)
		if n := commonPrefix(ab, cb); n < endMsg {
			t.Errorf("%s: a new message changed byte %d, before the end of the previous last message (%d)", prov, n, endMsg)
		}
	}
}

// endOf returns the offset just after the last occurrence of text (or of its
// JSON-escaped form) in body.
func endOf(t *testing.T, body []byte, text string) int {
	t.Helper()
	tail := strings.TrimSpace(text)
	if len(tail) > 60 {
		tail = tail[len(tail)-60:]
	}
	for _, needle := range []string{tail, jsonEscape(tail)} {
		if i := bytes.LastIndex(body, []byte(needle)); i >= 0 {
			return i + len(needle)
		}
	}
	t.Fatalf("%q not found in body", tail)
	return 0
}

func jsonEscape(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b := bytes.TrimSpace(buf.Bytes())
	return string(b[1 : len(b)-1])
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func TestFitKeepsPinnedAndPairs(t *testing.T) {
	in := fixtureInput()
	for i := 0; i < 40; i++ {
		in.Messages = append(in.Messages, fixtureMessages()...)
	}
	in.Errors = []string{"e1", "e2", "e3", "e4", "e5"}
	p := Assemble(in)
	count := func(s string) int { return utf8.RuneCountInString(s) / 4 }
	full := p.Count(count)
	stableAndPinned := 0
	for _, s := range p.Sections {
		if s.Pinned {
			stableAndPinned += s.Tokens
		}
	}
	budget := stableAndPinned + 60
	got := p.Fit(count, budget)
	if got >= full {
		t.Fatalf("nothing cut: %d -> %d", full, got)
	}
	if len(p.Cuts) == 0 {
		t.Fatal("cuts not reported")
	}
	for _, id := range []string{IDSystem, IDBrief, IDPlan, IDPreserved, IDRecitation} {
		if p.Section(id) == nil {
			t.Errorf("pinned section %s dropped", id)
		}
	}
	if len(p.Messages) == 0 || p.Messages[0].Role == "tool" {
		t.Fatalf("conversation starts with an orphan tool result: %+v", p.Messages)
	}
	for _, prov := range []string{Anthropic, OpenAI, Gemini, Ollama} {
		body, _ := Render(p, prov, RenderOptions{})
		if err := validateBody(prov, body); err != nil {
			t.Errorf("%s after fit: %v", prov, err)
		}
	}
}

func TestMessageGroups(t *testing.T) {
	got := messageGroups(fixtureMessages())
	if fmt.Sprint(got) != "[1 3 1 1 1]" {
		t.Fatalf("groups %v", got)
	}
}

// leadingCallMessages is a tail pruned to start at a tool call (a window
// over an imported Claude Code transcript), with parallel calls recorded
// one per message, a result without a call id, an orphan result whose
// call was pruned, and a call whose result is missing.
func leadingCallMessages() []Message {
	return []Message{
		{ID: "a1", Role: "assistant", ToolCalls: []ToolCall{{ID: "toolu_1", Name: "Read", Arguments: `{"file_path":"src/a.ts"}`}}},
		{ID: "a2", Role: "assistant", ToolCalls: []ToolCall{{ID: "toolu_2", Name: "Bash", Arguments: `{"command":"ls"}`}}},
		{ID: "t1", Role: "tool", ToolCallID: "toolu_1", ToolName: "Read", Content: "export const a = 1"},
		{ID: "t2", Role: "tool", ToolName: "Bash", Content: "a.ts"},
		{ID: "t9", Role: "tool", ToolCallID: "toolu_gone", ToolName: "Grep", Content: "orphan"},
		{ID: "a3", Role: "assistant", Content: "Read it.", ToolCalls: []ToolCall{{ID: "toolu_3", Name: "Edit", Arguments: `{}`}}},
		{ID: "u1", Role: "user", Content: "go on"},
		{ID: "a4", Role: "assistant", Content: "Done."},
	}
}

// TestRenderLeadingToolCall: a tail that opens with a model tool call
// renders a valid body for every provider (gemini and anthropic open with
// a user turn), no tool result is orphaned, and every call is answered.
func TestRenderLeadingToolCall(t *testing.T) {
	in := fixtureInput()
	in.Messages = leadingCallMessages()
	p := Assemble(in)
	for _, prov := range Providers() {
		t.Run(prov, func(t *testing.T) {
			body, err := Render(p, prov, RenderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := validateBody(prov, body); err != nil {
				t.Fatalf("invalid %s body: %v\n%s", prov, err, body)
			}
			for _, w := range []string{"export const a = 1", "orphan"} {
				if !bytes.Contains(body, []byte(w)) {
					t.Errorf("%s body lost %q", prov, w)
				}
			}
			golden(t, "leading-call."+prov, body)
		})
	}
}

func TestMessageGroupsParallelCalls(t *testing.T) {
	if got := fmt.Sprint(messageGroups(leadingCallMessages())); got != "[5 1 1 1]" {
		t.Fatalf("groups %v, want [5 1 1 1]", got)
	}
}

// TestFitShortensBeforeDropping: after a compression pass shrank the state
// section (its shorter forms, computed before, are now longer), Fit never
// records a negative saving, shortens the files (head and tail) before
// dropping any section, and stops as soon as the prompt fits.
func TestFitShortensBeforeDropping(t *testing.T) {
	in := fixtureInput()
	in.Messages = nil
	var long strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&long, "line %d of the handler\n", i)
	}
	in.Files = []File{{Path: "internal/api/handler.go", Text: long.String()}, {Path: "go.mod", Text: "module x\n"}}
	p := Assemble(in)
	st := p.Section(IDState)
	st.Body = "[evicted at RED] Position: Phase 2 of 2"
	count := func(s string) int { return utf8.RuneCountInString(s) / 4 }
	full := p.Count(count)
	files := p.Section(IDFiles).Tokens
	budget := full - files/5
	got := p.Fit(count, budget)
	if got > budget {
		t.Fatalf("total %d over budget %d; cuts %v", got, budget, p.Cuts)
	}
	for _, c := range p.Cuts {
		if strings.Contains(c, "(-") || strings.Contains(c, "dropped") {
			t.Errorf("cut %q", c)
		}
	}
	f := p.Section(IDFiles)
	if f == nil || p.Section(IDState) == nil || p.Section(IDHealth) == nil {
		t.Fatalf("a section was dropped: cuts %v", p.Cuts)
	}
	for _, w := range []string{"line 1 of the handler", "line 120 of the handler", "⟨internal/api/handler.go: ", "module x"} {
		if !strings.Contains(f.Body, w) {
			t.Errorf("files section lacks %q", w)
		}
	}
	if got < budget*9/10 {
		t.Errorf("cut too much: %d of %d", got, budget)
	}
}

// topKeys returns the top-level keys of a JSON object body, in order.
func topKeys(t *testing.T, body []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestRenderModel checks where a target's model goes: the first key of the
// anthropic, openai and ollama bodies, the provider's default model when
// the target names none; max_tokens (the target's, else 4096) right after
// it in the anthropic body, which the Messages API requires; never into
// the gemini body (the model is in its URL).
func TestRenderModel(t *testing.T) {
	p := Assemble(fixtureInput())
	tests := []struct {
		prov  string
		opts  RenderOptions
		want  string // top-level keys
		model string
		max   int // anthropic max_tokens, 0 for none
	}{
		{Anthropic, RenderOptions{}, "model,max_tokens,tools,system,messages", DefaultAnthropicModel, 4096},
		{Anthropic, RenderOptions{MaxTokens: 1024}, "model,max_tokens,tools,system,messages", DefaultAnthropicModel, 1024},
		{Anthropic, RenderOptions{Model: "claude-opus-5-5"}, "model,max_tokens,tools,system,messages", "claude-opus-5-5", 4096},
		{OpenAI, RenderOptions{}, "model,messages,prompt_cache_key", DefaultOpenAIModel, 0},
		{OpenAI, RenderOptions{Model: "gpt-5.5", MaxTokens: 1024}, "model,messages,prompt_cache_key", "gpt-5.5", 0},
		{OpenAI, RenderOptions{OpenAIAPI: OpenAIResponses}, "model,instructions,input,prompt_cache_key", DefaultOpenAIModel, 0},
		{Ollama, RenderOptions{}, "model,messages,stream,options", DefaultOllamaModel, 0},
		{Ollama, RenderOptions{Model: "llama3.1"}, "model,messages,stream,options", "llama3.1", 0},
		{Gemini, RenderOptions{}, "systemInstruction,contents", "", 0},
		{Gemini, RenderOptions{Model: "gemini-2.5-pro", MaxTokens: 1024}, "systemInstruction,contents", "", 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%d/%s", tt.prov, tt.opts.Model, tt.opts.MaxTokens, tt.opts.OpenAIAPI), func(t *testing.T) {
			body, err := Render(p, tt.prov, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if probs := Check(tt.prov, body, CheckOptions{Model: tt.opts.Model}); probs != nil {
				t.Fatalf("invalid %s body: %v", tt.prov, probs)
			}
			if got := strings.Join(topKeys(t, body), ","); got != tt.want {
				t.Fatalf("keys %s, want %s", got, tt.want)
			}
			var head struct {
				Model     string `json:"model"`
				MaxTokens int    `json:"max_tokens"`
			}
			if err := json.Unmarshal(body, &head); err != nil {
				t.Fatal(err)
			}
			if head.Model != tt.model || head.MaxTokens != tt.max {
				t.Errorf("model %q max_tokens %d, want %q %d", head.Model, head.MaxTokens, tt.model, tt.max)
			}
		})
	}
}
