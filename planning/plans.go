package planning

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recite-dev/recite/markdown"
)

// Task states (Task.State).
const (
	TaskTodo       = "todo"
	TaskDone       = "done"
	TaskInProgress = "in_progress"
	TaskSkipped    = "skipped"
)

// planKind classifies a file name inside a phase folder.
type planKind int

const (
	kindOther planKind = iota
	kindPlan
	kindSummary
)

var (
	// planTokenRe finds PLAN as a word of a file name, so that PLANNING.md and
	// PLANS.md are not plans while 01-02-PLAN.md, PLAN-01-x.md, 06-GAP-PLAN.md
	// and 03-02-uat-PLAN.md are (docs/formats.md#plan-and-summary-files).
	planTokenRe = regexp.MustCompile(`(?i)(^|[^a-z])plan([^a-z]|$)`)
	// summaryTokenRe is the same for SUMMARY (nested SUMMARY-NN-slug.md).
	summaryTokenRe = regexp.MustCompile(`(?i)(^|[^a-z])summary([^a-z]|$)`)
	// planIDRe is the leading "NN-MM" (or "NN.M-MM") plan id of a name.
	planIDRe = regexp.MustCompile(`^(\d+(?:\.\d+)*[A-Za-z]?-\d+)`)
	// nestedKeyRe is the NN of nested-layout names "PLAN-NN-slug.md",
	// "N-PLAN-NN-slug.md" and "SUMMARY-NN-slug.md".
	nestedKeyRe = regexp.MustCompile(`(?i)(?:^|-)(?:plan|summary)-(\d+)`)
)

// classifyPhaseFile says whether a file name in a phase folder is a plan (GSD
// PLAN or fire-flow BLUEPRINT), a summary (SUMMARY or RECORD), or neither, and
// returns the key that pairs a plan with its summary. Rules from GSD's
// plan-scan.cjs (docs/formats.md#plan-and-summary-files): a plan ends in
// -PLAN.md, is PLAN.md, or has PLAN as a word of its name; -OUTLINE.md and
// .pre-bounce.md are excluded; a summary ends in -SUMMARY.md or is SUMMARY.md.
// fire-flow's -BLUEPRINT.md / .BLUEPRINT.md / -RECORD.md are aliases
// (docs/formats.md#gsd-and-fire-flow-names).
func classifyPhaseFile(name string) (planKind, string) {
	if !strings.HasSuffix(strings.ToLower(name), ".md") {
		return kindOther, ""
	}
	base := name[:len(name)-3]
	upper := strings.ToUpper(base)
	switch {
	case strings.HasSuffix(upper, "-OUTLINE") || strings.HasSuffix(upper, ".PRE-BOUNCE"):
		return kindOther, ""
	case upper == "BLUEPRINT" || strings.HasSuffix(upper, "-BLUEPRINT") || strings.HasSuffix(upper, ".BLUEPRINT"):
		return kindPlan, pairKey(base[:len(base)-len("BLUEPRINT")])
	case upper == "RECORD" || strings.HasSuffix(upper, "-RECORD"):
		return kindSummary, pairKey(base[:len(base)-len("RECORD")])
	case upper == "SUMMARY" || strings.HasSuffix(upper, "-SUMMARY"):
		return kindSummary, pairKey(base[:len(base)-len("SUMMARY")])
	case upper == "PLAN" || strings.HasSuffix(upper, "-PLAN"):
		return kindPlan, pairKey(base[:len(base)-len("PLAN")])
	case planTokenRe.MatchString(base):
		return kindPlan, nestedKey(base)
	case summaryTokenRe.MatchString(base):
		return kindSummary, nestedKey(base)
	}
	return kindOther, ""
}

func pairKey(prefix string) string {
	return strings.ToLower(strings.TrimRight(prefix, "-."))
}

func nestedKey(base string) string {
	if m := nestedKeyRe.FindStringSubmatch(base); m != nil {
		return "#" + m[1]
	}
	return strings.ToLower(base)
}

