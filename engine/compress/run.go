package compress

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// Report is a target's difficulty routing and context compression
// (docs/formats.md#difficulty-routing, docs/formats.md#compression).
type Report struct {
	// Difficulty is the routing decision and its signals.
	Difficulty Routing `json:"difficulty"`
	// Omitted are the sections the difficulty policy left out.
	Omitted []string `json:"omitted,omitempty"`
	// DoubleCheck is true when a double-check section was added.
	DoubleCheck bool `json:"double_check,omitempty"`
	// Enabled reports compression.enabled.
	Enabled bool `json:"enabled"`
	// Iteration is the current loop iteration (0 when unknown) and Pass the
	// iteration of the compression pass in effect (Iteration rounded down
	// to compression.every; 0 before the first pass).
	Iteration int `json:"iteration"`
	Pass      int `json:"pass"`
	// Before and After are the tokens of the scored segments before and
	// after the pass; Saved = Before − After.
	Before int `json:"before"`
	After  int `json:"after"`
	Saved  int `json:"saved"`
	// Kept lists plan-aware keeps ("msg:ID: kept for upcoming task 2"),
	// Forgotten the segments collapsed to one line, Deduplicated the file
	// reads replaced by a pointer (one copy of a file per prompt).
	Kept         []string `json:"kept,omitempty"`
	Forgotten    []string `json:"forgotten,omitempty"`
	Deduplicated []string `json:"deduplicated,omitempty"`
	// Level is the budget level and what it did.
	Level Applied `json:"level"`
}

// Summary is one line for `recite status`.
func (c *Report) Summary() string {
	if !c.Enabled {
		return "compression off"
	}
	if c.Pass == 0 {
		return fmt.Sprintf("iteration %d: no compression pass yet", c.Iteration)
	}
	pct := 0.0
	if c.Before > 0 {
		pct = float64(c.Saved) * 100 / float64(c.Before)
	}
	return fmt.Sprintf("iteration %d, pass at %d: %d → %d tokens (%d saved, %.1f%%); %d kept for upcoming tasks, %d forgotten, %d duplicate reads",
		c.Iteration, c.Pass, c.Before, c.After, c.Saved, pct, len(c.Kept), len(c.Forgotten), len(c.Deduplicated))
}

// RouteTask classifies the project's current task: the next task's text
// and files, else the current plan's title, objective and files, with the
// target's skills (docs/formats.md#difficulty-routing).
func RouteTask(skills []string, proj *planning.Project) Routing {
	t := Task{Skills: skills}
	if nt := proj.NextTask; nt != nil {
		t.Text = strings.Join([]string{nt.Text, nt.Action, nt.Done}, " ")
		t.Files = nt.Files
	}
	if pl := proj.CurrentPlan; pl != nil {
		if len(t.Files) == 0 {
			t.Files = pl.FilesModified
		}
		if t.Text == "" {
			t.Text = pl.Title + " " + pl.Objective
		}
	}
	return Route(t)
}

// Policy is what recite.yaml's compression.difficulty says for one level:
// the sections to omit and whether to add the double-check section.
type Policy struct {
	Omit        []string
	DoubleCheck bool
}

// Run is what one target's compression needs from the engine: the
// settings of recite.yaml's compression block and the engine's services.
type Run struct {
	// Dir is the project root, where the summarizer command runs.
	Dir string
	// Enabled is compression.enabled, Every compression.every (iterations
	// between passes, ≥ 1), Summarizer compression.summarizer ("" for
	// none).
	Enabled    bool
	Every      int
	Summarizer string
	// Policy is the routed level's policy.
	Policy Policy
	// Budget is the target's token budget.
	Budget int
	// Count counts tokens; nil (no tokenizer) stops after the policy.
	Count Counter
	// Redact returns a text of path with its secrets replaced (skills and
	// the double-check section enter the prompt through it).
	Redact func(path, text string) string
	// ProjectPath turns a path a record names into a project-relative
	// one ("" outside the project).
	ProjectPath func(string) string
	// Commits answers which commits touched the items
	// (gitstore.History.CommitsTouching).
	Commits func([]gitstore.Item) map[string]string
	// Settled is the id of the last message of the conversation history's
	// settled part (prompt.Input.Settled; "" before the history's first
	// eviction). Once the history evicts, the pass in effect is at most
	// the pass of that message's iteration, so a pass rewrites the
	// compressed messages only when the history evicts too, and the
	// provider's cache is rewritten once for both
	// (docs/formats.md#cache-aware-eviction).
	Settled string
}

