package planning

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// HandoffFile is GSD's structured pause state, written by /gsd-pause-work
// and read, then deleted, by /gsd-resume-work
// (get-shit-done/workflows/pause-work.md and resume-project.md).
const HandoffFile = "HANDOFF.json"

// Handoff is HANDOFF.json (docs/formats.md#handoff-json): where the work
// paused, what was done and what is left, what blocks it, and the first
// thing to do on resuming. Values GSD writes as numbers or strings
// (`"plan": 2`, `"phase": "03"`) are kept as text, as written.
type Handoff struct {
	// Path is relative to the planning root.
	Path string `json:"path"`
	// Timestamp, Status ("paused", "auto-checkpoint", …) and Origin (the
	// "source" key: "auto-postool" for GSD's automatic checkpoints) as
	// written, or "".
	Timestamp string `json:"timestamp,omitempty"`
	Status    string `json:"status,omitempty"`
	Origin    string `json:"origin,omitempty"`
	// Phase, PhaseName, PhaseDir, Plan, Task and TotalTasks locate the
	// pause, or "".
	Phase      string `json:"phase,omitempty"`
	PhaseName  string `json:"phase_name,omitempty"`
	PhaseDir   string `json:"phase_dir,omitempty"`
	Plan       string `json:"plan,omitempty"`
	Task       string `json:"task,omitempty"`
	TotalTasks string `json:"total_tasks,omitempty"`
	// NextAction is next_action, the first action on resuming, and
	// NextActionLine its line; "" and 0 when null or absent.
	NextAction     string `json:"next_action,omitempty"`
	NextActionLine int    `json:"next_action_line,omitempty"`
	// ContextNotes is context_notes, the writer's mental state, or "".
	ContextNotes string `json:"context_notes,omitempty"`
	// Tasks are completed_tasks then remaining_tasks, in file order.
	Tasks []HandoffTask `json:"tasks"`
	// UncommittedFiles is uncommitted_files.
	UncommittedFiles []string `json:"uncommitted_files,omitempty"`
}

// HandoffTask is one entry of completed_tasks or remaining_tasks.
type HandoffTask struct {
	// ID is the task's id as written ("1", "T3"), or "".
	ID string `json:"id,omitempty"`
	// Name is the task's name (name, else description, else task).
	Name string `json:"name"`
	// Status is as written: done, in_progress, not_started, …; "" when
	// absent.
	Status string `json:"status,omitempty"`
	// Progress is what an in-progress task has done so far, or "".
	Progress string `json:"progress,omitempty"`
	// Line is where the entry starts in HANDOFF.json.
	Line int `json:"line"`
}

// Open reports a task still to do: not done, in progress or not started.
// A completed_tasks entry marked in_progress is open ("these need
// attention first", resume-project.md).
func (t HandoffTask) Open() bool {
	s := strings.ToLower(strings.TrimSpace(t.Status))
	return s != "done" && s != "complete" && s != "completed" && s != "skipped"
}

// OpenTasks are the handoff's tasks still to do, in file order.
func (h *Handoff) OpenTasks() []HandoffTask {
	if h == nil {
		return nil
	}
	var out []HandoffTask
	for _, t := range h.Tasks {
		if t.Open() {
			out = append(out, t)
		}
	}
	return out
}

// buildHandoff reads HANDOFF.json of the view into the project: the
// Handoff, its blockers and pending human actions as blockers, its
// decisions, and its next action.
func (l *loader) buildHandoff(byPath map[string]*walked) {
	w, ok := byPath[HandoffFile]
	if !ok {
		return
	}
	data := l.readFile(w)
	if data == nil {
		return
	}
	h, blockers, decisions, diags := parseHandoff(w.path, data)
	l.p.Diagnostics = append(l.p.Diagnostics, diags...)
	if h == nil {
		return
	}
	l.p.Handoff = h
	l.p.Blockers = append(l.p.Blockers, blockers...)
	l.p.Decisions = append(l.p.Decisions, decisions...)
	if h.NextAction != "" {
		l.p.NextAction = &Action{Text: h.NextAction, Source: srcRef(w.path, h.NextActionLine)}
	}
}

