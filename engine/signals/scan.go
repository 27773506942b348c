package signals

import (
	"regexp"
	"strings"

	"github.com/recite-dev/recite/markdown"
)

// Bounds of the output scan.
const (
	// maxFindings is the most errors one tool output yields; a tsc run
	// with 200 errors gives its first five distinct ones (the rest stay
	// in the context of the fifth).
	maxFindings = 5
	// contextBefore and contextAfter are the lines of output kept around
	// an error's key line when the output holds several errors or did not
	// fail as a whole (an error found in output that exited 0).
	contextBefore = 6
	contextAfter  = 12
)

// finding is one error in a tool's output.
type finding struct {
	// name is the rule's name ("py-traceback" for a Python traceback).
	name string
	// start is the first line of the error (a traceback's header, the
	// message line above a go test `--- FAIL`), at the line of its key;
	// end is the last line of a group.
	start, at, end int
	key            string
	summary        bool
	family         string
	rank           int
}

// scanned is a tool output split into lines (colours removed) with the
// errors found in it.
type scanned struct {
	// norms holds the dedup normalisation of each key seen.
	norms map[string]string
	// lines are the output's lines; stripped the same without their CI
	// log prefixes.
	lines, stripped []string
	findings        []finding
}

// scan finds the errors of a tool output by the failure-line table: each
// distinct cause line (by its normalised key) is one finding, at most
// maxFindings; summary lines count only when no cause line stands; within
// a family only the lowest rank found counts. norm deduplicates keys.
func (rs *ruleSet) scan(text string, norm *normalizer) scanned {
	text = rs.ansi.ReplaceAllString(cleanText(text), "")
	lines := strings.Split(text, "\n")
	stripped := make([]string, len(lines))
	for i, l := range lines {
		stripped[i] = stripPrefix(l)
	}
	memo := map[string]string{}
	all := rs.scanAllMemo(stripped, norm, memo)
	return scanned{lines: lines, stripped: stripped, findings: selectFindings(all, norm, memo), norms: memo}
}

// scanAll returns the findings of the lines (CI prefixes removed), in
// order, before selectFindings: of each family and rank, the first
// occurrence of its first maxFindings distinct keys (normalised by norm),
// which is all selectFindings can keep, so an output of thousands of
// failure lines costs no more than their patterns.
func (rs *ruleSet) scanAll(stripped []string, norm *normalizer) []finding {
	return rs.scanAllMemo(stripped, norm, map[string]string{})
}

// scanAllMemo is scanAll with the normalisations of keys kept in memo.
func (rs *ruleSet) scanAllMemo(stripped []string, norm *normalizer, memo map[string]string) []finding {
	var all []finding
	type group struct {
		family string
		rank   int
	}
	seen := map[group]map[string]bool{}
	normal := memo
	// last is the latest finding, for groups of lines.
	var last struct {
		name string
		end  int
		kept bool
	}
	keep := func(f finding) bool {
		g := group{f.family, f.rank}
		if seen[g] == nil {
			seen[g] = map[string]bool{}
		}
		k, ok := normal[f.key]
		if !ok {
			k = norm.dedup(f.key)
			normal[f.key] = k
		}
		if seen[g][k] || len(seen[g]) >= maxFindings {
			return false
		}
		seen[g][k] = true
		return true
	}
	for i := 0; i < len(stripped); i++ {
		l := stripped[i]
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, tracebackHeader) {
			f := pythonTraceback(stripped, i)
			rs.causeBelowHeader(&f, stripped)
			if keep(f) {
				all = append(all, f)
			}
			i = f.end
			continue
		}
		cands := rs.candidates(l)
		if len(cands) == 0 {
			continue
		}
		r := rs.match(l, prevNonBlank(stripped, i), nextNonBlank(stripped, i), cands)
		if r == nil {
			continue
		}
		if r.group && last.name == r.name && last.end == i-1 {
			// The next line of a group, kept or not.
			last.end = i
			if last.kept {
				all[len(all)-1].end = i
			}
			continue
		}
		f := finding{name: r.name, start: i, at: i, end: i, summary: r.summary, family: r.family, rank: r.rank}
		if f.family == "" {
			f.family = r.name
		}
		rs.setKey(&f, r, stripped)
		last.name, last.end, last.kept = r.name, f.end, keep(f)
		if last.kept {
			all = append(all, f)
		}
	}
	return all
}

// tracebackHeader starts a Python traceback.
const tracebackHeader = "Traceback (most recent call last):"

