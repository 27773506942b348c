package claudecode

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/internal/fsutil"
)

// StatusSummaryFile is the small summary of the project `recite statusline`
// prints from, relative to the project root: rewritten by the Claude Code
// hook at each prompt, failed tool call and turn end, and by the status
// line itself when it is missing or out of date
// (docs/architecture.md#the-status-line). Builds do not write it: computing
// it would more than double the CPU of a warm rebuild, which `recite
// watch` does at every save, while the status line computes it in a few
// milliseconds once per change.
const StatusSummaryFile = layout.CacheDir + "/status-summary.json"

// statusSummaryVersion is the layout of StatusSummaryFile; a summary of
// another version is computed again.
const statusSummaryVersion = 1

// Bounds of the status summary: the longest name it keeps, in characters,
// the most bytes of the file read back, and how much younger than the
// newest planning file a summary must be to be trusted (a change within
// that span could share its modification time: git's racy-clean rule,
// Documentation/technical/racy-git.adoc).
const (
	StatusNameMax  = 60
	statusFileMax  = 64 << 10
	statusRacyTime = 100 * time.Millisecond
)

// statusMargin is the least time left before the deadline for the hook to
// rewrite the status summary after an event (a lenient load of the
// planning tree: about 150 ms on the largest tree of the test data).
const statusMargin = 500 * time.Millisecond

// StatusSummary is what `recite statusline` shows of a project: its
// position in the plan, the loop health and the open stop signals, as
// `recite status` computes them, without a build or a token count.
type StatusSummary struct {
	// Version is the summary's layout; Fingerprint identifies the planning
	// files it was computed from (planningFingerprint). Both are filled in
	// here: Engine.StatusSummary leaves them empty.
	Version     int    `json:"version"`
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
	// mark the context bar.
	Thresholds budget.Thresholds `json:"thresholds"`
	// Computed reports that this call computed the summary (it was
	// missing, out of date or unreadable) rather than reading it.
	Computed bool `json:"-"`
}

// StatusPhase is the current phase of a status summary.
type StatusPhase struct {
	// Number is the phase number ("27.2"); Of the count of phases; Name
	// the phase name, cut to StatusNameMax characters.
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
	// ID is the plan id ("27.2-03"), cut to StatusNameMax characters;
	// TasksDone and Tasks count its tasks done and all.
	ID        string `json:"id"`
	TasksDone int    `json:"tasks_done"`
	Tasks     int    `json:"tasks"`
}

// SignalCount is the number of open stop signals of one kind.
type SignalCount struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// ProjectStatus returns the status summary of the project rooted at dir:
// the one in StatusSummaryFile when it is current — its fingerprint
// matches the planning tree and it was written more than statusRacyTime
// after the newest planning file changed — else one computed by e
// (Engine.StatusSummary), which is written back atomically for the next
// call (a summary that cannot be written is still returned). The
// fingerprint covers the conversation logs too, so a message recorded by
// `say`, `run`, an importer or the hook shows at the next call. Errors:
// the planning tree cannot be read, or e's.
func ProjectStatus(ctx context.Context, dir string, e Engine) (*StatusSummary, error) {
	fp, newest, err := planningFingerprint(filepath.Join(dir, layout.PlanningDir))
	if err != nil {
		return nil, err
	}
	if s, ok := readStatusSummary(dir, fp, newest); ok {
		return s, nil
	}
	s, err := computeStatus(ctx, e, fp)
	if err != nil {
		return nil, err
	}
	s.Computed = true
	if e.EnsureDirs() == nil {
		_ = writeStatusSummary(dir, s)
	}
	return s, nil
}

// RecordStatus computes the status summary of the project rooted at dir
// and writes it to StatusSummaryFile (what the hook does),
// creating the cache folder as a build does. Errors: the planning tree
// cannot be read, e's, or the file cannot be written.
func RecordStatus(ctx context.Context, dir string, e Engine) error {
	// The folders first: making them changes the planning tree.
	if err := e.EnsureDirs(); err != nil {
		return err
	}
	fp, _, err := planningFingerprint(filepath.Join(dir, layout.PlanningDir))
	if err != nil {
		return err
	}
	s, err := computeStatus(ctx, e, fp)
	if err != nil {
		return err
	}
	return writeStatusSummary(dir, s)
}

// computeStatus is e's summary stamped with its version and fp.
func computeStatus(ctx context.Context, e Engine, fp string) (*StatusSummary, error) {
	s, err := e.StatusSummary(ctx)
	if err != nil {
		return nil, err
	}
	s.Version, s.Fingerprint = statusSummaryVersion, fp
	if s.SignalKinds == nil {
		s.SignalKinds = []SignalCount{}
	}
	return s, nil
}

// readStatusSummary reads dir's StatusSummaryFile; ok is false when it is
// missing, unreadable, of another version or layout, or out of date:
// another fingerprint than fp, or a planning file whose modification time
// (newest) is within statusRacyTime of the summary's own.
func readStatusSummary(dir, fp string, newest time.Time) (*StatusSummary, bool) {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(StatusSummaryFile)))
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

// writeStatusSummary writes s to dir's StatusSummaryFile atomically (a
// reader sees the old summary or the new one, never a part).
func writeStatusSummary(dir string, s *StatusSummary) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return fsutil.WriteFile(filepath.Join(dir, filepath.FromSlash(StatusSummaryFile)), append(b, '\n'), 0o644)
}

// recordStatus rewrites the project's status summary after an event that
// changes what `recite statusline` shows (a prompt, a failed tool call,
// the end of a turn), unless less than statusMargin is left before ctx's
// deadline: the status line then computes it itself.
func (h *claudeHook) recordStatus(ctx context.Context, res *result) {
	if dl, ok := ctx.Deadline(); ctx.Err() != nil || ok && time.Until(dl) < statusMargin {
		return
	}
	if err := RecordStatus(ctx, h.dir, h.e); err != nil {
		res.notef("%s: status summary: %v", h.ev.HookEventName, err)
	}
}