// parseHandoff reads HANDOFF.json leniently: a file that is not JSON, or
// not an object, is one diagnostic at the line of the problem and no
// Handoff; a key of the wrong type is a diagnostic at its line and is
// skipped; unknown keys are ignored. Blockers (blockers[].description,
// with its workaround) and the blocking human_actions_pending entries are
// open blockers whose id and source are "path:line"; decisions are
// decisions with their rationale. It never panics.
func parseHandoff(path string, data []byte) (*Handoff, []Blocker, []Decision, []Diagnostic) {
	lineAt := func(off int) int { return lineOf(data, min(max(off, 0), len(data))) }
	root, err := parseJSONTree(data)
	if err != nil {
		off := len(data)
		var se *json.SyntaxError
		var pe *jsonPosError
		switch {
		case errors.As(err, &se):
			off = int(se.Offset)
		case errors.As(err, &pe):
			off = pe.off
		}
		msg := err.Error()
		end := len(bytes.TrimRight(data, " \t\r\n"))
		// A decoder reports a file cut short as io.ErrUnexpectedEOF, or
		// (encoding/json's newer decoder) as a syntax error at its end.
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || se != nil && int(se.Offset) >= end {
			msg = "the file ends inside a value"
			off = end
		}
		return nil, nil, nil, []Diagnostic{{Path: path, Line: lineAt(off), Message: "invalid JSON (" + msg + "); HANDOFF.json not read"}}
	}
	if root.kind != '{' {
		return nil, nil, nil, []Diagnostic{{Path: path, Line: lineAt(root.off), Message: "HANDOFF.json is not a JSON object; not read"}}
	}
	h := &Handoff{Path: path, Tasks: []HandoffTask{}}
	var diags []Diagnostic
	bad := func(n *jnode, key, want string) {
		diags = append(diags, Diagnostic{Path: path, Line: lineAt(n.off), Message: fmt.Sprintf("%s: expected %s, got %s; ignored", key, want, n.kindName())})
	}
	text := func(key string, dst *string) {
		if n := root.get(key); n != nil {
			if v, ok := n.text(); ok {
				*dst = v
			} else {
				bad(n, key, "a string, a number or a list of them")
			}
		}
	}
	text("timestamp", &h.Timestamp)
	text("status", &h.Status)
	text("source", &h.Origin)
	text("phase", &h.Phase)
	text("phase_name", &h.PhaseName)
	text("phase_dir", &h.PhaseDir)
	text("plan", &h.Plan)
	text("task", &h.Task)
	text("total_tasks", &h.TotalTasks)
	text("next_action", &h.NextAction)
	text("context_notes", &h.ContextNotes)
	h.NextAction = strings.TrimSpace(h.NextAction)
	if n := root.get("next_action"); n != nil && h.NextAction != "" {
		h.NextActionLine = lineAt(n.off)
	}
	list := func(key string) []*jnode {
		n := root.get(key)
		if n == nil || n.kind == 'z' {
			return nil
		}
		if n.kind != '[' {
			bad(n, key, "a list")
			return nil
		}
		return n.items
	}
	for _, key := range []string{"completed_tasks", "remaining_tasks"} {
		for _, it := range list(key) {
			t := HandoffTask{Line: lineAt(it.off)}
			if it.kind == 's' {
				t.Name = strings.TrimSpace(it.str)
			} else if it.kind == '{' {
				t.ID, _ = it.field("id")
				t.Name, _ = it.field("name", "description", "task", "title")
				t.Status, _ = it.field("status")
				t.Progress, _ = it.field("progress")
			} else {
				bad(it, key+"[]", "an object or a string")
				continue
			}
			if t.Name == "" {
				continue
			}
			if t.Status == "" && key == "remaining_tasks" {
				t.Status = "not_started"
			}
			h.Tasks = append(h.Tasks, t)
		}
	}
	for _, it := range list("uncommitted_files") {
		if v, ok := it.text(); ok && v != "" {
			h.UncommittedFiles = append(h.UncommittedFiles, v)
		}
	}
	var blockers []Blocker
	for _, it := range list("blockers") {
		b := Blocker{Status: BlockerOpen, Source: srcRef(path, lineAt(it.off))}
		b.ID = b.Source
		var kind, workaround, status string
		switch it.kind {
		case 's':
			b.Title = strings.TrimSpace(it.str)
		case '{':
			b.Title, _ = it.field("description", "blocker", "title", "text")
			kind, _ = it.field("type")
			workaround, _ = it.field("workaround")
			status, _ = it.field("status")
		default:
			bad(it, "blockers[]", "an object or a string")
			continue
		}
		if b.Title == "" || placeholderRe.MatchString(b.Title) {
			continue
		}
		if kind != "" && !strings.Contains(kind, "|") {
			b.Title = "(" + strings.ReplaceAll(kind, "_", " ") + ") " + b.Title
		}
		if workaround != "" && !placeholderRe.MatchString(workaround) {
			b.Title += " — workaround: " + workaround
		}
		if isResolvedText(status) {
			b.Status = BlockerResolved
		}
		b.Priority = firstPriority(b.Title)
		blockers = append(blockers, b)
	}
	for _, it := range list("human_actions_pending") {
		if it.kind != '{' && it.kind != 's' {
			bad(it, "human_actions_pending[]", "an object or a string")
			continue
		}
		action, context := strings.TrimSpace(it.str), ""
		blocking := true
		if it.kind == '{' {
			action, _ = it.field("action", "description")
			context, _ = it.field("context")
			if n := it.get("blocking"); n != nil && n.kind == 'b' {
				blocking = n.b
			}
		}
		if action == "" || !blocking {
			continue
		}
		b := Blocker{Title: "(human action) " + action, Status: BlockerOpen, Source: srcRef(path, lineAt(it.off))}
		if context != "" {
			b.Title += " — " + context
		}
		b.ID = b.Source
		blockers = append(blockers, b)
	}
	var decisions []Decision
	for _, it := range list("decisions") {
		d := Decision{Source: srcRef(path, lineAt(it.off))}
		switch it.kind {
		case 's':
			d.Text = strings.TrimSpace(it.str)
		case '{':
			d.Text, _ = it.field("decision", "text", "description")
			d.Phase, _ = it.field("phase")
			if r, _ := it.field("rationale"); r != "" && d.Text != "" {
				d.Text += " — " + r
			}
		default:
			bad(it, "decisions[]", "an object or a string")
			continue
		}
		if d.Text != "" {
			decisions = append(decisions, d)
		}
	}
	return h, blockers, decisions, diags
}

