package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine"
)

func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"check failed", checkFailed{"the summary lost 1 of 2 stop signals"}, 1},
		{"check failed wrapped", fmt.Errorf("run: %w", checkFailed{"agent failed"}), 1},
		{"index locked", fmt.Errorf("commit: %w", engine.ErrIndexLocked), 1},
		{"usage", usageError{errors.New("--at N is required")}, 2},
		{"input", &engine.InputError{Err: errors.New("bad recite.yaml")}, 2},
		{"setup hint", commitHint(engine.ErrNoRepository), 2},
		{"other", errors.New(`unknown command "x" for "recite"`), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCode(tt.err); got != tt.want {
				t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

// TestPrintJSON pins the two JSON forms: an indented document that keeps
// <, > and & (reports, --json), and a compact line as encoding/json
// writes it (watch --json events); and that --json picks the first.
func TestPrintJSON(t *testing.T) {
	v := map[string]any{"a": "<x> & y", "n": []int{1}}
	streams, out, _ := testStreams("")
	if err := printJSON(streams.Out, v); err != nil {
		t.Fatal(err)
	}
	doc := "{\n  \"a\": \"<x> & y\",\n  \"n\": [\n    1\n  ]\n}\n"
	if out.String() != doc {
		t.Errorf("printJSON wrote %q, want %q", out, doc)
	}
	out.Reset()
	if err := printJSONLine(streams.Out, v); err != nil {
		t.Fatal(err)
	}
	if want := `{"a":"\u003cx\u003e \u0026 y","n":[1]}` + "\n"; out.String() != want {
		t.Errorf("printJSONLine wrote %q, want %q", out, want)
	}
	for _, tt := range []struct {
		on   bool
		want string
	}{{true, doc}, {false, "text\n"}} {
		out.Reset()
		err := jsonFlag{tt.on}.print(streams.Out, v, func(w io.Writer) error {
			_, err := io.WriteString(w, "text\n")
			return err
		})
		if err != nil || out.String() != tt.want {
			t.Errorf("--json=%v printed %q (%v), want %q", tt.on, out, err, tt.want)
		}
	}
}

// fixtureProject is a project with conversation c1 of three messages, the
// second internal, written by the engine.
func fixtureProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".planning"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs, err := engine.New(dir).Conversations()
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Create(ctx, "c1", engine.ConversationMeta{AgentType: "dev"}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []engine.SayOptions{
		{ID: "c1", Role: engine.RoleUser, Text: "Run the tests"},
		{ID: "c1", Role: engine.RoleAssistant, Text: "note to self", Internal: true},
		{ID: "c1", Role: engine.RoleAssistant, Text: "Done."},
	} {
		if _, err := cs.Say(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestConvSayRun calls the run function directly: the message is read
// from stdin for "-", numbered after the three already there, and
// --no-build leaves the prompts alone.
func TestConvSayRun(t *testing.T) {
	dir := fixtureProject(t)
	streams, out, errOut := testStreams("Fix the redirect\n\n")
	opts := &convSayOptions{io: streams, dir: dir, say: engine.SayOptions{ID: "c1", Role: engine.RoleUser}, args: []string{"-"}, noBuild: true}
	if err := convSayRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if out.String() != "appended message 4 to c1 (user)\n" || errOut.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, engine.PromptsDir)); !os.IsNotExist(err) {
		t.Errorf("--no-build wrote prompts: %v", err)
	}
	c, _, err := mustConversations(t, dir).Read("c1")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Messages[len(c.Messages)-1].Content; got != "Fix the redirect" {
		t.Errorf("last message %q, want the stdin text without its trailing newlines", got)
	}

	opts.args = []string{" ", ""}
	if err := convSayRun(context.Background(), opts); err == nil || err.Error() != "empty message" || exitCode(err) != 2 {
		t.Errorf("blank text: %v", err)
	}
}

func mustConversations(t *testing.T, dir string) *engine.Conversations {
	t.Helper()
	cs, err := engine.New(dir).Conversations()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestConvShowRun prints the engine's markdown view and maps an unknown
// format to the flag's usage error.
func TestConvShowRun(t *testing.T) {
	dir := fixtureProject(t)
	streams, out, _ := testStreams("")
	if err := convShowRun(context.Background(), &convShowOptions{io: streams, dir: dir, id: "c1", format: "md"}); err != nil {
		t.Fatal(err)
	}
	c, _, err := mustConversations(t, dir).Read("c1")
	if err != nil {
		t.Fatal(err)
	}
	if want := engine.ConversationMarkdown(c, false); out.String() != want {
		t.Errorf("show printed\n%s\nwant\n%s", out, want)
	}
	if !strings.Contains(out.String(), "(1 internal hidden; --all shows them)") || !strings.Contains(out.String(), "### 3. assistant") {
		t.Errorf("show does not number by position or hide the internal note:\n%s", out)
	}
	err = convShowRun(context.Background(), &convShowOptions{io: streams, dir: dir, id: "c1", format: "yaml"})
	if err == nil || err.Error() != `--format "yaml": want md, json or a provider's shape (markdown, anthropic, openai, gemini, ollama, text, deepseek, openrouter, huggingface, replicate)` || exitCode(err) != 2 {
		t.Errorf("unknown format: %v", err)
	}
	err = convShowRun(context.Background(), &convShowOptions{io: streams, dir: t.TempDir(), id: "c1", format: "md"})
	if err == nil || !strings.Contains(err.Error(), "no .planning folder in ") || exitCode(err) != 2 {
		t.Errorf("no .planning folder: %v", err)
	}
}

// TestConvArchiveRun archives by age against the injected clock.
func TestConvArchiveRun(t *testing.T) {
	dir := fixtureProject(t)
	streams, out, _ := testStreams("")
	opts := &convArchiveOptions{io: streams, dir: dir, olderThan: "1d", now: time.Now}
	if err := convArchiveRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if out.String() != "nothing older than 1d\n" {
		t.Errorf("archive today: %q", out)
	}
	out.Reset()
	opts.now = func() time.Time { return time.Now().Add(49 * time.Hour) }
	opts.olderThan = "2d"
	if err := convArchiveRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if out.String() != "archived c1\n" {
		t.Errorf("archive two days on: %q", out)
	}
	opts.olderThan = "soon"
	if err := convArchiveRun(context.Background(), opts); err == nil || !strings.Contains(err.Error(), `--older-than "soon"`) {
		t.Errorf("bad age: %v", err)
	}
}

func TestParseAge(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30d", 30 * 24 * time.Hour, true},
		{"0d", 0, true},
		{"12h", 12 * time.Hour, true},
		{"90m", 90 * time.Minute, true},
		{"-1d", 0, false},
		{"-5h", 0, false},
		{"d", 0, false},
		{"soon", 0, false},
	} {
		got, err := parseAge(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseAge(%q) = %v, %v", tt.in, got, err)
		}
	}
}

// TestWatchPrinterDiagnostics checks that a render prints its diagnostics
// only when they differ from the previous render's, and says when they
// are gone.
func TestWatchPrinterDiagnostics(t *testing.T) {
	streams, out, _ := testStreams("")
	e := engine.New(t.TempDir())
	p := &watchPrinter{w: streams.Out, e: e}
	at := time.Date(2025, 1, 2, 3, 4, 5, 6e6, time.UTC)
	bad := []engine.Diagnostic{{Path: ".planning/STATE.md", Line: 3, Message: "invalid YAML front matter"}}
	moved := []engine.Diagnostic{{Path: ".planning/STATE.md", Line: 4, Message: "invalid YAML front matter"}}
	render := func(p *watchPrinter, diags []engine.Diagnostic) {
		p.print(engine.WatchEvent{Kind: engine.EventRender, Time: at, Tokens: 10, ContextWindow: 100, Percent: 10, Diagnostics: diags})
	}
	for _, diags := range [][]engine.Diagnostic{bad, bad, moved, nil, nil, bad} {
		render(p, diags)
	}
	line := "03:04:05.006 unchanged; 10 tokens, 10.0% of 100; ; stable prefix 0.0%; 0s\n"
	diag := "  diagnostic: .planning/STATE.md:3: invalid YAML front matter\n"
	// Printed when it appears, not again while it stays (on another line
	// of the same file too), cleared, and printed again when it comes back.
	want := line + diag + line + line + line + "  diagnostics cleared\n" + line + line + diag
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out, want)
	}
	// A new watch (or any other command) counts what was printed.
	out.Reset()
	render(&watchPrinter{w: streams.Out, e: e}, bad)
	if want := line + "  1 known diagnostic (recite inspect to list them)\n"; out.String() != want {
		t.Errorf("a second watch printed\n%s\nwant\n%s", out, want)
	}
	out.Reset()
	p = &watchPrinter{w: streams.Out, e: e}
	p.print(engine.WatchEvent{Kind: engine.EventCommit, Time: at, Commit: "0123456789abcdef", KeptMissing: 2})
	if want := "03:04:05.006 committed 0123456789ab (conversation history); kept 2 tracked files that are missing from the work tree\n"; out.String() != want {
		t.Errorf("commit line %q, want %q", out, want)
	}
}

// TestCheckRun calls build and render with --check: bodies that fit pass
// with nothing on stderr; an ollama window smaller than the pinned
// sections is a failed check (exit 1) naming the file and the reason.
func TestCheckRun(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, ".planning", "recite.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(yaml string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	write("targets:\n  - name: agent\n    providers: [markdown, anthropic, openai, gemini, ollama, text]\n")
	streams, _, errOut := testStreams("")
	if err := buildRun(ctx, &buildOptions{io: streams, dir: dir, check: true}); err != nil || errOut.Len() != 0 {
		t.Fatalf("build --check: %v, stderr %q", err, errOut)
	}
	if err := renderRun(ctx, &renderOptions{io: streams, dir: dir, target: "agent", provider: "ollama", check: true}); err != nil || errOut.Len() != 0 {
		t.Fatalf("render --check: %v, stderr %q", err, errOut)
	}

	write("targets:\n  - name: agent\n    providers: [ollama]\n    capabilities:\n      ollama: {max_context: 100}\n")
	err := buildRun(ctx, &buildOptions{io: streams, dir: dir, check: true})
	if exitCode(err) != 1 || !strings.Contains(errOut.String(), "rejected: .planning/prompts/agent.ollama.json: ollama: options.num_ctx: ") {
		t.Errorf("build --check of a body over its window: %v (exit %d), stderr %q", err, exitCode(err), errOut)
	}
	errOut.Reset()
	err = renderRun(ctx, &renderOptions{io: streams, dir: dir, target: "agent", provider: "ollama", check: true})
	if exitCode(err) != 1 || !strings.Contains(errOut.String(), "rejected: target agent: ollama: options.num_ctx: ") {
		t.Errorf("render --check of a body over its window: %v (exit %d), stderr %q", err, exitCode(err), errOut)
	}
	errOut.Reset()
	if err := renderRun(ctx, &renderOptions{io: streams, dir: dir, target: "agent", provider: "ollama"}); err != nil || errOut.Len() != 0 {
		t.Errorf("render without --check: %v, stderr %q", err, errOut)
	}
	err = renderRun(ctx, &renderOptions{io: streams, dir: dir, target: "nope", provider: "ollama", check: true})
	if exitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), `unknown target "nope" (configured: agent)`) {
		t.Errorf("render --check of an unknown target: %v (exit %d)", err, exitCode(err))
	}
}
