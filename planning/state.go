package planning

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/recite-dev/recite/markdown"
)

// positionSections returns the headings that hold the current position, in the
// order they are tried: GSD's `## Current Position`, the fire-flow fixture's
// `## Current Phase`, AutoFiller's `## Current State` key/value table,
// Radar-Macro's `## Active Phase`, the Portuguese `## Posição Atual`
// (docs/formats.md#the-state-file, docs/formats.md#state-structure-drift).
func positionSections() []string {
	return []string{"Current Position", "Current Phase", "Current State", "Active Phase", "Posição Atual", "Current Status"}
}

// noPhaseRe recognises a Phase value that names no phase: "None (between
// milestones)", "Not started (defining requirements)", "—", "TBD".
var noPhaseRe = regexp.MustCompile(`(?i)^(none|not started|n/a|tbd|-|—|–)\b|^(-|—|–)?$`)

// statePhaseRe reads the phase number from a Phase value: "13 of 42 (Name)",
// "27.2 — Name", "Phase 1: Foundation", "03 (timeline) -- READY".
var statePhaseRe = regexp.MustCompile(`(?i)^(?:phase\s+)?(\d+(?:\.\d+)*[a-z]?(?:-[a-z][a-z0-9]*(?:-\d+)?)*)`)

// parseState reads STATE.md or CONSCIENCE.md (docs/formats.md#the-state-file):
// the current position (front matter current_phase / current_plan / status /
// last_activity first, then the position section's Phase, Plan, Status and
// Last activity fields or key/value table rows), Project Reference, Session
// Continuity, decisions (bullets `- [Phase X]: text` and tables with a
// Decision column) and the Blockers/Concerns bullets. Fields are looked up
// only inside their section, so a session log written before the position
// section (norish) is never read as the position
// (docs/formats.md#state-structure-drift).
func parseState(path string, doc *markdown.Document) (*State, []Decision, []Blocker) {
	st := &State{Path: path, Markdown: doc}
	meta := func(k string) string {
		v, _ := doc.Meta(k)
		return strings.TrimSpace(v)
	}
	pos := firstSection(doc, positionSections()...)
	if pos >= 0 {
		st.Line = doc.Sections[pos].Line
	}
	field := func(sec int, keys ...string) string {
		if sec < 0 {
			return ""
		}
		for _, k := range keys {
			if f, ok := doc.FieldIn(sec, k); ok && stripInline(f.Value) != "" {
				return stripInline(f.Value)
			}
			if v := tableValue(doc, sec, k); v != "" {
				return v
			}
		}
		return ""
	}

	st.Milestone, st.MilestoneName = meta("milestone"), meta("milestone_name")
	st.ActivePhase = meta("active_phase")
	st.NextAction = meta("next_action")
	st.NextPhases = yamlList(meta("next_phases"))
	st.Progress = progressBlock(meta("progress"))
	st.PhaseLine = st.Line
	st.Phase = meta("current_phase")
	if st.Phase != "" {
		st.PhaseLine = metaKeyLine(doc, "current_phase")
	}
	if name := meta("current_phase_name"); st.Phase != "" && name != "" {
		st.Phase += " (" + name + ")"
	}
	if st.Phase == "" {
		for _, k := range []string{"Phase", "Current Phase", "Fase"} {
			if f, ok := doc.FieldIn(pos, k); ok && pos >= 0 && stripInline(f.Value) != "" {
				st.PhaseLine = f.Line
				break
			}
		}
		st.Phase = field(pos, "Phase", "Current Phase", "Fase")
	}
	if st.Phase == "" && pos >= 0 && strings.EqualFold(doc.Sections[pos].Title, "Current Phase") {
		// fire-flow fixture: the section's first line is the phase.
		st.Phase = firstLine(doc.SectionText(pos))
	}
	st.Plan = meta("current_plan")
	if st.Plan == "" {
		st.Plan = field(pos, "Plan", "Current Plan", "Plano")
	}
	status := meta("status")
	if status == "" {
		status = field(pos, "Status")
	}
	st.RawStatus = stripInline(status)
	st.Status = normalizeStatus(status)
	st.LastActivity = meta("last_activity")
	if st.LastActivity == "" {
		st.LastActivity = field(pos, "Last activity", "Last Updated", "Última atividade")
	}
	if sc := firstSection(doc, "Session Continuity", "Session Context"); sc >= 0 {
		st.StoppedAt = field(sc, "Stopped at", "Stopped At")
		st.ResumeFile = field(sc, "Resume file", "Resume File")
	}
	if st.StoppedAt == "" {
		st.StoppedAt = meta("stopped_at")
	}
	if ref := firstSection(doc, "Project Reference"); ref >= 0 {
		st.CoreValue = field(ref, "Core value", "Core Value")
		st.Focus = field(ref, "Current focus", "Current Focus")
	}

	var decisions []Decision
	for i, s := range doc.Sections {
		t := strings.ToLower(s.Title)
		if t == "decisions" || t == "decision log" || t == "key decisions" || t == "decisions made" || t == "recent decisions" {
			decisions = append(decisions, sectionDecisions(path, doc, i)...)
		}
	}
	var blockers []Blocker
	for i, s := range doc.Sections {
		t := strings.ToLower(s.Title)
		if strings.HasPrefix(t, "blockers") || t == "concerns" || t == "open blockers" {
			blockers = append(blockers, blockersFromBullets(path, doc, i)...)
		}
	}
	return st, decisions, blockers
}

