package planning

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/recite-dev/recite/markdown"
	"go.yaml.in/yaml/v3"
)

var (
	// loopFileIDRe takes the loop id out of fire-loop-ID.md
	// (docs/formats.md#loop-files).
	loopFileIDRe = regexp.MustCompile(`^fire-loop-(.+)\.md$`)
	// sabbathNameRe takes the loop id and iteration out of
	// sabbath-ID-iterN.md or sabbath-ID-stopped.md.
	sabbathNameRe = regexp.MustCompile(`^sabbath-(.+?)-(?:iter(\d+)|stopped)\.md$`)
	// leadingIntRe is the first integer of a table cell ("3", "3 files").
	leadingIntRe = regexp.MustCompile(`-?\d+`)
	// approachRe splits an approach item: `[Iteration 1-3] text`.
	approachRe = regexp.MustCompile(`^\[(?i:iter(?:ation)?s?\.?)\s*([^\]]*)\]\s*(.*)$`)
	// signalLabelRe splits a preserved stop-signal bullet `LABEL: text`.
	signalLabelRe = regexp.MustCompile(`^([A-Z][A-Z ]*[A-Z])\s*:\s*(.*)$`)
)

// parseLoop reads a fire-flow Power Loop file
// `.planning/loops/fire-loop-ID.md` (docs/formats.md#loop-files):
//
//   - front matter id, status, prompt, completion_promise, max_iterations,
//     current_iteration, started, health_state and the circuit_breaker block;
//   - every `## Loop Progress` table, including `(Continued)` variants with
//     other columns, mapped by header name case-insensitively (Iter /
//     Iteration, Timestamp, Files Changed, Error Hash, Output Lines, Health,
//     State, Action, Result, Context);
//   - the `## Circuit Breaker State` table;
//   - `Approaches Tried` numbered or bulleted items, `[Iteration 1-3] text —
//     why it failed`, duplicates across sections dropped;
//   - the `## Final Result` **Status:**.
//
// Rows it cannot read become diagnostics naming path and line; it never
// returns a nil Loop.
func parseLoop(path string, doc *markdown.Document) (*Loop, []Diagnostic) {
	l := &Loop{Path: path, Iterations: []Iteration{}}
	if m := loopFileIDRe.FindStringSubmatch(pathBase(path)); m != nil {
		l.ID = m[1]
	}
	if doc == nil {
		return l, nil
	}
	var diags []Diagnostic
	if v, ok := doc.Meta("id"); ok && strings.TrimSpace(v) != "" {
		l.ID = strings.TrimSpace(v)
	}
	l.Status = metaString(doc, "status")
	if v, ok := doc.Meta("prompt"); ok {
		l.Prompt = strings.TrimRight(v, "\n")
	}
	l.CompletionPromise = metaString(doc, "completion_promise")
	l.Started = metaString(doc, "started")
	l.HealthState = metaString(doc, "health_state")
	var d *Diagnostic
	if l.MaxIterations, d = metaInt(doc, path, "max_iterations"); d != nil {
		diags = append(diags, *d)
	}
	if l.CurrentIteration, d = metaInt(doc, path, "current_iteration"); d != nil {
		diags = append(diags, *d)
	}
	if v, ok := doc.Meta("circuit_breaker"); ok && strings.TrimSpace(v) != "" && strings.TrimSpace(v) != "null" {
		cb, err := decodeLoopBreaker(v)
		if err != nil {
			diags = append(diags, Diagnostic{Path: path, Line: metaLine(doc), Message: "circuit_breaker: " + err.Error()})
		} else {
			l.CircuitBreaker = cb
		}
	}

	for _, t := range doc.Tables {
		sec := tableSection(doc, t)
		switch {
		case strings.HasPrefix(sec, "loop progress"):
			its, ds := iterationsFromTable(path, t)
			l.Iterations = append(l.Iterations, its...)
			diags = append(diags, ds...)
		case strings.HasPrefix(sec, "circuit breaker state"):
			rows, ds := breakerRowsFromTable(path, t)
			l.Breaker = append(l.Breaker, rows...)
			diags = append(diags, ds...)
		}
	}
	l.Approaches = approachesIn(path, doc)
	l.Errors = verbatimErrorsIn(path, doc)
	if i := doc.FindSectionPrefix("Final Result"); i >= 0 {
		if f, ok := doc.FieldIn(i, "Status"); ok {
			l.FinalStatus = cleanInline(f.Value)
		}
	}
	if l.Status == "" {
		l.Status = l.FinalStatus
	}
	return l, diags
}

