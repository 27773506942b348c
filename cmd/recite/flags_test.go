package main

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// testStreams returns streams reading stdin and writing to buffers.
func testStreams(stdin string) (IOStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}, &out, &errOut
}

// parseOpts runs args through the root command (newRoot) holding only the
// command newCmd builds, whose runF captures its options. It returns the options (nil when the command
// refused its flags before running) and the error.
func parseOpts[O any](t *testing.T, newCmd func(*globalOptions, IOStreams, func(context.Context, *O) error) *cobra.Command, args ...string) (*O, error) {
	t.Helper()
	streams, _, _ := testStreams("")
	var got *O
	g := &globalOptions{}
	root := newRoot(g, streams)
	root.AddCommand(newCmd(g, streams, func(_ context.Context, o *O) error {
		got = o
		return nil
	}))
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return got, err
}

// flagCase is one command line and what it must parse to: the options
// (their streams cleared before comparing) or an error containing
// wantErr, the run function then not called.
type flagCase[O any] struct {
	name    string
	args    []string
	want    O
	wantErr string
}

// checkFlags runs the cases; clean clears what the comparison ignores.
func checkFlags[O any](t *testing.T, newCmd func(*globalOptions, IOStreams, func(context.Context, *O) error) *cobra.Command, clean func(*O), cases []flagCase[O]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOpts(t, newCmd, tt.args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				if got != nil {
					t.Fatalf("the run function was called with %+v", *got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatal("the run function was not called")
			}
			clean(got)
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("options\n%+v\nwant\n%+v", *got, tt.want)
			}
		})
	}
}

func TestBuildFlags(t *testing.T) {
	checkFlags(t, newBuildCmd, func(o *buildOptions) { o.io = IOStreams{} }, []flagCase[buildOptions]{
		{name: "defaults", args: []string{"build"}, want: buildOptions{dir: "."}},
		{name: "dir and json", args: []string{"-C", "p", "build", "--json"}, want: buildOptions{dir: "p", json: jsonFlag{true}}},
		{name: "dir after the command", args: []string{"build", "--dir", "q"}, want: buildOptions{dir: "q"}},
		{name: "check", args: []string{"build", "--check", "--json"}, want: buildOptions{dir: ".", json: jsonFlag{true}, check: true}},
		{name: "check takes no value", args: []string{"build", "--check", "yes"}, wantErr: `unknown command "yes"`},
		{name: "no arguments", args: []string{"build", "extra"}, wantErr: `unknown command "extra"`},
	})
}

func TestStatusFlags(t *testing.T) {
	checkFlags(t, newStatusCmd, func(o *statusOptions) { o.io = IOStreams{} }, []flagCase[statusOptions]{
		{name: "defaults", args: []string{"status"}, want: statusOptions{dir: "."}},
		{name: "json", args: []string{"-C", "p", "status", "--json"}, want: statusOptions{dir: "p", json: jsonFlag{true}}},
		{name: "unknown flag", args: []string{"status", "--yaml"}, wantErr: "unknown flag: --yaml"},
	})
}

func TestRenderFlags(t *testing.T) {
	checkFlags(t, newRenderCmd, func(o *renderOptions) { o.io = IOStreams{} }, []flagCase[renderOptions]{
		{name: "defaults", args: []string{"render"}, want: renderOptions{dir: ".", target: "agent", provider: "anthropic"}},
		{name: "target and provider", args: []string{"render", "--target", "dev", "--provider", "openai"}, want: renderOptions{dir: ".", target: "dev", provider: "openai"}},
		{name: "check", args: []string{"render", "--provider", "ollama", "--check"}, want: renderOptions{dir: ".", target: "agent", provider: "ollama", check: true}},
		{name: "check=false", args: []string{"render", "--check=false"}, want: renderOptions{dir: ".", target: "agent", provider: "anthropic"}},
	})
}

