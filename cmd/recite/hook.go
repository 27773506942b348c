package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

func newHookCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Handle an agent's hook events",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "claude-code",
		Short: "Read one Claude Code hook event (JSON) on stdin and act on it",
		Long: `Read one Claude Code hook event as JSON on stdin and act on it:
SessionStart prints the recitation and the latest preservation block (after a
compaction, only what the summary lost); PreCompact writes a preservation
block; PostCompact checks the summary; UserPromptSubmit, PostToolUse,
PostToolUseFailure and Stop append to the session's conversation
(cc-SESSION_ID). Secrets are replaced by placeholders (⟨secret:KIND:HASH8⟩)
in everything it prints and records; an error too long for Claude Code's
10,000-character limit is shortened to its head and tail.

The project is $CLAUDE_PROJECT_DIR when it holds .planning/, else the one at
or above -C DIR, else at or above the event's cwd.

It never blocks the agent: it always exits 0, reports problems on stderr,
and gives up after 2 seconds. Install it with ` + "`recite init --claude`" + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Claude Code sets CLAUDE_PROJECT_DIR for hook commands; it
			// names the project better than the event's cwd.
			opts := engine.HookOptions{ProjectDir: os.Getenv("CLAUDE_PROJECT_DIR")}
			if f := cmd.Flags().Lookup("dir"); f != nil && f.Changed {
				opts.Dir = g.dir
			}
			engine.RunClaudeHook(cmd.Context(), opts, streams.In, streams.Out, streams.ErrOut)
			return nil
		},
	})
	return cmd
}

// printClaude reports what `recite init --claude` did.
func printClaude(w io.Writer, res *engine.ClaudeResult) {
	switch {
	case res.Created:
		fmt.Fprintf(w, "created %s (hooks: %s)\n", res.Path, strings.Join(res.Added, ", "))
	case len(res.Added) > 0:
		fmt.Fprintf(w, "updated %s (hooks added: %s)\n", res.Path, strings.Join(res.Added, ", "))
	default:
		fmt.Fprintf(w, "kept    %s (recite's hooks already installed)\n", res.Path)
	}
}
