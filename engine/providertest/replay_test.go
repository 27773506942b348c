package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/economics"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// The replay of a session turn by turn (docs/providers.md#prompt-caching):
// a conversation grows one transcript entry at a time, a build follows each
// step, and each provider's body is compared with the body before it, read
// in the provider's cache order. The unchanged prefix, as a share of the
// previous body, is all a provider's prompt cache can serve.

// replayProviders are the bodies the replays write: every provider of the
// design that caches or takes a conversation.
var replayProviders = []string{prompt.Anthropic, prompt.OpenAI, prompt.Gemini, prompt.Ollama,
	prompt.DeepSeek, prompt.OpenRouter, prompt.HuggingFace, prompt.Replicate, prompt.Text}

// replayProject copies the GSD example into a temp dir, runs `recite init`
// there (its recite.yaml, with its history defaults, is what a new user
// has), binds target agent to conversation "sess" with every replay
// provider, sets history.strategy when strategy is not "", and creates the
// conversation.
func replayProject(t testing.TB, strategy string) (string, *conversation.Store) {
	t.Helper()
	dir := t.TempDir()
	if err := sharedtest.CopyTree(filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Init(dir, ""); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, config.FileName)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	y := strings.Replace(string(b), "  - name: agent\n", "  - name: agent\n    conversation: sess\n", 1)
	y = regexp.MustCompile(`(?m)^    providers: \[.*\]$`).ReplaceAllString(y, "    providers: ["+strings.Join(replayProviders, ", ")+"]")
	if strategy != "" {
		y = strings.Replace(y, "  strategy: window\n", "  strategy: "+strategy+"\n", 1)
	}
	if !strings.Contains(y, "conversation: sess") || !strings.Contains(y, "providers: ["+replayProviders[0]) {
		t.Fatalf("the recite.yaml of init changed shape:\n%s", y)
	}
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := engine.New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(context.Background(), "sess", conversation.Meta{AgentType: "claude-code"}); err != nil {
		t.Fatal(err)
	}
	return dir, s
}

// entrySteps groups a transcript's records by the entry they came from, in
// order: one step per user or assistant entry.
func entrySteps(recs []conversation.Record) [][]conversation.Record {
	var out [][]conversation.Record
	for _, r := range recs {
		if n := len(out); n > 0 && out[n-1][0].Source == r.Source && r.Source != "" {
			out[n-1] = append(out[n-1], r)
			continue
		}
		out = append(out, []conversation.Record{r})
	}
	return out
}

// stepResult is one provider's body after one step, with what the build
// reported of it.
type stepResult struct {
	body   []byte
	file   engine.FileReport
	limit  int
	report *engine.TargetReport
}