// verbatimErrorsIn returns the fenced code blocks of every section whose
// title names an error ("Last Error (verbatim)", "Errors") but not a table
// of hashes or classes ("Error History", "Error Hashes", "Error
// Classification"): Label is the title, Text the block's lines verbatim
// (an unterminated fence runs to the section's end), Source the line of its
// first non-blank line. Blank blocks are left out.
func verbatimErrorsIn(path string, doc *markdown.Document) []Signal {
	var out []Signal
	for i, sec := range doc.Sections {
		title := strings.ToLower(strings.TrimSpace(sec.Title))
		if !strings.Contains(title, "error") || strings.Contains(title, "history") || strings.Contains(title, "hash") || strings.Contains(title, "classification") {
			continue
		}
		from, to := sectionOwnRange(doc, i)
		if from > to {
			continue
		}
		start := 0
		var body []string
		flush := func() {
			text := strings.Trim(strings.Join(body, "\n"), "\n")
			if strings.TrimSpace(text) != "" {
				out = append(out, Signal{Label: strings.TrimSpace(sec.Title), Text: text, Source: srcRef(path, start)})
			}
			body = nil
		}
		for n, l := range doc.ScanLines(from, to) {
			switch l.Kind {
			case markdown.FenceClose:
				flush()
			case markdown.FenceBody:
				if len(body) == 0 && strings.TrimSpace(l.Text) == "" {
					continue // leading blank lines are not part of the error
				}
				if len(body) == 0 {
					start = n
				}
				body = append(body, l.Text)
			}
		}
		flush() // an unterminated fence runs to the section's end
	}
	return out
}

// parseSnapshot reads a Sabbath Rest snapshot `loops/sabbath-ID-iterN.md` or
// `sabbath-ID-stopped.md` (docs/formats.md#sabbath-snapshots): front matter
// loop_id, iteration, timestamp, reason, health_state and
// circuit_breaker_state (the file name fills loop id and iteration when the
// front matter lacks them), the "Approaches Tried" items, and every line of a
// "Preserved Stop Signals" section (`### Preserved Stop Signals (v6.0 — …)` or
// `## Preserved Stop Signals (DO NOT SUMMARIZE)`,
// docs/formats.md#preservation-blocks) verbatim: `- ERRORS: …` gives Label
// "ERRORS" and the text after the colon unchanged. It never returns a nil
// Snapshot.
func parseSnapshot(path string, doc *markdown.Document) (*Snapshot, []Diagnostic) {
	s := &Snapshot{Path: path}
	if m := sabbathNameRe.FindStringSubmatch(pathBase(path)); m != nil {
		s.LoopID = m[1]
		if m[2] != "" {
			s.Iteration, _ = strconv.Atoi(m[2])
		} else {
			s.Reason = "user_requested_stop"
		}
	}
	if doc == nil {
		return s, nil
	}
	var diags []Diagnostic
	if v := metaString(doc, "loop_id"); v != "" {
		s.LoopID = v
	}
	if _, ok := doc.Meta("iteration"); ok {
		n, d := metaInt(doc, path, "iteration")
		if d != nil {
			diags = append(diags, *d)
		} else {
			s.Iteration = n
		}
	}
	if v := metaString(doc, "reason"); v != "" {
		s.Reason = v
	}
	s.Timestamp = metaString(doc, "timestamp")
	s.HealthState = metaString(doc, "health_state")
	s.BreakerState = metaString(doc, "circuit_breaker_state")
	s.Approaches = approachesIn(path, doc)
	s.Signals = stopSignalsIn(path, doc)
	if len(s.Signals) == 0 && doc.FindSectionPrefix("Preserved Stop Signals") < 0 {
		diags = append(diags, Diagnostic{Path: path, Line: 0, Message: "no Preserved Stop Signals section"})
	}
	return s, diags
}

