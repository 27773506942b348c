package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/watch"
	"github.com/recite-dev/recite/engine/scope"
)

// WatchOptions configures Engine.Watch. Zero durations take the values of
// recite.yaml's `watch` block (engine/config/watch.go), whose defaults are
// 50 ms, 250 ms and 1 minute.
type WatchOptions struct {
	// Quiet is the trailing quiet period after the last file event before a
	// render.
	Quiet time.Duration
	// MaxWait caps the delay between the first event of a batch and its
	// render; values below Quiet are raised to Quiet.
	MaxWait time.Duration
	// Commit turns on history commits: every CommitInterval, when
	// HistoryPaths changed, Engine.Commit runs, and once more when Watch
	// ends.
	Commit bool
	// CommitInterval is the period of history commits.
	CommitInterval time.Duration
	// CommitMessage is the message of history commits (default
	// DefaultCommitMessage).
	CommitMessage string
	// Logger receives watcher notices (queue overflow, directories that
	// cannot be watched); nil discards them.
	Logger *slog.Logger
}

// Kinds of WatchEvent.
const (
	// EventRender is a build after file changes (or the initial build).
	EventRender = "render"
	// EventCommit is a history commit, or a failed attempt (Error set).
	EventCommit = "commit"
)

// WatchEvent is one thing Engine.Watch did: a render, or a history commit.
type WatchEvent struct {
	// Kind is EventRender or EventCommit.
	Kind string `json:"kind"`
	// Time is when the render or commit finished.
	Time time.Time `json:"time"`
	// Trigger says why a render ran: "start" (the initial build), "change"
	// (file events), "rescan" (event queue overflow or a burst: everything
	// was re-read) or "reconfigure" (recite.yaml changed the watched files).
	Trigger string `json:"trigger,omitempty"`
	// Changed lists the project-relative paths the file events named, at
	// most maxChangedPaths of them; nil for a rescan.
	Changed []string `json:"changed,omitempty"`
	// Duration is how long the build or commit took.
	Duration time.Duration `json:"duration_ns"`
	// Written lists the prompt files the render changed on disk
	// (project-relative); empty when every file already held these bytes.
	Written []string `json:"written"`
	// Targets is one summary per target.
	Targets []WatchTarget `json:"targets,omitempty"`
	// ContextWindow is the configured context window, in tokens.
	ContextWindow int `json:"context_window,omitempty"`
	// Tokens, Percent, Status and StablePercent summarise the target
	// closest to its budget: its prompt total in tokens, that total as a
	// percentage of the context window, the worst status of all targets,
	// and its stable tier (the cacheable prefix) as a percentage of its
	// total.
	Tokens        int           `json:"tokens"`
	Percent       float64       `json:"percent"`
	Status        budget.Status `json:"status,omitempty"`
	StablePercent float64       `json:"stable_prefix_percent"`
	// Kept lists why targets kept their last good render (a state or plan
	// file failed to parse; docs/architecture.md#bad-input-keeps-the-last-good-prompt).
	Kept []string `json:"kept,omitempty"`
	// Diagnostics are the problems found in input files by this render.
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// Error is a failed render (no .planning folder, a bad recite.yaml, a
	// write failure) or commit; the prompt files on disk stay as they were.
	Error string `json:"error,omitempty"`
	// Commit is the hash of the history commit made; "" when the history
	// had not changed since the last commit.
	Commit string `json:"commit,omitempty"`
	// KeptMissing counts the tracked history files missing from the work
	// tree that the commit kept as HEAD has them (CommitResult.Kept: the
	// history is append-only). A commit event without Commit and Error
	// reports a change of this count.
	KeptMissing int `json:"kept_missing,omitempty"`
	// Secrets are the findings of a commit the secret scan refused
	// (SecretsError), one per secret.
	Secrets []SecretFinding `json:"secrets,omitempty"`
	// Report is the full build report of a successful render.
	Report *Report `json:"-"`
}