// jnode is one JSON value and the byte offset where it starts: kind '{'
// (keys and vals in file order; a repeated key keeps its last value, as
// JavaScript's JSON.parse does), '[' (items), 's' (str), 'n' (num), 'b'
// (b) or 'z' (null).
type jnode struct {
	off   int
	kind  byte
	str   string
	num   json.Number
	b     bool
	keys  []string
	vals  []*jnode
	items []*jnode
}

// maxJSONDepth bounds the nesting parseJSONTree follows (encoding/json's
// own limit is 10,000).
const maxJSONDepth = 200

// jsonPosError is a structural problem at a byte offset.
type jsonPosError struct {
	off int
	msg string
}

func (e *jsonPosError) Error() string { return e.msg }

// parseJSONTree parses one JSON document with the offset of every value,
// and fails on anything after it.
func parseJSONTree(data []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	start := func() int {
		off := int(dec.InputOffset())
		for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		return off
	}
	var value func(depth int) (*jnode, error)
	value = func(depth int) (*jnode, error) {
		off := start()
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		n := &jnode{off: off}
		switch t := tok.(type) {
		case json.Delim:
			if depth >= maxJSONDepth {
				return nil, &jsonPosError{off: off, msg: fmt.Sprintf("nested deeper than %d levels", maxJSONDepth)}
			}
			switch t {
			case '{':
				n.kind = '{'
				for dec.More() {
					koff := start()
					kt, err := dec.Token()
					if err != nil {
						return nil, err
					}
					key, ok := kt.(string)
					if !ok {
						return nil, &jsonPosError{off: koff, msg: "an object key is not a string"}
					}
					v, err := value(depth + 1)
					if err != nil {
						return nil, err
					}
					if i := indexOf(n.keys, key); i >= 0 {
						n.vals[i] = v
					} else {
						n.keys, n.vals = append(n.keys, key), append(n.vals, v)
					}
				}
			case '[':
				n.kind = '['
				for dec.More() {
					v, err := value(depth + 1)
					if err != nil {
						return nil, err
					}
					n.items = append(n.items, v)
				}
			default:
				return nil, &jsonPosError{off: off, msg: fmt.Sprintf("unexpected %q", rune(t))}
			}
			if _, err := dec.Token(); err != nil { // the closing delimiter
				return nil, err
			}
		case string:
			n.kind, n.str = 's', t
		case json.Number:
			n.kind, n.num = 'n', t
		case bool:
			n.kind, n.b = 'b', t
		case nil:
			n.kind = 'z'
		}
		return n, nil
	}
	root, err := value(0)
	if err != nil {
		return nil, err
	}
	if off := start(); off < len(data) {
		return nil, &jsonPosError{off: off, msg: "more after the JSON value"}
	}
	return root, nil
}

func indexOf(keys []string, k string) int {
	for i, x := range keys {
		if x == k {
			return i
		}
	}
	return -1
}

// get is the value of key in an object, or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != '{' {
		return nil
	}
	if i := indexOf(n.keys, key); i >= 0 {
		return n.vals[i]
	}
	return nil
}

// text is a string or number value as written, trimmed, or a list of
// them joined by "; " (real handoffs write context_notes as a list of
// lines); null is "" and ok; any other kind is not ok.
func (n *jnode) text() (string, bool) {
	switch n.kind {
	case 's':
		return strings.TrimSpace(n.str), true
	case 'n':
		return n.num.String(), true
	case 'z':
		return "", true
	case '[':
		var parts []string
		for _, it := range n.items {
			if it.kind != 's' && it.kind != 'n' && it.kind != 'z' {
				return "", false
			}
			if v, _ := it.text(); v != "" {
				parts = append(parts, v)
			}
		}
		return strings.Join(parts, "; "), true
	}
	return "", false
}

// field is the text of the first of keys the object holds as a string or
// number, or "".
func (n *jnode) field(keys ...string) (string, bool) {
	for _, k := range keys {
		if v := n.get(k); v != nil {
			if s, ok := v.text(); ok && s != "" {
				return s, true
			}
		}
	}
	return "", false
}

// kindName names a value's kind for a diagnostic.
func (n *jnode) kindName() string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'b':
		return "a boolean"
	}
	return "null"
}