// Apply applies the difficulty policy, a compression pass and the budget
// level to a freshly assembled prompt p (before redaction of the rest and
// Fit), and reports what it did.
//
// The pass is computed at the current iteration rounded down to Every,
// and depends only on the prompt's inputs, so every build between two
// passes yields the same bytes for the compressed part and only appends;
// that keeps the provider's prompt cache warm. The current iteration is
// the highest iteration of conv, the conversation the prompt was
// assembled from (messages and iteration records; nil for none), else the
// last row of the project's current loop.
func (r Run) Apply(ctx context.Context, proj *planning.Project, conv *conversation.Conversation, in *prompt.Input, p *prompt.Prompt, route Routing) *Report {
	cr := &Report{Difficulty: route, Enabled: r.Enabled}
	r.applyPolicy(proj, p, cr)
	if !cr.Enabled || r.Count == nil {
		return cr
	}
	count := r.Count
	facts := r.facts(conv, proj, p, cr)
	sg := Segments(Source{Prompt: p, Input: in, Project: proj, Facts: facts, Pass: cr.Pass,
		Redact: r.Redact, ProjectPath: r.ProjectPath, Count: count})
	segs := sg.Segments
	cr.Deduplicated = sg.Deduplicated
	opt := Options{Pass: cr.Pass, Current: cr.Iteration, Upcoming: UpcomingTasks(proj), Count: count}
	if r.Summarizer != "" && cr.Pass > 0 {
		opt.Summarize = CommandSummarizer(ctx, r.Dir, r.Summarizer)
	}
	res := Compress(segs, opt)
	if cr.Pass == 0 {
		// Before the first pass nothing is compressed; budget levels still
		// apply.
		for i := range res.Outcomes {
			res.Outcomes[i].Text, res.Outcomes[i].After, res.Outcomes[i].Action = segs[i].Text, res.Outcomes[i].Before, "kept"
		}
		res.After = res.Before
	}
	// Before counts the deduplicated reads in full.
	cr.Before, cr.After = res.Before+sg.DedupedTokens, res.After
	cr.Saved = cr.Before - cr.After
	for _, o := range res.Outcomes {
		if o.Tag != "" {
			cr.Kept = append(cr.Kept, o.Key+": "+o.Tag)
		}
		if strings.HasPrefix(o.Action, "forgotten") {
			cr.Forgotten = append(cr.Forgotten, o.Key+": "+strings.TrimPrefix(o.Action, "forgotten: "))
		}
	}
	sg.Apply(res.Outcomes)

	total := p.Count(prompt.Counter(count))
	cr.Level = ApplyLevel(segs, res.Outcomes, total, r.Budget, count)
	if len(cr.Level.Actions) > 0 {
		sg.Apply(res.Outcomes)
	}
	if cr.Level.Handoff {
		p.Cuts = append(p.Cuts, fmt.Sprintf("budget level RED: %d of the target's %d tokens (%d%%) before compression, %d after keeping only HOT and pinned segments; hand off to a fresh session",
			cr.Level.Before, r.Budget, cr.Level.Before*100/r.Budget, cr.Level.After))
	}
	return cr
}

// applyPolicy omits the policy's sections and, for a double-check policy,
// adds the double-check section (redacted) at the end of the semi tier.
func (r Run) applyPolicy(proj *planning.Project, p *prompt.Prompt, cr *Report) {
	for _, id := range r.Policy.Omit {
		for i := range p.Sections {
			if p.Sections[i].ID == id {
				p.Sections = append(p.Sections[:i], p.Sections[i+1:]...)
				cr.Omitted = append(cr.Omitted, id)
				break
			}
		}
	}
	if r.Policy.DoubleCheck {
		if s, ok := DoubleCheckSection(proj); ok {
			if r.Redact != nil {
				s.Body = r.Redact(IDDoubleCheck, s.Body)
			}
			InsertSemiLast(p, s)
			cr.DoubleCheck = true
		}
	}
}