// metaKeyLine is the line of a top-level front matter key, or 0.
func metaKeyLine(doc *markdown.Document, key string) int {
	if doc == nil {
		return 0
	}
	for _, fm := range doc.FrontMatter {
		for i, l := range strings.Split(fm.Raw, "\n") {
			if strings.HasPrefix(l, key+":") {
				return fm.Line + 1 + i
			}
		}
	}
	return 0
}

// progressBlock reads GSD's front matter progress block (total_phases,
// completed_phases, total_plans, completed_plans, percent), kept as its
// dedented lines; nil when there is none or it holds no counter.
func progressBlock(v string) *Progress {
	if v == "" {
		return nil
	}
	p := &Progress{TotalPhases: -1, CompletedPhases: -1, TotalPlans: -1, CompletedPlans: -1, Percent: -1}
	any := false
	for line := range strings.SplitSeq(v, "\n") {
		k, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.Trim(strings.TrimSpace(val), `"'`))
		if err != nil || n < 0 {
			continue
		}
		switch strings.TrimSpace(k) {
		case "total_phases":
			p.TotalPhases = n
		case "completed_phases":
			p.CompletedPhases = n
		case "total_plans":
			p.TotalPlans = n
		case "completed_plans":
			p.CompletedPlans = n
		case "percent":
			p.Percent = min(n, 100)
		default:
			continue
		}
		any = true
	}
	if !any {
		return nil
	}
	return p
}

// statePhaseNumber extracts the normalised phase number from a state Phase
// value, or "" when the value names no phase ("None", "Not started").
func statePhaseNumber(v string) string {
	v = stripInline(v)
	if noPhaseRe.MatchString(v) {
		return ""
	}
	m := statePhaseRe.FindStringSubmatch(v)
	if m == nil {
		return ""
	}
	return normalizePhaseID(m[1])
}

// normalizeStatus maps free status text the way GSD's state.cjs does
// (docs/formats.md#status-normalisation), by substring: paused/stopped →
// paused; executing/in progress/ready to execute → executing; planning/ready
// to plan → planning; discussing; verif → verifying; complete/done →
// completed; anything else is returned as written (trimmed).
func normalizeStatus(s string) string {
	s = stripInline(s)
	t := strings.ToLower(s)
	t = strings.NewReplacer("-", " ", "_", " ").Replace(t)
	switch {
	case t == "":
		return ""
	case strings.Contains(t, "paused") || strings.Contains(t, "stopped"):
		return "paused"
	case strings.Contains(t, "executing") || strings.Contains(t, "in progress") || strings.Contains(t, "ready to execute"):
		return "executing"
	case strings.Contains(t, "planning") || strings.Contains(t, "ready to plan"):
		return "planning"
	case strings.Contains(t, "discussing"):
		return "discussing"
	case strings.Contains(t, "verif"):
		return "verifying"
	case strings.Contains(t, "complete") || strings.Contains(t, "done"):
		return "completed"
	}
	return s
}

