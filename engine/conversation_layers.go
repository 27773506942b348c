package engine

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// LearningsFile holds the project's learnings: patterns that worked and
// anti-patterns to avoid (the "adaptive context" layer of seeds/000).
//
// The format is lenient markdown: every top-level list item is one entry;
// the heading above it decides its kind (a heading that says "anti",
// "avoid" or "don't" holds anti-patterns, any other heading patterns).
// Tags are `#words` in the item, or a trailing `tags: a, b` (optionally in
// parentheses or brackets). Indented lines continue the item; fenced code is
// skipped.
const LearningsFile = ".planning/LEARNINGS.md"

// maxLearnings is how many patterns, and how many anti-patterns, enter the
// learnings section.
const maxLearnings = 8

// learning is one entry of LEARNINGS.md.
type learning struct {
	text string
	tags []string
	anti bool
	line int
}

var (
	hashTagRE  = regexp.MustCompile(`(?:^|\s)#([A-Za-z][A-Za-z0-9_./-]*)`)
	tagListRE  = regexp.MustCompile(`(?i)[(\[]?\btags?:\s*([^)\]]*)[)\]]?\s*$`)
	listItemRE = regexp.MustCompile(`^(?:[-*+]|\d+[.)])\s+(.*)$`)
	wordRE     = regexp.MustCompile(`[A-Za-z0-9]+`)
)

// parseLearnings reads the entries of a learnings file.
func parseLearnings(src string) []learning {
	var out []learning
	anti := false
	inFence := false
	var cur *learning
	flush := func() {
		if cur != nil {
			cur.text = strings.TrimSpace(cur.text)
			for _, m := range hashTagRE.FindAllStringSubmatch(cur.text, -1) {
				cur.tags = append(cur.tags, strings.ToLower(strings.TrimRight(m[1], ".")))
			}
			if m := tagListRE.FindStringSubmatch(cur.text); m != nil {
				for _, t := range strings.Split(m[1], ",") {
					if t = strings.ToLower(strings.Trim(strings.TrimSpace(t), "#`")); t != "" {
						cur.tags = append(cur.tags, t)
					}
				}
			}
			slices.Sort(cur.tags)
			cur.tags = slices.Compact(cur.tags)
			if cur.text != "" {
				out = append(out, *cur)
			}
			cur = nil
		}
	}
	src = strings.TrimPrefix(strings.ReplaceAll(src, "\r\n", "\n"), "\uFEFF")
	for i, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			flush()
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		switch {
		case strings.HasPrefix(t, "#") && strings.TrimLeft(t, "#") != t && strings.HasPrefix(strings.TrimLeft(t, "#"), " "):
			flush()
			h := strings.ToLower(t)
			anti = strings.Contains(h, "anti") || strings.Contains(h, "avoid") || strings.Contains(h, "don't") || strings.Contains(h, "do not")
		case line == t && listItemRE.MatchString(t):
			flush()
			cur = &learning{text: listItemRE.FindStringSubmatch(t)[1], anti: anti, line: i + 1}
		case t == "":
			flush()
		case cur != nil && line != t:
			cur.text += " " + t
		default:
			flush()
		}
	}
	flush()
	return out
}

// words returns the lower-cased words of texts.
func words(texts ...string) map[string]bool {
	w := map[string]bool{}
	for _, t := range texts {
		for _, m := range wordRE.FindAllString(strings.ToLower(t), -1) {
			w[m] = true
		}
	}
	return w
}

// tagMatches reports whether a tag matches a word set: the tag itself, or
// one of its parts of three letters or more ("api-patterns/pagination"
// matches "pagination").
func tagMatches(tag string, set map[string]bool) bool {
	if set[tag] {
		return true
	}
	for _, p := range wordRE.FindAllString(tag, -1) {
		if len(p) >= 3 && set[p] {
			return true
		}
	}
	return false
}