// WatchTarget summarises one target's prompt after a render.
type WatchTarget struct {
	// Name is the target's name from recite.yaml.
	Name string `json:"name"`
	// Tokens is the prompt's total (markdown shape) after cuts, as
	// assembled from the current tree; Percent is Tokens as a percentage of
	// the context window. When Kept is set, the file on disk is the last
	// good render, whose count may differ slightly.
	Tokens  int           `json:"tokens"`
	Percent float64       `json:"percent"`
	Status  budget.Status `json:"status"`
	// StablePercent is the stable tier's share of Tokens, in percent.
	StablePercent float64 `json:"stable_prefix_percent"`
	// Written lists this target's prompt files changed on disk.
	Written []string `json:"written"`
	// Kept says why the target kept its last good render ("" when it
	// did not).
	Kept string `json:"kept_last_good,omitempty"`
}

// maxChangedPaths bounds WatchEvent.Changed.
const maxChangedPaths = 50

// errReconfigure ends one watcher's Run when recite.yaml changed what must
// be watched.
var errReconfigure = errors.New("watch: reconfigure")

// watchSpec is what one watcher instance watches beside `.planning/`
// (scope.Watched) and how it debounces.
type watchSpec struct {
	watched        scope.Watched
	quiet, maxWait time.Duration
}

func (s watchSpec) equal(o watchSpec) bool {
	return s.watched.Equal(o.watched) && s.quiet == o.quiet && s.maxWait == o.maxWait
}

// Watch builds the prompt files once, then keeps them current: it watches
// `.planning/` recursively, the project root (so a deleted and re-created
// `.planning/` is picked up), the root `.powerignore`, `.gitignore` and
// `.git/info/exclude`, the project files the prompts carry (the targets'
// system, tools, skill and include files, the files section's task and
// error-named files) and the directories the file-tree section lists (see
// watchSpec), and after each debounced batch of file events
// (engine/internal/watch; docs/architecture.md#editor-save-patterns) builds
// again the targets the batch feeds, every target for a change under
// `.planning/` (docs/architecture.md#what-a-change-feeds). It never reacts
// to its own outputs:
// `.planning/prompts/`, `.planning/.recite/` and temp files are ignored,
// except that a current target's prompt file the user deletes or renames
// away triggers a render, which writes it again. `.planning/` may be a
// symbolic link to a folder elsewhere; the folder it points to is watched.
//
// fn receives one WatchEvent per render and per history commit, never
// concurrently; it must not block for long, since events are not queued.
// A render whose build fails is reported in WatchEvent.Error and watching
// continues; a state or plan file that fails to parse keeps the last good
// prompt (Build's rule). When a render changes what must be watched (a new
// current task, a new folder in the tree, an edited recite.yaml), the
// watcher is replaced and the project rendered once more ("reconfigure").
//
// Watch returns nil when ctx is done, or, with opts.Commit, a
// *FinalCommitError when the history commit made on the way out failed
// (the periodic ones are reported as events and retried). Errors: the
// project has no
// `.planning/` folder at start (*InputError wrapping ErrNoPlanning);
// opts.Commit without a git repository (ErrNoRepository) or with a
// `.planning/` git cannot track through (a symbolic link:
// ErrBeyondSymlink); the file watcher cannot start (inotify limits, with
// the sysctl to raise).
func (e *Engine) Watch(ctx context.Context, opts WatchOptions, fn func(WatchEvent)) error {
	if _, err := e.planningDir(); err != nil {
		return err
	}
	if opts.Commit {
		err := gitstoreCheck(e.dir)
		if errors.Is(err, ErrNoRepository) || errors.Is(err, ErrBeyondSymlink) {
			return fmt.Errorf("--commit: %w", err)
		}
	}
	project, err := filepath.Abs(e.dir)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	ws := &watchSession{e: e, opts: opts, project: project, emit: func(ev WatchEvent) {
		mu.Lock()
		defer mu.Unlock()
		fn(ev)
	}}
	ws.dirty.Store(true)
	var commits sync.WaitGroup
	var finalErr error // the final history commit's failure
	commitCtx, stopCommits := context.WithCancel(ctx)
	stop := func() error {
		stopCommits()
		commits.Wait()
		return finalErr
	}
	defer stop()

	// The files to watch come from a report: compute one without writing
	// before the watches exist; the "start" render follows them.
	var first *Report
	var firstBuilds []*targetBuild
	if rep, builds, err := e.status(ctx); err == nil {
		first, firstBuilds = rep, builds
	}
	ws.spec = e.watchSpec(ctx, opts, watchSpec{}, firstBuilds, nil, true)
	if opts.Commit {
		interval := opts.CommitInterval
		if interval <= 0 {
			interval = e.commitInterval()
		}
		commits.Go(func() { finalErr = e.commitLoop(commitCtx, opts, interval, &ws.dirty, ws.emit) })
	}
	ws.outputs = promptPaths(project, first)
	trigger := "start"
	for {
		err := ws.run(ctx, trigger)
		if ctx.Err() != nil {
			return stop()
		}
		if !errors.Is(err, errReconfigure) {
			return err
		}
		trigger = "reconfigure"
	}
}

