package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning/conversation"
)

// openStore opens the conversation store of the project at dir, which must
// have a .planning folder (the store would create one otherwise).
func openStore(dir string) (*conversation.Store, error) {
	p := filepath.Join(dir, engine.PlanningDir)
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return nil, usageError{fmt.Errorf("no .planning folder in %s (run `recite init` to create one)", dir)}
	}
	return engine.New(dir).OpenConversations()
}

// convError classifies store errors: invalid ids, unknown and existing
// conversations are usage errors (exit 2).
func convError(err error) error {
	if err == nil {
		return nil
	}
	var ue usageError
	if errors.As(err, &ue) {
		return err
	}
	for _, target := range []error{conversation.ErrInvalidID, conversation.ErrNotFound, conversation.ErrExists} {
		if errors.Is(err, target) {
			return usageError{err}
		}
	}
	return engineError(err)
}

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
		newConvNewCmd(g, streams),
		newConvSayCmd(g, streams),
		newConvRunCmd(g, streams),
		newConvListCmd(g, streams),
		newConvShowCmd(g, streams),
		newConvForkCmd(g, streams),
		newConvArchiveCmd(g, streams),
	)
	return cmd
}

// convNewOptions are the flags of `conversation new`.
type convNewOptions struct {
	agent, epic, phase, title string
	tags, deliverables        []string
}

func newConvNewCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var o convNewOptions
	cmd := &cobra.Command{
		Use:   "new ID",
		Short: "Start a conversation",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openStore(g.dir)
			if err != nil {
				return err
			}
			meta := conversation.Meta{AgentType: o.agent, Epic: o.epic, Phase: o.phase, Title: o.title, Tags: o.tags, Deliverables: o.deliverables}
			if err := s.Create(cmd.Context(), args[0], meta); err != nil {
				return convError(err)
			}
			fmt.Fprintf(streams.Out, "created %s\n", engine.ConversationLog(args[0]))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.agent, "agent", "", "agent `type` handling the conversation (e.g. backend-developer)")
	f.StringVar(&o.epic, "epic", "", "epic the conversation belongs to")
	f.StringVar(&o.phase, "phase", "", "roadmap phase (number or name)")
	f.StringVar(&o.title, "title", "", "human title")
	f.StringSliceVar(&o.tags, "tag", nil, "tag (repeatable; used to choose learnings)")
	f.StringSliceVar(&o.deliverables, "deliverable", nil, "file the conversation should produce (repeatable)")
	return cmd
}

// convSayOptions are the flags of `conversation say`.
type convSayOptions struct {
	role, agent, toolCallID, toolName string
	internal, isError, noBuild        bool
	iteration                         int
}

func newConvSayCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var o convSayOptions
	cmd := &cobra.Command{
		Use:   "say ID (TEXT | -)",
		Short: "Append a message (- reads it from stdin)",
		Long: `Append a message to conversation ID, then regenerate the prompt files of
the targets whose conversation is ID (as recite build does for them), so each
carries the new message. --no-build only appends. It prints
"appended message N to ID (ROLE)", N being the message's position (as show
numbers it), then one line per rebuilt target with the prompt files written.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch o.role {
			case conversation.RoleUser, conversation.RoleAssistant, conversation.RoleTool, conversation.RoleSystem:
			default:
				return usageError{fmt.Errorf("--role %q: want user, assistant, tool or system", o.role)}
			}
			if (o.toolCallID != "" || o.toolName != "") && o.role != conversation.RoleTool {
				return usageError{errors.New("--tool-call-id and --tool-name need --role tool")}
			}
			text, err := messageText(args[1:], streams.In)
			if err != nil {
				return err
			}
			s, err := openStore(g.dir)
			if err != nil {
				return err
			}
			if _, err := s.Path(args[0]); err != nil {
				return convError(err)
			}
			rec := conversation.Record{Role: o.role, Agent: o.agent, Content: text, Internal: o.internal,
				ToolCallID: o.toolCallID, ToolName: o.toolName, IsError: o.isError, Iteration: o.iteration}
			written, err := s.AppendStamped(cmd.Context(), args[0], rec)
			if err != nil {
				return convError(err)
			}
			fmt.Fprintf(streams.Out, "appended message %s to %s (%s)\n", messageNumber(s, args[0], written[0].ID), args[0], o.role)
			if o.noBuild {
				return nil
			}
			rep, err := engine.New(g.dir).BuildConversation(cmd.Context(), args[0])
			if err != nil {
				return engineError(fmt.Errorf("message recorded; prompt files not rebuilt: %w", err))
			}
			for _, t := range rep.Targets {
				fmt.Fprintf(streams.Out, "rebuilt target %s: %s\n", t.Name, writeState(t))
			}
			printDiagnostics(streams.ErrOut, rep.Diagnostics)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.role, "role", "user", "message role: user, assistant, tool or system")
	f.StringVar(&o.agent, "agent", "", "agent `name` that wrote the message")
	f.BoolVar(&o.internal, "internal", false, "a note not replayed to models")
	f.StringVar(&o.toolCallID, "tool-call-id", "", "id of the tool call a tool message answers")
	f.StringVar(&o.toolName, "tool-name", "", "name of the tool that ran")
	f.BoolVar(&o.isError, "error", false, "mark a failed tool result or error")
	f.IntVar(&o.iteration, "iteration", 0, "loop iteration the message belongs to")
	f.BoolVar(&o.noBuild, "no-build", false, "only append; leave the prompt files of targets bound to ID as they are")
	return cmd
}

// messageNumber is the 1-based position of record recID among the messages
// of conversation id (the N that `show` prints and `fork --at` takes), or
// the record id when the log cannot be read back.
func messageNumber(s *conversation.Store, id, recID string) string {
	c, _, err := s.Read(id)
	if err == nil {
		for i, m := range c.Messages {
			if m.ID == recID {
				return strconv.Itoa(i + 1)
			}
		}
	}
	return recID
}

func newConvRunCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var asJSON bool
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
			text, err := messageText(args[1:], streams.In)
			if err != nil {
				return err
			}
			if _, err := openStore(g.dir); err != nil {
				return err
			}
			if err := conversation.ValidateID(args[0]); err != nil {
				return usageError{err}
			}
			res, err := engine.New(g.dir).RunConversation(cmd.Context(), engine.RunOptions{ID: args[0], Text: text, Stderr: streams.ErrOut})
			if res != nil {
				printDiagnostics(streams.ErrOut, res.Diagnostics)
			}
			if err != nil {
				var ae *engine.AgentError
				if errors.As(err, &ae) {
					return checkFailed{msg: fmt.Sprintf("%s (recorded in %s)", ae.Message, engine.ConversationLog(args[0]))}
				}
				return convError(err)
			}
			if asJSON {
				return writeJSON(streams.Out, res)
			}
			fmt.Fprintln(streams.Out, res.Reply)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the run's result as JSON")
	return cmd
}

func newConvListCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List conversations: id, agent, messages, last activity",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openStore(g.dir)
			if err != nil {
				return err
			}
			list, diags, err := s.ListDiagnosed()
			if err != nil {
				return err
			}
			for _, d := range diags {
				if rel, err := filepath.Rel(g.dir, d.Path); err == nil && filepath.IsLocal(rel) {
					d.Path = filepath.ToSlash(rel)
				}
				fmt.Fprintf(streams.ErrOut, "recite: %s\n", d)
			}
			if asJSON {
				if list == nil {
					list = []conversation.Summary{}
				}
				return writeJSON(streams.Out, list)
			}
			tw := tabwriter.NewWriter(streams.Out, 0, 4, 2, ' ', 0)
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
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newConvShowCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var format string
	var all bool
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Print a conversation: md, json, or a provider's request shape",
		Long: `Print conversation ID. --format md (default) numbers every message by its
position in the log (the N of fork --at N) and hides internal and sidechain
messages unless --all; json prints the records; openai, anthropic, gemini,
ollama and text print the messages alone in that provider's request shape.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := openStore(g.dir)
			if err != nil {
				return err
			}
			c, diags, err := s.Read(args[0])
			if err != nil {
				return convError(err)
			}
			for _, d := range diags {
				fmt.Fprintf(streams.ErrOut, "diagnostic: %s\n", d)
			}
			switch format {
			case "md", "markdown":
				_, err := io.WriteString(streams.Out, showMarkdown(c, all))
				return err
			case "json":
				return writeJSON(streams.Out, showJSON(c, all))
			}
			body, err := engine.RenderConversation(c, format, all, prompt.RenderOptions{})
			if err != nil {
				return usageError{fmt.Errorf("--format %q: want md, json, openai, anthropic, gemini, ollama or text", format)}
			}
			_, err = streams.Out.Write(body)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "md", "md, json, openai, anthropic, gemini, ollama or text")
	cmd.Flags().BoolVar(&all, "all", false, "include internal and sidechain messages")
	return cmd
}

// convJSON is `show --format json`.
type convJSON struct {
	ID           string                `json:"id"`
	Meta         conversation.Meta     `json:"meta"`
	Messages     []conversation.Record `json:"messages"`
	Iterations   []conversation.Record `json:"iterations"`
	Events       []conversation.Record `json:"events"`
	Deliverables []string              `json:"deliverables"`
}

