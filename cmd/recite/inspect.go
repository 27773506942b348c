package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/planning"
)

// inspectOptions are the inputs of `recite inspect`.
type inspectOptions struct {
	dir    string
	asJSON bool
	out    io.Writer
}

func newInspectCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	opts := &inspectOptions{out: streams.Out}
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Show the parsed planning tree: flavor, phases, current plan, next task, blockers, diagnostics",
		Long: `Show the parsed planning tree: flavor, current phase, plan and next task,
the phases with their status and plans done, open blockers, recent decisions,
loops and every diagnostic (file:line: message).

The planning tree is DIR/.planning, or DIR itself when it is named .planning.
A missing or unreadable tree is an input error (exit 2).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			return inspectRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.asJSON, "json", false, "print JSON")
	return cmd
}

// planningDir finds the planning tree for dir: dir itself when it is named
// .planning, else dir/.planning. A missing or non-directory tree is a usage
// error.
func planningDir(dir string) (string, error) {
	if filepath.Base(filepath.Clean(dir)) == ".planning" {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir, nil
		}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", usageError{fmt.Errorf("project directory %s does not exist or is not a directory", dir)}
	}
	p := filepath.Join(dir, ".planning")
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", usageError{fmt.Errorf("no .planning folder in %s (run 'recite init' to create one, or pass -C DIR)", dir)}
	case err != nil:
		return "", usageError{fmt.Errorf("cannot read %s: %w", p, err)}
	case !st.IsDir():
		return "", usageError{fmt.Errorf("%s is not a directory", p)}
	}
	return p, nil
}

func inspectRun(opts *inspectOptions) error {
	dir, err := planningDir(opts.dir)
	if err != nil {
		return err
	}
	proj, err := planning.Load(os.DirFS(dir))
	if err != nil {
		return usageError{fmt.Errorf("%s: %w", dir, err)}
	}
	sum := proj.Summary()
	if opts.asJSON {
		b, err := sum.JSON()
		if err != nil {
			return err
		}
		_, err = opts.out.Write(b)
		return err
	}
	printSummary(opts.out, sum)
	return nil
}

// printSummary writes the readable form of a summary.
func printSummary(w io.Writer, s planning.Summary) {
	fmt.Fprintf(w, "flavor: %s\n", s.Flavor)
	if s.CurrentPhase != nil {
		fmt.Fprintf(w, "current phase: %s %s\n", s.CurrentPhase.Number, s.CurrentPhase.Name)
	} else {
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

	fmt.Fprintf(w, "\ndiagnostics (%d):\n", len(s.Diagnostics))
	for _, d := range s.Diagnostics {
		fmt.Fprintf(w, "  %s\n", d.String())
	}
}

// oneLine flattens s to one line of at most max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
