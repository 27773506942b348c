// Package planning reads a project's planning tree (`.planning/`) into one
// typed model, whatever family wrote it: GSD (PROJECT, ROADMAP, STATE,
// phases/NN-slug/NN-MM-PLAN.md and -SUMMARY.md), fire-flow (VISION,
// CONSCIENCE, BLOCKERS, phases/N-name/N-NN-BLUEPRINT.md and -RECORD.md,
// loops/), a mix of both, or neither.
//
// Load is lenient (docs/formats.md#reading-pipeline): what it cannot read
// becomes a Diagnostic naming file and line, and progress is derived from the
// files on disk, never from counters written in front matter
// (docs/formats.md#front-matter-traps).
package planning

import "github.com/recite-dev/recite/markdown"

// Flavor names the family that wrote a planning tree.
type Flavor string

// The flavors Load detects (docs/formats.md#flavor-detection).
const (
	FlavorGSD   Flavor = "gsd"
	FlavorFire  Flavor = "fire"
	FlavorMixed Flavor = "mixed"
	FlavorNone  Flavor = "none"
)

// Diagnostic is a problem found in a planning file: path (slash-separated,
// relative to the planning tree's root), 1-based line (0 when the whole file
// is meant) and message.
type Diagnostic = markdown.Diagnostic