// slugIDRe is GSD's `{phase}-{plan}` written with the phase folder's whole
// name, "25-dashboard-surface-system-01": a phase number, a slug that
// starts with a letter, and the plan number at the end.
var slugIDRe = regexp.MustCompile(`^(\d+(?:\.\d+)*[A-Za-z]?)-[A-Za-z][A-Za-z0-9._-]*?-(\d+)$`)

// phaseFile is a summary file of a phase folder: its path, the key of its
// name (classifyPhaseFile) and its plan identity (planIdentity).
type phaseFile struct {
	path, key, id string
}

// planIdentity is the phase and plan number a plan or summary name stands
// for, "25-1", whatever the spelling: "25-01" (GSD's {padded_phase}-{plan}),
// "25-dashboard-surface-system-01" (the phase folder's name for {phase}),
// the nested "PLAN-01-setup" and "SUMMARY-01-x" (the folder's phase, given
// as phase). pure reports a name that is nothing but that identity (no
// "-uat" or other word after the plan number), which alone may be paired
// by identity (docs/formats.md#plan-and-summary-files). id is "" when the
// name carries no plan number.
func planIdentity(name, key, phase string) (id string, pure bool) {
	join := func(ph, plan string) string {
		return NormalizePhase(ph) + "-" + strings.TrimLeft(plan[:len(plan)-1], "0") + plan[len(plan)-1:]
	}
	if m := nestedKeyRe.FindStringSubmatch(name); m != nil && strings.HasPrefix(key, "#") {
		return join(phase, m[1]), true
	}
	if m := planIDRe.FindString(key); m != "" {
		i := strings.LastIndexByte(m, '-')
		return join(m[:i], m[i+1:]), m == key
	}
	if m := slugIDRe.FindStringSubmatch(key); m != nil {
		return join(m[1], m[2]), true
	}
	return "", false
}

// pairPlans marks each plan Done when a summary with the same key exists
// (`01-02-PLAN.md` and `01-02-SUMMARY.md`), or, failing that, for a plan
// whose name is its identity alone, one with the same phase and plan
// number however it is spelt (`25-01-PLAN.md` and
// `25-dashboard-surface-system-01-SUMMARY.md`, planIdentity). A summary
// pairs with one plan at most. Plans are sorted by path (name order).
func pairPlans(plans []*Plan, summaries []phaseFile) {
	byKey := map[string]string{}
	for _, s := range summaries {
		if _, dup := byKey[s.key]; !dup {
			byKey[s.key] = s.path
		}
	}
	claimed := map[string]bool{}
	for _, p := range plans {
		if s, ok := byKey[p.pairKey]; ok {
			p.Summary, p.Done = s, true
			claimed[s] = true
		}
	}
	sort.Slice(summaries, func(i, j int) bool { return summaries[i].path < summaries[j].path })
	sort.Slice(plans, func(i, j int) bool { return plans[i].Path < plans[j].Path })
	for _, p := range plans {
		if p.Done || !p.pureID || p.pairID == "" {
			continue
		}
		for _, s := range summaries {
			if s.id == p.pairID && !claimed[s.path] {
				p.Summary, p.Done = s.path, true
				claimed[s.path] = true
				break
			}
		}
	}
}

// parsePlan fills a plan from its parsed file: title, objective, type, files
// modified (front matter files_modified, files_to_create, files_to_modify) and
// tasks (docs/formats.md#plans).
func parsePlan(p *Plan, doc *markdown.Document) {
	p.Markdown = doc
	p.Title = doc.Title()
	if v, ok := doc.Meta("type"); ok {
		p.Type = strings.TrimSpace(v)
	}
	for _, key := range []string{"files_modified", "files_to_create", "files_to_modify"} {
		if v, ok := doc.Meta(key); ok {
			p.FilesModified = appendUnique(p.FilesModified, yamlList(v)...)
		}
	}
	if i := tagSpan(doc.Body, "objective"); i != "" {
		p.Objective = i
	} else if s := firstSection(doc, "Objective", "Phase Objective"); s >= 0 {
		p.Objective = strings.TrimSpace(doc.SectionText(s))
	}
	p.Tasks = parseTasks(doc, p.Done)
}