// facts sets cr's current iteration and pass (the iteration rounded down
// to Every) and gathers what compression knows of conv: the iteration of
// each record, per-iteration facts, the commits that settled an error or
// landed an approach, and the messages up to the pass.
func (r Run) facts(conv *conversation.Conversation, proj *planning.Project, p *prompt.Prompt, cr *Report) Facts {
	iters := map[string]int{}
	times := map[string]time.Time{}
	if conv != nil {
		cr.Iteration = Iterations(conv, iters)
		for _, rec := range conv.Messages {
			times[rec.ID] = rec.Time
		}
	}
	if cr.Iteration == 0 {
		cr.Iteration = loopIteration(proj)
	}
	cr.Pass = cr.Iteration - cr.Iteration%max(r.Every, 1)
	if n, ok := iters[r.Settled]; ok && r.Settled != "" {
		cr.Pass = min(cr.Pass, n-n%max(r.Every, 1))
	}

	facts := IterationFactsOf(conv, iters, r.ProjectPath)
	// A fix commit counts when made before the pass's iteration began, so
	// a commit made between passes changes nothing until the next pass.
	var items []gitstore.Item
	if passStart, ok := WindowEnd(facts, cr.Pass, cr.Pass); ok {
		for _, m := range p.Messages {
			it := iters[m.ID]
			if m.IsError && it > 0 && it <= cr.Pass && !times[m.ID].IsZero() {
				items = append(items, gitstore.Item{ID: m.ID, Text: m.Content, After: times[m.ID], Before: passStart})
			}
		}
	}
	items = append(items, approachItems(facts, cr.Pass)...)
	var commits map[string]string
	if r.Commits != nil {
		commits = r.Commits(items)
	}
	// A skill counts as used when a message up to the pass names it, in the
	// whole conversation rather than the history window: the skills sit in
	// the stable tier, and a mention arriving between passes, or leaving
	// the window, must not rewrite the whole prompt.
	var mentions []string
	if conv != nil {
		for _, rec := range conv.Messages {
			if n := iters[rec.ID]; n > 0 && n <= cr.Pass && !rec.Internal {
				mentions = append(mentions, rec.Content)
			}
		}
	}
	return Facts{Iters: iters, Iterations: facts, Commits: commits, Mentions: mentions}
}

// loopIteration is the last iteration number of the project's current
// loop, 0 when there is none.
func loopIteration(proj *planning.Project) int {
	l := proj.CurrentLoop()
	if l == nil {
		return 0
	}
	if n := len(l.Iterations); n > 0 {
		return l.Iterations[n-1].N
	}
	return 0
}

// approachItems are the iterations whose approach a commit may have landed
// (the account of a committed approach is LOW: docs/formats.md#compression):
// iterations old enough to be LOW at pass (older than 3) that did not fail and
// changed files. The commit must come during the iteration or after it, and
// before the fourth iteration after it began, so whether an approach is
// committed is settled by the time it is old enough to  Failed
// approaches are never compressed this way: what did not work is never
// forgotten (docs/formats.md#what-a-pass-forgets).
func approachItems(facts map[int]*IterationFacts, pass int) []gitstore.Item {
	var items []gitstore.Item
	for n := 1; n <= pass-FileReadLowAge-1; n++ {
		f := facts[n]
		if f == nil || f.Failed || len(f.Files) == 0 || f.First.IsZero() {
			continue
		}
		before, ok := WindowEnd(facts, n+FileReadLowAge+1, pass)
		if !ok {
			continue
		}
		items = append(items, gitstore.Item{ID: ApproachID(n), Files: f.Files, After: f.First, Before: before})
	}
	return items
}