// learningsSection chooses the learnings relevant to the conversation: an
// entry scores 2 per tag matching the conversation's tags and 1 per tag
// matching a word of the current task (the next task, the plan's title and
// objective, the conversation's title, epic and phase). Tagged entries with
// no match are left out; untagged entries are general and always eligible.
// The best maxLearnings of each kind are kept, by score and then file order.
// The section is stable-tier, so it reads nothing that changes per message.
func (e *Engine) learningsSection(c *conversation.Conversation, proj *planning.Project) (prompt.Section, *Diagnostic) {
	s := prompt.Section{ID: prompt.IDLearnings, Heading: "Learnings", Sources: []string{LearningsFile}}
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(LearningsFile)))
	if err != nil {
		if os.IsNotExist(err) {
			return s, nil
		}
		return s, &Diagnostic{Path: LearningsFile, Message: err.Error()}
	}
	entries := parseLearnings(string(b))
	var tagWords []string
	for _, t := range c.Meta.Tags {
		tagWords = append(tagWords, strings.ToLower(t))
	}
	tags := words(tagWords...)
	for _, t := range tagWords {
		tags[t] = true
	}
	task := []string{c.Meta.Title, c.Meta.Epic, c.Meta.Phase}
	if proj.NextTask != nil {
		task = append(task, proj.NextTask.Text)
	}
	if pl := proj.CurrentPlan; pl != nil {
		task = append(task, pl.Title, pl.Objective)
	}
	taskWords := words(task...)
	type scored struct {
		learning
		score int
	}
	var pats, antis []scored
	for _, l := range entries {
		sc := scored{learning: l}
		for _, t := range l.tags {
			if tagMatches(t, tags) {
				sc.score += 2
			}
			if tagMatches(t, taskWords) {
				sc.score++
			}
		}
		if len(l.tags) > 0 && sc.score == 0 {
			continue
		}
		if l.anti {
			antis = append(antis, sc)
		} else {
			pats = append(pats, sc)
		}
	}
	pick := func(list []scored) []scored {
		slices.SortStableFunc(list, func(a, b scored) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return cmp.Compare(a.line, b.line)
		})
		if len(list) > maxLearnings {
			list = list[:maxLearnings]
		}
		return list
	}
	var body strings.Builder
	if ps := pick(pats); len(ps) > 0 {
		body.WriteString("Relevant learnings:\n")
		for _, p := range ps {
			body.WriteString("- " + p.text + "\n")
		}
	}
	if as := pick(antis); len(as) > 0 {
		if body.Len() > 0 {
			body.WriteString("\n")
		}
		body.WriteString("Anti-patterns to avoid:\n")
		for _, p := range as {
			body.WriteString("- " + p.text + "\n")
		}
	}
	s.Body = strings.TrimSpace(body.String())
	return s, nil
}

