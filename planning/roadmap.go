package planning

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/recite-dev/recite/markdown"
)

// Phase statuses (Phase.Status).
const (
	StatusComplete   = "complete"
	StatusInProgress = "in_progress"
	StatusPlanned    = "planned"
	StatusNotStarted = "not_started"
	StatusDeferred   = "deferred"
)

// phaseNumRe matches a phase number at the start of a string: digits, dotted
// decimals and an optional letter suffix ("08", "15.1", "3.5d", "9a"). It is
// wider than GSD's `\d+[A-Z]?(?:\.\d+)*`, which rejects "3.5d"
// (docs/formats.md#phase-numbers).
var phaseNumRe = regexp.MustCompile(`^(\d+(?:\.\d+)*[A-Za-z]?)(?:[^A-Za-z0-9]|$)`)

// NormalizePhase returns the canonical form of a phase number: leading zeros
// of the integer part stripped ("08" → "8", "00" → "0"), decimals and the
// letter suffix kept, the suffix lower-cased ("3.5D" → "3.5d"). It returns ""
// when s does not start with a phase number (docs/formats.md#phase-numbers).
func NormalizePhase(s string) string {
	m := phaseNumRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return ""
	}
	num := m[1]
	i := 0
	for i < len(num)-1 && num[i] == '0' && num[i+1] >= '0' && num[i+1] <= '9' {
		i++
	}
	return strings.ToLower(num[i:])
}

// normalizePhaseID normalises a phase id read from a roadmap or state
// heading: NormalizePhase of its number plus any word suffix in lower case
// ("1a-gaps", "2b-gaps-3"); "" when it has no number.
func normalizePhaseID(id string) string {
	id = strings.TrimSpace(id)
	j := 0
	for j < len(id) && (id[j] >= '0' && id[j] <= '9' || id[j] == '.') {
		j++
	}
	if j == 0 || id[0] == '.' {
		return ""
	}
	num := strings.TrimRight(id[:j], ".")
	i := 0
	for i < len(num)-1 && num[i] == '0' && num[i+1] >= '0' && num[i+1] <= '9' {
		i++
	}
	return num[i:] + strings.ToLower(id[len(num):])
}

// comparePhase orders normalised phase numbers numerically component by
// component ("2" < "10", "27" < "27.1" < "27.10", "9" < "9a").
func comparePhase(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, sa := splitSuffix(pa[i])
		nb, sb := splitSuffix(pb[i])
		if na != nb {
			if na < nb {
				return -1
			}
			return 1
		}
		if sa != sb {
			return strings.Compare(sa, sb)
		}
	}
	return len(pa) - len(pb)
}

func splitSuffix(s string) (int, string) {
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, _ := strconv.Atoi(s[:j])
	return n, s[j:]
}

var (
	// phaseRefRe reads "Phase 3: Name", "Phase 03 - Name", "Phase 9a", with
	// the number in group 1 and the rest in group 2.
	// The id may carry sovereign's word suffixes ("1a-gaps", "2b-gaps-3",
	// "2-PM-update", "3prelim").
	phaseRefRe = regexp.MustCompile(`(?i)^phase\s+(\d+(?:\.\d+)*[A-Za-z]*(?:-[A-Za-z0-9]+)*?)(?:\s*:\s*|\s+[-—–.]\s+|\s+|$)(.*)$`)
	// boldPhaseRe reads the name inside GSD's `**Phase N: Name**`.
	boldPhaseRe = regexp.MustCompile(`\*\*Phase\s+[^:*]+:\s*([^*]+)\*\*`)
	// statusTailRe is a status written after a heading's name: "— DEPLOYED
	// 2026-07-28", "- FIXED + DEPLOYED", "— COMPLETE".
	statusTailRe = regexp.MustCompile(`\s+[—–-]+\s+[A-Z]{3,}\b.*$`)
	// completedRe finds GSD's "(completed 2026-01-02)" or "— completed DATE".
	completedRe = regexp.MustCompile(`(?i)\bcompleted\s+\d{4}-\d{2}-\d{2}`)
	// insertedRe is GSD's "(INSERTED)" marker on decimal phases, with an
	// optional date ("(INSERTED 2026-07-28)").
	insertedRe = regexp.MustCompile(`(?i)\s*\(inserted[^)]*\)`)
	// headingDoneRe recognises completion markers written into a phase
	// heading: "[COMPLETE]", "✅", "— COMPLETE".
	headingDoneRe = regexp.MustCompile(`(?i)\[(complete|completed|done)\]|✅|[—–-]\s*complete\b`)
)

// roadmapPhase is one phase as the roadmap declares it, before the phase
// folders on disk are merged in.
type roadmapPhase struct {
	number, name, goal string
	// status is the explicit status the roadmap gives, or "".
	status   string
	line     int
	archived bool
}

