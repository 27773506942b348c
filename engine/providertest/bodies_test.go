package providertest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// recited is one request body recite wrote.
type recited struct {
	tree, target, provider, path string
	model                        string // the model the body names (gemini: the URL's)
	body                         []byte
}

// treeConfig writes every provider for the default target, and the
// Responses API and Gemini 2.5 (function calls kept as calls) for a second
// target; both carry conversation conv when it is not "".
func treeConfig(conv string) string {
	c := "targets:\n  - name: agent\n    providers: [markdown, anthropic, openai, gemini, ollama, text, deepseek, openrouter, huggingface, replicate]\n"
	if conv != "" {
		c += "    conversation: " + conv + "\n"
	}
	// The other forms: the Responses API, Gemini 2.5, a Hugging Face
	// text-generation endpoint, an OpenRouter model without breakpoints,
	// and a declared tools block.
	c += "  - name: responses\n    providers: [openai, gemini, huggingface, openrouter]\n    openai_api: responses\n    huggingface_api: text-generation\n" +
		"    models: {gemini: gemini-2.5-pro, openrouter: meta-llama/llama-3.3-70b-instruct}\n    tool_set: [bash, Read, edit]\n"
	if conv != "" {
		c += "    conversation: " + conv + "\n"
	}
	return c
}

// buildTree copies root into a temp dir, initialises it when it has no
// recite.yaml, writes treeConfig, appends recs (none: no conversation) to
// conversation "main", builds, and returns every body written.
func buildTree(t *testing.T, name, root string, recs []conversation.Record) []recited {
	t.Helper()
	dir := t.TempDir()
	if err := sharedtest.CopyTree(root, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, config.FileName)); err != nil {
		if _, err := engine.Init(dir, ""); err != nil {
			t.Fatal(err)
		}
	}
	conv := ""
	if recs != nil {
		conv = "main"
		appendConversation(t, dir, recs)
	}
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(treeConfig(conv)), 0o644); err != nil {
		t.Fatal(err)
	}
	e := engine.New(dir)
	rep, err := e.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []recited
	for _, tr := range rep.Targets {
		var tg *config.Target
		for i := range cfg.Targets {
			if cfg.Targets[i].Name == tr.Name {
				tg = &cfg.Targets[i]
			}
		}
		for _, f := range tr.Files {
			b, err := os.ReadFile(filepath.Join(dir, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, recited{tree: name, target: tr.Name, provider: f.Provider, path: f.Path, model: tg.ModelFor(f.Provider), body: b})
		}
	}
	probs, err := e.CheckBuild(context.Background(), rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("%s: prompt.Check: %s", name, p)
	}
	return out
}

// transcriptRecords imports a Claude Code transcript.
func transcriptRecords(t testing.TB, path string) []conversation.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, _, err := conversation.ImportClaudeCode(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func appendConversation(t *testing.T, dir string, recs []conversation.Record) {
	t.Helper()
	s, err := engine.New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Create(ctx, "main", conversation.Meta{AgentType: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendNew(ctx, "main", recs...); err != nil {
		t.Fatal(err)
	}
}

// allBodies builds the two examples, each bare and with a conversation
// (toolRecords) bound to both targets.
func allBodies(t *testing.T) []recited {
	root := sharedtest.ModuleRoot()
	var out []recited
	for _, ex := range []string{"gsd", "fire"} {
		out = append(out, buildTree(t, ex, filepath.Join(root, "examples", ex), nil)...)
		out = append(out, buildTree(t, ex+"+conversation", filepath.Join(root, "examples", ex), toolRecords())...)
	}
	return out
}

// toolRecords is a conversation with what replays are made of: a tool call
// and its failed result, parallel calls recorded one per message, a call
// whose result was never recorded, a result whose call was pruned, invalid
// JSON arguments, a tool name no provider accepts as it is, and a last
// assistant turn.
func toolRecords() []conversation.Record {
	return []conversation.Record{
		{ID: "m01", Role: "user", Content: "Make the redirect test pass."},
		{ID: "m02", Role: "assistant", Content: "Running the tests.", ToolCalls: []conversation.ToolCall{{ID: "call_1", Name: "bash", Arguments: `{"cmd":"go test ./..."}`}}},
		{ID: "m03", Role: "tool", ToolCallID: "call_1", ToolName: "bash", IsError: true, Content: "--- FAIL: TestRedirect\nhandler_test.go:41: got 404, want 302"},
		{ID: "m04", Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "toolu_a", Name: "Read", Arguments: `{"file_path":"internal/api/handler.go"}`}}},
		{ID: "m05", Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "toolu_b", Name: "mcp.fs/grep", Arguments: `{"pattern": "Lookup"`}}},
		{ID: "m06", Role: "tool", ToolCallID: "toolu_a", ToolName: "Read", Content: "package api"},
		{ID: "m07", Role: "tool", ToolName: "Glob", Content: "a result whose call was pruned"},
		{ID: "m08", Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "call_9", Name: "edit", Arguments: ""}}},
		{ID: "m09", Role: "user", Content: "Go on."},
		{ID: "m10", Role: "assistant", Content: "The lookup uses the wrong key; fixing it now. "},
	}
}