// watchSession is one Watch: what it watches (spec), the prompt files it
// restores (outputs), whether the history changed since the last commit
// (dirty), and where events go.
type watchSession struct {
	e       *Engine
	opts    WatchOptions
	project string
	emit    func(WatchEvent)
	spec    watchSpec
	outputs []string
	dirty   atomic.Bool
	// last are the targets' builds of the latest render, in recite.yaml's
	// order: a render that a change feeds only some targets of rebuilds
	// those and reuses the others (scope.Watched.Affected).
	last []*targetBuild
}

// run watches with the current spec until ctx ends, the watcher fails, or
// what to watch changes (errReconfigure): it renders once the watches
// exist (trigger names why), then after each batch of changes.
func (ws *watchSession) run(ctx context.Context, trigger string) error {
	e := ws.e
	planning := filepath.Join(ws.project, PlanningDir)
	w, err := watch.New(watch.Options{
		Project:  ws.project,
		Root:     planning,
		Extra:    ws.spec.watched.Files,
		Dirs:     ws.spec.watched.Dirs,
		Ignore:   watch.IgnoreReciteOutputs(planning),
		Restore:  ws.outputs,
		Debounce: watch.DebounceOptions{Quiet: ws.spec.quiet, MaxWait: ws.spec.maxWait},
		Logger:   ws.opts.Logger,
	})
	if err != nil {
		return err
	}
	defer func() { _ = w.Close() }()
	// Render after the watches exist, so no change falls between the two.
	ev, builds, ok := e.watchRender(ctx, trigger, nil, nil, nil)
	if ok {
		ws.emit(ev)
		ws.last = builds
	}
	if ev.Report != nil {
		// The first build creates prompts/: watch it for removals.
		ws.outputs = promptPaths(ws.project, ev.Report)
		w.SetRestore(ws.outputs)
	}
	if next := e.watchSpec(ctx, ws.opts, ws.spec, builds, nil, true); ok && !next.equal(ws.spec) {
		// The project changed what to watch since the spec was computed:
		// watch that first.
		ws.spec = next
		return errReconfigure
	}
	return w.Run(ctx, func(b watch.Batch) error {
		trig, changed := "change", e.relPaths(b.Paths)
		if b.Rescan {
			trig = "rescan"
		}
		if b.Rescan || touchesHistory(changed) {
			ws.dirty.Store(true)
		}
		var names map[string]bool // nil: every target
		if !b.Rescan && len(ws.last) > 0 && ws.last[0].cfg != nil {
			fresh := e.scope.TreeFresh(ws.last[0].cfg.Files.TreeDepth)
			n, all := ws.spec.watched.Affected(e.relPathsAll(b.Paths), fresh)
			if !all {
				names = n
			}
		}
		ev, builds, ok := e.watchRender(ctx, trig, changed, ws.last, names)
		if !ok {
			return nil
		}
		ws.emit(ev)
		ws.last = builds
		if ev.Report != nil {
			if next := promptPaths(ws.project, ev.Report); !slices.Equal(next, ws.outputs) {
				ws.outputs = next
				w.SetRestore(ws.outputs)
			}
		}
		next := e.watchSpec(ctx, ws.opts, ws.spec, builds, changed, b.Rescan)
		same := next.equal(ws.spec)
		ws.spec = next // the tree key may change while the watched set does not
		if !same {
			return errReconfigure
		}
		return nil
	})
}