// stopSignalsIn returns the lines of every "Preserved Stop Signals" section
// of doc, in order. A bullet `- LABEL: text` yields that label and text; any
// other non-empty line yields an empty label and the line without its
// bullet. HTML comments and fenced code are left out.
func stopSignalsIn(path string, doc *markdown.Document) []Signal {
	var out []Signal
	for _, sec := range doc.Sections {
		if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(sec.Title)), "preserved stop signals") {
			continue
		}
		for _, l := range textLines(doc, sec.Line+1, sec.EndLine) {
			t := strings.TrimSpace(l.text)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if m := listMarkerRe.FindStringSubmatch(t); m != nil && !isHRule(t) {
				t = strings.TrimSpace(m[3])
			}
			if t == "" {
				continue
			}
			sig := Signal{Text: t, Source: srcRef(path, l.n)}
			if m := signalLabelRe.FindStringSubmatch(t); m != nil {
				sig.Label, sig.Text = m[1], strings.TrimSpace(m[2])
			}
			out = append(out, sig)
		}
	}
	return out
}

// parseActiveLoop reads loops/active-loop.json or loops/stopped-ID.json
// (docs/formats.md#active-loop): the loop id, its loop file and
// current_iteration (a number or a numeric string). Invalid JSON yields a
// diagnostic with the line of the syntax error; missing fields are left empty.
func parseActiveLoop(path string, data []byte) (id string, loopFile string, iteration int, diags []Diagnostic) {
	var v struct {
		ID               json.RawMessage `json:"id"`
		LoopFile         string          `json:"loop_file"`
		CurrentIteration json.RawMessage `json:"current_iteration"`
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := json.Unmarshal(data, &v); err != nil {
		line := 0
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		case errors.As(err, &te):
			line = 1 + bytes.Count(data[:min(int(te.Offset), len(data))], []byte("\n"))
		}
		return "", "", 0, []Diagnostic{{Path: path, Line: line, Message: "invalid loop config: " + err.Error()}}
	}
	id = jsonScalar(v.ID)
	loopFile = v.LoopFile
	if s := jsonScalar(v.CurrentIteration); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			diags = append(diags, Diagnostic{Path: path, Line: jsonKeyLine(data, "current_iteration"), Message: fmt.Sprintf("current_iteration %q is not a number", s)})
		}
		iteration = n
	}
	if id == "" {
		diags = append(diags, Diagnostic{Path: path, Message: "loop config has no id"})
	}
	return id, loopFile, iteration, diags
}