// loopSection is the loop and role layer: the role and agent, which
// iteration this is (the conversation's iteration records, of maxIter —
// recite.yaml's agent.max_iterations — else of the active loop's maximum),
// the files modified so far (seeds/000 "DeliverableTracker (track files
// created, tests passing)"), and what failed in the last recorded
// iteration. It reads iteration
// records and the messages of recorded iterations only, so a new plain
// message does not change it (DESIGN.md invariant 8).
func loopSection(c *conversation.Conversation, tg *config.Target, proj *planning.Project, maxIter int) prompt.Section {
	s := prompt.Section{ID: prompt.IDLoop, Heading: "Loop and role", Sources: []string{ConversationLog(c.ID)}}
	var b strings.Builder
	role := "Role: " + tg.Role
	if c.Meta.AgentType != "" {
		role += "; agent: " + c.Meta.AgentType
	}
	if maxIter > 0 {
		s.Sources = append(s.Sources, config.FileName)
	} else if l := scope.ActiveLoop(proj); l != nil {
		maxIter = l.MaxIterations
		if maxIter > 0 {
			s.Sources = append(s.Sources, PlanningDir+"/"+l.Path)
		}
	}
	if len(c.Iterations) == 0 && c.Meta.AgentType == "" {
		return s
	}
	b.WriteString(role + "\n")
	if len(c.Iterations) == 0 {
		s.Body = strings.TrimSpace(b.String())
		return s
	}
	last := c.Iterations[len(c.Iterations)-1]
	n := last.Iteration
	if n == 0 {
		n = len(c.Iterations)
	}
	line := fmt.Sprintf("This iteration: %d", n+1)
	if maxIter > 0 {
		line += fmt.Sprintf(" of %d", maxIter)
	}
	b.WriteString(line + "\n")
	var facts []string
	if last.ExitCode != nil {
		facts = append(facts, fmt.Sprintf("agent exit %d", *last.ExitCode))
	}
	if last.OutputLines != nil {
		facts = append(facts, fmt.Sprintf("%d output lines", *last.OutputLines))
	}
	if last.Confidence != nil {
		facts = append(facts, "confidence "+strconv.FormatFloat(*last.Confidence, 'f', -1, 64))
	}
	if last.TestsPassing != nil {
		if *last.TestsPassing {
			facts = append(facts, "tests passing")
		} else {
			facts = append(facts, "tests failing")
		}
	}
	if len(last.FilesModified) > 0 {
		facts = append(facts, "files "+strings.Join(last.FilesModified, ", "))
	}
	if len(facts) > 0 {
		fmt.Fprintf(&b, "Iteration %d: %s\n", n, strings.Join(facts, "; "))
	}
	var touched []string
	for _, it := range c.Iterations {
		for _, f := range it.FilesModified {
			if f = strings.TrimSpace(f); f != "" && !slices.Contains(touched, f) {
				touched = append(touched, f)
			}
		}
	}
	if len(touched) > 1 || len(touched) == 1 && !slices.Contains(last.FilesModified, touched[0]) {
		b.WriteString("Files modified so far: " + strings.Join(touched, ", ") + "\n")
	}
	var failed []string
	if last.IsError || (last.TestsPassing != nil && !*last.TestsPassing) {
		if t := textutil.FirstLine(last.Content); t != "" {
			failed = append(failed, t)
		}
	}
	for _, m := range c.Messages {
		if m.Iteration == n && m.IsError && !m.Internal {
			t := textutil.FirstLine(m.Content)
			if m.ToolName != "" {
				t += " (" + m.ToolName + ")"
			}
			if !slices.Contains(failed, t) {
				failed = append(failed, t)
			}
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "What failed in iteration %d:\n", n)
		for _, f := range failed {
			b.WriteString("- " + f + "\n")
		}
	} else if last.Content != "" {
		fmt.Fprintf(&b, "Iteration %d notes: %s\n", n, textutil.FirstLine(last.Content))
	}
	s.Body = strings.TrimSpace(b.String())
	return s
}

// conversationPhase is the phase the conversation names (meta phase, by
// number, directory or name), else the project's current phase.
func conversationPhase(c *conversation.Conversation, proj *planning.Project) *planning.Phase {
	if want := strings.TrimSpace(c.Meta.Phase); want != "" {
		norm := func(s string) string { return strings.TrimLeft(s, "0") }
		for _, ph := range proj.Phases {
			if norm(ph.Number) == norm(want) || strings.EqualFold(ph.Name, want) || (ph.Dir != "" && filepath.Base(ph.Dir) == want) {
				return ph
			}
		}
	}
	return proj.CurrentPhase
}

