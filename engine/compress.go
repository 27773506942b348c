package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recite-dev/recite/internal/fsutil"

	"github.com/recite-dev/recite/engine/compress"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/layers"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// IDDoubleCheck is the id of the section COMPLEX tasks get (seeds/002 §5
// "COMPLEX … adds double-check"). It sits at the end of the semi tier.
const IDDoubleCheck = "double-check"

// compressCacheDir holds the outputs of the compression.summarizer
// command, keyed by a hash of the command, the keep share and the text.
const compressCacheDir = ".planning/.recite/compress"

// compressSummarizerTimeout bounds one run of the summarizer command.
const compressSummarizerTimeout = 2 * time.Minute

// CompressReport is a target's difficulty routing and context compression
// (seeds/002 §5–§6).
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

// routeDifficulty classifies the current task (seeds/002 §5) and puts the
// level in the recitation input.
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
	pol := cfg.Compression.Difficulty.Moderate
	switch route.Level {
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
		if s, ok := doubleCheckSection(proj); ok {
			if e.redactor != nil {
				s.Body, _ = e.redactor.redact(IDDoubleCheck, s.Body)
			}
			insertSemiLast(p, s)
			cr.DoubleCheck = true
		}
	}
	if !cr.Enabled {
		return cr
	}
	counter, err := e.Counter(cfg.Tokenizer)
	if err != nil {
		return cr
	}
	count := compress.Counter(counter.Count)

	iters := map[string]int{}
	times := map[string]time.Time{}
	if conv != nil {
		cr.Iteration = conversationIterations(conv, iters)
		for _, r := range conv.Messages {
			times[r.ID] = r.Time
		}
	}
	if cr.Iteration == 0 {
		cr.Iteration = loopIteration(proj)
	}
	every := cfg.Compression.Every
	cr.Pass = cr.Iteration - cr.Iteration%every

	facts := e.iterationFacts(conv, iters)
	// A fix commit counts when made before the pass's iteration began, so
	// a commit made between passes changes nothing until the next pass.
	var items []gitstore.Item
	if passStart, ok := windowEnd(facts, cr.Pass, cr.Pass); ok {
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
	segs, apply, deduped := e.segments(p, in, proj, convFacts{iters: iters, facts: facts, commits: commits, mentions: mentions}, cr, count)
	opt := compress.Options{Pass: cr.Pass, Current: cr.Iteration, Upcoming: upcomingTasks(proj), Count: count}
	if cfg.Compression.Summarizer != "" && cr.Pass > 0 {
		opt.Summarize = e.summarizer(ctx, cfg.Compression.Summarizer)
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
	cr.Before, cr.After = res.Before+deduped, res.After
	cr.Saved = cr.Before - cr.After
	for _, o := range res.Outcomes {
		if o.Tag != "" {
			cr.Kept = append(cr.Kept, o.Key+": "+o.Tag)
		}
		if strings.HasPrefix(o.Action, "forgotten") {
			cr.Forgotten = append(cr.Forgotten, o.Key+": "+strings.TrimPrefix(o.Action, "forgotten: "))
		}
	}
	apply(res.Outcomes)

	b := tg.Budget
	if b == 0 {
		b = cfg.ContextWindow
	}
	total := p.Count(counter.Count)
	cr.Level = compress.ApplyLevel(segs, res.Outcomes, total, b, count)
	if len(cr.Level.Actions) > 0 {
		apply(res.Outcomes)
	}
	if cr.Level.Handoff {
		p.Cuts = append(p.Cuts, fmt.Sprintf("budget level RED: %d of the target's %d tokens (%d%%) before compression, %d after keeping only HOT and pinned segments; hand off to a fresh session",
			cr.Level.Before, b, cr.Level.Before*100/b, cr.Level.After))
	}
	return cr
}

// conversationIterations fills iters (record id → iteration, for messages
// and iteration records) and returns the current iteration, the highest of
// them. A record's own number wins. Otherwise the number is derived, so
// that conversations without numbers (written by the Claude Code hook,
// imported from an agent's transcript) compress too: an iteration record
// is the iteration after the record before it; with iteration records (the
// hook writes one per agent turn, at Stop), a message belongs to the
// iteration after the last record written before it; without any, each
// user prompt (a user message that is neither internal nor a compaction
// summary) begins the next iteration.
func conversationIterations(c *conversation.Conversation, iters map[string]int) int {
	type end struct {
		at time.Time
		id string
		n  int
	}
	var ends []end
	cur, prev := 0, 0
	for _, r := range c.Iterations {
		n := r.Iteration
		if n <= 0 {
			n = prev + 1
		}
		prev = n
		ends = append(ends, end{r.Time, r.ID, n})
		iters[r.ID] = n
		cur = max(cur, n)
	}
	j, last, prompts := 0, 0, 0
	var prevUser, prevAssistant string
	for k, r := range c.Messages {
		for j < len(ends) && (ends[j].at.Before(r.Time) || ends[j].at.Equal(r.Time) && ends[j].id < r.ID) {
			last = ends[j].n
			j++
		}
		var next *conversation.Record
		if k+1 < len(c.Messages) {
			next = &c.Messages[k+1]
		}
		if turnPrompt(r, next, prevUser, prevAssistant) {
			prompts++
		}
		switch {
		case r.Role == conversation.RoleUser && !r.Internal:
			prevUser = strings.TrimSpace(r.Content)
		case r.Role == conversation.RoleAssistant && !r.Internal && r.Content != "":
			prevAssistant = strings.TrimSpace(r.Content)
		}
		n := r.Iteration
		switch {
		case n > 0:
		case len(ends) > 0:
			n = last + 1
		default:
			n = max(prompts, 1)
		}
		iters[r.ID] = n
		cur = max(cur, n)
	}
	return cur
}

// turnPrompt reports whether a user message r begins an agent turn: not
// internal, not a compaction summary or a tool result, and none of what
// the transcripts in ../shared/transcripts show users "saying" that is no
// prompt: Claude Code's built-in commands and their output (a
// "<command-name>…" message followed by "<local-command-stdout>…"; a
// custom command, followed by its expansion, is a prompt), its
// interruption marker ("[Request interrupted by user…"), aider's answers
// to its own questions ("Add file to the chat? (Y)es/(N)o/…"), a bare
// slash command ("/clear", "/ask"), and aider's echoes: in architect mode
// the architect's reply handed to the editor as a user message (equal to
// the previous assistant message), and a "/ask TEXT" prompt repeated as
// TEXT. next is the message after r (nil at the end); prevUser and
// prevAssistant are the texts of the last user and assistant messages
// before it.
func turnPrompt(r conversation.Record, next *conversation.Record, prevUser, prevAssistant string) bool {
	if r.Role != conversation.RoleUser || r.Internal || r.CompactSummary || r.ToolCallID != "" {
		return false
	}
	c := strings.TrimSpace(r.Content)
	switch {
	case c == "",
		strings.HasPrefix(c, "<local-command-"),
		strings.HasPrefix(c, "[Request interrupted"),
		strings.Contains(c, "(Y)es/(N)o"),
		strings.HasPrefix(c, "/") && !strings.ContainsAny(c, " \n"),
		c == prevAssistant:
		return false
	case strings.HasPrefix(c, "<command-"):
		return next == nil || next.Role != conversation.RoleUser || !strings.HasPrefix(strings.TrimSpace(next.Content), "<local-command-stdout")
	case strings.HasPrefix(prevUser, "/"):
		if _, rest, ok := strings.Cut(prevUser, " "); ok && strings.TrimSpace(rest) == c {
			return false
		}
	}
	return true
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

// upcomingTasks are the texts of the (at most 3) tasks after the next one:
// the rest of the current plan, then the following plans of the phase.
func upcomingTasks(proj *planning.Project) []string {
	var out []string
	pl := proj.CurrentPlan
	if pl == nil {
		return nil
	}
	seen := proj.NextTask == nil
	for _, t := range pl.Tasks {
		if !seen {
			seen = t.Line == proj.NextTask.Line
			continue
		}
		if t.State != "done" {
			out = append(out, strings.Join([]string{t.Text, t.Action, strings.Join(t.Files, " ")}, " "))
		}
	}
	if ph := proj.CurrentPhase; ph != nil {
		after := false
		for _, other := range ph.Plans {
			if other == pl {
				after = true
				continue
			}
			if after && !other.Done {
				for _, t := range other.Tasks {
					out = append(out, strings.Join([]string{t.Text, t.Action, strings.Join(t.Files, " ")}, " "))
				}
			}
		}
	}
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

// readTools are tool names (lower case, substrings) whose results are file
// contents.
var readTools = []string{"read", "view", "cat", "open_file", "get_file"}

// segments turns p into scorable segments and returns a function that
// writes outcomes back into p. Sections are one segment each, except the
// skills section (one per skill file) and the conversation (one per
// message). File reads are deduplicated first (one copy of a file per
// prompt): a read of a file shown in the Files section, a read superseded
// by a newer read (at or before the pass) with other content, and a later
// read with the same content as an earlier one become one-line pointers.
func (e *Engine) segments(p *prompt.Prompt, in *prompt.Input, proj *planning.Project, conv convFacts, cr *CompressReport, count compress.Counter) ([]compress.Segment, func([]compress.Outcome), int) {
	deduped := 0 // tokens the pointers saved
	var segs []compress.Segment
	type target struct {
		section int // index in p.Sections, or -1
		skill   int // index in in.Skills, or -1
		msg     int // index in p.Messages, or -1
	}
	var targets []target
	taskWords := compress.Keywords(taskText(proj))
	editing := map[string]bool{}
	if nt := proj.NextTask; nt != nil {
		for _, f := range nt.Files {
			editing[f] = true
		}
	}
	inFiles := map[string]bool{}
	for _, f := range in.Files {
		inFiles[f.Path] = true
		editing[f.Path] = true
	}
	skillSection := -1
	for i := range p.Sections {
		s := &p.Sections[i]
		if s.ID == prompt.IDConversation {
			continue
		}
		if s.ID == prompt.IDSkills && len(in.Skills) > 0 {
			skillSection = i
			for k, f := range in.Skills {
				// Skill files come raw from the input: redact them before
				// a cut can keep part of a secret (redactPrompt ran).
				text := "### " + f.Path + "\n\n" + strings.TrimSpace(f.Text)
				if e.redactor != nil {
					text, _ = e.redactor.redact(f.Path, text)
				}
				segs = append(segs, compress.Segment{
					Key: "skill:" + f.Path, Kind: compress.KindSkill, Path: f.Path, Tier: int(s.Tier),
					Text:    text,
					ForTask: skillUsed(f.Path, taskWords, proj, conv.mentions),
				})
				targets = append(targets, target{section: -1, skill: k, msg: -1})
			}
			continue
		}
		kind := compress.KindOther
		switch s.ID {
		case prompt.IDPlan:
			kind = compress.KindTask
		case prompt.IDRecitation:
			kind = compress.KindRecitation
		case prompt.IDPreserved, prompt.IDErrors, prompt.IDHealth, prompt.IDLoop:
			kind = compress.KindSignal
		case prompt.IDFiles:
			kind = compress.KindEditing
		}
		segs = append(segs, compress.Segment{Key: "section:" + s.ID, Kind: kind, Text: s.Body, Tier: int(s.Tier), Pinned: s.Pinned})
		targets = append(targets, target{section: i, skill: -1, msg: -1})
	}

	// Conversation: which call each tool result answers, the text of each
	// iteration (to find references to a file) and its errors' first lines.
	calls := map[string]prompt.ToolCall{}
	for _, m := range p.Messages {
		for _, c := range m.ToolCalls {
			calls[c.ID] = c
		}
	}
	readPath := make([]string, len(p.Messages))
	for i, m := range p.Messages {
		if m.Role == "tool" && isReadTool(m.ToolName, calls[m.ToolCallID].Name) {
			// Project files by their project-relative path, however the
			// call named them (Claude Code passes absolute paths).
			rp := argPath(calls[m.ToolCallID].Arguments)
			if pp := e.projectPath(rp); pp != "" {
				rp = pp
			}
			readPath[i] = rp
		}
	}
	iterText := map[int]*strings.Builder{}
	errFirst := map[int]map[string]bool{} // iteration → first lines of its errors
	for i, m := range p.Messages {
		it := conv.iters[m.ID]
		if iterText[it] == nil {
			iterText[it] = &strings.Builder{}
		}
		if readPath[i] == "" {
			iterText[it].WriteString(m.Content + "\n")
		}
		for _, c := range m.ToolCalls {
			iterText[it].WriteString(c.Arguments + "\n")
		}
		if m.IsError {
			if errFirst[it] == nil {
				errFirst[it] = map[string]bool{}
			}
			errFirst[it][compress.OneLine("", m.Content)] = true
		}
	}
	texts := make(map[int]string, len(iterText))
	for it, b := range iterText {
		texts[it] = b.String()
	}
	// unreferenced: no message of the 3 iterations after the read mentions
	// its path (file contents read do not count).
	unreferenced := func(rp string, it int) bool {
		for j := it + 1; j <= it+3; j++ {
			if strings.Contains(texts[j], rp) {
				return false
			}
		}
		return true
	}
	// superseded: a newer read of the same path with other content, made at
	// or before the pass and within 5 iterations of this one (so the read
	// changes form only while young; between passes a changed file may be
	// carried twice, so the prefix stays put).
	superseded := func(i int) bool {
		it := conv.iters[p.Messages[i].ID]
		for j := i + 1; j < len(p.Messages); j++ {
			n := conv.iters[p.Messages[j].ID]
			if n > cr.Pass || n > it+5 {
				break
			}
			if readPath[j] == readPath[i] && p.Messages[j].Content != p.Messages[i].Content {
				return true
			}
		}
		return false
	}
	firstRead := map[string]int{} // path → index of its first kept read
	contentOf := map[string]string{}
	convTier := int(prompt.Dynamic)
	for i, m := range p.Messages {
		it := conv.iters[m.ID]
		key := "msg:" + m.ID
		if m.ID == "" {
			key = fmt.Sprintf("msg#%d", i)
		}
		seg := compress.Segment{Key: key, Text: m.Content, Iteration: it, Kind: compress.KindHistory, Tier: convTier}
		switch {
		case hasStopSignal(m):
			// A stop signal (BLOCKED, a rejected tool use with the user's
			// words) is never compressed (seeds/002 §6); the stops
			// section keeps only the latest ones. A rejected tool use
			// arrives cut to 8 KiB (conversationInput, cutter.cutError).
			seg.Kind = compress.KindSignal
		case m.IsError:
			seg.Kind = compress.KindError
			// Resolved by a fix commit, or by the next iteration (at or
			// before the pass) running without this error.
			_, next := texts[it+1]
			seg.Resolved = conv.commits[m.ID] != "" || it > 0 && it+1 <= cr.Pass && next && !errFirst[it+1][compress.OneLine("", m.Content)]
		case m.Role == "assistant" && it > 0 && conv.facts[it] != nil && conv.facts[it].failed:
			// What a failed iteration tried: never forgotten (seeds/002
			// §6 "NEVER forget: approaches that FAILED").
			seg.Kind = compress.KindFailedApproach
		case m.Role == "assistant" && conv.commits[approachID(it)] != "" && it > 0:
			// The account of an approach a commit landed.
			seg.Kind, seg.Commit = compress.KindApproach, conv.commits[approachID(it)]
		case readPath[i] != "":
			rp := readPath[i]
			seg.Kind, seg.Path, seg.Unreferenced = compress.KindFileRead, rp, unreferenced(rp, it)
			seg.Code = langCode(rp)
			if editing[rp] {
				seg.Kind = compress.KindEditing
			}
			switch j, seen := firstRead[rp]; {
			case inFiles[rp]:
				seg.Text = "[" + rp + ": see Files of the current task]"
				seg.Kind = compress.KindOther
				cr.Deduplicated = append(cr.Deduplicated, key+": "+rp+" is in the Files section")
			case it > 0 && superseded(i):
				seg.Text = "[" + rp + ": superseded by a later read below]"
				seg.Kind = compress.KindOther
				cr.Deduplicated = append(cr.Deduplicated, key+": superseded by a later read")
			case seen && contentOf[rp] == m.Content:
				seg.Text = fmt.Sprintf("[%s: unchanged since the read in iteration %d above]", rp, conv.iters[p.Messages[j].ID])
				seg.Kind = compress.KindOther
				cr.Deduplicated = append(cr.Deduplicated, key+": same content as "+p.Messages[j].ID)
			default:
				firstRead[rp], contentOf[rp] = i, m.Content
			}
		}
		if seg.Text != m.Content {
			deduped += count(m.Content) - count(seg.Text)
		}
		segs = append(segs, seg)
		targets = append(targets, target{section: -1, skill: -1, msg: i})
	}

	apply := func(outs []compress.Outcome) {
		var skills []string
		for k, t := range targets {
			text := outs[k].Text
			switch {
			case t.section >= 0:
				p.Sections[t.section].Body = text
			case t.skill >= 0:
				skills = append(skills, text)
			case t.msg >= 0:
				p.Messages[t.msg].Content = text
			}
		}
		if skillSection >= 0 {
			p.Sections[skillSection].Body = strings.Join(skills, "\n\n")
		}
	}
	return segs, apply, deduped
}

// editToolWords are words of tool names (lower case, substrings) whose
// calls change the file their arguments name, across agents (the Claude
// Code hook has its exact list, editTools).
var editToolWords = []string{"edit", "write", "create", "patch", "replace", "insert"}

// convFacts is what compression knows of the target's conversation.
type convFacts struct {
	// iters maps record ids to iterations (conversationIterations).
	iters map[string]int
	// facts are per iteration (iterationFacts).
	facts map[int]*iterFacts
	// commits maps settled items (error record ids, approachID) to the
	// commit that settled them (gitstore.History.CommitsTouching).
	commits map[string]string
	// mentions are the texts of the messages up to the pass.
	mentions []string
}

// iterFacts is what compression needs to know of one iteration of the
// conversation.
type iterFacts struct {
	// first and last are the times of its first and last message.
	first, last time.Time
	// files are the project-relative files it changed: its iteration
	// record's files_modified and the files of its edit tool calls.
	files []string
	// failed reports failing tests, a non-zero exit or an error hash on its
	// iteration record; without a record, a failed tool result.
	failed bool
	record bool
}

// iterationFacts gathers iterFacts per iteration of c (iters as filled by
// conversationIterations).
func (e *Engine) iterationFacts(c *conversation.Conversation, iters map[string]int) map[int]*iterFacts {
	facts := map[int]*iterFacts{}
	if c == nil {
		return facts
	}
	at := func(n int) *iterFacts {
		if facts[n] == nil {
			facts[n] = &iterFacts{}
		}
		return facts[n]
	}
	addFile := func(f *iterFacts, p string) {
		if p = e.projectPath(p); p != "" && !slices.Contains(f.files, p) {
			f.files = append(f.files, p)
		}
	}
	for _, r := range c.Messages {
		n := iters[r.ID]
		if n <= 0 {
			continue
		}
		f := at(n)
		if f.first.IsZero() || r.Time.Before(f.first) {
			f.first = r.Time
		}
		if r.Time.After(f.last) {
			f.last = r.Time
		}
		if r.IsError && !f.record {
			f.failed = true
		}
		for _, p := range r.FilesModified {
			addFile(f, p)
		}
		for _, tc := range r.ToolCalls {
			if isTool(editToolWords, tc.Name) {
				addFile(f, argPath(tc.Arguments))
			}
		}
	}
	for _, r := range c.Iterations {
		n := iters[r.ID]
		if n <= 0 {
			continue
		}
		f := at(n)
		if !f.record {
			// The record, when there is one, decides failure: an error
			// fixed within the iteration does not fail it.
			f.record, f.failed = true, false
		}
		if r.TestsPassing != nil && !*r.TestsPassing || r.ExitCode != nil && *r.ExitCode != 0 || r.ErrorHash != "" {
			f.failed = true
		}
		for _, p := range r.FilesModified {
			addFile(f, p)
		}
	}
	return facts
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

// windowEnd is the start of the first iteration from n on (up to pass)
// that has messages: a commit must come before it to settle something of
// an earlier iteration, so the answer is fixed once iteration n began and
// a commit made later never rewrites the prompt's prefix. ok is false when
// no such iteration exists yet.
func windowEnd(facts map[int]*iterFacts, n, pass int) (time.Time, bool) {
	for k := n; k <= pass; k++ {
		if f := facts[k]; f != nil && !f.first.IsZero() {
			return f.first, true
		}
	}
	return time.Time{}, false
}

// approachItems are the iterations whose approach a commit may have landed
// (seeds/002 §6 "successful approach details (already committed) → LOW"):
// iterations old enough to be LOW at pass (older than 3) that did not fail
// and changed files. The commit must come during the iteration or after
// it, and before the fourth iteration after it began, so whether an
// approach is committed is settled by the time it is old enough to
// compress. Failed approaches are never compressed this way (seeds/002 §6
// "NEVER forget: approaches that FAILED").
func approachItems(facts map[int]*iterFacts, pass int) []gitstore.Item {
	var items []gitstore.Item
	for n := 1; n <= pass-compress.FileReadLowAge-1; n++ {
		f := facts[n]
		if f == nil || f.failed || len(f.files) == 0 || f.first.IsZero() {
			continue
		}
		before, ok := windowEnd(facts, n+compress.FileReadLowAge+1, pass)
		if !ok {
			continue
		}
		items = append(items, gitstore.Item{ID: approachID(n), Files: f.files, After: f.first, Before: before})
	}
	return items
}

// hasStopSignal reports whether a message of the conversation states a
// stop signal as signals.FromMessages reads them: BLOCKED, STUCK or STOP
// in text, or a failed tool result that is one (a rejected tool use and
// what the user said). Like conversationStops, it reads tool results only
// when they failed and other text only when it names a stop word.
func hasStopSignal(m prompt.Message) bool {
	if m.Role == "tool" || m.ToolName != "" {
		if !m.IsError {
			return false
		}
	} else if !strings.Contains(m.Content, "BLOCKED") && !strings.Contains(m.Content, "STUCK") && !strings.Contains(m.Content, "STOP") {
		return false
	}
	for _, s := range signals.FromMessages([]signals.Message{{ID: m.ID, Role: m.Role, Content: m.Content, ToolName: m.ToolName, IsError: m.IsError}}) {
		if s.Kind != signals.KindError {
			return true
		}
	}
	return false
}

// approachID keys iteration n's approach in CommitsTouching's result.
func approachID(n int) string { return fmt.Sprintf("approach:%d", n) }

// isReadTool reports whether any of names is a read tool (readTools).
func isReadTool(names ...string) bool { return isTool(readTools, names...) }

// isTool reports whether any of names contains one of kinds, ignoring
// case.
func isTool(kinds []string, names ...string) bool {
	for _, n := range names {
		n = strings.ToLower(n)
		for _, r := range kinds {
			if n != "" && strings.Contains(n, r) {
				return true
			}
		}
	}
	return false
}

// argPath is the file a read call names: its file_path, path or filename
// argument ("" when the arguments are not a JSON object or name none).
func argPath(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	for _, k := range []string{"file_path", "path", "filename", "file"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func langCode(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".txt", "":
		return false
	}
	return true
}

func taskText(proj *planning.Project) string {
	if nt := proj.NextTask; nt != nil {
		return nt.Text + " " + nt.Action + " " + strings.Join(nt.Files, " ")
	}
	if pl := proj.CurrentPlan; pl != nil {
		return pl.Title + " " + pl.Objective
	}
	return ""
}

// skillUsed reports whether a skill file serves the current task (seeds/002
// §6 "a skill was loaded but not applied"): its name shares a keyword with
// the task, the plan's skills_to_apply names it, or a conversation message
// cites its name.
func skillUsed(skill string, taskWords []string, proj *planning.Project, msgs []string) bool {
	words := compress.SkillWords(skill)
	if sharesWord(taskWords, words) {
		return true
	}
	name := strings.TrimSuffix(path.Base(skill), path.Ext(skill))
	if strings.EqualFold(name, "SKILL") {
		name = path.Base(path.Dir(skill))
	}
	if pl := proj.CurrentPlan; pl != nil && pl.Markdown != nil {
		if raw, ok := pl.Markdown.Meta("skills_to_apply"); ok && strings.Contains(raw, name) {
			return true
		}
	}
	for _, m := range msgs {
		if strings.Contains(m, name) {
			return true
		}
	}
	return false
}

func sharesWord(a, b []string) bool {
	for _, w := range b {
		for _, v := range a {
			if v == w {
				return true
			}
		}
	}
	return false
}

// doubleCheckSection is the COMPLEX tier's extra step: verify the change
// against the task's done criteria and verify step, the plan's must-haves
// and the changed files before reporting done.
func doubleCheckSection(proj *planning.Project) (prompt.Section, bool) {
	nt := proj.NextTask
	if nt == nil {
		return prompt.Section{}, false
	}
	var b strings.Builder
	b.WriteString("This task is COMPLEX. Before reporting it done:\n")
	if nt.Done != "" {
		b.WriteString("- Check the done criteria: " + strings.Join(strings.Fields(nt.Done), " ") + "\n")
	}
	if nt.Verify != "" {
		b.WriteString("- Run the verify step: " + strings.Join(strings.Fields(nt.Verify), " ") + "\n")
	}
	if pl := proj.CurrentPlan; pl != nil {
		for _, mh := range layers.MustHaves(pl) {
			b.WriteString("- Check the must-have: " + mh + "\n")
		}
	}
	files := nt.Files
	if len(files) == 0 && proj.CurrentPlan != nil {
		files = proj.CurrentPlan.FilesModified
	}
	if len(files) > 0 {
		b.WriteString("- Re-read every changed file: " + strings.Join(files, ", ") + "\n")
	}
	b.WriteString("- Look for security and cross-module effects, then re-run the tests.")
	src := ""
	if proj.CurrentPlan != nil {
		src = PlanningDir + "/" + proj.CurrentPlan.Path
	}
	return prompt.Section{ID: IDDoubleCheck, Heading: "Double-check", Tier: prompt.Semi, Sources: []string{src}, Body: b.String()}, true
}

// insertSemiLast puts s after the last semi-stable section (before the
// dynamic tier), keeping tier order.
func insertSemiLast(p *prompt.Prompt, s prompt.Section) {
	i := 0
	for i < len(p.Sections) && p.Sections[i].Tier <= prompt.Semi {
		i++
	}
	p.Sections = append(p.Sections, prompt.Section{})
	copy(p.Sections[i+1:], p.Sections[i:])
	p.Sections[i] = s
}

// summarizer returns the Options.Summarize callback running the configured
// command through `sh -c` (text on stdin, summary on stdout, the share to
// keep in $RECITE_KEEP), cached under
// .planning/.recite/compress by a hash of the command, the share and the
// text so a text is summarized once and renders to the same bytes. A
// failure falls back to the extractive rules.
func (e *Engine) summarizer(ctx context.Context, command string) func(string, float64) (string, bool) {
	return func(text string, keep float64) (string, bool) {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%.2f\x00%s", command, keep, text)))
		cache := filepath.Join(e.dir, filepath.FromSlash(compressCacheDir), hex.EncodeToString(sum[:16])+".txt")
		if b, err := os.ReadFile(cache); err == nil {
			return string(b), true
		}
		cctx, cancel := context.WithTimeout(ctx, compressSummarizerTimeout)
		defer cancel()
		cmd := exec.CommandContext(cctx, "sh", "-c", command)
		cmd.Dir = e.dir
		cmd.Env = append(os.Environ(), fmt.Sprintf("RECITE_KEEP=%.2f", keep))
		cmd.Stdin = strings.NewReader(text)
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.WaitDelay = time.Second
		if cmd.Run() != nil {
			return "", false
		}
		res := strings.TrimSpace(out.String())
		if res == "" {
			return "", false
		}
		if err := os.MkdirAll(filepath.Dir(cache), 0o755); err == nil {
			_ = fsutil.WriteFile(cache, []byte(res), 0o644)
		}
		return res, true
	}
}