// replay appends the records of before at once, then each step's records
// one step at a time with a build after each, and returns every
// provider's results in step order. check, when set, is called on each
// build's report.
func replay(t testing.TB, dir string, s *conversation.Store, before []conversation.Record, steps [][]conversation.Record) map[string][]stepResult {
	t.Helper()
	ctx := context.Background()
	if len(before) > 0 {
		if _, err := s.AppendNew(ctx, "sess", before...); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := cfg.Target("agent")
	out := map[string][]stepResult{}
	for _, st := range steps {
		if _, err := s.AppendNew(ctx, "sess", st...); err != nil {
			t.Fatal(err)
		}
		rep, err := engine.New(dir).Build(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tr := rep.Targets[0]
		for _, f := range tr.Files {
			b, err := os.ReadFile(filepath.Join(dir, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			limit := min(tr.Budget, tg.Limits(f.Provider).PromptLimit(tg.MaxTokens))
			out[f.Provider] = append(out[f.Provider], stepResult{body: b, file: f, limit: limit, report: tr})
		}
	}
	return out
}

// cacheOrder is a body as its provider's cache reads it: for Anthropic
// (and OpenRouter's bodies for Anthropic and Gemini models, which
// OpenRouter hands to Anthropic) the tools, then the system, then the
// messages, whatever the JSON key order, each re-encoded with sorted keys;
// the other providers read the request as sent.
func cacheOrder(provider string, body []byte) []byte {
	if provider != prompt.Anthropic {
		return body
	}
	var j map[string]json.RawMessage
	if json.Unmarshal(body, &j) != nil {
		return body
	}
	var b bytes.Buffer
	for _, k := range []string{"tools", "system", "messages"} {
		var v any
		if raw, ok := j[k]; ok {
			_ = json.Unmarshal(raw, &v)
		}
		e, _ := json.Marshal(v)
		b.Write(e)
	}
	return b.Bytes()
}

func sharedPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// shares returns, for each step whose body changed, the unchanged prefix
// of the body in cache order as a share of the previous body.
func shares(provider string, rs []stepResult) []float64 {
	var out []float64
	for i := 1; i < len(rs); i++ {
		p, n := cacheOrder(provider, rs[i-1].body), cacheOrder(provider, rs[i].body)
		if bytes.Equal(p, n) {
			continue
		}
		out = append(out, float64(sharedPrefix(p, n))/float64(max(1, len(p))))
	}
	return out
}

// summary is the median, 10th percentile and share of steps below 0.5 of
// a list of shares.
type summary struct {
	steps                  int
	median, p10, belowHalf float64
}

func summarize(fr []float64) summary {
	if len(fr) == 0 {
		return summary{}
	}
	s := slices.Clone(fr)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	below := 0
	for _, f := range s {
		if f < 0.5 {
			below++
		}
	}
	return summary{steps: len(s), median: med, p10: s[len(s)/10], belowHalf: float64(below) / float64(len(s))}
}

func (s summary) String() string {
	return fmt.Sprintf("%d steps, median %.3f, p10 %.3f, below half %.3f", s.steps, s.median, s.p10, s.belowHalf)
}

// checkReplay asserts the bar of every provider's replay: the median step
// keeps at least 0.95 of the previous body, at most 5% of steps keep less
// than half (evictions), every body fits its budget, and status's
// predicted cache read equals what the byte comparison of the two bodies
// gives (expectedRead).
func checkReplay(t *testing.T, name string, res map[string][]stepResult) {
	t.Helper()
	for _, prov := range replayProviders {
		rs := res[prov]
		if len(rs) < 2 {
			t.Errorf("%s %s: %d bodies", name, prov, len(rs))
			continue
		}
		sm := summarize(shares(prov, rs))
		t.Logf("%s %-11s %s", name, prov, sm)
		if sm.steps < len(rs)/2 {
			t.Errorf("%s %s: only %d of %d steps changed the body", name, prov, sm.steps, len(rs)-1)
		}
		if sm.median < 0.95 || sm.belowHalf > 0.05 {
			t.Errorf("%s %s: %s; want a median of 0.95 or more and at most 5%% of steps below half", name, prov, sm)
		}
		for i, r := range rs {
			if r.file.Tokens > r.limit {
				t.Errorf("%s %s step %d: %d tokens, over the budget of %d", name, prov, i, r.file.Tokens, r.limit)
			}
			if i == 0 || r.file.Cache == nil || bytes.Equal(rs[i-1].body, r.body) {
				continue
			}
			if want := expectedRead(prov, rs[i-1].body, r.body, r.file); r.file.Cache.CachedTokens != want {
				t.Errorf("%s %s step %d: status predicts %d cached tokens, the byte comparison gives %d", name, prov, i, r.file.Cache.CachedTokens, want)
			}
		}
	}
}

// markerRE is a cache_control member as the bodies write it.
var markerRE = regexp.MustCompile(`,\s*"cache_control": \{[^{}]*\}`)

// unmark removes the cache_control members of body, returning where each
// stood in the result.
func unmark(body []byte) ([]byte, []int) {
	var out []byte
	var at []int
	last := 0
	for _, m := range markerRE.FindAllIndex(body, -1) {
		out = append(out, body[last:m[0]]...)
		at = append(at, len(out))
		last = m[1]
	}
	return append(out, body[last:]...), at
}

// expectedRead is the cache read of the request body after the request
// prev, by the bytes alone: for breakpoint caching, the longest prefix
// ending at one of prev's breakpoints (its first four) that body repeats
// byte for byte once the markers are removed (they are not cached
// content) and that a breakpoint of body reaches within 20 blocks; for
// automatic and implicit caching, the unchanged prefix. Bytes become
// tokens by economics.TokensAt, the conversion status documents; a read
// below the model's minimum is no read.
func expectedRead(provider string, prev, body []byte, f engine.FileReport) int {
	ce := f.Cache
	switch ce.Caching {
	case "breakpoints":
		nb, newAt := unmark(body)
		ob, oldAt := unmark(prev)
		same := sharedPrefix(ob, nb)
		read := 0
		for i, m := range oldAt {
			if i == prompt.AnthropicMaxBreakpoints || m > same {
				break
			}
			for _, n := range newAt {
				if n >= m && bytes.Count(nb[m:n], []byte(`"type": "`)) <= economics.AnthropicLookback {
					read = m
					break
				}
			}
		}
		if read == 0 {
			return 0
		}
		tokens := economics.TokensAt(read, len(nb), f.Tokens, newAt, breakpointTokens(len(newAt), f))
		if tokens < ce.MinCacheable {
			return 0
		}
		return tokens
	case "automatic", "implicit":
		tokens := economics.TokensAt(sharedPrefix(prev, body), len(body), f.Tokens, nil, nil)
		if tokens < ce.MinCacheable {
			return 0
		}
		return tokens
	}
	return 0
}

// breakpointTokens are the token offsets of a body's n breakpoints as
// status placed them: the report's prefix tokens at each (Cache.Points),
// else the whole body.
func breakpointTokens(n int, f engine.FileReport) []int {
	out := slices.Clone(f.Cache.Points)
	for len(out) < n {
		out = append(out, f.Tokens)
	}
	return out[:n]
}

// splitHalf returns the steps of a transcript's second half: up to n
// steps from its middle, and the records before them.
func splitHalf(t testing.TB, path string, n int) ([]conversation.Record, [][]conversation.Record) {
	steps := entrySteps(transcriptRecords(t, path))
	mid := len(steps) / 2
	var before []conversation.Record
	for _, st := range steps[:mid] {
		before = append(before, st...)
	}
	end := min(len(steps), mid+n)
	return before, steps[mid:end]
}

// replayTranscriptSteps is how many entries of each transcript's second
// half TestReplayTranscripts replays: enough to cross evictions, few
// enough for CI (one build of nine bodies per step).
const replayTranscriptSteps = 60

// TestReplayTranscripts replays each real Claude Code session of
// ../shared/transcripts turn by turn from its middle, with the recite.yaml
// `recite init` writes, and holds every provider's bodies to the bar of
// checkReplay. It runs without the race detector (make test runs it so),
// which makes it ten times slower with nothing to find.
func TestReplayTranscripts(t *testing.T) {
	if raceDetector {
		t.Skip("a replay of builds in one goroutine: make test runs it without -race (test-norace)")
	}
	paths, _ := filepath.Glob(filepath.Join(sharedtest.Dir(t), "transcripts", "*.jsonl"))
	if len(paths) == 0 {
		t.Skip("no transcripts in ../shared/transcripts")
	}
	for _, p := range paths {
		name := strings.SplitN(filepath.Base(p), "__", 2)[0]
		t.Run(name, func(t *testing.T) {
			before, steps := splitHalf(t, p, replayTranscriptSteps)
			dir, s := replayProject(t, "")
			checkReplay(t, name, replay(t, dir, s, before, steps))
		})
	}
}

// syntheticSession is a long agent session: a user prompt every 20
// messages, assistant turns calling 12 tools (seeded, so every run is the
// same), results from a line to a few kilobytes, one in twelve a failure
// of a few lines.
func syntheticSession(n int) []conversation.Record {
	rng := rand.New(rand.NewPCG(30, 2000))
	tools := []string{"Read", "Bash", "Edit", "Grep", "Glob", "Write", "WebFetch", "WebSearch", "TodoWrite", "Task", "NotebookEdit", "mcp__linear__create_issue"}
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	var out []conversation.Record
	for i := 0; len(out) < n; i++ {
		at := start.Add(time.Duration(len(out)) * time.Second)
		id := fmt.Sprintf("syn-%05d", len(out))
		if i%10 == 0 {
			out = append(out, conversation.Record{ID: id, Time: at, Role: conversation.RoleUser, Content: fmt.Sprintf("Step %d: continue with the next failing test.", i/10)})
			continue
		}
		name := tools[rng.IntN(len(tools))]
		call := "toolu_" + id
		out = append(out, conversation.Record{ID: id, Time: at, Role: conversation.RoleAssistant, Content: "Checking.",
			ToolCalls: []conversation.ToolCall{{ID: call, Name: name, Arguments: fmt.Sprintf(`{"path":"internal/pkg%d/file%d.go"}`, rng.IntN(9), rng.IntN(40))}}})
		if len(out) == n {
			break
		}
		failed := rng.IntN(12) == 0
		body := strings.Repeat(fmt.Sprintf("line %d of the output of %s\n", rng.IntN(1000), name), 1+rng.IntN(60))
		if failed {
			// A failure is a few lines: the error and where it happened.
			body = fmt.Sprintf("--- FAIL: Test%s%d (0.00s)\n    file%d_test.go:%d: got %d, want %d\nFAIL\n", name, rng.IntN(50), rng.IntN(40), rng.IntN(300), rng.IntN(500), rng.IntN(500))
		}
		out = append(out, conversation.Record{ID: id + "-r", Time: at.Add(time.Millisecond), Role: conversation.RoleTool, ToolCallID: call, ToolName: name,
			IsError: failed, Content: body})
	}
	return out
}

// syntheticMessages and syntheticSteps: the synthetic session's length and
// the messages replayed at its end, one a step. Past the horizon of 1,000
// messages the history starts at a point of the log that moves every 256
// messages (history.Anchor); these steps cross such a move (the log's
// 2,024th message).
const (
	syntheticMessages = 2080
	syntheticSteps    = 120
)

// TestReplaySynthetic replays the last messages of a 2,080-message session
// with 12 tool names, one message a step, and holds every provider's
// bodies to the bar of checkReplay.
func TestReplaySynthetic(t *testing.T) {
	if raceDetector {
		t.Skip("a replay of builds in one goroutine: make test runs it without -race (test-norace)")
	}
	recs := syntheticSession(syntheticMessages)
	var steps [][]conversation.Record
	for _, r := range recs[len(recs)-syntheticSteps:] {
		steps = append(steps, []conversation.Record{r})
	}
	dir, s := replayProject(t, "")
	checkReplay(t, "synthetic", replay(t, dir, s, recs[:len(recs)-syntheticSteps], steps))
}

// BenchmarkReplay replays 40 entries of the entireio session (the longest
// real one, whose history evicts) from its middle under each history
// strategy, with the defaults of recite init, and reports, per provider,
// the median and 10th percentile of the unchanged-prefix share and the
// share of steps below one half; ns/op is the time of the whole replay
// (40 builds of nine bodies).
func BenchmarkReplay(b *testing.B) {
	path := sharedtest.File(b, "transcripts/entireio__cli__cc_90f6622c5b_1_full.jsonl")
	for _, strategy := range []string{"window", "tokens", "summary", "importance"} {
		b.Run(strategy, func(b *testing.B) {
			var res map[string][]stepResult
			for b.Loop() {
				before, steps := splitHalf(b, path, 40)
				dir, s := replayProject(b, strategy)
				res = replay(b, dir, s, before, steps)
			}
			for _, prov := range replayProviders {
				sm := summarize(shares(prov, res[prov]))
				b.ReportMetric(sm.median, prov+"-median")
				b.ReportMetric(sm.p10, prov+"-p10")
				b.ReportMetric(sm.belowHalf, prov+"-below-half")
			}
		})
	}
}