// parseRoadmap reads the phases a roadmap declares
// (docs/formats.md#the-roadmap; a VISION.md may be the roadmap:
// docs/formats.md#the-brief-and-the-vision): the summary checklist
// (`- [x] **Phase 1: Name** - …`, `[~]`, and `(completed DATE)`), detail
// headings `## … #### Phase N: Name` with their **Goal:** and **Status:**
// fields and heading markers, and Progress or Overview tables with a Phase
// column. Phases are returned in order of first appearance; later sources fill
// in what earlier ones lack. Phases inside a `<details>` block are marked
// archived.
func parseRoadmap(path string, doc *markdown.Document) []roadmapPhase {
	r := &roadmapReader{doc: doc, index: map[string]int{}, details: detailsRanges(doc)}
	r.checklist()
	r.headings()
	r.tables()
	sort.SliceStable(r.out, func(i, j int) bool { return r.out[i].line < r.out[j].line })
	return r.out
}

// roadmapReader collects the phases of one roadmap from its three sources.
type roadmapReader struct {
	doc *markdown.Document
	// out are the phases in order of first appearance; index maps a
	// normalised phase id to its place in out.
	out   []roadmapPhase
	index map[string]int
	// details are the line ranges of `<details>` blocks.
	details [][2]int
}

// inDetails reports whether line lies in a `<details>` block.
func (r *roadmapReader) inDetails(line int) bool {
	for _, d := range r.details {
		if line >= d[0] && line <= d[1] {
			return true
		}
	}
	return false
}

// get returns the phase with the normalised id num, adding it when it is
// new and moving its line up to line when line comes first. The pointer is
// valid until the next call.
func (r *roadmapReader) get(num string, line int) *roadmapPhase {
	if i, ok := r.index[num]; ok {
		if line < r.out[i].line {
			r.out[i].line = line
		}
		return &r.out[i]
	}
	r.index[num] = len(r.out)
	r.out = append(r.out, roadmapPhase{number: num, line: line, archived: r.inDetails(line)})
	return &r.out[len(r.out)-1]
}

// checklist reads the summary checklist: `- [x] **Phase 1: Name** - …`.
func (r *roadmapReader) checklist() {
	for _, cb := range r.doc.Checkboxes {
		m := phaseRef(stripInline(cb.Text))
		if m == nil {
			continue
		}
		p := r.get(normalizePhaseID(m[1]), cb.Line)
		if p.name == "" {
			// GSD bolds the "Phase N: Name" part; the bold is the name's only
			// reliable end (docs/formats.md#the-roadmap).
			if b := boldPhaseRe.FindStringSubmatch(r.doc.Lines(cb.Line, cb.Line)); b != nil {
				p.name = cleanHeadingName(b[1])
			} else {
				p.name = cleanPhaseName(m[2])
			}
		}
		if p.status == "" {
			p.status = checkboxPhaseStatus(cb.State, cb.Text)
		}
	}
}

// headings reads the detail headings `## … #### Phase N: Name` with their
// Goal and Status fields and the completion markers in the heading.
func (r *roadmapReader) headings() {
	doc := r.doc
	for i, s := range doc.Sections {
		if s.Level < 2 || s.Level > 4 {
			continue
		}
		m := phaseRef(stripInline(s.Title))
		if m == nil {
			continue
		}
		p := r.get(normalizePhaseID(m[1]), s.Line)
		if name := cleanHeadingName(m[2]); name != "" {
			// The heading names the phase without the checklist's one-liner.
			p.name = name
		}
		if p.goal == "" {
			if f, ok := directField(doc, i, "Goal"); ok {
				p.goal = stripInline(f.Value)
			}
		}
		if p.status == "" {
			if headingDoneRe.MatchString(s.Title) {
				p.status = StatusComplete
			} else if f, ok := directField(doc, i, "Status"); ok {
				p.status = textStatus(f.Value)
			}
		}
		if !r.inDetails(s.Line) {
			p.archived = false
		}
	}
}

// tables reads Progress and Overview tables: a Phase column with a Status
// or a `#` column.
func (r *roadmapReader) tables() {
	for _, t := range r.doc.Tables {
		phaseCol, numCol, statusCol := -1, -1, -1
		for c, h := range t.Header {
			switch strings.ToLower(strings.TrimSpace(stripInline(h))) {
			case "phase":
				phaseCol = c
			case "#":
				numCol = c
			case "status":
				statusCol = c
			}
		}
		if phaseCol < 0 || (statusCol < 0 && numCol < 0) {
			continue
		}
		for _, row := range t.Rows {
			num, name := tablePhase(row.Cells, phaseCol, numCol)
			if num == "" {
				continue
			}
			p := r.get(num, row.Line)
			if p.name == "" {
				p.name = cleanPhaseName(name)
			}
			if p.status == "" && statusCol >= 0 && statusCol < len(row.Cells) {
				p.status = textStatus(row.Cells[statusCol])
			}
		}
	}
}

