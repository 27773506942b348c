package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// messageText is the message argument: the rest of the arguments joined by
// spaces, or stdin when it is the single argument "-".
func messageText(args []string, in io.Reader) (string, error) {
	if len(args) == 1 && args[0] == "-" {
		b, err := io.ReadAll(in)
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return strings.TrimRight(string(b), "\n"), nil
	}
	text := strings.Join(args, " ")
	if strings.TrimSpace(text) == "" {
		return "", usageError{errors.New("empty message")}
	}
	return text, nil
}

func newConversationCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "conversation",
		Aliases: []string{"conv"},
		Short:   "Create, append to, run, list, show, fork and archive conversations",
		Long: `The conversation coordinator. Each conversation is one append-only log,
.planning/conversations/ID.jsonl. Ids match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$.`,
	}
	cmd.AddCommand(
		newConvNewCmd(g, streams, nil),
		newConvSayCmd(g, streams, nil),
		newConvRunCmd(g, streams, nil),
		newConvListCmd(g, streams, nil),
		newConvShowCmd(g, streams, nil),
		newConvForkCmd(g, streams, nil),
		newConvArchiveCmd(g, streams, nil),
	)
	return cmd
}

// convNewOptions are the inputs of `conversation new`.
type convNewOptions struct {
	io   IOStreams
	dir  string
	id   string
	meta engine.ConversationMeta
}

func newConvNewCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *convNewOptions) error) *cobra.Command {
	opts := &convNewOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "new ID",
		Short: "Start a conversation",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir, opts.id = g.dir, args[0]
			return runWith(cmd.Context(), opts, runF, convNewRun)
		},
	}
	f := cmd.Flags()
	m := &opts.meta
	f.StringVar(&m.AgentType, "agent", "", "agent `type` handling the conversation (e.g. backend-developer)")
	f.StringVar(&m.Epic, "epic", "", "epic the conversation belongs to")
	f.StringVar(&m.Phase, "phase", "", "roadmap phase (number or name)")
	f.StringVar(&m.Title, "title", "", "human title")
	f.StringSliceVar(&m.Tags, "tag", nil, "tag (repeatable; used to choose learnings)")
	f.StringSliceVar(&m.Deliverables, "deliverable", nil, "file the conversation should produce (repeatable)")
	return cmd
}

func convNewRun(ctx context.Context, opts *convNewOptions) error {
	cs, err := engine.New(opts.dir).Conversations()
	if err != nil {
		return err
	}
	if err := cs.Create(ctx, opts.id, opts.meta); err != nil {
		return err
	}
	fmt.Fprintf(opts.io.Out, "created %s\n", engine.ConversationLog(opts.id))
	return nil
}

// convSayOptions are the inputs of `conversation say`: the message (its
// text read from args, or stdin for "-") and whether to rebuild.
type convSayOptions struct {
	io      IOStreams
	dir     string
	say     engine.SayOptions
	args    []string
	noBuild bool
	json    jsonFlag
}

func newConvSayCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *convSayOptions) error) *cobra.Command {
	opts := &convSayOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "say ID (TEXT | -)",
		Short: "Append a message (- reads it from stdin)",
		Long: `Append a message to conversation ID, then regenerate the prompt files of
the targets whose conversation is ID (as recite build does for them), so each
carries the new message. --no-build only appends. It prints
"appended message N to ID (ROLE)", N being the message's position (as show
numbers it), then one line per rebuilt target with the prompt files written.

Exit codes: 0 when the message is recorded, also when only the rebuild
failed (the failure is reported on stderr: a caller that retries on a
non-zero exit would record the message twice); 2 when it is not recorded
(a bad conversation id, an unknown conversation, a full disk: the log is
left as it was). --json prints {"recorded", "conversation", "id", "number",
"role", "rebuilt", "rebuild_error", "targets"}.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.say.Validate(); err != nil {
				return err
			}
			opts.dir, opts.say.ID, opts.args = g.dir, args[0], args[1:]
			return runWith(cmd.Context(), opts, runF, convSayRun)
		},
	}
	f := cmd.Flags()
	s := &opts.say
	f.StringVar(&s.Role, "role", engine.RoleUser, "message role: user, assistant, tool or system")
	f.StringVar(&s.Agent, "agent", "", "agent `name` that wrote the message")
	f.BoolVar(&s.Internal, "internal", false, "a note not replayed to models")
	f.StringVar(&s.ToolCallID, "tool-call-id", "", "id of the tool call a tool message answers")
	f.StringVar(&s.ToolName, "tool-name", "", "name of the tool that ran")
	f.BoolVar(&s.IsError, "error", false, "mark a failed tool result or error")
	f.IntVar(&s.Iteration, "iteration", 0, "loop iteration the message belongs to")
	f.BoolVar(&opts.noBuild, "no-build", false, "only append; leave the prompt files of targets bound to ID as they are")
	opts.json.addFlag(cmd, "print whether the message was recorded and the prompt files rebuilt as JSON")
	return cmd
}

// sayResult is `conversation say --json`: the message as recorded, and
// whether the rebuild that follows it ran and succeeded.
type sayResult struct {
	Recorded     bool     `json:"recorded"`
	Conversation string   `json:"conversation"`
	ID           string   `json:"id"`
	Number       int      `json:"number,omitempty"`
	Role         string   `json:"role"`
	Rebuilt      bool     `json:"rebuilt"`
	RebuildError string   `json:"rebuild_error,omitempty"`
	Targets      []string `json:"targets,omitempty"`
}

// messageTo reads a message's text (messageText) and opens the
// conversations of the project at dir, for say and run.
func messageTo(dir string, args []string, in io.Reader) (string, *engine.Engine, *engine.Conversations, error) {
	text, err := messageText(args, in)
	if err != nil {
		return "", nil, nil, err
	}
	e := engine.New(dir)
	cs, err := e.Conversations()
	if err != nil {
		return "", nil, nil, err
	}
	return text, e, cs, nil
}

func convSayRun(ctx context.Context, opts *convSayOptions) error {
	text, e, cs, err := messageTo(opts.dir, opts.args, opts.io.In)
	if err != nil {
		return err
	}
	say := opts.say
	say.Text = text
	res, err := cs.Say(ctx, say)
	if err != nil {
		return err
	}
	out := sayResult{Recorded: true, Conversation: say.ID, ID: res.Record.ID, Number: res.Number, Role: say.Role}
	n := res.Record.ID
	if res.Number > 0 {
		n = strconv.Itoa(res.Number)
	}
	if !opts.json.on {
		fmt.Fprintf(opts.io.Out, "appended message %s to %s (%s)\n", n, say.ID, say.Role)
	}
	if !opts.noBuild {
		// The message is recorded: whatever the rebuild does, say exits
		// 0, so a caller that retries on failure never records it twice.
		rep, err := e.BuildConversation(ctx, say.ID)
		if err != nil {
			out.RebuildError = err.Error()
			fmt.Fprintf(opts.io.ErrOut, "recite: message recorded; prompt files not rebuilt: %v\n", err)
		} else {
			out.Rebuilt = true
			for _, t := range rep.Targets {
				out.Targets = append(out.Targets, t.Name)
				if !opts.json.on {
					fmt.Fprintf(opts.io.Out, "rebuilt target %s: %s\n", t.Name, writeState(t))
				}
			}
			printDiagnosticsOnce(opts.io.ErrOut, e, rep.Diagnostics, bySay)
		}
	}
	if opts.json.on {
		return printJSON(opts.io.Out, out)
	}
	return nil
}

// convRunOptions are the inputs of `conversation run`.
type convRunOptions struct {
	io   IOStreams
	dir  string
	id   string
	args []string
	json jsonFlag
}

func newConvRunCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *convRunOptions) error) *cobra.Command {
	opts := &convRunOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "run ID (TEXT | -)",
		Short: "Append a user message, spawn the agent with the regenerated prompt, record its reply",
		Long: `Append TEXT as a user message, regenerate the prompt of the target whose
conversation is ID (or, when no target names it, render the first target with
this conversation into .planning/.recite/conversations/ID.md), run
agent.command from recite.yaml through sh -c (the prompt on stdin, or its path
in place of {prompt_file}) under agent.timeout, and record its stdout as the
assistant message. A failing agent is recorded as an error message and exits 1.
Each run is one iteration: with the reply it records an iteration record (the
files the run modified per git status, output lines, exit code, the error's
hash), which the next prompt's loop and role layer reads ("iteration N of M",
M from agent.max_iterations).`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir, opts.id, opts.args = g.dir, args[0], args[1:]
			return runWith(cmd.Context(), opts, runF, convRunRun)
		},
	}
	opts.json.addFlag(cmd, "print the run's result as JSON")
	return cmd
}

func convRunRun(ctx context.Context, opts *convRunOptions) error {
	text, e, cs, err := messageTo(opts.dir, opts.args, opts.io.In)
	if err != nil {
		return err
	}
	res, err := cs.Run(ctx, engine.RunOptions{ID: opts.id, Text: text, Stderr: opts.io.ErrOut})
	if res != nil {
		printDiagnosticsOnce(opts.io.ErrOut, e, res.Diagnostics, byRun)
	}
	var ae *engine.AgentError
	if errors.As(err, &ae) {
		return checkFailed{msg: fmt.Sprintf("%s (recorded in %s)", ae.Message, engine.ConversationLog(opts.id))}
	}
	if err != nil {
		return err
	}
	return opts.json.print(opts.io.Out, res, func(w io.Writer) error {
		fmt.Fprintln(w, res.Reply)
		return nil
	})
}

// convListOptions are the inputs of `conversation list`.
type convListOptions struct {
	io   IOStreams
	dir  string
	json jsonFlag
}

func newConvListCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *convListOptions) error) *cobra.Command {
	opts := &convListOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List conversations: id, agent, messages, last activity",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			return runWith(cmd.Context(), opts, runF, convListRun)
		},
	}
	opts.json.addFlag(cmd, "print JSON")
	return cmd
}

func convListRun(_ context.Context, opts *convListOptions) error {
	cs, err := engine.New(opts.dir).Conversations()
	if err != nil {
		return err
	}
	list, diags, err := cs.List()
	if err != nil {
		return err
	}
	for _, d := range diags {
		fmt.Fprintf(opts.io.ErrOut, "recite: %s\n", d)
	}
	return opts.json.print(opts.io.Out, list, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tAGENT\tMESSAGES\tLAST ACTIVITY")
		for _, c := range list {
			agent := c.AgentType
			if agent == "" {
				agent = "-"
			}
			last := "-"
			if !c.LastActivity.IsZero() {
				last = c.LastActivity.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", c.ID, agent, c.Messages, last)
		}
		return tw.Flush()
	})
}