func realBodies(t *testing.T) []recited {
	var out []recited
	recs := transcriptRecords(t, sharedtest.File(t, "transcripts/theogbrand__napoli-matcha__0c_c3173e5050_0_full.jsonl"))
	for _, tr := range sharedtest.Trees(t) {
		out = append(out, buildTree(t, tr.Name, tr.Root, recs)...)
	}
	return out
}

func newFake(t *testing.T) *fakeAPI {
	c, err := budget.NewCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeAPI{count: c.Count, window: func(provider, model string) prompt.Limit {
		return prompt.Limits(provider, model, prompt.LimitOverride{})
	}}
}

// send POSTs body to the provider's fake server and returns the status and
// the answer.
func send(t *testing.T, servers map[string]string, r recited) (int, string) {
	t.Helper()
	url := servers[r.provider] + endpoint(r.provider, r.model, r.body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func servers(t *testing.T, f *fakeAPI) map[string]string {
	out := map[string]string{}
	for _, p := range prompt.Providers() {
		if p != prompt.Markdown && p != prompt.Text {
			out[p] = f.start(t, p).URL
		}
	}
	return out
}

// acceptEvery checks each JSON body with its SDK and its fake server.
func acceptEvery(t *testing.T, bodies []recited) {
	f := newFake(t)
	srv := servers(t, f)
	seen := map[string]int{}
	for _, r := range bodies {
		if r.provider == prompt.Markdown || r.provider == prompt.Text {
			continue
		}
		seen[r.provider]++
		name := fmt.Sprintf("%s/%s/%s", r.tree, r.target, filepath.Base(r.path))
		if _, err := sdkDecode(r.provider, r.body); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if code, answer := send(t, srv, r); code != http.StatusOK {
			t.Errorf("%s: the fake %s API answered %d: %s", name, r.provider, code, answer)
		}
	}
	for _, p := range prompt.Providers() {
		if seen[p] == 0 && p != prompt.Markdown && p != prompt.Text {
			t.Errorf("no %s body was checked", p)
		}
	}
}

// TestExampleBodiesAccepted: every body recite writes for the examples,
// with and without a replayed conversation, in every provider's shape
// (openai in both APIs), decodes into the SDK's request type, passes
// prompt.Check and gets a 200 from the fake API.
func TestExampleBodiesAccepted(t *testing.T) {
	acceptEvery(t, allBodies(t))
}

// TestRealdataBodiesAccepted does the same for every real planning tree in
// ../shared/realdata (skipped when absent), each carrying a replayed Claude
// Code conversation.
func TestRealdataBodiesAccepted(t *testing.T) {
	acceptEvery(t, realBodies(t))
}

// TestBodiesBeforeRejected: the bodies recite wrote before provider bodies
// named their model (testdata/before, the examples' golden files of that time)
// are rejected by the SDK check or the fake API, for the reasons that made
// provider bodies name their model: no model, no max_tokens, no num_ctx.
func TestBodiesBeforeRejected(t *testing.T) {
	f := newFake(t)
	srv := servers(t, f)
	for _, tc := range []struct{ file, provider, want string }{
		{"gsd.anthropic.json", prompt.Anthropic, "model, max_tokens and messages are required"},
		{"gsd.openai.json", prompt.OpenAI, "model and messages are required"},
		{"gsd.ollama.json", prompt.Ollama, "model and messages are required"},
		{"fire.anthropic.json", prompt.Anthropic, "model, max_tokens and messages are required"},
		{"fire.ollama.json", prompt.Ollama, "model and messages are required"},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "before", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		code, answer := send(t, srv, recited{provider: tc.provider, model: prompt.DefaultModel(tc.provider), body: b})
		if code != http.StatusBadRequest || !strings.Contains(answer, tc.want) {
			t.Errorf("%s: answered %d %s, want 400 saying %q", tc.file, code, answer, tc.want)
		}
	}
}

// TestFakeAPIsReject: the SDK check and each fake server refuse the bodies
// their real API refuses, so a 200 above means something.
func TestFakeAPIsReject(t *testing.T) {
	f := newFake(t)
	f.count = func(s string) int { return len(strings.Fields(s)) }
	srv := servers(t, f)
	u := `{"role":"user","content":[{"type":"text","text":"a"}]}`
	an := `"model":"claude-sonnet-5-5","max_tokens":10,`
	mark := `{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}`
	long := strings.Repeat("w ", 40)
	for _, tc := range []struct{ provider, model, body, want string }{
		{prompt.Anthropic, "", `{` + an + `"messages":[` + u + `],"temperature_x":1}`, "dropped (unknown to the SDK)"},
		{prompt.Anthropic, "", `{` + an + `"messages":[` + u + `,` + u + `]}`, "roles must alternate"},
		{prompt.Anthropic, "", `{` + an + `"system":[` + strings.Repeat(mark+",", 4) + mark + `],"messages":[` + u + `]}`, "maximum of 4 blocks with cache_control"},
		{prompt.Anthropic, "", `{` + an + `"messages":[` + u + `,{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}]}`, "requires a tool definition"},
		{prompt.Anthropic, "", `{` + an + `"tools":[{"name":"x","input_schema":{"type":"object"}}],"messages":[` + u + `,{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]},` + u + `]}`, "without tool_result blocks"},
		{prompt.Anthropic, "", `{"model":"claude-haiku-4-5","max_tokens":199990,"messages":[{"role":"user","content":[{"type":"text","text":"` + long + `"}]}]}`, "maximum allowed"},
		{prompt.OpenAI, "", `{"model":"gpt-6.1-sol","messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"x","arguments":"{}"}}]},{"role":"user","content":"u"}]}`, "must be followed by tool messages"},
		{prompt.OpenAI, "", `{"model":"gpt-4o","messages":[{"role":"developer","content":"d"}]}`, "developer role is not supported"},
		{prompt.OpenAI, "", `{"model":"gpt-6.1-sol","input":[{"type":"function_call","call_id":"c","name":"x","arguments":"{}"}]}`, "no tool output found"},
		{prompt.Gemini, "gemini-3.8-flash", `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}`, "missing a thought_signature"},
		{prompt.Gemini, "gemini-2.5-pro", `{"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},{"role":"user","parts":[{"text":"no response"}]}]}`, "number of function response parts"},
		{prompt.DeepSeek, "", `{"model":"deepseek-chat","max_tokens":10,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a","reasoning_content":"r"},{"role":"user","content":"q"}]}`, "reasoning_content"},
		{prompt.DeepSeek, "", `{"model":"deepseek-chat","max_tokens":100000,"messages":[{"role":"user","content":"q"}]}`, "valid range of max_tokens"},
		{prompt.DeepSeek, "", `{"model":"deepseek-chat","max_tokens":10,"session_id":"s","messages":[{"role":"user","content":"q"}]}`, "session_id"},
		{prompt.OpenRouter, "", `{"model":"claude-sonnet-5-5","max_tokens":10,"messages":[{"role":"user","content":"q"}]}`, "not a valid model ID"},
		{prompt.OpenRouter, "", `{"model":"anthropic/claude-sonnet-5.5","max_tokens":10,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"x","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"r"}]}`, "requires a tool definition"},
		{prompt.OpenRouter, "", `{"model":"anthropic/claude-sonnet-5.5","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"q","cache_control":{"type":"persistent"}}]}]}`, "cache_control map[type:persistent]"},
		{prompt.HuggingFace, "", `{"model":"meta-llama/Llama-3.3-70B-Instruct","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"q","cache_control":{"type":"ephemeral"}}]}]}`, "only OpenRouter passes it on"},
		{prompt.HuggingFace, "meta-llama/Llama-3.3-70B-Instruct", `{"inputs":"q","parameters":{"max_new_tokens":0}}`, "max_new_tokens must be strictly positive"},
		{prompt.HuggingFace, "meta-llama/Llama-3.3-70B-Instruct", `{"inputs":"q","parameters":{"max_tokens":10}}`, "schema"},
		{prompt.Replicate, "meta/meta-llama-3.1-405b-instruct", `{"input":{"system_prompt":"s","max_tokens":10}}`, "schema"},
		{prompt.Replicate, "meta/meta-llama-3.1-405b-instruct", `{"input":{"prompt":"q","max_tokens":0}}`, "schema"},
		{prompt.Ollama, "", `{"model":"gemma4","messages":[{"role":"user","content":"x"}]}`, "num_ctx is not set"},
		{prompt.Ollama, "", `{"model":"gemma4","options":{"num_ctx":30,"num_predict":5},"messages":[{"role":"user","content":"` + long + `"}]}`, "prompt is too long"},
	} {
		code, answer := send(t, srv, recited{provider: tc.provider, model: tc.model, body: []byte(tc.body)})
		if code != http.StatusBadRequest || !strings.Contains(answer, tc.want) {
			t.Errorf("%s %s: answered %d %s, want 400 saying %q", tc.provider, tc.body, code, answer, tc.want)
		}
	}
}