func TestFilesFlags(t *testing.T) {
	checkFlags(t, newFilesCmd, func(o *filesOptions) { o.io = IOStreams{} }, []flagCase[filesOptions]{
		{name: "defaults", args: []string{"files"}, want: filesOptions{dir: "."}},
		{name: "why", args: []string{"files", "--why", "src/a.go", "--json"}, want: filesOptions{dir: ".", why: "src/a.go", json: jsonFlag{true}}},
		// --include is repeatable and keeps commas: a path may hold one.
		{name: "includes", args: []string{"files", "--include", "a,b.go", "--include", "c.go"}, want: filesOptions{dir: ".", include: []string{"a,b.go", "c.go"}}},
	})
}

func TestWatchFlags(t *testing.T) {
	checkFlags(t, newWatchCmd, func(o *watchOptions) { o.io = IOStreams{} }, []flagCase[watchOptions]{
		// Durations not given stay zero, so recite.yaml's watch block applies.
		{name: "defaults", args: []string{"watch"}, want: watchOptions{dir: "."}},
		{name: "every flag", args: []string{"watch", "--json", "--commit", "--commit-interval", "2s", "--quiet", "10ms", "--max-wait", "20ms"},
			want: watchOptions{dir: ".", json: true, watch: engine.WatchOptions{Commit: true, CommitInterval: 2 * time.Second, Quiet: 10 * time.Millisecond, MaxWait: 20 * time.Millisecond}}},
		{name: "max-wait alone", args: []string{"watch", "--max-wait", "10ms"}, want: watchOptions{dir: ".", watch: engine.WatchOptions{MaxWait: 10 * time.Millisecond}}},
		{name: "zero quiet", args: []string{"watch", "--quiet", "0"}, wantErr: "--quiet 0s: want a positive duration"},
		{name: "negative interval", args: []string{"watch", "--commit-interval", "-1s"}, wantErr: "--commit-interval -1s: want a positive duration"},
		{name: "max-wait under quiet", args: []string{"watch", "--quiet", "20ms", "--max-wait", "10ms"}, wantErr: "--max-wait 10ms must be at least --quiet 20ms"},
		{name: "bad duration", args: []string{"watch", "--quiet", "soon"}, wantErr: `invalid argument "soon"`},
	})
}

func TestCommitFlags(t *testing.T) {
	checkFlags(t, newCommitCmd, func(o *commitOptions) { o.io = IOStreams{} }, []flagCase[commitOptions]{
		{name: "defaults", args: []string{"commit"}, want: commitOptions{dir: ".", message: engine.DefaultCommitMessage, lockWait: 5 * time.Second}},
		{name: "message and wait", args: []string{"commit", "-m", "wip\n\nbody", "--lock-wait", "100ms"}, want: commitOptions{dir: ".", message: "wip\n\nbody", lockWait: 100 * time.Millisecond}},
		{name: "zero wait", args: []string{"commit", "--lock-wait", "0"}, wantErr: "--lock-wait 0s: want a positive duration"},
	})
}

func TestImportFlags(t *testing.T) {
	checkFlags(t, newImportCmd, func(o *importOptions) { o.io = IOStreams{} }, []flagCase[importOptions]{
		{name: "claude-code", args: []string{"import", "claude-code", "s.jsonl"}, want: importOptions{dir: ".", imp: engine.ImportOptions{Format: engine.ImportClaudeCode, Path: "s.jsonl"}}},
		{name: "aider as json", args: []string{"-C", "p", "import", "aider", "h.md", "--as", "moz", "--json"}, want: importOptions{dir: "p", imp: engine.ImportOptions{Format: engine.ImportAider, Path: "h.md", ID: "moz"}, json: jsonFlag{true}}},
		{name: "codex", args: []string{"import", "codex", "rollout.jsonl", "--as", "cx"}, want: importOptions{dir: ".", imp: engine.ImportOptions{Format: engine.ImportCodex, Path: "rollout.jsonl", ID: "cx"}}},
		{name: "no file", args: []string{"import", "aider"}, wantErr: "accepts 1 arg(s), received 0"},
	})
}

