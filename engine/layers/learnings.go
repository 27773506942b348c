package layers

import (
	"cmp"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// LearningsFile holds the project's learnings: patterns that worked and
// anti-patterns to avoid (the learnings layer of
// docs/formats.md#conversation-layers).
//
// The format is lenient markdown: every top-level list item is one entry;
// the heading above it decides its kind (a heading that says "anti",
// "avoid" or "don't" holds anti-patterns, any other heading patterns).
// Tags are `#words` in the item, or a trailing `tags: a, b` (optionally in
// parentheses or brackets). Indented lines continue the item; fenced code is
// skipped.
const LearningsFile = layout.PlanningDir + "/LEARNINGS.md"

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
	for i, l := range markdown.ScanLines(src) {
		if l.Kind != markdown.Prose {
			// Fenced code is no entry, and ends the one above it.
			flush()
			continue
		}
		line := l.Text
		t := strings.TrimSpace(line)
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

// Learnings chooses the learnings of the project at dir relevant to the conversation: an
// entry scores 2 per tag matching the conversation's tags and 1 per tag
// matching a word of the current task (the next task, the plan's title and
// objective, the conversation's title, epic and phase). Tagged entries with
// no match are left out; untagged entries are general and always eligible.
// The best maxLearnings of each kind are kept, by score and then file order.
// The section is stable-tier, so it reads nothing that changes per message.
func Learnings(dir string, c *conversation.Conversation, proj *planning.Project) (prompt.Section, *markdown.Diagnostic) {
	s := prompt.Section{ID: prompt.IDLearnings, Heading: "Learnings", Sources: []string{LearningsFile}}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(LearningsFile)))
	if err != nil {
		if os.IsNotExist(err) {
			return s, nil
		}
		return s, &markdown.Diagnostic{Path: LearningsFile, Message: err.Error()}
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