var (
	successRE  = regexp.MustCompile(`(?i)success criteria`)
	criteriaRE = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.*)$`)
)

// successCriteria reads the "Success Criteria" list of a phase's entry in
// the roadmap.
func successCriteria(proj *planning.Project, ph *planning.Phase) []string {
	if proj.Roadmap == nil || proj.Roadmap.Markdown == nil {
		return nil
	}
	md := proj.Roadmap.Markdown
	i := md.FindSectionPrefix("Phase " + ph.Number + ":")
	if i < 0 {
		i = md.FindSection("Phase " + ph.Number)
	}
	if i < 0 {
		return nil
	}
	var out []string
	in := false
	for _, l := range strings.Split(md.SectionText(i), "\n") {
		if !in {
			in = successRE.MatchString(l)
			continue
		}
		if m := criteriaRE.FindStringSubmatch(l); m != nil {
			out = append(out, strings.TrimSpace(m[1]))
			continue
		}
		if strings.TrimSpace(l) != "" {
			break
		}
	}
	return out
}

// mustHaves reads the truths of a plan's must_haves front matter.
func mustHaves(pl *planning.Plan) []string {
	if pl.Markdown == nil {
		return nil
	}
	raw, ok := pl.Markdown.Meta("must_haves")
	if !ok {
		return nil
	}
	var mh struct {
		Truths []string `yaml:"truths"`
	}
	if yaml.Unmarshal([]byte(raw), &mh) != nil {
		return nil
	}
	return mh.Truths
}

// epicSection is the epic and phase layer: the conversation's epic, the
// phase and its goal, the roadmap's success criteria, the plan, the
// planned deliverables (the plan's files_modified and the conversation's
// declared deliverables) and the acceptance criteria (the plan's
// must_haves truths and its tasks' done criteria). The files iterations
// modified are in the loop layer: the epic layer sits before the
// conversation, and a list that grows with every new file would re-send
// the whole conversation uncached each time.
func epicSection(c *conversation.Conversation, proj *planning.Project) prompt.Section {
	s := prompt.Section{ID: prompt.IDEpic, Heading: "Epic and phase"}
	var b strings.Builder
	if c.Meta.Epic != "" {
		b.WriteString("Epic: " + c.Meta.Epic + "\n")
	}
	ph := conversationPhase(c, proj)
	var pl *planning.Plan
	if ph != nil {
		line := "Phase " + ph.Number
		if ph.Name != "" {
			line += ": " + ph.Name
		}
		b.WriteString(line + "\n")
		if ph.Goal != "" {
			b.WriteString("Goal: " + ph.Goal + "\n")
		}
		if sc := successCriteria(proj, ph); len(sc) > 0 {
			b.WriteString("Success criteria:\n")
			for _, x := range sc {
				b.WriteString("- " + x + "\n")
			}
		}
		if proj.Roadmap != nil {
			s.Sources = append(s.Sources, PlanningDir+"/"+proj.Roadmap.Path)
		}
		if ph == proj.CurrentPhase {
			pl = proj.CurrentPlan
		} else {
			for _, cand := range ph.Plans {
				if !cand.Done {
					pl = cand
					break
				}
			}
		}
	} else if c.Meta.Phase != "" {
		b.WriteString("Phase: " + c.Meta.Phase + "\n")
	}
	var deliverables, acceptance []string
	add := func(list *[]string, items ...string) {
		for _, it := range items {
			if it = strings.TrimSpace(it); it != "" && !slices.Contains(*list, it) {
				*list = append(*list, it)
			}
		}
	}
	if pl != nil {
		line := "Plan " + pl.ID
		if pl.Title != "" {
			line += ": " + strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(pl.Title, "Plan "+pl.ID), ":"))
		}
		b.WriteString(line + "\n")
		s.Sources = append(s.Sources, PlanningDir+"/"+pl.Path)
		add(&deliverables, pl.FilesModified...)
		add(&acceptance, mustHaves(pl)...)
		for _, t := range pl.Tasks {
			if t.Done != "" && t.State != "done" {
				add(&acceptance, strings.Join(strings.Fields(t.Done), " "))
			}
		}
	}
	// Planned deliverables only: the files iterations touched change
	// often and belong to the loop layer, after the conversation, or every
	// new file would re-send the whole conversation uncached.
	add(&deliverables, c.Meta.Deliverables...)
	if len(deliverables) > 0 {
		b.WriteString("Deliverables:\n")
		for _, d := range deliverables {
			b.WriteString("- " + d + "\n")
		}
	}
	if len(acceptance) > 0 {
		b.WriteString("Acceptance criteria:\n")
		for _, a := range acceptance {
			b.WriteString("- " + a + "\n")
		}
	}
	if c.Meta.Epic != "" || len(c.Meta.Deliverables) > 0 {
		s.Sources = append(s.Sources, ConversationLog(c.ID))
	}
	s.Body = strings.TrimSpace(b.String())
	return s
}

// contextLayers builds the coordinator's three context layers for a
// conversation target (seeds/000): learnings (stable), epic and phase
// (semi), loop and role (semi). Empty layers are left out by prompt.Add.
func (e *Engine) contextLayers(c *conversation.Conversation, cfg *config.Config, tg *config.Target, proj *planning.Project) ([]prompt.Section, []Diagnostic) {
	var diags []Diagnostic
	learn, d := e.learningsSection(c, proj)
	if d != nil {
		diags = append(diags, *d)
	}
	return []prompt.Section{learn, epicSection(c, proj), loopSection(c, tg, proj, cfg.Agent.MaxIterations)}, diags
}

// relPath turns a path under the project into a project-relative,
// slash-separated path.
func (e *Engine) relPath(p string) (string, bool) { return layout.RelPath(e.dir, p) }
