package engine

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/health"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/planning"
)

// StatusSummaryFile is the small summary of the project `recite statusline`
// prints from, relative to the project root: rewritten by every build, by
// the Claude Code hook at each prompt and at the end of each turn, and by
// the status line itself when it is missing or out of date.
const StatusSummaryFile = CacheDir + "/status-summary.json"

// statusSummaryVersion is the layout of StatusSummaryFile; a summary of
// another version is computed again.
const statusSummaryVersion = 1

// Bounds of the status summary: the longest name it keeps, in characters,
// and the most bytes of the file read back.
const (
	statusNameMax  = 60
	statusFileMax  = 64 << 10
	statusRacyTime = 100 * time.Millisecond
)

// StatusSummary is what `recite statusline` shows of a project: its
// position in the plan, the loop health and the open stop signals, as
// `recite status` computes them, without a build or a token count.
type StatusSummary struct {
	// Version is statusSummaryVersion.
	Version int `json:"version"`
	// Fingerprint identifies the planning files it was computed from
	// (planningFingerprint); a summary whose fingerprint no longer
	// matches the tree is computed again.
	Fingerprint string `json:"fingerprint"`
	// Flavor is the planning tree's flavor: gsd, fire, mixed or none.
	Flavor string `json:"flavor"`
	// Phase is the current phase; nil when there is none.
	Phase *StatusPhase `json:"phase,omitempty"`
	// Plan is the current plan; nil when there is none.
	Plan *StatusPlan `json:"plan,omitempty"`
	// Health and Breaker are the loop health (PROGRESS, STALLED,
	// SPINNING, DEGRADED, BLOCKED) and the circuit breaker (HEALTHY,
	// WARNING, TRIPPED, RECOVERY), as `recite status` evaluates them;
	// Iterations counts the iterations evaluated (0: no loop or turn
	// recorded yet).
	Health     string `json:"health"`
	Breaker    string `json:"breaker"`
	Iterations int    `json:"iterations"`
	// Signals counts the open stop signals (those `recite status` lists,
	// from the planning tree and the last HookTail or so messages of its
	// conversations) and SignalKinds by kind, in the order `recite status`
	// lists kinds.
	Signals     int           `json:"signals"`
	SignalKinds []SignalCount `json:"signal_kinds"`
	// Thresholds are recite.yaml's WARNING and CRITICAL fractions, which
	// colour the context bar.
	Thresholds budget.Thresholds `json:"thresholds"`
	// Computed reports that this call computed the summary (it was
	// missing, out of date or unreadable) rather than reading it.
	Computed bool `json:"-"`
}

// StatusPhase is the current phase of a status summary.
type StatusPhase struct {
	// Number is the phase number ("27.2"); Of the count of phases; Name
	// the phase name, cut to statusNameMax characters.
	Number string `json:"number"`
	Of     int    `json:"of"`
	Name   string `json:"name,omitempty"`
	// Status is the state file's status (executing, planning, …), else
	// the roadmap's (in_progress, …); "" when neither says.
	Status string `json:"status,omitempty"`
	// PlansDone and Plans count the phase's plans with a summary and all.
	PlansDone int `json:"plans_done"`
	Plans     int `json:"plans"`
}

// StatusPlan is the current plan of a status summary.
type StatusPlan struct {
	// ID is the plan id ("27.2-03"); TasksDone and Tasks count its tasks
	// done and all.
	ID        string `json:"id"`
	TasksDone int    `json:"tasks_done"`
	Tasks     int    `json:"tasks"`
}

// SignalCount is the number of open stop signals of one kind.
type SignalCount struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// StatusLine returns the project's status summary for `recite statusline`:
// the one in StatusSummaryFile when it is current — its fingerprint
// matches the planning tree and no planning file changed within
// statusRacyTime of its writing, whose stamp could hide a change (git's
// racy-clean rule) — else one computed from a lenient load of the
// planning tree (no build, no tokenizer), which is written back
// atomically for the next call. Conversation logs are not part of the
// fingerprint: recite's writers of logs rewrite the summary themselves
// (builds, and the hook at each prompt and turn end). A summary that
// cannot be written is still returned. Errors: *InputError for a missing
// or unreadable planning tree.
func (e *Engine) StatusLine(ctx context.Context) (*StatusSummary, error) {
	pdir, err := e.planningDir()
	if err != nil {
		return nil, err
	}
	fp, newest, err := planningFingerprint(pdir)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	if s, ok := e.readStatusSummary(fp, newest); ok {
		return s, nil
	}
	s, err := e.computeStatusSummary(ctx, fp)
	if err != nil {
		return nil, err
	}
	s.Computed = true
	_ = e.writeStatusSummary(s)
	return s, nil
}

