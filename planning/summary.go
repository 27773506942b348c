package planning

import (
	"bytes"
	"encoding/json"
)

// Summary is the inspectable view of a Project that `recite inspect --json`
// prints and the engine may reuse: plain values only, fixed key order (struct
// field order), deterministic for the same tree. Absent values are JSON null
// (pointers) and empty lists are [] rather than null.
type Summary struct {
	// Flavor is gsd, fire, mixed or none.
	Flavor Flavor `json:"flavor"`
	// CurrentPhase is the phase the current-position rule picks, or nil.
	CurrentPhase *PhaseRef `json:"current_phase"`
	// Status, LastActivity and StoppedAt come from the state file ("" when
	// absent); Status is normalised as GSD does
	// (docs/formats.md#status-normalisation).
	Status       string `json:"status"`
	LastActivity string `json:"last_activity"`
	StoppedAt    string `json:"stopped_at"`
	// Phases are every phase in roadmap order, then phases only on disk.
	Phases []PhaseSummary `json:"phases"`
	// CurrentPlan is the current plan and its tasks, or nil.
	CurrentPlan *PlanSummary `json:"current_plan"`
	// NextTask is the next task's text, or nil.
	NextTask *string `json:"next_task"`
	// NextAction is the next step the tree recommends (HANDOFF.json,
	// STATE.md's next_action, or the next milestone after a finished one)
	// with its source, or nil.
	NextAction *Action `json:"next_action"`
	// Milestone is the milestone's state: active, complete or not_started
	// with the text that says so (docs/formats.md#finished-milestones).
	Milestone Milestone `json:"milestone"`
	// Workstream is the name of the workstream read as the project's
	// state, or nil for a tree read flat.
	Workstream *string `json:"workstream"`
	// Workstreams are every workstream of the tree with its current phase.
	Workstreams []Workstream `json:"workstreams"`
	// Handoff is HANDOFF.json's pause state, or nil.
	Handoff *HandoffSummary `json:"handoff"`
	// Blockers are every blocker, open or resolved, in file order.
	Blockers []BlockerSummary `json:"blockers"`
	// Decisions are the state file's decisions, oldest first.
	Decisions []Decision `json:"decisions"`
	// Loops are the fire-flow loops.
	Loops []LoopSummary `json:"loops"`
	// Diagnostics are the problems found, sorted by path then line.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// HandoffSummary is HANDOFF.json in brief: where the work paused, its
// status and time, and the tasks still open.
type HandoffSummary struct {
	Path      string `json:"path"`
	Status    string `json:"status"`
	Timestamp string `json:"timestamp"`
	// Phase and Plan locate the pause, as written, or "".
	Phase string `json:"phase"`
	Plan  string `json:"plan"`
	// OpenTasks are the tasks not done, "name (status)", in file order.
	OpenTasks []string `json:"open_tasks"`
}

// PhaseRef names a phase.
type PhaseRef struct {
	Number string `json:"number"`
	Name   string `json:"name"`
}

// PhaseSummary is one phase with its plan counts (from disk).
type PhaseSummary struct {
	Number string `json:"number"`
	Name   string `json:"name"`
	// Status is complete, in_progress, planned, not_started or deferred.
	Status string `json:"status"`
	// Goal is the roadmap's goal for the phase, read whole over the lines
	// it wraps onto (docs/formats.md#fields), or "".
	Goal string `json:"goal,omitempty"`
	// Plans and PlansDone count plan files and those with a summary.
	Plans     int  `json:"plans"`
	PlansDone int  `json:"plans_done"`
	Archived  bool `json:"archived,omitempty"`
}

// PlanSummary is a plan's path and its tasks.
type PlanSummary struct {
	Path  string        `json:"path"`
	Tasks []TaskSummary `json:"tasks"`
}

// TaskSummary is one task's text and state (todo, done, in_progress,
// skipped).
type TaskSummary struct {
	Text  string `json:"text"`
	State string `json:"state"`
}

// BlockerSummary is one blocker; Source is "path:line".
type BlockerSummary struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status string `json:"status"`
	Source string `json:"source"`
}

// LoopSummary is one loop: id, status, iterations recorded, and whether
// loops/active-loop.json names it.
type LoopSummary struct {
	ID         string `json:"id"`
	Path       string `json:"path"`
	Status     string `json:"status"`
	Iterations int    `json:"iterations"`
	Active     bool   `json:"active"`
}

// Summary builds the inspectable view of p.
func (p *Project) Summary() Summary {
	s := Summary{
		Flavor:      p.Flavor,
		Phases:      []PhaseSummary{},
		Blockers:    []BlockerSummary{},
		Decisions:   []Decision{},
		Loops:       []LoopSummary{},
		Diagnostics: []Diagnostic{},
		Workstreams: append([]Workstream{}, p.Workstreams...),
		Milestone:   p.Milestone,
		NextAction:  p.NextAction,
	}
	if p.Workstream != nil {
		n := p.Workstream.Name
		s.Workstream = &n
	}
	if h := p.Handoff; h != nil {
		hs := &HandoffSummary{Path: h.Path, Status: h.Status, Timestamp: h.Timestamp, Phase: h.Phase, Plan: h.Plan, OpenTasks: []string{}}
		for _, t := range h.OpenTasks() {
			hs.OpenTasks = append(hs.OpenTasks, t.Name+" ("+t.Status+")")
		}
		s.Handoff = hs
	}
	if p.CurrentPhase != nil {
		s.CurrentPhase = &PhaseRef{Number: p.CurrentPhase.Number, Name: p.CurrentPhase.Name}
	}
	if p.State != nil {
		s.Status, s.LastActivity, s.StoppedAt = p.State.Status, p.State.LastActivity, p.State.StoppedAt
	}
	for _, ph := range p.Phases {
		s.Phases = append(s.Phases, PhaseSummary{Number: ph.Number, Name: ph.Name, Status: ph.Status, Goal: ph.Goal,
			Plans: len(ph.Plans), PlansDone: ph.PlansDone(), Archived: ph.Archived})
	}
	if p.CurrentPlan != nil {
		ps := &PlanSummary{Path: p.CurrentPlan.Path, Tasks: []TaskSummary{}}
		for _, t := range p.CurrentPlan.Tasks {
			ps.Tasks = append(ps.Tasks, TaskSummary{Text: t.Text, State: t.State})
		}
		s.CurrentPlan = ps
	}
	if p.NextTask != nil {
		t := p.NextTask.Text
		s.NextTask = &t
	}
	for _, b := range p.Blockers {
		s.Blockers = append(s.Blockers, BlockerSummary{ID: b.ID, Title: b.Title, Status: b.Status, Source: b.Source})
	}
	s.Decisions = append(s.Decisions, p.Decisions...)
	for _, l := range p.Loops {
		s.Loops = append(s.Loops, LoopSummary{ID: l.ID, Path: l.Path, Status: l.Status,
			Iterations: len(l.Iterations), Active: l.ID != "" && l.ID == p.ActiveLoop})
	}
	s.Diagnostics = append(s.Diagnostics, p.Diagnostics...)
	return s
}

// JSON encodes the summary as `recite inspect --json` prints it: indented by
// two spaces, HTML characters not escaped, ending in a newline.
func (s Summary) JSON() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
