package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// usageError is a bad flag, argument or input the command line itself
// finds: exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// checkFailed is a check that ran and failed (verify found lost signals,
// the agent of a conversation run failed): exit 1.
type checkFailed struct{ msg string }

func (e checkFailed) Error() string { return e.msg }

// run executes the command line and returns the process exit code.
func run(ctx context.Context, args []string, streams IOStreams) int {
	return runRoot(ctx, newRootCmd(streams), args, streams)
}

// runRoot is run with the command tree already built (main builds it
// once and asks it first whether the command is long-running).
func runRoot(ctx context.Context, root *cobra.Command, args []string, streams IOStreams) int {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(streams.ErrOut, "recite:", err)
	return exitCode(err)
}

// exitCode maps the error a command returned to the process exit code; it
// is the only place errors are classified. 1: a check that ran and failed,
// a condition worth retrying (the git index stayed locked), or a path that
// is not in the project (files --why). 2: a usage
// error (usageError, cobra's flag and argument errors), an input error
// (*engine.InputError), and any other failure.
func exitCode(err error) int {
	var failed checkFailed
	var usage usageError
	var input *engine.InputError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &failed), errors.Is(err, engine.ErrIndexLocked), errors.Is(err, engine.ErrNotInProject):
		return 1
	case errors.As(err, &usage), errors.As(err, &input):
		return 2
	default:
		// Failures of the system (an unwritable file, a broken git
		// repository) have always exited 2 too.
		return 2
	}
}

// globalOptions are the flags every command shares.
type globalOptions struct {
	dir string
}

// addFlags registers the global flags as persistent flags of root.
func (g *globalOptions) addFlags(root *cobra.Command) {
	root.PersistentFlags().StringVarP(&g.dir, "dir", "C", ".", "project `directory`")
}

// runWith calls runF when a test gave one, else run: each command's cobra
// closure fills its options and hands them to one of the two.
func runWith[O any](ctx context.Context, opts *O, runF, run func(context.Context, *O) error) error {
	if runF != nil {
		return runF(ctx, opts)
	}
	return run(ctx, opts)
}

// newRootCmd builds the command tree.
func newRootCmd(streams IOStreams) *cobra.Command {
	g := &globalOptions{}
	root := newRoot(g, streams)
	root.AddCommand(
		newInitCmd(g, streams, nil),
		newInspectCmd(g, streams, nil),
		newBuildCmd(g, streams, nil),
		newRenderCmd(g, streams, nil),
		newStatusCmd(g, streams, nil),
		newConversationCmd(g, streams), newImportCmd(g, streams, nil),
		newFilesCmd(g, streams, nil),
		newWatchCmd(g, streams, nil), newCommitCmd(g, streams, nil), newRedactCmd(g, streams, nil),
		newPreserveCmd(g, streams, nil), newVerifyCmd(g, streams, nil), newHookCmd(g, streams, nil), newStatuslineCmd(g, streams, nil),
		newMCPCmd(g, streams, nil),
		newConfigCmd(g, streams),
	)
	rejectUnknownSubcommands(root)
	return root
}

// newRoot is the root command without its subcommands: the streams, the
// global flags filling g, and flag errors as usage errors with a hint.
func newRoot(g *globalOptions, streams IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:           "recite",
		Short:         "Keep AI coding agents' context in plain files inside the project",
		Version:       buildVersion(debug.ReadBuildInfo()),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("recite {{.Version}}\n")
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	g.addFlags(root)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w\nsee '%s --help'", err, c.CommandPath())}
	})
	return root
}

// rejectUnknownSubcommands makes every command that only groups others
// (conversation, import, hook) fail with a usage error (exit 2) on an
// unknown subcommand; cobra would print the help and exit 0. With no
// argument the help is printed, as for --help.
func rejectUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		rejectUnknownSubcommands(sub)
	}
	if !c.HasSubCommands() || c.Run != nil || c.RunE != nil || !c.HasParent() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return c.Help()
		}
		return usageError{fmt.Errorf("unknown command %q for %q\nsee '%s --help'", args[0], c.CommandPath(), c.CommandPath())}
	}
}