func showJSON(c *conversation.Conversation, all bool) convJSON {
	out := convJSON{ID: c.ID, Meta: c.Meta, Messages: []conversation.Record{}, Iterations: c.Iterations, Events: c.Events, Deliverables: c.Deliverables}
	for _, m := range c.Messages {
		if all || engine.Replayable(m) {
			out.Messages = append(out.Messages, m)
		}
	}
	if out.Iterations == nil {
		out.Iterations = []conversation.Record{}
	}
	if out.Events == nil {
		out.Events = []conversation.Record{}
	}
	if out.Deliverables == nil {
		out.Deliverables = []string{}
	}
	return out
}

func showMarkdown(c *conversation.Conversation, all bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Conversation %s\n\n", c.ID)
	m := c.Meta
	for _, kv := range [][2]string{{"Title", m.Title}, {"Agent", m.AgentType}, {"Epic", m.Epic}, {"Phase", m.Phase}, {"Tags", strings.Join(m.Tags, ", ")}, {"Deliverables", strings.Join(c.Deliverables, ", ")}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "- %s: %s\n", kv[0], kv[1])
		}
	}
	if m.Parent != "" {
		at := "all"
		if m.ForkAt != nil {
			at = strconv.Itoa(*m.ForkAt)
		}
		fmt.Fprintf(&b, "- Forked from: %s after %s messages\n", m.Parent, at)
	}
	hidden := 0
	for _, r := range c.Messages {
		if !all && !engine.Replayable(r) {
			hidden++
		}
	}
	fmt.Fprintf(&b, "- Messages: %d", len(c.Messages))
	if hidden > 0 {
		fmt.Fprintf(&b, " (%d internal hidden; --all shows them)", hidden)
	}
	b.WriteString("\n")
	for i, r := range c.Messages {
		if !all && !engine.Replayable(r) {
			continue
		}
		label := r.Role
		if r.Agent != "" {
			label += " (" + r.Agent + ")"
		}
		if r.ToolName != "" {
			label += " " + r.ToolName
		}
		if r.ToolCallID != "" {
			label += " ← " + r.ToolCallID
		}
		var flags []string
		if r.IsError {
			flags = append(flags, "error")
		}
		if r.Internal {
			flags = append(flags, "internal")
		}
		if r.Sidechain {
			flags = append(flags, "sidechain")
		}
		if r.CompactSummary {
			flags = append(flags, "compact summary")
		}
		if len(flags) > 0 {
			label += " [" + strings.Join(flags, ", ") + "]"
		}
		fmt.Fprintf(&b, "\n### %d. %s · %s\n\n", i+1, label, r.Time.UTC().Format(time.RFC3339))
		if r.Content != "" {
			b.WriteString(r.Content + "\n")
		}
		for _, tc := range r.ToolCalls {
			fmt.Fprintf(&b, "[tool call %s %s] %s\n", tc.Name, tc.ID, tc.Arguments)
		}
	}
	return b.String()
}

func newConvForkCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	at := -1
	cmd := &cobra.Command{
		Use:   "fork ID --at N NEWID",
		Short: "Branch conversation ID after its first N messages into NEWID",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if at < 0 {
				return usageError{errors.New("--at N is required: the number of messages the fork inherits")}
			}
			s, err := openStore(g.dir)
			if err != nil {
				return err
			}
			if err := conversation.ValidateID(args[1]); err != nil {
				return usageError{err}
			}
			if err := s.Fork(cmd.Context(), args[0], at, args[1]); err != nil {
				if strings.Contains(err.Error(), "out of range") {
					return usageError{err}
				}
				return convError(err)
			}
			fmt.Fprintf(streams.Out, "forked %s at %d into %s\n", args[0], at, engine.ConversationLog(args[1]))
			return nil
		},
	}
	cmd.Flags().IntVar(&at, "at", -1, "number of messages of ID the fork inherits")
	return cmd
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

func newConvArchiveCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var olderThan string
	cmd := &cobra.Command{
		Use:   "archive (ID | --older-than 30d)",
		Short: "Move conversations to .planning/conversations/archive/",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (olderThan != "") {
				return usageError{errors.New("give either an ID or --older-than AGE")}
			}
			s, err := openStore(g.dir)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				if err := s.Archive(cmd.Context(), args[0]); err != nil {
					return convError(err)
				}
				fmt.Fprintf(streams.Out, "archived %s\n", args[0])
				return nil
			}
			age, err := parseAge(olderThan)
			if err != nil {
				return usageError{err}
			}
			done, err := s.ArchiveOlderThan(cmd.Context(), age, time.Now())
			for _, id := range done {
				fmt.Fprintf(streams.Out, "archived %s\n", id)
			}
			if err != nil {
				return convError(err)
			}
			if len(done) == 0 {
				fmt.Fprintf(streams.Out, "nothing older than %s\n", olderThan)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "archive every conversation idle for longer than AGE (30d, 12h)")
	return cmd
}