// stripPrefix removes a CI log prefix from a line: a GitHub Actions log
// line's "JOB<TAB>STEP<TAB>2026-02-04T23:39:44.4982737Z " (as `gh run view
// --log` prints it) or its bare timestamp, or a turbo / lerna task prefix
// ("@chkit/core:test: "). It parses by hand: BenchmarkScan showed the
// pattern costing more than the rest of the scan.
func stripPrefix(l string) string {
	if rest, ok := cutTaskPrefix(l); ok {
		return rest
	}
	if rest, ok := cutServicePrefix(l); ok {
		l = rest
	}
	if rest, ok := cutJournalPrefix(l); ok {
		return rest
	}
	if rest, ok := cutTimestamp(l); ok {
		return rest
	}
	if i := strings.IndexByte(l, '\t'); i >= 0 {
		if j := strings.IndexByte(l[i+1:], '\t'); j >= 0 {
			if rest, ok := cutTimestamp(l[i+1+j+1:]); ok {
				return rest
			}
		}
	}
	return l
}

// cutTaskPrefix cuts "(@scope/)?name:task: " (name of letters, digits,
// '.', '_', '-'; task starting with a letter).
func cutTaskPrefix(l string) (string, bool) {
	i := 0
	if strings.HasPrefix(l, "@") {
		j := strings.IndexByte(l, '/')
		if j < 2 || !nameChars(l[1:j]) {
			return "", false
		}
		i = j + 1
	}
	j := i
	for j < len(l) && nameChar(l[j]) {
		j++
	}
	if j == i || j+1 >= len(l) || l[j] != ':' || !letter(l[j+1]) {
		return "", false
	}
	k := j + 1
	for k < len(l) && (nameChar(l[k]) && l[k] != '.') {
		k++
	}
	if k+1 >= len(l) || l[k] != ':' || l[k+1] != ' ' {
		return "", false
	}
	return l[k+2:], true
}

// cutServicePrefix cuts docker compose's "service-1  | " (a name of
// letters, digits, '.', '_', '-', then spaces, then "| ").
func cutServicePrefix(l string) (string, bool) {
	j := 0
	for j < len(l) && nameChar(l[j]) {
		j++
	}
	k := j
	for k < len(l) && l[k] == ' ' {
		k++
	}
	if j == 0 || k == j || k+2 > len(l) || l[k] != '|' || l[k+1] != ' ' || !letter(l[0]) {
		return "", false
	}
	return l[k+2:], true
}

// cutJournalPrefix cuts a journal or syslog line's "Feb 03 10:00:02
// host unit[pid]: " (journalctl, `systemctl status`, /var/log/syslog).
func cutJournalPrefix(l string) (string, bool) {
	const stamp = "Aaa dd dd:dd:dd "
	if len(l) < len(stamp)+4 {
		return "", false
	}
	for i := 0; i < len(stamp); i++ {
		c, want := l[i], stamp[i]
		switch {
		case want == 'A' && !(c >= 'A' && c <= 'Z'), want == 'a' && !(c >= 'a' && c <= 'z'),
			want == 'd' && !digit(c) && !(i == 4 && c == ' '), want != 'A' && want != 'a' && want != 'd' && c != want:
			return "", false
		}
	}
	rest := l[len(stamp):]
	host, rest, ok := strings.Cut(rest, " ")
	if !ok || host == "" {
		return "", false
	}
	unit, rest, ok := strings.Cut(rest, ": ")
	if !ok || unit == "" || strings.ContainsAny(unit, " \t") {
		return "", false
	}
	return rest, true
}

// cutTimestamp cuts "(BOM)?YYYY-MM-DDTHH:MM:SS(.fraction)?Z ".
func cutTimestamp(l string) (string, bool) {
	l = strings.TrimPrefix(l, "\ufeff")
	const shape = "dddd-dd-ddTdd:dd:dd"
	if len(l) < len(shape)+2 {
		return "", false
	}
	for i := 0; i < len(shape); i++ {
		if shape[i] == 'd' && !digit(l[i]) || shape[i] != 'd' && l[i] != shape[i] {
			return "", false
		}
	}
	i := len(shape)
	if l[i] == '.' {
		i++
		for i < len(l) && digit(l[i]) {
			i++
		}
	}
	if i+1 >= len(l) || l[i] != 'Z' || l[i+1] != ' ' {
		return "", false
	}
	return l[i+2:], true
}

func digit(c byte) bool  { return c >= '0' && c <= '9' }
func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func nameChar(c byte) bool {
	return letter(c) || digit(c) || c == '.' || c == '_' || c == '-'
}
func nameChars(s string) bool {
	for i := 0; i < len(s); i++ {
		if !nameChar(s[i]) {
			return false
		}
	}
	return true
}