// promptPaths lists the absolute paths of the prompt files rep's targets
// write, sorted: the files a watch writes again when the user removes them.
func promptPaths(project string, rep *Report) []string {
	if rep == nil {
		return nil
	}
	var out []string
	for _, t := range rep.Targets {
		for _, f := range t.Files {
			out = append(out, filepath.Join(project, filepath.FromSlash(f.Path)))
		}
	}
	slices.Sort(out)
	return out
}

// watchRender runs Build and summarises it, returning the targets' builds
// too (what the next watch spec is computed from); ok is false when ctx
// ended the build (nothing to report). With names (the targets a change
// feeds: scope.Watched.Affected), only those are built and the others
// keep their build of last (the latest render's), reported as unchanged;
// names nil builds every target.
func (e *Engine) watchRender(ctx context.Context, trigger string, changed []string, last []*targetBuild, names map[string]bool) (WatchEvent, []*targetBuild, bool) {
	start := time.Now()
	rep, builds, err := e.buildReusing(ctx, last, names)
	if ctx.Err() != nil {
		return WatchEvent{}, nil, false
	}
	ev := WatchEvent{Kind: EventRender, Trigger: trigger, Changed: changed, Written: []string{}}
	ev.Time = time.Now()
	ev.Duration = ev.Time.Sub(start)
	if err != nil {
		ev.Error = err.Error()
		return ev, nil, true
	}
	ev.Report = rep
	ev.ContextWindow = rep.ContextWindow
	ev.Diagnostics = rep.Diagnostics
	lead, leadShare := -1, -1.0
	for _, t := range rep.Targets {
		wt := WatchTarget{Name: t.Name, Tokens: t.Tokens, Status: t.Status, Kept: t.Kept, Written: []string{}}
		if rep.ContextWindow > 0 {
			wt.Percent = float64(t.Tokens) * 100 / float64(rep.ContextWindow)
		}
		if t.Tokens > 0 {
			wt.StablePercent = float64(t.StableTokens) * 100 / float64(t.Tokens)
		}
		for _, f := range t.Files {
			if f.Written {
				wt.Written = append(wt.Written, f.Path)
			}
		}
		ev.Written = append(ev.Written, wt.Written...)
		if t.Kept != "" {
			ev.Kept = append(ev.Kept, t.Name+": "+t.Kept)
		}
		if statusRank(t.Status) > statusRank(ev.Status) {
			ev.Status = t.Status
		}
		// The summarised target is the one that fills its budget most.
		sh := 0.0
		if t.Budget > 0 {
			sh = float64(t.Tokens) / float64(t.Budget)
		}
		if sh > leadShare {
			lead, leadShare = len(ev.Targets), sh
		}
		ev.Targets = append(ev.Targets, wt)
	}
	if lead >= 0 {
		l := ev.Targets[lead]
		ev.Tokens, ev.Percent, ev.StablePercent = l.Tokens, l.Percent, l.StablePercent
	}
	return ev, builds, true
}

func statusRank(s budget.Status) int {
	switch s {
	case budget.OK:
		return 1
	case budget.Warning:
		return 2
	case budget.Critical:
		return 3
	}
	return 0
}

// buildReusing is build(ctx, true, nil) when names is nil; otherwise it
// builds only the targets names holds and takes the others' builds from
// last, in last's order: their reports marked unwritten (the files on
// disk hold them already) and their diagnostics reported again. When the
// targets found are not those of last (recite.yaml changed meanwhile), it
// builds every target.
func (e *Engine) buildReusing(ctx context.Context, last []*targetBuild, names map[string]bool) (*Report, []*targetBuild, error) {
	if names == nil {
		return e.build(ctx, true, nil)
	}
	rep, built, err := e.build(ctx, true, func(t *config.Target) bool { return names[t.Name] })
	if err != nil {
		return rep, built, err
	}
	byName := make(map[string]*targetBuild, len(built))
	for _, tb := range built {
		byName[tb.target.Name] = tb
	}
	merged := make([]*targetBuild, 0, len(last))
	rep.Targets = nil
	for _, old := range last {
		tb := old
		if names[old.target.Name] {
			if tb = byName[old.target.Name]; tb == nil {
				return e.build(ctx, true, nil)
			}
			delete(byName, old.target.Name)
		} else {
			tb = unwritten(old)
			rep.Diagnostics = append(rep.Diagnostics, old.diags...)
		}
		merged = append(merged, tb)
		rep.Targets = append(rep.Targets, tb.report)
	}
	if len(byName) > 0 {
		return e.build(ctx, true, nil)
	}
	sortDiagnostics(rep.Diagnostics)
	return rep, merged, nil
}

