package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// convShowOptions are the inputs of `conversation show`.
type convShowOptions struct {
	io     IOStreams
	dir    string
	id     string
	format string
	all    bool
	raw    bool
	tail   int
}

func newConvShowCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *convShowOptions) error) *cobra.Command {
	opts := &convShowOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a conversation: md, json, or a provider's request shape",
		Long: `Print conversation ID. --format md (default) numbers every message by its
position in the log (the N of fork --at N) and hides internal and sidechain
messages unless --all; json prints the records; openai, anthropic, gemini,
ollama and text print the messages alone in that provider's request shape.
--tail N prints only the last N messages (read from the end of the log);
without it md and json stream the whole log in constant memory.

Secrets are shown as their ⟨secret:KIND:hash8⟩ placeholders, as the log
holds them. --raw shows the records as they were before redaction, from
` + engine.RawDir + `/ (kept only with conversations.keep_raw: true in
recite.yaml); stderr says how many came from there.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir, opts.id = g.dir, args[0]
			return runWith(cmd.Context(), opts, runF, convShowRun)
		},
	}
	cmd.Flags().StringVar(&opts.format, "format", "md", "md, json or a provider's shape: "+strings.Join(engine.Providers(), ", "))
	cmd.Flags().BoolVar(&opts.all, "all", false, "include internal and sidechain messages")
	cmd.Flags().BoolVar(&opts.raw, "raw", false, "show the raw text kept by conversations.keep_raw instead of placeholders")
	cmd.Flags().IntVar(&opts.tail, "tail", 0, "print only the last N messages")
	return cmd
}

func convShowRun(ctx context.Context, opts *convShowOptions) error {
	if opts.tail < 0 {
		return usageError{fmt.Errorf("--tail %d: want a number of messages, at least 1", opts.tail)}
	}
	cs, err := engine.New(opts.dir).Conversations()
	if err != nil {
		return err
	}
	show := engine.ShowOptions{ID: opts.id, Format: opts.format, All: opts.all, Tail: opts.tail, Raw: opts.raw,
		RawShown: func(n int) {
			fmt.Fprintf(opts.io.ErrOut, "%d %s shown raw from %s/ (the others hold no secret, or were written without conversations.keep_raw)\n", n, plural(n, "record", "records"), engine.RawDir)
		}}
	return cs.Show(ctx, show, opts.io.Out, func(d engine.Diagnostic) {
		fmt.Fprintf(opts.io.ErrOut, "diagnostic: %s\n", d)
	})
}

// convForkOptions are the inputs of `conversation fork`.
type convForkOptions struct {
	io        IOStreams
	dir       string
	id, newID string
	at        int
}

func newConvForkCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *convForkOptions) error) *cobra.Command {
	opts := &convForkOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "fork ID --at N NEWID",
		Short: "Branch conversation ID after its first N messages into NEWID",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.at < 0 {
				return usageError{errors.New("--at N is required: the number of messages the fork inherits")}
			}
			opts.dir, opts.id, opts.newID = g.dir, args[0], args[1]
			return runWith(cmd.Context(), opts, runF, convForkRun)
		},
	}
	cmd.Flags().IntVar(&opts.at, "at", -1, "number of messages of ID the fork inherits")
	return cmd
}

func convForkRun(ctx context.Context, opts *convForkOptions) error {
	cs, err := engine.New(opts.dir).Conversations()
	if err != nil {
		return err
	}
	if err := cs.Fork(ctx, opts.id, opts.at, opts.newID); err != nil {
		return err
	}
	fmt.Fprintf(opts.io.Out, "forked %s at %d into %s\n", opts.id, opts.at, engine.ConversationLog(opts.newID))
	return nil
}

// convArchiveOptions are the inputs of `conversation archive`: one id, or
// (when olderThan is set) an age as given and the clock it is measured
// against.
type convArchiveOptions struct {
	io        IOStreams
	dir       string
	id        string
	olderThan string
	now       func() time.Time
}

func newConvArchiveCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *convArchiveOptions) error) *cobra.Command {
	opts := &convArchiveOptions{io: streams, now: time.Now}
	cmd := &cobra.Command{
		Use:   "archive (ID | --older-than 30d)",
		Short: "Move conversations to .planning/conversations/archive/",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (opts.olderThan != "") {
				return usageError{errors.New("give either an ID or --older-than AGE")}
			}
			opts.dir, opts.id = g.dir, ""
			if len(args) == 1 {
				opts.id = args[0]
			}
			return runWith(cmd.Context(), opts, runF, convArchiveRun)
		},
	}
	cmd.Flags().StringVar(&opts.olderThan, "older-than", "", "archive every conversation idle for longer than AGE (30d, 12h)")
	return cmd
}

func convArchiveRun(ctx context.Context, opts *convArchiveOptions) error {
	cs, err := engine.New(opts.dir).Conversations()
	if err != nil {
		return err
	}
	if opts.olderThan == "" {
		if err := cs.Archive(ctx, opts.id); err != nil {
			return err
		}
		fmt.Fprintf(opts.io.Out, "archived %s\n", opts.id)
		return nil
	}
	age, err := parseAge(opts.olderThan)
	if err != nil {
		return usageError{err}
	}
	done, err := cs.ArchiveOlderThan(ctx, age, opts.now())
	for _, id := range done {
		fmt.Fprintf(opts.io.Out, "archived %s\n", id)
	}
	if err != nil {
		return err
	}
	if len(done) == 0 {
		fmt.Fprintf(opts.io.Out, "nothing older than %s\n", opts.olderThan)
	}
	return nil
}

// parseAge parses "30d" (days) or a Go duration ("12h").
func parseAge(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("--older-than %q: want a number of days like 30d, or a duration like 12h", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("--older-than %q: want a number of days like 30d, or a duration like 12h", s)
	}
	return v, nil
}