// setKey sets f's key line by r's key mode.
func (rs *ruleSet) setKey(f *finding, r *compiledRule, lines []string) {
	l := lines[f.at]
	f.key = strings.TrimSpace(l)
	switch r.key {
	case keyLine:
		if r.keyGroup > 0 {
			if m := r.re.FindStringSubmatch(l); m != nil && strings.TrimSpace(m[r.keyGroup]) != "" {
				f.key = strings.TrimSpace(m[r.keyGroup])
			}
		}
		rs.causeBelowHeader(f, lines)
	case keyNext, keyColonNext:
		if r.key == keyColonNext && !strings.HasSuffix(f.key, ":") {
			return
		}
		if j := nextNonBlankIndex(lines, f.at); j >= 0 {
			f.at, f.end, f.key = j, j, strings.TrimSpace(lines[j])
		}
	case keyGoTest:
		if j := goTestMessage(lines, f.at); j >= 0 {
			f.key = strings.TrimSpace(lines[j])
			f.start = min(f.start, j)
			f.at = j
			return
		}
		f.key = rs.duration.ReplaceAllString(f.key, "")
	}
}

// causeBelowHeader moves f's key to the next non-blank line when its key
// is a generic header ("Parameter validation failed:", "error: No
// solution found when resolving dependencies:"; genericHeader) and that
// line is no header itself.
func (rs *ruleSet) causeBelowHeader(f *finding, lines []string) {
	if !strings.HasSuffix(f.key, ":") || !rs.header.MatchString(f.key) {
		return
	}
	if j := nextNonBlankIndex(lines, f.at); j >= 0 {
		if k := causeLine(lines[j]); k != "" && !rs.header.MatchString(k) {
			f.at, f.end, f.key = j, max(f.end, j), k
		}
	}
}

// selectFindings keeps, in output order, the findings of the lowest rank
// of each family, drops summaries when a cause stands, and keeps the
// first of each normalised key, at most maxFindings.
func selectFindings(all []finding, norm *normalizer, memo map[string]string) []finding {
	best := map[string]int{}
	cause := false
	for _, f := range all {
		if r, ok := best[f.family]; !ok || f.rank < r {
			best[f.family] = f.rank
		}
		cause = cause || !f.summary
	}
	seen := map[string]bool{}
	keys := memo // key → its normalisation
	var out []finding
	for _, f := range all {
		if f.rank != best[f.family] || (cause && f.summary) || f.key == "" {
			continue
		}
		k, ok := keys[f.key]
		if !ok {
			k = norm.dedup(f.key)
			keys[f.key] = k
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
		if len(out) == maxFindings {
			break
		}
	}
	return out
}

// pythonTraceback reads the traceback starting at lines[i]: its key is
// the exception line that ends it (the first line after the header at the
// margin), of the last traceback when exceptions are chained ("During
// handling of the above exception…"). A traceback cut before its
// exception line keys on its last line.
func pythonTraceback(lines []string, i int) finding {
	f := finding{name: "py-traceback", start: i, at: i, end: i, family: "py-traceback"}
	for j := i + 1; j < len(lines); j++ {
		l := lines[j]
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			f.end = j
			continue
		}
		if strings.HasPrefix(l, "Traceback (most recent call last):") {
			f.end = j
			continue
		}
		f.at, f.end, f.key = j, j, strings.TrimSpace(l)
		// The message may go on in indented lines.
		for f.end+1 < len(lines) && lines[f.end+1] != "" && (lines[f.end+1][0] == ' ' || lines[f.end+1][0] == '\t') {
			f.end++
		}
		// A chained exception: another traceback follows after a blank
		// line and the "During handling…" or "The above exception…" line.
		k := nextNonBlankIndex(lines, f.end)
		if k < 0 || !chained(lines[k]) {
			return f
		}
		j = k
		f.end = k
	}
	if f.key == "" {
		for j := f.end; j > i; j-- {
			if t := strings.TrimSpace(lines[j]); t != "" {
				f.at, f.key = j, t
				break
			}
		}
	}
	return f
}

func chained(l string) bool {
	return strings.HasPrefix(l, "During handling of the above exception") || strings.HasPrefix(l, "The above exception was the direct cause")
}

// goTestMessage returns the line of the first message of the `--- FAIL`
// at lines[i]: the first line below it indented deeper that is not
// another `--- `/`=== ` line, else (go test -v prints messages before the
// result) the first such line after the test's `=== RUN` line; -1 when
// the test logged nothing.
func goTestMessage(lines []string, i int) int {
	ind := markdown.IndentWidth(lines[i])
	name := strings.Fields(strings.TrimSpace(lines[i]))
	for j := i + 1; j < len(lines); j++ {
		l := lines[j]
		if strings.TrimSpace(l) == "" {
			continue
		}
		if markdown.IndentWidth(l) <= ind {
			break
		}
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "--- ") && !strings.HasPrefix(t, "=== ") {
			return j
		}
	}
	if len(name) < 3 {
		return -1
	}
	// Back to the test's `=== RUN` (or `=== CONT`) line, not past
	// another test's result line.
	run := -1
	for j := i - 1; j >= 0; j-- {
		t := strings.TrimSpace(lines[j])
		if strings.HasPrefix(t, "--- ") {
			break
		}
		if r, ok := strings.CutPrefix(t, "=== RUN"); ok && strings.TrimSpace(r) == name[2] {
			run = j
			break
		}
		if r, ok := strings.CutPrefix(t, "=== CONT"); ok && strings.TrimSpace(r) == name[2] {
			run = j
			break
		}
	}
	for j := run + 1; run >= 0 && j < i; j++ {
		if t := strings.TrimSpace(lines[j]); t != "" && markdown.IndentWidth(lines[j]) > ind && !strings.HasPrefix(t, "--- ") && !strings.HasPrefix(t, "=== ") {
			return j
		}
	}
	return -1
}