// parseTasks returns a plan's tasks. With `<task>` blocks (GSD and fire-flow
// syntaxes A and B) each block is a task named by its `<name>` child, else its
// **Action:** field, else its first body line; blocks carry no completion of
// their own, so they are done only when the plan has a summary
// (docs/formats.md#plans). Without blocks (fire-flow syntax C and free-form
// plans) every checkbox outside code is a task with its own state.
func parseTasks(doc *markdown.Document, planDone bool) []Task {
	if len(doc.Tasks) > 0 {
		tasks := make([]Task, 0, len(doc.Tasks))
		state := TaskTodo
		if planDone {
			state = TaskDone
		}
		for _, tb := range doc.Tasks {
			t := Task{State: state, Line: tb.Line, Attrs: tb.Attrs}
			t.Text = oneLineText(tb.Children["name"])
			t.Action = strings.TrimSpace(tb.Children["action"])
			t.Verify = strings.TrimSpace(tb.Children["verify"])
			t.Done = strings.TrimSpace(tb.Children["done"])
			if f := tb.Children["files"]; f != "" {
				t.Files = splitFiles(f)
			}
			// fire-flow syntax A: bold fields in a free markdown body. The
			// body sits in an HTML block, so the markdown reader sees no
			// fields there; read its `**Key:** value` lines.
			bf := bodyFields(tb.Body)
			if t.Action == "" {
				t.Action = bf["action"]
			}
			if t.Verify == "" {
				t.Verify = first(bf["verification"], bf["verify"])
			}
			if t.Done == "" {
				t.Done = first(bf["done criteria"], bf["done"])
			}
			if t.Text == "" {
				t.Text = oneLineText(first(strings.TrimSpace(tb.Children["what-built"]), bf["what was built"]))
			}
			if t.Text == "" {
				// A task without a name is shown by its first sentence,
				// never its whole body (docs/formats.md#plans).
				t.Text = firstSentence(first(t.Action, tagRe.ReplaceAllString(tb.Body, "")))
			}
			if t.Text == "" {
				t.Text = "task"
				if id := tb.Attrs["id"]; id != "" {
					t.Text = "task " + id
				}
			}
			tasks = append(tasks, t)
		}
		return tasks
	}
	tasks := make([]Task, 0, len(doc.Checkboxes))
	for _, cb := range doc.Checkboxes {
		tasks = append(tasks, Task{Text: cb.Text, State: checkboxState(cb.State), Line: cb.Line})
	}
	return tasks
}

// TaskTextMax is the longest text, in runes, a task without a name is
// shown by: its first sentence, cut at a word before this with
// TaskTextMarker at the end (docs/formats.md#plans).
const TaskTextMax = 120

// TaskTextMarker ends a task text that was cut.
const TaskTextMarker = "…"

// oneLineText is s with every run of white space (line breaks included)
// made one space: a name wrapped over lines, read whole.
func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// sentenceEndRe is the end of a sentence: '.', '!' or '?' (or their
// full-width forms) before white space.
var sentenceEndRe = regexp.MustCompile(`[.!?。！？](\s|$)`)

// firstSentence is the first sentence of a task body: its first paragraph
// of prose outside fenced code (the first line of code when it holds
// nothing else), list and heading markers and inline markup removed, cut
// at the first sentence end, and at a word within TaskTextMax runes with
// TaskTextMarker when longer.
func firstSentence(body string) string {
	var para, code []string
	var ft markdown.FenceTracker
	for line := range strings.SplitSeq(body, "\n") {
		// Task bodies are indented as a whole: fences are read on the
		// dedented line (docs/formats.md#task-blocks).
		t := strings.TrimSpace(line)
		kind := ft.Next(t)
		if kind != markdown.Prose {
			if kind == markdown.FenceBody && t != "" && len(code) == 0 {
				code = append(code, t)
			}
			if len(para) > 0 {
				break
			}
			continue
		}
		if t == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, stripInline(strings.TrimLeft(t, "#-*+> ")))
	}
	if len(para) == 0 {
		para = code
	}
	s := oneLineText(strings.Join(para, " "))
	if loc := sentenceEndRe.FindStringIndex(s); loc != nil {
		s = strings.TrimSpace(s[:loc[0]+len(strings.TrimRightFunc(s[loc[0]:loc[1]], unicode.IsSpace))])
	}
	return cutRunes(s, TaskTextMax, TaskTextMarker)
}

