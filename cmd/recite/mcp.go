package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine/mcp"
)

// mcpOptions are the inputs of `recite mcp`.
type mcpOptions struct {
	io  IOStreams
	dir string
	// dirGiven is set when -C named the project; otherwise the client's
	// roots, then the working directory, decide.
	dirGiven bool
	noWatch  bool
	verbose  bool
}

func newMCPCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *mcpOptions) error) *cobra.Command {
	opts := &mcpOptions{io: streams.raw()} // JSON-RPC on stdout: not escaped
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the project's context to an agent over MCP (stdio)",
		Long: `Run a Model Context Protocol server on stdin/stdout for one client (the agent
starts one process per session). Tools: recitation, stop_signals, record,
preserve, verify_summary, files, prompt, each with a JSON schema and a
structured result. Resources: the prompt files and the latest preservation
block, with resources/list_changed and resources/updated notifications as
the watcher rebuilds the prompts.

The project is -C DIR when given, else the first of the client's roots that
lies in a project, else the project at or above the working directory.
Notices go to stderr (--verbose adds one per project found).
` + "`recite init --mcp`" + ` writes .mcp.json and prints the other agents' snippets.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir, opts.dirGiven = g.dir, cmd.Flags().Changed("dir")
			return runWith(cmd.Context(), opts, runF, mcpRun)
		},
	}
	cmd.Flags().BoolVar(&opts.noWatch, "no-watch", false, "do not rebuild the prompt files on changes (no change notifications from other edits)")
	cmd.Flags().BoolVarP(&opts.verbose, "verbose", "v", false, "log the project found and the server's notices to stderr")
	return cmd
}

func mcpRun(ctx context.Context, opts *mcpOptions) error {
	mo := mcp.ServeOptions{WorkDir: ".", NoWatch: opts.noWatch, Version: version()}
	if opts.dirGiven {
		mo.Dir = opts.dir
	}
	level := slog.LevelWarn
	if opts.verbose {
		level = slog.LevelInfo
	}
	mo.Logger = slog.New(slog.NewTextHandler(opts.io.ErrOut, &slog.HandlerOptions{Level: level}))
	return mcp.ServeProject(ctx, opts.io.In, opts.io.Out, mo)
}

// version is the module version the binary was built from ("(devel)" for
// a local build).
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// printMCP reports what `init --mcp` did to .mcp.json and prints each
// other agent's snippet under the file it goes in.
func printMCP(w io.Writer, res *mcp.InitResult) {
	switch {
	case res.Created:
		fmt.Fprintf(w, "created %s (MCP server recite, for Claude Code)\n", res.Path)
	case res.Added:
		fmt.Fprintf(w, "updated %s (added MCP server recite, for Claude Code)\n", res.Path)
	default:
		fmt.Fprintf(w, "kept    %s (it already names an MCP server recite)\n", res.Path)
	}
	for _, s := range res.Snippets {
		fmt.Fprintf(w, "\n%s: add to %s (%s)\n%s", s.Agent, s.File, s.Doc, s.Text)
	}
}
