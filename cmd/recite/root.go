package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// IOStreams are the standard streams a command reads and writes; tests pass
// buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// exitCoder is an error that carries its own exit code.
type exitCoder interface{ ExitCode() int }

// usageError is a bad flag, argument or input: exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }
func (e usageError) ExitCode() int { return 2 }

// checkFailed is a check that ran and failed (e.g. verify found lost
// signals): exit 1.
type checkFailed struct{ msg string }

func (e checkFailed) Error() string { return e.msg }
func (e checkFailed) ExitCode() int { return 1 }

// run executes the command line and returns the process exit code.
func run(ctx context.Context, args []string, streams IOStreams) int {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	root := newRootCmd(streams)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ce exitCoder
	if errors.As(err, &ce) {
		if ce.ExitCode() != 1 || err.Error() != "" {
			fmt.Fprintln(streams.ErrOut, "recite:", err)
		}
		return ce.ExitCode()
	}
	// cobra's own flag and argument errors are usage errors.
	fmt.Fprintln(streams.ErrOut, "recite:", err)
	return 2
}

// globalOptions are the flags every command shares.
type globalOptions struct {
	dir string
}

func newRootCmd(streams IOStreams) *cobra.Command {
	g := &globalOptions{}
	root := &cobra.Command{
		Use:           "recite",
		Short:         "Keep AI coding agents' context in plain files inside the project",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.PersistentFlags().StringVarP(&g.dir, "dir", "C", ".", "project `directory`")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w\nsee '%s --help'", err, c.CommandPath())}
	})
	root.AddCommand(
		newInitCmd(g, streams),
		newInspectCmd(g, streams),
		newBuildCmd(g, streams),
		newRenderCmd(g, streams),
		newStatusCmd(g, streams),
		newConversationCmd(g, streams), newImportCmd(g, streams),
		newFilesCmd(g, streams),
		newWatchCmd(g, streams), newCommitCmd(g, streams),
		newPreserveCmd(g, streams), newVerifyCmd(g, streams), newHookCmd(g, streams),
		newMCPCmd(g, streams),
	)
	rejectUnknownSubcommands(root)
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