// Project is a whole planning tree.
type Project struct {
	// Flavor is the detected family.
	Flavor Flavor `json:"flavor"`
	// Brief is the project brief: PROJECT.md, else VISION.md; nil if absent.
	Brief *Doc `json:"brief,omitempty"`
	// Vision is VISION.md when present (fire-flow: a roadmap or a locked
	// architecture vision, docs/formats.md#the-brief-and-the-vision); nil
	// otherwise.
	Vision *Doc `json:"vision,omitempty"`
	// Roadmap is ROADMAP.md (or VISION.md used as a roadmap); nil if absent.
	Roadmap *Doc `json:"roadmap,omitempty"`
	// Phases are the roadmap phases merged with the phase folders on disk,
	// in roadmap order (then folders not named in the roadmap, by number).
	Phases []*Phase `json:"phases"`
	// State is STATE.md or CONSCIENCE.md; nil if neither exists.
	State *State `json:"state,omitempty"`
	// CurrentPhase is the phase the current-position rule picks (see
	// resolvePosition in load.go); nil when none.
	CurrentPhase *Phase `json:"-"`
	// CurrentPlan is the first plan of CurrentPhase without a matching
	// summary, in name order; nil when none.
	CurrentPlan *Plan `json:"-"`
	// NextTask is the current plan's first task not done; nil when none.
	NextTask *Task `json:"-"`
	// Milestone is what the state file says of the milestone as a whole:
	// complete or not started, in which case there is no current phase
	// (docs/formats.md#finished-milestones).
	Milestone Milestone `json:"milestone"`
	// NextAction is the next step the tree itself recommends, with its
	// source: HANDOFF.json's next_action, else STATE.md's next_action and
	// next_phases, else "plan the next milestone" after a finished one;
	// nil when none. The next task, when there is one, comes first.
	NextAction *Action `json:"next_action,omitempty"`
	// Handoff is HANDOFF.json, GSD's pause state; nil when absent or
	// malformed (docs/formats.md#handoff-json).
	Handoff *Handoff `json:"handoff,omitempty"`
	// Workstream is the workstream read as the project's state (one of
	// Workstreams), nil for a tree read flat.
	Workstream *Workstream `json:"-"`
	// Workstreams are every GSD workstream of the tree, by name, each with
	// its current phase (docs/formats.md#workstreams).
	Workstreams []Workstream `json:"workstreams"`
	// Failures are the problems that leave the project's view incomplete:
	// a folder or file of the view that could not be read (permissions, an
	// I/O error), a workstream named by the configuration that does not
	// exist. Each is also in Diagnostics. A prompt built from a project
	// with a failure would look valid and say less, so the engine keeps the
	// last good render instead (docs/formats.md#unreadable-files).
	Failures []Diagnostic `json:"failures"`
	// Blockers are every blocker found, open or resolved, in file order.
	Blockers []Blocker `json:"blockers"`
	// Decisions are the recorded decisions, oldest first.
	Decisions []Decision `json:"decisions"`
	// Loops are the fire-flow loop files and loop records.
	Loops []*Loop `json:"loops"`
	// ActiveLoop is the loop id named by loops/active-loop.json, or "".
	ActiveLoop string `json:"active_loop,omitempty"`
	// Debug are the debug files under debug/ (open and resolved).
	Debug []*DebugFile `json:"debug"`
	// Todos are the pending and done todo files.
	Todos []Todo `json:"todos"`
	// Files lists every file of the tree Load saw, sorted, with the role it
	// was given ("unknown" for files recite does not interpret).
	Files []File `json:"files"`
	// Diagnostics are the problems found, sorted by path then line.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Milestone states (Milestone.Status).
const (
	MilestoneActive     = "active"
	MilestoneComplete   = "complete"
	MilestoneNotStarted = "not_started"
)

// Milestone is the current milestone as the state file describes it
// (docs/formats.md#finished-milestones).
type Milestone struct {
	// Version and Name are the state's front matter milestone and
	// milestone_name, or "".
	Version string `json:"version,omitempty"`
	Name    string `json:"name,omitempty"`
	// Status is active (a phase is open or named), complete (the state
	// says the milestone is closed, or every roadmap phase is done and the
	// state names no open phase) or not_started (the state says no phase
	// has started and every roadmap phase is done); "" without a state
	// file and a roadmap.
	Status string `json:"status,omitempty"`
	// Reason is the text that says so, as written, and Source its
	// "path:line"; "" while active.
	Reason string `json:"reason,omitempty"`
	Source string `json:"source,omitempty"`
}

// Action is a next step the tree recommends and where it says so.
type Action struct {
	// Text is the step, one line ("execute-phase 4.5", "plan the next
	// milestone (/gsd-new-milestone)").
	Text string `json:"text"`
	// Source is "path:line" or "path" (a rule of recite's: the state file
	// that says the milestone is complete).
	Source string `json:"source"`
}

// Doc is a markdown file of the tree kept whole: its path and parsed form.
type Doc struct {
	// Path is slash-separated and relative to the planning tree's root.
	Path string `json:"path"`
	// Title is the first level-1 heading's text, or "".
	Title string `json:"title,omitempty"`
	// Markdown is the parsed file.
	Markdown *markdown.Document `json:"-"`
}

// File is one file of the tree and the role Load gave it.
type File struct {
	Path string `json:"path"`
	// Role is one of: project, vision, roadmap, state, plan, summary,
	// blockers, loop, debug, todo, requirements, decisions, context,
	// preserved, config, recite, conversation, unknown, skipped (too large,
	// unreadable or binary; a Diagnostic says which).
	Role string `json:"role"`
	// Size in bytes.
	Size int64 `json:"size"`
}

// Phase is one roadmap phase.
type Phase struct {
	// Number is the normalised phase number: leading zeros stripped ("08" →
	// "8"), decimals and letter suffixes kept ("15.1", "3.5d", "9a").
	Number string `json:"number"`
	// Name is the phase name from the roadmap or the folder slug.
	Name string `json:"name"`
	// Status is one of: complete, in_progress, planned, not_started,
	// deferred.
	Status string `json:"status"`
	// Dir is the phase folder, relative to the planning root, or "".
	Dir string `json:"dir,omitempty"`
	// Goal is the roadmap's **Goal:** for the phase, or "".
	Goal string `json:"goal,omitempty"`
	// Plans are the phase's plan files in name order.
	Plans []*Plan `json:"plans"`
	// Line is where the phase is declared in the roadmap (0 if only on disk).
	Line int `json:"line,omitempty"`
	// Archived reports a phase found inside a `<details>` milestone archive.
	Archived bool `json:"archived,omitempty"`
	// OnlyOnDisk reports a phase folder that a roadmap declaring phases
	// does not name: never the current phase by the fallback rule
	// (docs/formats.md#current-position).
	OnlyOnDisk bool `json:"only_on_disk,omitempty"`
}

// PlansDone counts plans with a matching summary.
func (p *Phase) PlansDone() int {
	n := 0
	for _, pl := range p.Plans {
		if pl.Done {
			n++
		}
	}
	return n
}

// Plan is one executable plan file (GSD PLAN or fire-flow BLUEPRINT).
type Plan struct {
	// Path is relative to the planning root.
	Path string `json:"path"`
	// ID is the plan id from the file name ("03-02"), or the name itself.
	ID string `json:"id"`
	// Title is the first heading, or "".
	Title string `json:"title,omitempty"`
	// Summary is the matching SUMMARY or RECORD path, or "".
	Summary string `json:"summary,omitempty"`
	// Done reports that a matching summary exists.
	Done bool `json:"done"`
	// Objective is the plan's objective text (`<objective>` or
	// `## Objective`), or "".
	Objective string `json:"objective,omitempty"`
	// FilesModified is the union of front matter files_modified,
	// files_to_create and files_to_modify, in order, without duplicates.
	FilesModified []string `json:"files_modified,omitempty"`
	// Type is the front matter type or task type keyword (execute, tdd,
	// frontend, backend, testing, …), or "".
	Type string `json:"type,omitempty"`
	// Tasks are the plan's tasks in file order.
	Tasks []Task `json:"tasks"`
	// Markdown is the parsed file; nil when Failure is set.
	Markdown *markdown.Document `json:"-"`
	// Failure is why the file could not be read, with its line: binary
	// content (the line of the first NUL byte), over MaxFileSize (line 1,
	// the size and the limit in bytes) or unreadable (line 0). A plan with
	// a Failure has no title, objective or tasks; nil when it was read. The
	// same diagnostic is in Project.Diagnostics.
	Failure *Diagnostic `json:"failure,omitempty"`

	// pairKey pairs the plan with its summary (see classifyPhaseFile);
	// pairID is its phase and plan number and pureID whether the name is
	// nothing else (see planIdentity).
	pairKey, pairID string
	pureID          bool
}

// Task is one task of a plan: a `<task>` block or a checkbox.
type Task struct {
	// Text is the task's name (`<name>`, `**Action:**`) or checkbox text.
	Text string `json:"text"`
	// State is one of: todo, done, in_progress, skipped. `<task>` blocks carry
	// no completion of their own (docs/formats.md#plans): they are todo unless
	// the plan has a summary.
	State string `json:"state"`
	// Line is where the task starts in its plan.
	Line int `json:"line"`
	// Files are the files the task names (`<files>`), if any.
	Files []string `json:"files,omitempty"`
	// Action, Verify and Done are the task's `<action>`, `<verify>` and
	// `<done>` text (or the bold-field equivalents), if any.
	Action string `json:"action,omitempty"`
	Verify string `json:"verify,omitempty"`
	Done   string `json:"done,omitempty"`
	// Attrs are the `<task>` attributes (type, id, tdd, gate, …).
	Attrs map[string]string `json:"attrs,omitempty"`
}

// State is the project's state file (STATE.md or CONSCIENCE.md).
type State struct {
	// Path is relative to the planning root.
	Path string `json:"path"`
	// Phase is the raw current-phase text ("13 of 42 (Name) — EXECUTING"),
	// or "".
	Phase string `json:"phase,omitempty"`
	// Plan is the raw current-plan text, or "".
	Plan string `json:"plan,omitempty"`
	// Status is normalised as GSD does (docs/formats.md#status-normalisation):
	// paused, executing, planning, discussing, verifying, completed, or the
	// raw text.
	Status string `json:"status,omitempty"`
	// LastActivity is the raw last-activity text, or "".
	LastActivity string `json:"last_activity,omitempty"`
	// StoppedAt and ResumeFile come from the Session Continuity section.
	StoppedAt  string `json:"stopped_at,omitempty"`
	ResumeFile string `json:"resume_file,omitempty"`
	// CoreValue and Focus come from Project Reference, if present.
	CoreValue string `json:"core_value,omitempty"`
	Focus     string `json:"focus,omitempty"`
	// Line is where the current-position block starts, or 0.
	Line int `json:"line,omitempty"`
	// PhaseLine is the line the phase was read from (the front matter key
	// or the position field), or Line.
	PhaseLine int `json:"phase_line,omitempty"`
	// RawStatus is the status as written, before normalisation.
	RawStatus string `json:"raw_status,omitempty"`
	// Milestone and MilestoneName are the front matter milestone and
	// milestone_name, or "".
	Milestone     string `json:"milestone,omitempty"`
	MilestoneName string `json:"milestone_name,omitempty"`
	// ActivePhase is the front matter active_phase: the phase an
	// orchestrator runs on now (GSD 1.40, docs/STATE-MD-LIFECYCLE.md), or
	// "".
	ActivePhase string `json:"active_phase,omitempty"`
	// NextAction and NextPhases are the front matter next_action (the
	// command GSD recommends while idle: discuss-phase, plan-phase,
	// execute-phase, verify-phase) and next_phases (the phases it applies
	// to), or empty.
	NextAction string   `json:"next_action,omitempty"`
	NextPhases []string `json:"next_phases,omitempty"`
	// Progress is the front matter progress block as written: counters
	// GSD keeps, shown but never used to decide a status
	// (docs/formats.md#front-matter-traps); nil when absent.
	Progress *Progress `json:"progress,omitempty"`
	// Markdown is the parsed file; nil when Failure is set.
	Markdown *markdown.Document `json:"-"`
	// Failure is why the file could not be read, as for Plan.Failure; a
	// State with a Failure holds only its Path. nil when it was read.
	Failure *Diagnostic `json:"failure,omitempty"`
}

// Progress is a state file's front matter progress block; a counter the
// block does not hold is -1.
type Progress struct {
	TotalPhases     int `json:"total_phases"`
	CompletedPhases int `json:"completed_phases"`
	TotalPlans      int `json:"total_plans"`
	CompletedPlans  int `json:"completed_plans"`
	// Percent is progress.percent, 0 to 100, or -1.
	Percent int `json:"percent"`
}

// Blocker is one blocker entry from any recogniser.
type Blocker struct {
	// ID is the blocker's id (BLOCKER-005, B-01, BLK-001) or a derived one
	// ("path:line") when the source has none.
	ID string `json:"id"`
	// Title is the blocker's one-line text.
	Title string `json:"title"`
	// Priority is P0–P3 when given, or "".
	Priority string `json:"priority,omitempty"`
	// Status is "open", "resolved" or "deferred" (a fire-flow entry under
	// "## Deferred Blockers", docs/formats.md#blockers). Only "open" blocks
	// work.
	Status string `json:"status"`
	// Source is "path:line".
	Source string `json:"source"`
}

// Decision is one recorded decision.
type Decision struct {
	// Text is the decision as written (one line).
	Text string `json:"text"`
	// Phase is the phase it names ("[Phase 3]: …" or a table column), or "".
	Phase string `json:"phase,omitempty"`
	// Source is "path:line".
	Source string `json:"source"`
}

// Loop is a fire-flow Power Loop (docs/formats.md#loop-files).
type Loop struct {
	// Path is relative to the planning root.
	Path string `json:"path"`
	// ID is the loop id (front matter id or from the file name).
	ID string `json:"id"`
	// Status is the front matter status (active, completed, …), or "".
	Status string `json:"status,omitempty"`
	// Prompt is the loop's original prompt, or "".
	Prompt string `json:"prompt,omitempty"`
	// MaxIterations is from the front matter, 0 when unknown.
	MaxIterations int `json:"max_iterations,omitempty"`
	// Iterations are the Loop Progress rows in order.
	Iterations []Iteration `json:"iterations"`
	// Breaker are the Circuit Breaker State rows in order.
	Breaker []BreakerRow `json:"breaker,omitempty"`
	// Approaches are the Approaches Tried entries in order.
	Approaches []Approach `json:"approaches,omitempty"`
	// Snapshots are the Sabbath Rest snapshots of this loop.
	Snapshots []*Snapshot `json:"snapshots,omitempty"`
	// CurrentIteration is the front matter current_iteration (a counter the
	// writer keeps; it may lie: docs/formats.md#front-matter-traps), 0 when
	// absent.
	CurrentIteration int `json:"current_iteration,omitempty"`
	// CompletionPromise is the front matter completion_promise, or "".
	CompletionPromise string `json:"completion_promise,omitempty"`
	// Started is the front matter started timestamp as written, or "".
	Started string `json:"started,omitempty"`
	// HealthState is the front matter health_state (PROGRESS, STALLED,
	// SPINNING, DEGRADED, BLOCKED), or "".
	HealthState string `json:"health_state,omitempty"`
	// CircuitBreaker is the front matter circuit_breaker block; nil when
	// absent or unreadable.
	CircuitBreaker *LoopBreaker `json:"circuit_breaker,omitempty"`
	// FinalStatus is the `## Final Result` **Status:** value, or "".
	FinalStatus string `json:"final_status,omitempty"`
	// Errors are the verbatim errors the loop file quotes: each fenced code
	// block of a section whose title names an error (`### Last Error
	// (verbatim)`, `### Errors`; not `Error History` or `Error
	// Classification`), in file order. Label is the section title, Text the
	// block's lines unchanged, Source "path:line" of its first line.
	Errors []Signal `json:"errors,omitempty"`
}

// LoopBreaker is the circuit_breaker block of a loop file's front matter
// (docs/formats.md#loop-files).
type LoopBreaker struct {
	// State is HEALTHY, WARNING, TRIPPED or RECOVERY as written.
	State string `json:"state,omitempty"`
	// StallCounter is stall_counter, in iterations.
	StallCounter int `json:"stall_counter"`
	// ErrorHashes maps an error hash to the times it was seen.
	ErrorHashes map[string]int `json:"error_hashes,omitempty"`
	// OutputBaseline is output_baseline in output lines; 0 when null.
	OutputBaseline int `json:"output_baseline,omitempty"`
	// OutputHistory is output_history, output lines per iteration.
	OutputHistory []int `json:"output_history,omitempty"`
	// ApproachesTried is approaches_tried, one text per approach.
	ApproachesTried []string `json:"approaches_tried,omitempty"`
}

// Iteration is one row of a loop's progress table (`## Loop Progress` or a
// `## Loop Progress (Continued)` table with other columns;
// docs/formats.md#loop-files). Columns are mapped by header name; a number the
// table does not record is -1 (FilesChanged, OutputLines), never 0, so that
// "not recorded" is not mistaken for "no progress".
type Iteration struct {
	N            int    `json:"n"`
	Timestamp    string `json:"timestamp,omitempty"`
	FilesChanged int    `json:"files_changed"`
	ErrorHash    string `json:"error_hash,omitempty"`
	OutputLines  int    `json:"output_lines"`
	Health       string `json:"health,omitempty"`
	Action       string `json:"action,omitempty"`
	Line         int    `json:"line"`
	// State is a State column (circuit-breaker variant of the table,
	// e.g. "WARNING (same error 3x)"), or "".
	State string `json:"state,omitempty"`
	// Result and Context are the resume table's columns, or "".
	Result  string `json:"result,omitempty"`
	Context string `json:"context,omitempty"`
	// NoErrorColumn reports a row of a table without an Error Hash column
	// (the resume table): whether the iteration failed is unknown, which
	// is not the same as an empty cell ("no error").
	NoErrorColumn bool `json:"no_error_column,omitempty"`
}

// BreakerRow is one row of a loop's Circuit Breaker State table.
type BreakerRow struct {
	N          int    `json:"n"`
	StallCount int    `json:"stall_count"`
	SpinCount  int    `json:"spin_count"`
	OutputPct  string `json:"output_pct,omitempty"`
	State      string `json:"state"`
	Line       int    `json:"line"`
}

// Approach is one approach already tried, and why it failed: an item
// `1. [Iteration 1-3] Direct fix in auth.ts — TypeError persists` is Text
// "Direct fix in auth.ts", Result "TypeError persists", Iterations "1-3".
type Approach struct {
	Text   string `json:"text"`
	Result string `json:"result,omitempty"`
	Source string `json:"source"`
	// Iterations is the bracketed iteration range, or "".
	Iterations string `json:"iterations,omitempty"`
}

// Snapshot is a Sabbath Rest snapshot (docs/formats.md#sabbath-snapshots).
type Snapshot struct {
	Path      string `json:"path"`
	Iteration int    `json:"iteration"`
	Reason    string `json:"reason,omitempty"`
	// LoopID is the front matter loop_id, else the id in the file name
	// (sabbath-ID-iterN.md, sabbath-ID-stopped.md); Load uses it to attach
	// the snapshot to its loop.
	LoopID string `json:"loop_id,omitempty"`
	// Timestamp, HealthState and BreakerState are the front matter
	// timestamp, health_state and circuit_breaker_state, or "".
	Timestamp    string `json:"timestamp,omitempty"`
	HealthState  string `json:"health_state,omitempty"`
	BreakerState string `json:"circuit_breaker_state,omitempty"`
	// Approaches are the snapshot's "Approaches Tried" items.
	Approaches []Approach `json:"approaches,omitempty"`
	// Signals are the lines of "Preserved Stop Signals", verbatim.
	Signals []Signal `json:"signals,omitempty"`
}

// Signal is one preserved stop-signal line: its label (ERRORS, BLOCKED,
// FAILED ATTEMPTS, CIRCUIT BREAKER, TRIED AND FAILED) and verbatim text.
type Signal struct {
	Label  string `json:"label"`
	Text   string `json:"text"`
	Source string `json:"source"`
}

// DebugFile is a `.planning/debug/` file (docs/formats.md#debug-files).
type DebugFile struct {
	Path       string       `json:"path"`
	Status     string       `json:"status,omitempty"`
	Trigger    string       `json:"trigger,omitempty"`
	Eliminated []Hypothesis `json:"eliminated,omitempty"`
	Evidence   []string     `json:"evidence,omitempty"`
	Resolved   bool         `json:"resolved"`
	// Hypothesis and NextAction are the `## Current Focus` values, or "".
	Hypothesis string `json:"hypothesis,omitempty"`
	NextAction string `json:"next_action,omitempty"`
	// Errors is the `## Symptoms` errors value, verbatim (block scalars
	// dedented), or "".
	Errors string `json:"errors,omitempty"`
	// ErrorsLine is the line where the Errors text starts (the `errors:`
	// line, or the first line of a `|` block); 0 when there is none.
	ErrorsLine int `json:"errors_line,omitempty"`
	// RootCause is the `## Resolution` root_cause value, or "".
	RootCause string `json:"root_cause,omitempty"`
}

// Hypothesis is one eliminated hypothesis and the evidence against it.
type Hypothesis struct {
	Text     string `json:"hypothesis"`
	Evidence string `json:"evidence,omitempty"`
	Source   string `json:"source"`
	// Timestamp is the item's timestamp as written, or "".
	Timestamp string `json:"timestamp,omitempty"`
}

// Todo is one todo file or todos.md checkbox.
type Todo struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	Done  bool   `json:"done"`
	// Line is the checkbox line for a todos.md item, 0 for a todo file.
	Line int `json:"line,omitempty"`
	// Area and Files are a todo file's front matter area and files.
	Area  string   `json:"area,omitempty"`
	Files []string `json:"files,omitempty"`
}
