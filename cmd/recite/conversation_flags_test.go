package main

import (
	"testing"

	"github.com/recite-dev/recite/engine"
)

func TestConvNewFlags(t *testing.T) {
	checkFlags(t, newConvNewCmd, func(o *convNewOptions) { o.io = IOStreams{} }, []flagCase[convNewOptions]{
		{name: "id only", args: []string{"new", "c1"}, want: convNewOptions{dir: ".", id: "c1"}},
		// --tag and --deliverable are repeatable and split on commas.
		{name: "metadata", args: []string{"new", "c1", "--agent", "dev", "--epic", "auth", "--phase", "2", "--title", "Fix it", "--tag", "a,b", "--tag", "c", "--deliverable", "x.go"},
			want: convNewOptions{dir: ".", id: "c1", meta: engine.ConversationMeta{AgentType: "dev", Epic: "auth", Phase: "2", Title: "Fix it", Tags: []string{"a", "b", "c"}, Deliverables: []string{"x.go"}}}},
		{name: "no id", args: []string{"new"}, wantErr: "accepts 1 arg(s), received 0"},
	})
}

func TestConvSayFlags(t *testing.T) {
	checkFlags(t, newConvSayCmd, func(o *convSayOptions) { o.io = IOStreams{} }, []flagCase[convSayOptions]{
		{name: "text", args: []string{"-C", "p", "say", "c1", "Run", "the tests"},
			want: convSayOptions{dir: "p", say: engine.SayOptions{ID: "c1", Role: engine.RoleUser}, args: []string{"Run", "the tests"}}},
		{name: "tool result from stdin", args: []string{"say", "c1", "--role", "tool", "--tool-call-id", "call_1", "--tool-name", "bash", "--error", "--iteration", "3", "--agent", "ci", "--internal", "--no-build", "-"},
			want: convSayOptions{dir: ".", say: engine.SayOptions{ID: "c1", Role: engine.RoleTool, ToolCallID: "call_1", ToolName: "bash", IsError: true, Iteration: 3, Agent: "ci", Internal: true}, args: []string{"-"}, noBuild: true}},
		{name: "unknown role", args: []string{"say", "c1", "--role", "wizard", "hi"}, wantErr: `--role "wizard": want user, assistant, tool or system`},
		{name: "tool name without tool role", args: []string{"say", "c1", "--tool-name", "bash", "hi"}, wantErr: "--tool-call-id and --tool-name need --role tool"},
		{name: "no text", args: []string{"say", "c1"}, wantErr: "requires at least 2 arg(s), only received 1"},
		{name: "bad iteration", args: []string{"say", "c1", "--iteration", "x", "hi"}, wantErr: `invalid argument "x"`},
	})
}

func TestConvRunFlags(t *testing.T) {
	checkFlags(t, newConvRunCmd, func(o *convRunOptions) { o.io = IOStreams{} }, []flagCase[convRunOptions]{
		{name: "text", args: []string{"run", "c1", "fix", "it"}, want: convRunOptions{dir: ".", id: "c1", args: []string{"fix", "it"}}},
		{name: "json stdin", args: []string{"run", "c1", "-", "--json"}, want: convRunOptions{dir: ".", id: "c1", args: []string{"-"}, json: jsonFlag{true}}},
		{name: "no text", args: []string{"run", "c1"}, wantErr: "requires at least 2 arg(s), only received 1"},
	})
}

func TestConvListFlags(t *testing.T) {
	checkFlags(t, newConvListCmd, func(o *convListOptions) { o.io = IOStreams{} }, []flagCase[convListOptions]{
		{name: "defaults", args: []string{"list"}, want: convListOptions{dir: "."}},
		{name: "json", args: []string{"list", "--json"}, want: convListOptions{dir: ".", json: jsonFlag{true}}},
		{name: "no arguments", args: []string{"list", "c1"}, wantErr: `unknown command "c1"`},
	})
}

func TestConvShowFlags(t *testing.T) {
	checkFlags(t, newConvShowCmd, func(o *convShowOptions) { o.io = IOStreams{} }, []flagCase[convShowOptions]{
		{name: "defaults", args: []string{"show", "c1"}, want: convShowOptions{dir: ".", id: "c1", format: "md"}},
		// The format is checked when the conversation has been read.
		{name: "format and all", args: []string{"show", "c1", "--format", "yaml", "--all"}, want: convShowOptions{dir: ".", id: "c1", format: "yaml", all: true}},
		{name: "two ids", args: []string{"show", "c1", "c2"}, wantErr: "accepts 1 arg(s), received 2"},
	})
}

func TestConvForkFlags(t *testing.T) {
	checkFlags(t, newConvForkCmd, func(o *convForkOptions) { o.io = IOStreams{} }, []flagCase[convForkOptions]{
		{name: "at", args: []string{"fork", "c1", "--at", "2", "c2"}, want: convForkOptions{dir: ".", id: "c1", newID: "c2", at: 2}},
		{name: "at zero", args: []string{"fork", "c1", "c2", "--at", "0"}, want: convForkOptions{dir: ".", id: "c1", newID: "c2", at: 0}},
		{name: "at missing", args: []string{"fork", "c1", "c2"}, wantErr: "--at N is required"},
		{name: "at negative", args: []string{"fork", "c1", "c2", "--at", "-3"}, wantErr: "--at N is required"},
		{name: "no new id", args: []string{"fork", "c1", "--at", "1"}, wantErr: "accepts 2 arg(s), received 1"},
	})
}

func TestConvArchiveFlags(t *testing.T) {
	clean := func(o *convArchiveOptions) {
		if o.now == nil {
			t.Error("no clock")
		}
		o.io, o.now = IOStreams{}, nil
	}
	checkFlags(t, newConvArchiveCmd, clean, []flagCase[convArchiveOptions]{
		{name: "id", args: []string{"archive", "c1"}, want: convArchiveOptions{dir: ".", id: "c1"}},
		// The age is parsed once the project is open, as before.
		{name: "older than", args: []string{"archive", "--older-than", "soon"}, want: convArchiveOptions{dir: ".", olderThan: "soon"}},
		{name: "both", args: []string{"archive", "c1", "--older-than", "30d"}, wantErr: "give either an ID or --older-than AGE"},
		{name: "neither", args: []string{"archive"}, wantErr: "give either an ID or --older-than AGE"},
	})
}