// unwritten is tb as a render that kept it reports it: the same prompt,
// no file written, every byte an unchanged prefix.
func unwritten(tb *targetBuild) *targetBuild {
	c := *tb
	r := *tb.report
	r.Files = slices.Clone(r.Files)
	for i := range r.Files {
		r.Files[i].Written = false
		r.Files[i].PrefixBytes = r.Files[i].Bytes
	}
	c.report = &r
	return &c
}

// relPathsAll is relPaths without its bound: every path, for deciding
// which targets a batch feeds.
func (e *Engine) relPathsAll(paths []string) []string {
	root, err := filepath.Abs(e.dir)
	if err != nil {
		root = e.dir
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if rel, err := filepath.Rel(root, p); err == nil {
			p = filepath.ToSlash(rel)
		}
		out = append(out, p)
	}
	return out
}

// relPaths turns a batch's absolute paths into sorted project-relative
// slash paths, at most maxChangedPaths.
func (e *Engine) relPaths(paths []string) []string {
	root, err := filepath.Abs(e.dir)
	if err != nil {
		root = e.dir
	}
	var out []string
	for _, p := range paths {
		if rel, err := filepath.Rel(root, p); err == nil {
			p = filepath.ToSlash(rel)
		}
		out = append(out, p)
		if len(out) == maxChangedPaths {
			break
		}
	}
	return out
}

// touchesHistory reports whether a changed path is at, under or above one
// of HistoryPaths (a re-created .planning/ contains them).
func touchesHistory(changed []string) bool {
	for _, p := range changed {
		for _, h := range HistoryPaths {
			h = strings.TrimSuffix(h, "/")
			if p == h || strings.HasPrefix(p, h+"/") || strings.HasPrefix(h, p+"/") {
				return true
			}
		}
	}
	return false
}

// watchSpec computes what to watch beside `.planning/` from a build
// report (scope.Watched: the files that feed a prompt and the folders the
// file tree lists) and the debounce timing, from options or recite.yaml.
// The tree's folders are listed again only when a path outside
// `.planning/` changed, on a rescan, or when the tree's settings changed.
// Without a report (the build failed), prev is kept, or at start
// recite.yaml (or the defaults) gives the timing and the targets' own
// files.
func (e *Engine) watchSpec(ctx context.Context, opts WatchOptions, prev watchSpec, builds []*targetBuild, changed []string, rescan bool) watchSpec {
	var cfg *config.Config
	if len(builds) > 0 {
		cfg = builds[0].cfg
	}
	if cfg == nil {
		if prev.quiet != 0 {
			return prev
		}
		var err error
		if cfg, _, err = config.Load(e.dir); err != nil {
			cfg = config.Default()
		}
		builds = nil
	}
	s := watchSpec{quiet: opts.Quiet, maxWait: opts.MaxWait}
	if s.quiet <= 0 {
		s.quiet = time.Duration(cfg.Watch.Quiet)
	}
	if s.maxWait <= 0 {
		s.maxWait = time.Duration(cfg.Watch.MaxWait)
	}
	var targets []scope.WatchTarget
	for _, tb := range builds {
		if tb.target != nil && tb.proj != nil {
			targets = append(targets, scope.WatchTarget{Target: tb.target, Project: tb.proj})
		}
	}
	outside := slices.ContainsFunc(changed, func(p string) bool {
		return p != PlanningDir && !strings.HasPrefix(p, PlanningDir+"/")
	})
	s.watched = e.scope.Watched(ctx, cfg, targets, prev.watched, rescan || outside)
	return s
}