// cutRunes cuts s to at most max runes, at the last space before the limit
// when there is one in its second half, ending in marker.
func cutRunes(s string, max int, marker string) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	room := max - utf8.RuneCountInString(marker)
	cut := room
	for i := room; i > room/2; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ,;:") + marker
}

// nextTask is the plan's first task that is neither done nor skipped: the
// first `<task>` block of an unfinished plan, or the first unchecked (or
// `[~]` in-progress) checkbox.
func nextTask(p *Plan) *Task {
	if p == nil {
		return nil
	}
	for i := range p.Tasks {
		if s := p.Tasks[i].State; s == TaskTodo || s == TaskInProgress {
			return &p.Tasks[i]
		}
	}
	return nil
}

// tagRe matches one pseudo-XML tag, to drop from a one-line task text.
var tagRe = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9_:-]*[^<>]*>`)

// boldFieldRe reads one `**Key:** value` or `**Key**: value` line.
var boldFieldRe = regexp.MustCompile(`^\*\*([^*]+?):?\*\*:?\s*(.*)$`)

// bodyFields reads the bold key/value lines of a task body, keyed by lower
// case key; the first occurrence of a key wins.
func bodyFields(body string) map[string]string {
	out := map[string]string{}
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "**") {
			continue // boldFieldRe is anchored there
		}
		m := boldFieldRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		k := strings.ToLower(strings.TrimSpace(m[1]))
		if _, ok := out[k]; !ok {
			out[k] = stripInline(m[2])
		}
	}
	return out
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func checkboxState(r rune) string {
	switch r {
	case 'x', 'X':
		return TaskDone
	case '~':
		return TaskInProgress
	case '-':
		return TaskSkipped
	}
	return TaskTodo
}

// splitFiles splits a `<files>` value written as a comma list, one path per
// line, or a bullet list, dropping backticks and bullets.
func splitFiles(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		for _, part := range strings.Split(line, ",") {
			part = strings.TrimSpace(part)
			part = strings.TrimLeft(part, "-*+ ")
			part = strings.Trim(part, "`\"' ")
			if part != "" {
				out = appendUnique(out, part)
			}
		}
	}
	return out
}

// yamlList reads a front matter value kept as YAML source ("[a, b]" or "- a\n-
// b") or a scalar into strings.
func yamlList(v string) []string {
	v = strings.TrimSpace(v)
	if v == "" || v == "[]" {
		return nil
	}
	if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
		v = v[1 : len(v)-1]
		var out []string
		for _, p := range strings.Split(v, ",") {
			if p = strings.Trim(strings.TrimSpace(p), `"'`); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	var out []string
	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "-") {
			if len(out) == 0 && !strings.Contains(v, "\n") {
				return []string{strings.Trim(line, `"'`)}
			}
			continue
		}
		if line = strings.Trim(strings.TrimSpace(line[1:]), `"'`); line != "" {
			out = append(out, line)
		}
	}
	return out
}

func appendUnique(dst []string, items ...string) []string {
	for _, it := range items {
		dup := false
		for _, d := range dst {
			if d == it {
				dup = true
				break
			}
		}
		if !dup {
			dst = append(dst, it)
		}
	}
	return dst
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return stripInline(strings.TrimLeft(l, "#-*> "))
		}
	}
	return ""
}

// tagSpan returns the trimmed text between the first `<tag>` and `</tag>` of
// a plan body (GSD's pseudo-XML wrappers such as `<objective>`), or "".
func tagSpan(body, tag string) string {
	open := strings.Index(body, "<"+tag+">")
	if open < 0 {
		return ""
	}
	rest := body[open+len(tag)+2:]
	end := strings.Index(rest, "</"+tag+">")
	if end < 0 {
		return ""
	}
	return strings.TrimSpace(rest[:end])
}

// firstSection is the index of the first section with one of the titles, or
// -1.
func firstSection(doc *markdown.Document, titles ...string) int {
	for _, t := range titles {
		if i := doc.FindSection(t); i >= 0 {
			return i
		}
	}
	return -1
}