// tablePhase reads the normalised phase number and the name of one table
// row: the `#` column's number with the Phase column as the name, else a
// Phase cell "Phase 3: Name" or "3. Name". num is "" when the row names no
// phase.
func tablePhase(cells []string, phaseCol, numCol int) (num, name string) {
	if numCol >= 0 && numCol < len(cells) {
		num = NormalizePhase(cells[numCol])
		if phaseCol < len(cells) {
			name = stripInline(cells[phaseCol])
		}
	}
	if num == "" && phaseCol < len(cells) {
		cell := stripInline(cells[phaseCol])
		if m := phaseRef(cell); m != nil {
			num, name = normalizePhaseID(m[1]), m[2]
		} else if n := NormalizePhase(cell); n != "" {
			num = n
			name = strings.TrimLeft(strings.TrimSpace(cell)[len(phaseNumRe.FindStringSubmatch(strings.TrimSpace(cell))[1]):], ". :-—")
		}
	}
	return num, name
}

// directField is the first field with key in section i itself or its
// subsections, but only up to the next phase heading nested inside it.
func directField(doc *markdown.Document, i int, key string) (markdown.Field, bool) {
	return doc.FieldIn(i, key)
}

// checkboxPhaseStatus maps a roadmap checkbox to a phase status: [x] and
// "(completed DATE)" → complete, [~] → in_progress, [-] → deferred, [ ] →
// "" (left to the other sources and to the disk).
func checkboxPhaseStatus(state rune, text string) string {
	switch {
	case state == 'x' || state == 'X' || strings.Contains(text, "-") && completedRe.MatchString(text): // its date needs a '-'
		return StatusComplete
	case state == '~':
		return StatusInProgress
	case state == '-':
		return StatusDeferred
	}
	return ""
}

// phaseRef is phaseRefRe.FindStringSubmatch(s), without running the
// expression on the many texts that cannot match: it is anchored at
// "phase", whose "p" folds to no other letter than "P".
func phaseRef(s string) []string {
	if s == "" || s[0]|0x20 != 'p' {
		return nil
	}
	return phaseRefRe.FindStringSubmatch(s)
}

// textStatus maps free status text ("Complete", "`completed`", "In
// progress", "Not started", "○ Pending", "Deferred", "future") to a phase
// status, or "" when it says nothing recognisable.
func textStatus(s string) string {
	t := strings.ToLower(stripInline(s))
	switch {
	case t == "":
		return ""
	case strings.Contains(t, "not started") || strings.Contains(t, "pending") ||
		strings.Contains(t, "future") || strings.Contains(t, "planned") || strings.Contains(t, "todo"):
		return StatusNotStarted
	case strings.Contains(t, "defer"):
		return StatusDeferred
	case strings.Contains(t, "in progress") || strings.Contains(t, "in-progress") ||
		strings.Contains(t, "in_progress") || strings.Contains(t, "active") || strings.Contains(t, "executing"):
		return StatusInProgress
	case strings.Contains(t, "complete") || strings.Contains(t, "done") ||
		strings.Contains(t, "shipped") || strings.Contains(t, "✅"):
		return StatusComplete
	}
	return ""
}

// cleanPhaseName trims a phase name taken from a checklist item, heading or
// table cell: the one-line description after " - " or " — ", "(INSERTED)",
// "(2/2 plans)", trailing status markers and emoji.
func cleanPhaseName(s string) string {
	s = stripInline(s)
	s = insertedRe.ReplaceAllString(s, "")
	for _, sep := range []string{" - ", " — ", " -- ", " – ", " ✅", " ["} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	if i := strings.Index(s, " ("); i > 0 && strings.Contains(s[i:], "plan") {
		s = s[:i]
	}
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ":"))
}

// cleanHeadingName trims a phase name taken from a detail heading, which
// names the phase in full: only "(INSERTED)", trailing "[COMPLETE]" or "✅"
// markers and an upper-case status tail ("— DEPLOYED 2026-07-28") go.
func cleanHeadingName(s string) string {
	s = stripInline(s)
	s = insertedRe.ReplaceAllString(s, "")
	for _, sep := range []string{" ✅", " ["} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	s = statusTailRe.ReplaceAllString(s, "")
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ":"))
}

// stripInline removes leftover inline markers (`**`, `__`, backticks) from a
// value the markdown reader returns as text, and trims it and its markdown
// hard-break spaces (docs/formats.md#encoding-traps).
func stripInline(s string) string {
	s = strings.ReplaceAll(s, "**", "")
	s = strings.ReplaceAll(s, "__", "")
	s = strings.ReplaceAll(s, "`", "")
	return strings.TrimSpace(s)
}

// detailsRanges returns the line ranges [open, close] of `<details>` HTML
// blocks (GSD's collapsed shipped milestones, docs/formats.md#the-roadmap),
// skipping fenced code. An unclosed block runs to the end of the file.
func detailsRanges(doc *markdown.Document) [][2]int {
	var out [][2]int
	open := 0
	for ln, l := range doc.ProseLines(1, doc.LineCount()) {
		lt := strings.TrimSpace(l)
		if !strings.HasPrefix(lt, "<") {
			continue // most lines: spared lowering them
		}
		lt = strings.ToLower(lt)
		switch {
		case open == 0 && strings.HasPrefix(lt, "<details"):
			open = ln
		case open > 0 && strings.HasPrefix(lt, "</details"):
			out = append(out, [2]int{open, ln})
			open = 0
		}
	}
	if open > 0 {
		out = append(out, [2]int{open, doc.LineCount()})
	}
	return out
}