// jsonScalar returns a JSON string's value or a number's text; "" for null,
// absent or composite values.
func jsonScalar(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// jsonKeyLine is the 1-based line where "key" first appears in data, or 0.
func jsonKeyLine(data []byte, key string) int {
	i := bytes.Index(data, []byte(`"`+key+`"`))
	if i < 0 {
		return 0
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}

// iterationsFromTable maps a Loop Progress table's columns by header name.
func iterationsFromTable(path string, t markdown.Table) ([]Iteration, []Diagnostic) {
	cols := headerIndex(t.Header)
	ncol := cols.find("iter", "iteration", "#", "n", "iter.")
	if ncol < 0 {
		return nil, []Diagnostic{{Path: path, Line: t.Line, Message: "loop progress table has no Iter column"}}
	}
	var out []Iteration
	var diags []Diagnostic
	noErr := cols.find("error hash", "error", "hash") < 0
	for _, r := range t.Rows {
		get := func(names ...string) string { return cleanInline(cellAt(r, cols.find(names...))) }
		n, ok := cellInt(get("iter", "iteration", "#", "n", "iter."))
		if !ok {
			diags = append(diags, Diagnostic{Path: path, Line: r.Line, Message: "loop progress row: no iteration number"})
			continue
		}
		it := Iteration{
			N:             n,
			Timestamp:     get("timestamp", "time", "date"),
			FilesChanged:  -1,
			ErrorHash:     dashEmpty(get("error hash", "error", "hash")),
			OutputLines:   -1,
			Health:        get("health", "health state"),
			State:         get("state", "cb state", "circuit breaker"),
			Action:        get("action", "actions"),
			Result:        get("result", "outcome"),
			Context:       get("context", "context %", "context usage"),
			Line:          r.Line,
			NoErrorColumn: noErr,
		}
		if c := cols.find("files changed", "files", "files modified"); c >= 0 {
			if v, ok := cellInt(cleanInline(cellAt(r, c))); ok {
				it.FilesChanged = v
			}
		}
		if c := cols.find("output lines", "output", "lines"); c >= 0 {
			if v, ok := cellInt(cleanInline(cellAt(r, c))); ok {
				it.OutputLines = v
			}
		}
		out = append(out, it)
	}
	return out, diags
}

// breakerRowsFromTable maps a Circuit Breaker State table by header name.
func breakerRowsFromTable(path string, t markdown.Table) ([]BreakerRow, []Diagnostic) {
	cols := headerIndex(t.Header)
	if cols.find("iter", "iteration", "#") < 0 {
		return nil, []Diagnostic{{Path: path, Line: t.Line, Message: "circuit breaker table has no Iter column"}}
	}
	var out []BreakerRow
	var diags []Diagnostic
	for _, r := range t.Rows {
		get := func(names ...string) string { return cleanInline(cellAt(r, cols.find(names...))) }
		n, ok := cellInt(get("iter", "iteration", "#"))
		if !ok {
			diags = append(diags, Diagnostic{Path: path, Line: r.Line, Message: "circuit breaker row: no iteration number"})
			continue
		}
		row := BreakerRow{N: n, OutputPct: get("output %", "output", "output pct", "output decline"), State: get("state"), Line: r.Line}
		row.StallCount, _ = cellInt(get("stall count", "stall", "stall counter"))
		row.SpinCount, _ = cellInt(get("spin count", "spin", "spin counter"))
		out = append(out, row)
	}
	return out, diags
}

// approachesIn collects the items of every "Approaches Tried" section (the
// loop's own, a snapshot's "(CRITICAL — don't repeat these)", the Final
// Result's), dropping repeated texts.
func approachesIn(path string, doc *markdown.Document) []Approach {
	var out []Approach
	seen := make(map[string]bool)
	for i, s := range doc.Sections {
		if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(s.Title)), "approaches tried") {
			continue
		}
		for _, it := range splitListItems(sectionOwnLines(doc, i)) {
			a := parseApproach(it.Text)
			if a.Text == "" || placeholderRe.MatchString(a.Text) {
				continue
			}
			a.Source = srcRef(path, it.Line)
			key := a.Iterations + "\x00" + a.Text
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, a)
		}
	}
	return out
}

// parseApproach splits `[Iteration 1-3] Direct fix in auth.ts — TypeError
// persists` into iterations, text and result. The result separator is an em
// or en dash, " -- " or " → ".
func parseApproach(s string) Approach {
	s = cleanInline(s)
	var a Approach
	if m := approachRe.FindStringSubmatch(s); m != nil {
		a.Iterations, s = strings.TrimSpace(m[1]), m[2]
	}
	for _, sep := range []string{" — ", " – ", " -- ", " → ", " - "} {
		if i := strings.Index(s, sep); i > 0 {
			a.Text, a.Result = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+len(sep):])
			return a
		}
	}
	a.Text = strings.TrimSpace(s)
	return a
}