// nextNonBlankIndex is the index of the first non-blank line after i, or
// -1.
func nextNonBlankIndex(lines []string, i int) int {
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) != "" {
			return j
		}
	}
	return -1
}

func prevNonBlank(lines []string, i int) string {
	for j := i - 1; j >= 0; j-- {
		if strings.TrimSpace(lines[j]) != "" {
			return lines[j]
		}
	}
	return ""
}

func nextNonBlank(lines []string, i int) string {
	if j := nextNonBlankIndex(lines, i); j >= 0 {
		return lines[j]
	}
	return ""
}

// window returns the lines of an error's context: from contextBefore
// lines above its start (not above lo) to contextAfter lines below its
// key (not below hi), trimmed of blank edges.
func window(lines []string, f finding, lo, hi int) string {
	from := f.start
	if f.start == f.at {
		from = f.start - contextBefore
	}
	from = max(from, lo, 0)
	to := min(max(f.at+contextAfter, f.end)+1, hi, len(lines))
	if from >= to {
		return lines[f.at]
	}
	return cleanText(strings.Join(lines[from:to], "\n"))
}

// heuristics holds the patterns of the fallback key line (heuristicKey).
type heuristics struct {
	errorWord, exitCode, toolTag, passing, warning, usage, zero *regexp.Regexp
}

func newHeuristics() *heuristics {
	return &heuristics{
		errorWord: regexp.MustCompile(`(?i)\b(errors?|fail(ed|ure|s)?|fatal|exception|panic|denied|refused|cannot|can't|unable|unknown|not found|invalid|does not exist|no such|traceback)\b`),
		exitCode:  regexp.MustCompile(`^Exit code (-?\d+)$`),
		toolTag:   regexp.MustCompile(`</?tool_use_error>`),
		passing:   regexp.MustCompile(`^(?:✓|✔|√|PASS\b|ok\s|\(pass\)|--- PASS|PASSED\b|\S+ PASSED\b|test \S+ \.\.\. ok$)`),
		warning:   regexp.MustCompile(`(?i)^(?:\S+:? )?warn(?:ing)?\b|^npm WARN|deprecat`),
		usage:     regexp.MustCompile(`(?i)^usage:`),
		zero:      regexp.MustCompile(`(?i)\b0 (?:fail(?:ed|ures?|s)?|errors?)\b|\b(?:fail(?:ed|ures?|s)?|errors?):?\s+0\b`),
	}
}

// maxHeuristicLine is how much of a line heuristicKey reads, in bytes.
const maxHeuristicLine = 1024

// heuristicKey picks the key line of a failed tool's output that no rule
// matched: the first line naming an error (error, failed, fatal,
// exception, denied, cannot, not found, invalid, no such …) that is not a
// passing test, a warning, a usage banner or a zero count; else, when the
// output carries `Exit code N`, that line (the bare exit code, checked
// with its command); else the first other line. Tags `<tool_use_error>`
// are dropped; a line is read up to maxHeuristicLine bytes.
func (h *heuristics) heuristicKey(lines []string) string {
	var cand []string
	exit := ""
	inUsage := false
	for _, l := range lines {
		if len(l) > maxHeuristicLine {
			// A minified bundle or a JSON blob on one line: its start says
			// what it is, and the patterns need not read all of it.
			l = l[:maxHeuristicLine]
		}
		t := strings.TrimSpace(h.toolTag.ReplaceAllString(l, ""))
		switch {
		case t == "":
			inUsage = false
			continue
		case h.exitCode.MatchString(t):
			if exit == "" {
				exit = t
			}
			continue
		case h.usage.MatchString(t):
			inUsage = true
			continue
		case inUsage && markdown.IndentWidth(l) > 0:
			continue
		}
		inUsage = false
		if h.passing.MatchString(t) || h.warning.MatchString(t) {
			continue
		}
		cand = append(cand, t)
	}
	for _, t := range cand {
		if h.errorWord.MatchString(t) && !h.zero.MatchString(t) {
			return t
		}
	}
	if exit != "" {
		return exit
	}
	if len(cand) > 0 {
		return cand[0]
	}
	return ""
}