// tableValue reads a key/value table row in section sec: the first table whose
// first cell equals key (bold removed) gives its second cell (AutoFiller's
// `| **Status** | Phase 11 complete — … |`, docs/formats.md#table-traps).
func tableValue(doc *markdown.Document, sec int, key string) string {
	for _, t := range doc.Tables {
		if !doc.InSection(t.Line, sec) {
			continue
		}
		for _, r := range t.Rows {
			if len(r.Cells) >= 2 && strings.EqualFold(stripInline(r.Cells[0]), key) {
				return stripInline(r.Cells[1])
			}
		}
	}
	return ""
}

// decisionPhaseRe reads GSD's "[Phase 3]: text" or "[03-02]: text" prefix.
var decisionPhaseRe = regexp.MustCompile(`(?i)^\[(?:phase\s+)?([^\]]+)\]\s*:?\s*(.*)$`)

// sectionDecisions reads the decisions of one section: rows of a table with a
// Decision column (Phase from a Phase column), else top-level bullet items
// (`- [Phase X]: text`, docs/formats.md#the-state-file), skipping fenced code.
func sectionDecisions(path string, doc *markdown.Document, sec int) []Decision {
	var out []Decision
	for _, t := range doc.Tables {
		if !doc.InSection(t.Line, sec) {
			continue
		}
		dc, pc := -1, -1
		for c, h := range t.Header {
			switch strings.ToLower(stripInline(h)) {
			case "decision":
				dc = c
			case "phase":
				pc = c
			}
		}
		if dc < 0 {
			continue
		}
		for _, r := range t.Rows {
			if dc >= len(r.Cells) || stripInline(r.Cells[dc]) == "" {
				continue
			}
			d := Decision{Text: stripInline(r.Cells[dc]), Source: srcRef(path, r.Line)}
			if pc >= 0 && pc < len(r.Cells) {
				d.Phase = stripInline(r.Cells[pc])
			}
			out = append(out, d)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, it := range bulletItems(doc, sec) {
		d := Decision{Text: it.text, Source: srcRef(path, it.line)}
		if m := decisionPhaseRe.FindStringSubmatch(it.text); m != nil {
			d.Phase, d.Text = strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
		}
		if d.Text != "" && !isPlaceholder(d.Text) {
			out = append(out, d)
		}
	}
	return out
}

func isPlaceholder(s string) bool {
	t := strings.ToLower(strings.Trim(s, "_*() ."))
	return t == "none" || t == "none yet" || strings.HasPrefix(t, "none yet") || t == "n/a"
}

type bullet struct {
	text string
	line int
}

// bulletItems returns the top-level `-`, `*` or `+` list items of section sec
// directly under its heading (not in subsections), one line each, skipping
// fenced code. The markdown package exposes no list items, so this reads the
// section's lines.
func bulletItems(doc *markdown.Document, sec int) []bullet {
	s := doc.Sections[sec]
	end := s.EndLine
	for j := sec + 1; j < len(doc.Sections); j++ {
		if doc.Sections[j].Line > s.EndLine {
			break
		}
		if doc.Sections[j].Parent == sec {
			end = doc.Sections[j].Line - 1
			break
		}
	}
	var out []bullet
	for ln, raw := range doc.ProseLines(s.Line+1, end) {
		t := strings.TrimSpace(raw)
		if raw != strings.TrimLeft(raw, " \t") {
			continue // nested item or continuation
		}
		if len(t) > 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
			out = append(out, bullet{text: stripInline(t[2:]), line: ln})
		}
	}
	return out
}