// RecordStatusSummary computes the status summary and writes it to
// StatusSummaryFile (what a build and the Claude Code hook do), creating
// the cache folder as a build does.
func (e *Engine) RecordStatusSummary(ctx context.Context) error {
	pdir, err := e.planningDir()
	if err != nil {
		return err
	}
	fp, _, err := planningFingerprint(pdir)
	if err != nil {
		return err
	}
	s, err := e.computeStatusSummary(ctx, fp)
	if err != nil {
		return err
	}
	if err := e.ensureDirs(); err != nil {
		return err
	}
	return e.writeStatusSummary(s)
}

// readStatusSummary reads StatusSummaryFile; ok is false when it is
// missing, unreadable, of another version or layout, or out of date:
// another fingerprint than fp, or a planning file whose mtime (newest) is
// within statusRacyTime of the summary's own.
func (e *Engine) readStatusSummary(fp string, newest time.Time) (*StatusSummary, bool) {
	p := filepath.Join(e.dir, filepath.FromSlash(StatusSummaryFile))
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !newest.Add(statusRacyTime).Before(fi.ModTime()) {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, statusFileMax+1))
	if err != nil || len(b) > statusFileMax {
		return nil, false
	}
	var s StatusSummary
	if json.Unmarshal(b, &s) != nil || s.Version != statusSummaryVersion || s.Fingerprint != fp {
		return nil, false
	}
	return &s, true
}

// writeStatusSummary writes s to StatusSummaryFile atomically (a reader
// sees the old summary or the new one, never a part).
func (e *Engine) writeStatusSummary(s *StatusSummary) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	p := filepath.Join(e.dir, filepath.FromSlash(StatusSummaryFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFile(p, append(b, '\n'), 0o644)
}

// computeStatusSummary loads the configuration and the planning tree
// leniently (a broken configuration takes the defaults) and collects the
// health and the stop signals as `recite status` does, reading only the
// last claudecode.HookTail or so messages of each conversation; fp is the
// fingerprint taken before the load.
func (e *Engine) computeStatusSummary(ctx context.Context, fp string) (*StatusSummary, error) {
	cfg, proj, _, err := e.loadLenient()
	if err != nil {
		return nil, err
	}
	s := &StatusSummary{Version: statusSummaryVersion, Fingerprint: fp, Flavor: string(proj.Flavor), Thresholds: cfg.Thresholds, SignalKinds: []SignalCount{}}
	s.Phase, s.Plan = statusPosition(proj)
	col, _ := e.collectSignals(ctx, cfg, proj, health.Sources{Tail: claudecode.HookTail})
	rep := col.Report
	s.Health, s.Breaker, s.Iterations = rep.Health.State, rep.Health.Breaker, rep.Iterations
	s.Signals = len(rep.Signals)
	for _, sig := range rep.Signals {
		k := string(sig.Kind)
		if i := slices.IndexFunc(s.SignalKinds, func(c SignalCount) bool { return c.Kind == k }); i >= 0 {
			s.SignalKinds[i].Count++
		} else {
			s.SignalKinds = append(s.SignalKinds, SignalCount{Kind: k, Count: 1})
		}
	}
	return s, nil
}

// statusPosition is the current phase and plan of proj, for a summary.
func statusPosition(proj *planning.Project) (*StatusPhase, *StatusPlan) {
	var sp *StatusPhase
	if ph := proj.CurrentPhase; ph != nil {
		sp = &StatusPhase{Number: ph.Number, Of: len(proj.Phases), Name: textutil.FirstLine(ph.Name), Status: ph.Status, PlansDone: ph.PlansDone(), Plans: len(ph.Plans)}
		if r := []rune(sp.Name); len(r) > statusNameMax {
			sp.Name = string(r[:statusNameMax-1]) + "…"
		}
		if proj.State != nil && proj.State.Status != "" {
			sp.Status = proj.State.Status
		}
	}
	var pl *StatusPlan
	if p := proj.CurrentPlan; p != nil {
		pl = &StatusPlan{ID: p.ID, Tasks: len(p.Tasks)}
		if r := []rune(pl.ID); len(r) > statusNameMax {
			pl.ID = string(r[:statusNameMax-1]) + "…"
		}
		for _, t := range p.Tasks {
			if t.State == "done" {
				pl.TasksDone++
			}
		}
	}
	return sp, pl
}

// recordStatusSummary is RecordStatusSummary for a build: a failure does
// not fail the build, it is a diagnostic.
func (e *Engine) recordStatusSummary(ctx context.Context, rep *Report) {
	if err := e.RecordStatusSummary(ctx); err != nil && !errors.Is(err, fs.ErrNotExist) {
		rep.Diagnostics = append(rep.Diagnostics, Diagnostic{Path: StatusSummaryFile, Message: "status summary not written: " + err.Error()})
	}
}