func TestVerifyFlags(t *testing.T) {
	checkFlags(t, newVerifyCmd, func(o *verifyOptions) { o.io = IOStreams{} }, []flagCase[verifyOptions]{
		// Without --conversation the engine picks the conversations (nil).
		{name: "file", args: []string{"verify", "sum.md"}, want: verifyOptions{dir: ".", summary: "sum.md"}},
		{name: "stdin and flags", args: []string{"verify", "-", "--from-block", "--conversation", "a", "--conversation", "b,c", "--json"},
			want: verifyOptions{dir: ".", summary: "-", verify: engine.VerifyOptions{FromBlock: true, Conversations: []string{"a", "b,c"}}, json: jsonFlag{true}}},
		// An explicit empty id is kept: the engine reports it.
		{name: "empty conversation", args: []string{"verify", "s", "--conversation", ""}, want: verifyOptions{dir: ".", summary: "s", verify: engine.VerifyOptions{Conversations: []string{""}}}},
		{name: "no summary", args: []string{"verify"}, wantErr: "accepts 1 arg(s), received 0"},
	})
}

func TestPreserveFlags(t *testing.T) {
	checkFlags(t, newPreserveCmd, func(o *preserveOptions) { o.io = IOStreams{} }, []flagCase[preserveOptions]{
		{name: "defaults", args: []string{"preserve"}, want: preserveOptions{dir: ".", preserve: engine.PreserveOptions{Trigger: "manual"}}},
		{name: "trigger and conversations", args: []string{"preserve", "--trigger", "compaction", "--conversation", "c1", "--json"},
			want: preserveOptions{dir: ".", preserve: engine.PreserveOptions{Trigger: "compaction", Conversations: []string{"c1"}}, json: jsonFlag{true}}},
	})
}

func TestHookFlags(t *testing.T) {
	t.Setenv("CLAUDE_PROJECT_DIR", "/proj")
	checkFlags(t, newHookCmd, func(o *hookOptions) { o.io = IOStreams{} }, []flagCase[hookOptions]{
		// -C counts only when given: the event's cwd is the default.
		{name: "environment", args: []string{"hook", "claude-code"}, want: hookOptions{hook: engine.HookOptions{ProjectDir: "/proj"}}},
		{name: "dir given", args: []string{"-C", ".", "hook", "claude-code"}, want: hookOptions{hook: engine.HookOptions{ProjectDir: "/proj", Dir: "."}}},
		{name: "no arguments", args: []string{"hook", "claude-code", "x"}, wantErr: `unknown command "x"`},
	})
}

func TestInitFlags(t *testing.T) {
	checkFlags(t, newInitCmd, func(o *initOptions) { o.io = IOStreams{} }, []flagCase[initOptions]{
		{name: "defaults", args: []string{"init"}, want: initOptions{dir: "."}},
		{name: "every flag", args: []string{"-C", "p", "init", "--flavor", "fire", "--claude", "--json"}, want: initOptions{dir: "p", flavor: "fire", claude: true, json: jsonFlag{true}}},
		{name: "mcp", args: []string{"init", "--mcp"}, want: initOptions{dir: ".", mcp: true}},
	})
}

func TestMCPFlags(t *testing.T) {
	checkFlags(t, newMCPCmd, func(o *mcpOptions) { o.io = IOStreams{} }, []flagCase[mcpOptions]{
		// Without -C the project comes from the client's roots.
		{name: "defaults", args: []string{"mcp"}, want: mcpOptions{dir: "."}},
		{name: "every flag", args: []string{"-C", "p", "mcp", "--no-watch", "-v"}, want: mcpOptions{dir: "p", dirGiven: true, noWatch: true, verbose: true}},
		{name: "-C .", args: []string{"-C", ".", "mcp"}, want: mcpOptions{dir: ".", dirGiven: true}},
		{name: "no arguments", args: []string{"mcp", "x"}, wantErr: `unknown command "x"`},
	})
}

func TestInspectFlags(t *testing.T) {
	checkFlags(t, newInspectCmd, func(o *inspectOptions) { o.io = IOStreams{} }, []flagCase[inspectOptions]{
		{name: "defaults", args: []string{"inspect"}, want: inspectOptions{dir: "."}},
		{name: "json", args: []string{"inspect", "--json", "-C", ".planning"}, want: inspectOptions{dir: ".planning", json: jsonFlag{true}}},
	})
}