// decodeLoopBreaker decodes the circuit_breaker block's YAML source.
// Scalars are read as text first so that `null`, quoted numbers and floats
// do not fail the whole block.
func decodeLoopBreaker(src string) (*LoopBreaker, error) {
	var raw struct {
		State           string            `yaml:"state"`
		StallCounter    string            `yaml:"stall_counter"`
		ErrorHashes     map[string]string `yaml:"error_hashes"`
		OutputBaseline  string            `yaml:"output_baseline"`
		OutputHistory   []string          `yaml:"output_history"`
		ApproachesTried []yaml.Node       `yaml:"approaches_tried"`
	}
	if err := yaml.Unmarshal([]byte(src), &raw); err != nil {
		return nil, err
	}
	cb := &LoopBreaker{State: raw.State, ErrorHashes: map[string]int{}}
	cb.StallCounter, _ = cellInt(raw.StallCounter)
	cb.OutputBaseline, _ = cellInt(raw.OutputBaseline)
	for k, v := range raw.ErrorHashes {
		n, _ := cellInt(v)
		cb.ErrorHashes[k] = n
	}
	if len(cb.ErrorHashes) == 0 {
		cb.ErrorHashes = nil
	}
	for _, v := range raw.OutputHistory {
		if n, ok := cellInt(v); ok {
			cb.OutputHistory = append(cb.OutputHistory, n)
		}
	}
	for _, n := range raw.ApproachesTried {
		if n.Kind == yaml.ScalarNode {
			cb.ApproachesTried = append(cb.ApproachesTried, n.Value)
			continue
		}
		out, err := yaml.Marshal(&n) // a map item: its YAML source on one line
		if err != nil {
			continue
		}
		cb.ApproachesTried = append(cb.ApproachesTried, strings.Join(strings.Fields(string(out)), " "))
	}
	return cb, nil
}

// headerCols maps lower-cased, trimmed header names to column indexes.
type headerCols map[string]int

// headerIndex builds a headerCols for a table header.
func headerIndex(h []string) headerCols {
	m := make(headerCols, len(h))
	for i, c := range h {
		k := strings.ToLower(cleanInline(c))
		if _, dup := m[k]; !dup {
			m[k] = i
		}
	}
	return m
}

// find returns the column of the first name present, or -1.
func (h headerCols) find(names ...string) int {
	for _, n := range names {
		if i, ok := h[n]; ok {
			return i
		}
	}
	return -1
}

// cellAt returns cell i of a row, or "" when i is out of range.
func cellAt(r markdown.Row, i int) string {
	if i < 0 || i >= len(r.Cells) {
		return ""
	}
	return strings.TrimSpace(r.Cells[i])
}

// cellInt reads the first integer in a cell ("3", "3 files", "Iteration 4");
// ok is false when there is none.
func cellInt(s string) (int, bool) {
	m := leadingIntRe.FindString(s)
	if m == "" {
		return 0, false
	}
	n, err := strconv.Atoi(m)
	if err != nil {
		return 0, false
	}
	return n, true
}

// dashEmpty maps a placeholder cell ("-", "—", "none", "n/a") to "".
func dashEmpty(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "-", "—", "–", "none", "n/a", "":
		return ""
	}
	return s
}

// tableSection returns the lower-cased title of the section enclosing t, or
// "".
func tableSection(doc *markdown.Document, t markdown.Table) string {
	i := t.Section
	if i < 0 || i >= len(doc.Sections) {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(doc.Sections[i].Title))
}

// metaString returns a front matter scalar trimmed, or "".
func metaString(doc *markdown.Document, key string) string {
	v, _ := doc.Meta(key)
	v = strings.TrimSpace(v)
	if v == "null" || v == "~" {
		return ""
	}
	return v
}

// metaInt reads an integer front matter key; absent or null gives 0 and no
// diagnostic, a non-number gives 0 and a diagnostic.
func metaInt(doc *markdown.Document, path, key string) (int, *Diagnostic) {
	v := metaString(doc, key)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, &Diagnostic{Path: path, Line: metaLine(doc), Message: fmt.Sprintf("%s %q is not a number", key, v)}
	}
	return n, nil
}

// metaLine is the line of the first front matter block, or 1.
func metaLine(doc *markdown.Document) int {
	if len(doc.FrontMatter) > 0 {
		return doc.FrontMatter[0].Line
	}
	return 1
}

// pathBase is the last element of a slash-separated path.
func pathBase(p string) string {
	return path.Base(p)
}

// CurrentLoop is the loop the project is in: the one
// loops/active-loop.json names (ActiveLoop), else the last loop file; nil
// when the project has none (p may be nil).
func (p *Project) CurrentLoop() *Loop {
	if p == nil || len(p.Loops) == 0 {
		return nil
	}
	l := p.Loops[len(p.Loops)-1]
	for _, cand := range p.Loops {
		if cand.ID == p.ActiveLoop {
			l = cand
		}
	}
	return l
}
