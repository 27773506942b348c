package engine

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/compress"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// IDDoubleCheck is the id of the section COMPLEX tasks get
// (compress.IDDoubleCheck). It sits at the end of the semi tier.
const IDDoubleCheck = compress.IDDoubleCheck

// CompressReport is a target's difficulty routing and context compression
// (docs/formats.md#difficulty-routing, docs/formats.md#compression).
type CompressReport struct {
	// Difficulty is the routing decision and its signals.
	Difficulty compress.Routing `json:"difficulty"`
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
	Level compress.Applied `json:"level"`
}

// Summary is one line for `recite status`.
func (c *CompressReport) Summary() string {
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

// routeDifficulty classifies the current task
// (docs/formats.md#difficulty-routing) and puts the level in the recitation
// input.
func routeDifficulty(tg *config.Target, proj *planning.Project, in *prompt.Input) compress.Routing {
	t := compress.Task{Skills: tg.Skills}
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
	r := compress.Route(t)
	in.Difficulty = r.Level.String()
	return r
}

// compressPrompt applies the difficulty policy, a compression pass and the
// budget level to a freshly assembled prompt, before redaction and Fit.
//
// The pass is computed at the current iteration rounded down to
// compression.every, and depends only on the prompt's inputs, so every
// build between two passes yields the same bytes for the compressed part
// and only appends; that keeps the provider's prompt cache warm. The
// current iteration is the highest iteration of conv, the conversation the
// prompt was assembled from (messages and iteration records; nil for
// none), else the last row of the active loop.
func (e *Engine) compressPrompt(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project, conv *conversation.Conversation, in *prompt.Input, p *prompt.Prompt, route compress.Routing) *CompressReport {
	cr := &CompressReport{Difficulty: route, Enabled: cfg.Compression.CompressionOn()}
	e.applyDifficulty(cfg, proj, p, cr)
	if !cr.Enabled {
		return cr
	}
	counter, err := e.Counter(cfg.Tokenizer)
	if err != nil {
		return cr
	}
	count := compress.Counter(counter.Count)
	facts := e.compressFacts(conv, proj, p, cr, cfg.Compression.Every)
	sg := compress.Segments(compress.Source{Prompt: p, Input: in, Project: proj, Facts: facts, Pass: cr.Pass,
		Redact: e.redactSkill, ProjectPath: e.projectPath, Count: count})
	segs := sg.Segments
	cr.Deduplicated = sg.Deduplicated
	opt := compress.Options{Pass: cr.Pass, Current: cr.Iteration, Upcoming: compress.UpcomingTasks(proj), Count: count}
	if cfg.Compression.Summarizer != "" && cr.Pass > 0 {
		opt.Summarize = compress.CommandSummarizer(ctx, e.dir, cfg.Compression.Summarizer)
	}
	res := compress.Compress(segs, opt)
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

	b := tg.Budget
	if b == 0 {
		b = cfg.ContextWindow
	}
	total := p.Count(counter.Count)
	cr.Level = compress.ApplyLevel(segs, res.Outcomes, total, b, count)
	if len(cr.Level.Actions) > 0 {
		sg.Apply(res.Outcomes)
	}
	if cr.Level.Handoff {
		p.Cuts = append(p.Cuts, fmt.Sprintf("budget level RED: %d of the target's %d tokens (%d%%) before compression, %d after keeping only HOT and pinned segments; hand off to a fresh session",
			cr.Level.Before, b, cr.Level.Before*100/b, cr.Level.After))
	}
	return cr
}

// applyDifficulty applies the routed level's policy (recite.yaml
// compression.difficulty): it omits the policy's sections and, for a
// double-check policy, adds the double-check section (redacted) at the end
// of the semi tier.
func (e *Engine) applyDifficulty(cfg *config.Config, proj *planning.Project, p *prompt.Prompt, cr *CompressReport) {
	pol := cfg.Compression.Difficulty.Moderate
	switch cr.Difficulty.Level {
	case compress.Simple:
		pol = cfg.Compression.Difficulty.Simple
	case compress.Complex:
		pol = cfg.Compression.Difficulty.Complex
	}
	for _, id := range pol.Omit {
		for i := range p.Sections {
			if p.Sections[i].ID == id {
				p.Sections = append(p.Sections[:i], p.Sections[i+1:]...)
				cr.Omitted = append(cr.Omitted, id)
				break
			}
		}
	}
	if pol.DoubleCheck != nil && *pol.DoubleCheck {
		if s, ok := compress.DoubleCheckSection(proj); ok {
			if e.redactor != nil {
				s.Body, _ = e.redactor.redact(IDDoubleCheck, s.Body)
			}
			compress.InsertSemiLast(p, s)
			cr.DoubleCheck = true
		}
	}
}

// compressFacts sets cr's current iteration and pass (the iteration
// rounded down to every) and gathers what compression knows of conv: the
// iteration of each record, per-iteration facts, the commits that settled
// an error or landed an approach, and the messages up to the pass.
func (e *Engine) compressFacts(conv *conversation.Conversation, proj *planning.Project, p *prompt.Prompt, cr *CompressReport, every int) compress.Facts {
	iters := map[string]int{}
	times := map[string]time.Time{}
	if conv != nil {
		cr.Iteration = compress.Iterations(conv, iters)
		for _, r := range conv.Messages {
			times[r.ID] = r.Time
		}
	}
	if cr.Iteration == 0 {
		cr.Iteration = loopIteration(proj)
	}
	cr.Pass = cr.Iteration - cr.Iteration%every

	facts := compress.IterationFactsOf(conv, iters, e.projectPath)
	// A fix commit counts when made before the pass's iteration began, so
	// a commit made between passes changes nothing until the next pass.
	var items []gitstore.Item
	if passStart, ok := compress.WindowEnd(facts, cr.Pass, cr.Pass); ok {
		for _, m := range p.Messages {
			it := iters[m.ID]
			if m.IsError && it > 0 && it <= cr.Pass && !times[m.ID].IsZero() {
				items = append(items, gitstore.Item{ID: m.ID, Text: m.Content, After: times[m.ID], Before: passStart})
			}
		}
	}
	items = append(items, approachItems(facts, cr.Pass)...)
	commits := e.history.CommitsTouching(e.dir, items)
	// A skill counts as used when a message up to the pass names it, in the
	// whole conversation rather than the history window: the skills sit in
	// the stable tier, and a mention arriving between passes, or leaving
	// the window, must not rewrite the whole prompt.
	var mentions []string
	if conv != nil {
		for _, r := range conv.Messages {
			if n := iters[r.ID]; n > 0 && n <= cr.Pass && !r.Internal {
				mentions = append(mentions, r.Content)
			}
		}
	}
	return compress.Facts{Iters: iters, Iterations: facts, Commits: commits, Mentions: mentions}
}

// redactSkill redacts a skill file's text for compression's skill
// segments; without a redactor it is left as it is.
func (e *Engine) redactSkill(path, text string) string {
	if e.redactor == nil {
		return text
	}
	out, _ := e.redactor.redact(path, text)
	return out
}

// loopIteration is the last iteration number of the active loop, 0 when
// there is none.
func loopIteration(proj *planning.Project) int {
	l := scope.ActiveLoop(proj)
	if l == nil {
		return 0
	}
	if n := len(l.Iterations); n > 0 {
		return l.Iterations[n-1].N
	}
	return 0
}

// projectPath turns a file a tool call or record names into a clean
// project-relative, slash-separated path; "" when it is empty or outside
// the project.
func (e *Engine) projectPath(p string) string {
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		rel, ok := e.relPath(p)
		if !ok {
			return ""
		}
		p = rel
	}
	p = path.Clean(filepath.ToSlash(p))
	if !fs.ValidPath(p) || p == "." {
		return ""
	}
	return p
}

// approachItems are the iterations whose approach a commit may have landed
// (the account of a committed approach is LOW: docs/formats.md#compression):
// iterations old enough to be LOW at pass (older than 3) that did not fail and
// changed files. The commit must come during the iteration or after it, and
// before the fourth iteration after it began, so whether an approach is
// committed is settled by the time it is old enough to compress. Failed
// approaches are never compressed this way: what did not work is never
// forgotten (docs/formats.md#what-a-pass-forgets).
func approachItems(facts map[int]*compress.IterationFacts, pass int) []gitstore.Item {
	var items []gitstore.Item
	for n := 1; n <= pass-compress.FileReadLowAge-1; n++ {
		f := facts[n]
		if f == nil || f.Failed || len(f.Files) == 0 || f.First.IsZero() {
			continue
		}
		before, ok := compress.WindowEnd(facts, n+compress.FileReadLowAge+1, pass)
		if !ok {
			continue
		}
		items = append(items, gitstore.Item{ID: compress.ApproachID(n), Files: f.Files, After: f.First, Before: before})
	}
	return items
}
