package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// watchGCPercent is the GC target of `recite watch` (the runtime default is
// 100): the heap may grow to 1.5× the live data between collections.
const watchGCPercent = 50

// watchOptions are the inputs of `recite watch`: the engine's options from
// the flags (a duration is zero unless its flag was given, so recite.yaml's
// watch block applies).
type watchOptions struct {
	io    IOStreams
	dir   string
	watch engine.WatchOptions
	json  bool
}

// watchFlags are the raw flag values of `recite watch`.
type watchFlags struct {
	interval, quiet, maxWait time.Duration
}

func newWatchCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *watchOptions) error) *cobra.Command {
	opts := &watchOptions{io: streams}
	var fl watchFlags
	cmd := &cobra.Command{
		Use:   "watch [--json] [--commit] [--commit-interval 1m] [--quiet D] [--max-wait D]",
		Short: "Keep the prompt files current while you edit",
		Long: `Build the prompt files, then rebuild them after every change to .planning/,
recite.yaml, the root .powerignore and .gitignore, and the files the
targets read (system, tools, skills, include). Changes are collected until
no event came for --quiet, but at most --max-wait after the first one, so
an editor's save or a git checkout gives one render. recite's own outputs
(.planning/prompts/, .planning/.recite/) never trigger a render.

One line per render: time, prompt files written, tokens and % of the
context window, status, and the stable prefix's share of the prompt. When a
file fails to parse, the last good prompt stays; a diagnostic is printed
when it appears or changes, and those printed before are counted. --json
prints one JSON object per event instead.

--commit commits the conversation history (` + strings.Join(engine.HistoryPaths, ", ") + `)
every --commit-interval when it changed, and once more on exit, as
'recite commit' does. Defaults come from the watch block of recite.yaml
(quiet 20ms, max_wait 250ms, commit_interval 1m); flags override it.
SIGINT or SIGTERM ends the watch (exit 0).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := engine.WatchOptions{Commit: opts.watch.Commit}
			for _, f := range []struct {
				name string
				v    time.Duration
				dst  *time.Duration
			}{{"quiet", fl.quiet, &w.Quiet}, {"max-wait", fl.maxWait, &w.MaxWait}, {"commit-interval", fl.interval, &w.CommitInterval}} {
				if !cmd.Flags().Changed(f.name) {
					continue
				}
				if f.v <= 0 {
					return usageError{fmt.Errorf("--%s %v: want a positive duration", f.name, f.v)}
				}
				*f.dst = f.v
			}
			if w.Quiet > 0 && w.MaxWait > 0 && w.MaxWait < w.Quiet {
				return usageError{fmt.Errorf("--max-wait %v must be at least --quiet %v", w.MaxWait, w.Quiet)}
			}
			opts.dir, opts.watch = g.dir, w
			return runWith(cmd.Context(), opts, runF, watchRun)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object per event")
	cmd.Flags().BoolVar(&opts.watch.Commit, "commit", false, "commit the conversation history as it changes")
	cmd.Flags().DurationVar(&fl.interval, "commit-interval", time.Minute, "how often --commit commits")
	cmd.Flags().DurationVar(&fl.quiet, "quiet", 50*time.Millisecond, "render once no file event came for this long")
	cmd.Flags().DurationVar(&fl.maxWait, "max-wait", 250*time.Millisecond, "render at most this long after the first event")
	return cmd
}

// watchRun watches until ctx is done (run cancels it on SIGINT or SIGTERM).
func watchRun(ctx context.Context, opts *watchOptions) error {
	// watch runs all day beside the editor: trade a little GC CPU for
	// memory (peak RSS ≤ 60 MB). On the norish tree GOGC=50 keeps RSS
	// after 100 renders at ~49 MB against ~57 MB at the default 100.
	// $GOGC still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(watchGCPercent)
	}
	wo := opts.watch
	wo.Logger = slog.New(slog.NewTextHandler(opts.io.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e := engine.New(opts.dir)
	p := &watchPrinter{w: opts.io.Out, json: opts.json, e: e}
	err := e.Watch(ctx, wo, p.print)
	if errors.Is(err, engine.ErrNoRepository) || errors.Is(err, engine.ErrBeyondSymlink) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	return p.err
}

// watchPrinter writes watch events as status lines or JSON lines.
type watchPrinter struct {
	w       io.Writer
	json    bool
	e       *engine.Engine // records the diagnostics printed
	diags   []string       // the previous render's diagnostics
	renders int            // render lines written
	err     error          // the first write error
}

// print writes one event: a JSON line, or a commit line, an error line, or
// a render line with the targets, kept renders and changed diagnostics.
func (p *watchPrinter) print(ev engine.WatchEvent) {
	if p.json {
		p.keep(printJSONLine(p.w, ev))
		return
	}
	var b strings.Builder
	ts := ev.Time.Format("15:04:05.000")
	switch {
	case ev.Kind == engine.EventCommit && ev.Error != "":
		fmt.Fprintf(&b, "%s commit failed: %s\n", ts, ev.Error)
	case ev.Kind == engine.EventCommit:
		if ev.Commit != "" {
			fmt.Fprintf(&b, "%s committed %s (conversation history)", ts, ev.Commit[:min(12, len(ev.Commit))])
		} else {
			fmt.Fprintf(&b, "%s nothing to commit", ts)
		}
		if ev.KeptMissing > 0 {
			fmt.Fprintf(&b, "; %s", keptMissing(ev.KeptMissing))
		}
		b.WriteString("\n")
	case ev.Error != "":
		fmt.Fprintf(&b, "%s error: %s (prompt files left as they were)\n", ts, ev.Error)
	default:
		p.render(&b, ts, ev)
	}
	_, err := io.WriteString(p.w, b.String())
	p.keep(err)
}

// render writes a render event's line, its targets when there are several,
// its kept renders and its diagnostics when they changed.
func (p *watchPrinter) render(b *strings.Builder, ts string, ev engine.WatchEvent) {
	written := "unchanged"
	if len(ev.Written) > 0 {
		names := make([]string, len(ev.Written))
		for i, w := range ev.Written {
			names[i] = path.Base(w)
		}
		written = fmt.Sprintf("wrote %d (%s)", len(names), strings.Join(names, " "))
	}
	fmt.Fprintf(b, "%s %s; %d tokens, %.1f%% of %d; %s; stable prefix %.1f%%; %s",
		ts, written, ev.Tokens, ev.Percent, ev.ContextWindow, ev.Status, ev.StablePercent, ev.Duration.Round(time.Millisecond))
	if len(ev.Targets) > 1 {
		for _, t := range ev.Targets {
			fmt.Fprintf(b, "\n  %s: %d tokens, %.1f%%, %s, stable prefix %.1f%%", t.Name, t.Tokens, t.Percent, t.Status, t.StablePercent)
		}
	}
	b.WriteString("\n")
	for _, k := range ev.Kept {
		fmt.Fprintf(b, "  %s\n", k)
	}
	p.renders++
	p.diagnostics(b, ev.Diagnostics)
}

// diagnostics writes a render's diagnostics when they differ from the
// previous render's, so an unchanged broken file does not repeat on every
// save: those no command printed before (engine.NoteDiagnostics), then
// the count of the known ones on the first render, when a new one came
// or when some went away; "diagnostics cleared" when none is left.
func (p *watchPrinter) diagnostics(b *strings.Builder, list []engine.Diagnostic) {
	var diags []string
	for _, d := range list {
		diags = append(diags, d.String())
	}
	if slices.Equal(diags, p.diags) && p.renders > 1 {
		return
	}
	news := p.e.NoteDiagnostics(list, true, byWatch)
	for _, d := range news.New {
		fmt.Fprintf(b, "  diagnostic: %s\n", d)
	}
	if len(news.New) > 0 || p.renders == 1 || len(diags) < len(p.diags) {
		var known strings.Builder
		printKnown(&known, len(news.Known))
		if known.Len() > 0 {
			b.WriteString("  " + known.String())
		}
	}
	if len(diags) == 0 && len(p.diags) > 0 {
		b.WriteString("  diagnostics cleared\n")
	}
	p.diags = diags
}

// keep records the first write error.
func (p *watchPrinter) keep(err error) {
	if err != nil && p.err == nil {
		p.err = err
	}
}
