package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// inspectOptions are the inputs of `recite inspect`.
type inspectOptions struct {
	io   IOStreams
	dir  string
	json jsonFlag
}

func newInspectCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *inspectOptions) error) *cobra.Command {
	opts := &inspectOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Show the parsed planning tree: flavor, phases, current plan, next task, blockers, diagnostics",
		Long: `Show the parsed planning tree: flavor, current phase, plan and next task,
the phases with their status and plans done, open blockers, recent decisions,
loops and every diagnostic (file:line: message): the planning tree's and
recite.yaml's, read now, then the others that build, status, watch,
preserve and conversation say or run printed (the targets' inputs, for
one), with the command that printed them. Paths are relative to the
project root. Nothing is written.

The planning tree is DIR/.planning, or DIR itself when it is named .planning.
A missing or unreadable tree is an input error (exit 2).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			return runWith(cmd.Context(), opts, runF, inspectRun)
		},
	}
	opts.json.addFlag(cmd, "print JSON")
	return cmd
}

func inspectRun(_ context.Context, opts *inspectOptions) error {
	e := engine.New(opts.dir)
	sum, err := e.Inspect()
	if err != nil {
		return err
	}
	diags, err := e.Diagnostics()
	if err != nil {
		return err
	}
	sum.Diagnostics = diags.Tree
	v := struct {
		engine.PlanningSummary
		Printed []engine.ShownDiagnostic `json:"printed_diagnostics,omitempty"`
	}{sum, diags.Printed}
	return opts.json.print(opts.io.Out, v, func(w io.Writer) error {
		printSummary(w, sum, diags.Printed)
		return nil
	})
}

// printSummary writes the readable form of a summary, its diagnostics
// followed by those commands printed (with the command).
func printSummary(w io.Writer, s engine.PlanningSummary, printed []engine.ShownDiagnostic) {
	fmt.Fprintf(w, "flavor: %s\n", s.Flavor)
	for _, ws := range s.Workstreams {
		if ws.Active {
			fmt.Fprintf(w, "workstream: %s (%s)\n", ws.Name, ws.Source)
		}
	}
	switch {
	case s.CurrentPhase != nil:
		fmt.Fprintf(w, "current phase: %s %s\n", s.CurrentPhase.Number, s.CurrentPhase.Name)
	case s.Milestone.Status == "complete" || s.Milestone.Status == "not_started":
		fmt.Fprintf(w, "current phase: none: milestone %s (%s: %s)\n", strings.ReplaceAll(s.Milestone.Status, "_", " "), s.Milestone.Source, oneLine(s.Milestone.Reason, 100))
	default:
		fmt.Fprintln(w, "current phase: none")
	}
	if s.CurrentPlan != nil {
		fmt.Fprintf(w, "current plan: %s\n", s.CurrentPlan.Path)
	} else {
		fmt.Fprintln(w, "current plan: none")
	}
	if s.NextTask != nil {
		fmt.Fprintf(w, "next task: %s\n", oneLine(*s.NextTask, 120))
	} else {
		fmt.Fprintln(w, "next task: none")
	}
	if s.NextAction != nil {
		fmt.Fprintf(w, "next action: %s (%s)\n", oneLine(s.NextAction.Text, 120), s.NextAction.Source)
	}
	if h := s.Handoff; h != nil {
		var parts []string
		for _, p := range []string{h.Status, h.Timestamp} {
			if p != "" {
				parts = append(parts, p)
			}
		}
		parts = append(parts, fmt.Sprintf("%d open tasks", len(h.OpenTasks)))
		fmt.Fprintf(w, "handoff: %s (%s)\n", strings.Join(parts, ", "), h.Path)
	}
	if s.Status != "" {
		fmt.Fprintf(w, "status: %s\n", oneLine(s.Status, 120))
	}
	if s.LastActivity != "" {
		fmt.Fprintf(w, "last activity: %s\n", oneLine(s.LastActivity, 120))
	}

	fmt.Fprintf(w, "\nphases (%d):\n", len(s.Phases))
	for _, ph := range s.Phases {
		mark := " "
		if s.CurrentPhase != nil && ph.Number == s.CurrentPhase.Number {
			mark = ">"
		}
		arch := ""
		if ph.Archived {
			arch = " (archived)"
		}
		fmt.Fprintf(w, "%s %-6s %-11s %d/%d  %s%s\n", mark, ph.Number, ph.Status, ph.PlansDone, ph.Plans, oneLine(ph.Name, 80), arch)
	}
	printWorkstreams(w, s)
	printBlockersAndLoops(w, s)

	fmt.Fprintf(w, "\ndiagnostics (%d):\n", len(s.Diagnostics)+len(printed))
	for _, d := range s.Diagnostics {
		fmt.Fprintf(w, "  %s\n", d.String())
	}
	for _, d := range printed {
		fmt.Fprintf(w, "  %s (printed by recite %s)\n", d.Diagnostic, d.By)
	}
}

// printWorkstreams lists the workstreams other than the active one with
// their current phase.
func printWorkstreams(w io.Writer, s engine.PlanningSummary) {
	if len(s.Workstreams) == 0 {
		return
	}
	fmt.Fprintf(w, "\nworkstreams (%d):\n", len(s.Workstreams))
	for _, ws := range s.Workstreams {
		mark, phase := " ", "none"
		if ws.Active {
			mark = ">"
		}
		if ws.CurrentPhase != nil {
			phase = ws.CurrentPhase.Number + " " + ws.CurrentPhase.Name
		}
		fmt.Fprintf(w, "%s %s  %d/%d phases complete  current phase: %s  (%s)\n", mark, ws.Name, ws.PhasesDone, ws.Phases, oneLine(phase, 80), ws.Dir)
	}
}

// printBlockersAndLoops writes the open blockers, the last decisions and
// the loops of a summary.
func printBlockersAndLoops(w io.Writer, s engine.PlanningSummary) {
	open := 0
	for _, b := range s.Blockers {
		if b.Status != "resolved" {
			open++
		}
	}
	fmt.Fprintf(w, "\nopen blockers (%d):\n", open)
	for _, b := range s.Blockers {
		if b.Status != "resolved" {
			if b.ID == b.Source {
				fmt.Fprintf(w, "  %s  %s\n", b.Source, oneLine(b.Title, 100))
			} else {
				fmt.Fprintf(w, "  %s  %s  (%s)\n", b.ID, oneLine(b.Title, 100), b.Source)
			}
		}
	}

	const lastN = 5
	decisions := s.Decisions
	if len(decisions) > lastN {
		decisions = decisions[len(decisions)-lastN:]
	}
	fmt.Fprintf(w, "\nlast decisions (%d of %d):\n", len(decisions), len(s.Decisions))
	for _, d := range decisions {
		fmt.Fprintf(w, "  %s  (%s)\n", oneLine(d.Text, 110), d.Source)
	}

	fmt.Fprintf(w, "\nloops (%d):\n", len(s.Loops))
	for _, l := range s.Loops {
		active := ""
		if l.Active {
			active = " [active]"
		}
		fmt.Fprintf(w, "  %s  %s  %d iterations%s  (%s)\n", l.ID, l.Status, l.Iterations, active, l.Path)
	}
}
