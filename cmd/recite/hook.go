package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// hookOptions are the inputs of `recite hook claude-code`.
type hookOptions struct {
	io   IOStreams
	hook engine.HookOptions
}

func newHookCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *hookOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Handle an agent's hook events",
		Args:  cobra.NoArgs,
	}
	opts := &hookOptions{io: streams.raw()} // Claude Code reads the output: not escaped
	cmd.AddCommand(&cobra.Command{
		Use:   "claude-code",
		Short: "Read one Claude Code hook event (JSON) on stdin and act on it",
		Long: `Read one Claude Code hook event as JSON on stdin and act on it:
SessionStart prints the recitation and the latest preservation block (after a
compaction, only what the summary lost); PreCompact writes a preservation
block; PostCompact checks the summary; UserPromptSubmit, PostToolUse,
PostToolUseFailure and Stop append to the session's conversation
(cc-SESSION_ID), and UserPromptSubmit returns the recitation as
additionalContext JSON when it changed or every hooks.recite_every prompts. Secrets are replaced by placeholders (⟨secret:KIND:HASH8⟩)
in everything it prints and records; an error too long for Claude Code's
10,000-character limit is shortened to its head and tail.

The project is $CLAUDE_PROJECT_DIR when it holds .planning/, else the one at
or above -C DIR, else at or above the event's cwd.

It never blocks the agent: it always exits 0 and reports problems on stderr.
Its time budget is the event's timeout in .claude/settings.json (or
settings.local.json) less 1.5 s: 8.5 s of the 10 s init writes. Out of time,
PreCompact writes no block (the previous one stays) and SessionStart prints
the latest block alone. Install it with ` + "`recite init --claude`" + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Claude Code sets CLAUDE_PROJECT_DIR for hook commands; it
			// names the project better than the event's cwd.
			opts.hook = engine.HookOptions{ProjectDir: os.Getenv("CLAUDE_PROJECT_DIR")}
			if f := cmd.Flags().Lookup("dir"); f != nil && f.Changed {
				opts.hook.Dir = g.dir
			}
			return runWith(cmd.Context(), opts, runF, hookRun)
		},
	})
	cmd.AddCommand(newAgentHookCmd(g, streams, runF, engine.AgentCodex, "",
		"Read one Codex CLI hook event (JSON) on stdin and act on it",
		`Read one Codex CLI hook event as JSON on stdin and act on it, as
`+"`recite hook claude-code`"+` does for Claude Code: Codex runs the same events
(no PostToolUseFailure: a failed command's exit code is read from the rollout
transcript) and takes the same output. The session's conversation is
codex-SESSION_ID. Its time budget is the event's timeout in .codex/hooks.json
less 1.5 s. Install it with `+"`recite init --codex`"+`; Codex runs it only in a
trusted project once the hook itself is trusted (docs/agents.md).`))
	cmd.AddCommand(newAgentHookCmd(g, streams, runF, engine.AgentGemini, "GEMINI_PROJECT_DIR",
		"Read one Gemini CLI hook event (JSON) on stdin and act on it",
		`Read one Gemini CLI hook event as JSON on stdin and print one JSON object:
SessionStart and BeforeAgent return the recitation and the open stop signals as
hookSpecificOutput.additionalContext (BeforeAgent as UserPromptSubmit does in
Claude Code, and after a compression what its state snapshot lost, once);
AfterTool and AfterAgent append to the session's conversation (gemini-SESSION_ID);
PreCompress writes a preservation block when it says something new. It prints
{} when it has nothing to add: Gemini CLI reads stdout as JSON only. Its time
budget is the event's timeout (milliseconds) in .gemini/settings.json less
1.5 s. Install it with `+"`recite init --gemini`"+` (docs/agents.md).`))
	return cmd
}

// newAgentHookCmd is `recite hook AGENT` for an agent other than Claude
// Code: the same handler with that agent's dialect (engine.HookOptions
// Agent); the project is $dirEnv (the variable the agent sets for hook
// commands; Codex sets none, and its cwd is the project), else -C, else
// the event's cwd.
func newAgentHookCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *hookOptions) error, agent, dirEnv, short, long string) *cobra.Command {
	opts := &hookOptions{io: streams}
	return &cobra.Command{
		Use:   agent,
		Short: short,
		Long:  long,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.hook = engine.HookOptions{Agent: agent}
			if dirEnv != "" {
				opts.hook.ProjectDir = os.Getenv(dirEnv)
			}
			if f := cmd.Flags().Lookup("dir"); f != nil && f.Changed {
				opts.hook.Dir = g.dir
			}
			return runWith(cmd.Context(), opts, runF, hookRun)
		},
	}
}

// hookRun handles the event; it never fails (engine.RunClaudeHook reports
// problems on stderr), so the agent is never blocked.
func hookRun(ctx context.Context, opts *hookOptions) error {
	engine.RunClaudeHook(ctx, opts.hook, opts.io.In, opts.io.Out, opts.io.ErrOut)
	return nil
}

// printClaude reports what `recite init --claude` did.
func printClaude(w io.Writer, res *engine.ClaudeResult) {
	switch {
	case res.Created:
		fmt.Fprintf(w, "created %s (hooks: %s)\n", res.Path, strings.Join(res.Added, ", "))
	case len(res.Added) > 0:
		fmt.Fprintf(w, "updated %s (hooks added: %s)\n", res.Path, strings.Join(res.Added, ", "))
	case len(res.Updated) > 0:
		fmt.Fprintf(w, "updated %s (hook command changed: %s)\n", res.Path, strings.Join(res.Updated, ", "))
	default:
		fmt.Fprintf(w, "kept    %s (recite's hooks already installed)\n", res.Path)
	}
	switch res.StatusLine {
	case "installed":
		fmt.Fprintf(w, "status line: installed `recite statusline` in %s\n", res.Path)
	case "replaced":
		fmt.Fprintf(w, "status line: replaced yours with `recite statusline` in %s\n", res.Path)
	case "present":
		fmt.Fprintf(w, "status line: `recite statusline` already installed\n")
	case "kept":
		fmt.Fprintf(w, "status line: kept yours (%s); --force replaces it with `recite statusline`\n", res.StatusLineKept)
	}
}
