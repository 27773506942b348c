package planning

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
)

// GSD's workstreams (get-shit-done/bin/lib/workstream.cjs and
// planning-workspace.cjs, gsd-build/get-shit-done at bdcaab2) scope one
// milestone's STATE.md, ROADMAP.md, REQUIREMENTS.md and phases/ into
// `.planning/workstreams/NAME/`, while PROJECT.md, config.json,
// milestones/, todos/ and the rest stay shared at the top. GSD picks the
// stream from `--ws NAME`, then GSD_WORKSTREAM, then a pointer kept per
// terminal session in the temporary folder, then `.planning/active-workstream`;
// with none it reads the top level ("flat mode"). recite adds one rule: a
// tree with no top-level STATE.md or ROADMAP.md and a single stream reads
// that stream (docs/formats.md#workstreams).

// WorkstreamsDir is the folder of the planning tree that holds GSD's
// workstreams, one folder each.
const WorkstreamsDir = "workstreams"

// ActiveWorkstreamFile is GSD's shared pointer to the active workstream: a
// file holding the stream's name on its first line.
const ActiveWorkstreamFile = "active-workstream"

// ValidWorkstreamName reports whether name is a workstream name GSD
// accepts (ACTIVE_WORKSTREAM_RE, `^[a-zA-Z0-9][a-zA-Z0-9._-]*$`, in
// sdk/src/workstream-name-policy.ts, and ".." refused anywhere): a letter
// or digit, then letters, digits, '.', '_' or '-', so that it never leaves
// the workstreams/ folder. It runs on every path of a tree's workstreams,
// so it is a loop rather than that expression.
func ValidWorkstreamName(name string) bool {
	if name == "" || len(name) > 255 || strings.Contains(name, "..") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// streamScoped reports whether a path relative to the planning root (or to
// a workstream's folder) is one a workstream holds for itself: STATE.md,
// ROADMAP.md, REQUIREMENTS.md and phases/ (the files GSD's
// migrateToWorkstreams moves into the stream).
func streamScoped(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	switch first {
	case "STATE.md", "ROADMAP.md", "REQUIREMENTS.md", "phases":
		return true
	}
	return false
}

// LoadOptions choose what LoadWith reads beyond the files themselves.
type LoadOptions struct {
	// Workstream names the workstream to read as the project's state (a
	// target's `workstream:`, GSD_WORKSTREAM, the session pointer); ""
	// lets the tree decide (.planning/active-workstream, else the only
	// stream).
	Workstream string
	// WorkstreamSource says where Workstream came from, for the
	// diagnostics and for Workstream.Source ("GSD_WORKSTREAM",
	// "recite.yaml target agent").
	WorkstreamSource string
	// Strict makes a Workstream without a folder a failure of the load
	// (Project.Failures: the engine keeps the last good render) rather
	// than a diagnostic after which the tree decides.
	Strict bool
	// AllWorkstreams reads every other workstream too, for the current
	// phase, status and phase counts of Project.Workstreams (what `recite
	// inspect` shows); without it only the active stream's are filled, and
	// a build does not pay for streams its prompts never show.
	AllWorkstreams bool
}

// Workstream is one GSD workstream of the tree and where it stands.
type Workstream struct {
	// Name is the folder name under workstreams/.
	Name string `json:"name"`
	// Dir is the stream's folder relative to the planning root
	// ("workstreams/NAME").
	Dir string `json:"dir"`
	// Active reports the stream read as the project's state.
	Active bool `json:"active"`
	// Source says why the stream is active ("GSD_WORKSTREAM",
	// "active-workstream", "the only workstream"); "" when it is not.
	Source string `json:"source,omitempty"`
	// CurrentPhase is the stream's current phase by the rules of
	// docs/formats.md#current-position, nil when it has none. CurrentPhase,
	// Status, Phases and PhasesDone are filled for the active stream, and
	// for the others with LoadOptions.AllWorkstreams.
	CurrentPhase *PhaseRef `json:"current_phase"`
	// Status is its state file's normalised status, or "".
	Status string `json:"status,omitempty"`
	// Phases and PhasesDone count its phases and those complete.
	Phases     int `json:"phases"`
	PhasesDone int `json:"phases_done"`
}

// view is the part of the tree a load reads as the project: the shared
// top level and, when a workstream is active, that stream's folder in place
// of the top level's stream-scoped files.
type view struct {
	// stream is the active workstream's name, "" for the flat view.
	stream string
	// prefix is "workstreams/NAME/" for a stream, "" for the flat view.
	prefix string
	// source is why the stream is active.
	source string
}

// workstreamNames lists the stream folders of the tree, sorted: the first
// path component under workstreams/ of every file below a valid name.
func workstreamNames(files []walked) []string {
	var out []string
	for _, w := range files {
		rest, ok := strings.CutPrefix(w.path, WorkstreamsDir+"/")
		if !ok {
			continue
		}
		name, _, ok := strings.Cut(rest, "/")
		if ok && ValidWorkstreamName(name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// chooseView picks the active workstream the way GSD does
// (docs/formats.md#workstreams): the named one of opts, else the one
// .planning/active-workstream names, else the only stream of a tree with
// no top-level STATE.md or ROADMAP.md. A name without a folder is a
// diagnostic (a failure with opts.Strict) and the next rule applies.
func (l *loader) chooseView(opts LoadOptions, streams []string, byPath map[string]*walked) view {
	has := func(n string) bool { return slices.Contains(streams, n) }
	pick := func(name, source string) view {
		return view{stream: name, prefix: WorkstreamsDir + "/" + name + "/", source: source}
	}
	if n := strings.TrimSpace(opts.Workstream); n != "" {
		src := opts.WorkstreamSource
		if src == "" {
			src = "the caller"
		}
		switch {
		case !ValidWorkstreamName(n):
			l.failOrDiag(opts.Strict, WorkstreamsDir, 0, "workstream %q named by %s is not a workstream name (letters, digits, '.', '_' or '-', starting with a letter or digit)", n, src)
		case !has(n):
			l.failOrDiag(opts.Strict, WorkstreamsDir, 0, "workstream %q named by %s has no folder %s/%s/%s", n, src, WorkstreamsDir, n, knownStreams(streams))
		default:
			return pick(n, src)
		}
		if opts.Strict {
			return view{}
		}
	}
	if w, ok := byPath[ActiveWorkstreamFile]; ok {
		if data := l.readFile(w); data != nil {
			first, _, _ := strings.Cut(string(data), "\n")
			n := strings.TrimSpace(first)
			switch {
			case n == "":
			case !ValidWorkstreamName(n):
				l.diag(w.path, 1, "%q is not a workstream name; ignored", n)
			case !has(n):
				l.diag(w.path, 1, "names workstream %q, which has no folder %s/%s/; ignored (GSD clears such a pointer)%s", n, WorkstreamsDir, n, knownStreams(streams))
			default:
				if why := l.staleStream(n, byPath); why != "" {
					l.diag(w.path, 1, "names workstream %q, but %s: the top level is read (GSD reads it too in a session with its own pointer)", n, why)
					break
				}
				return pick(n, ActiveWorkstreamFile)
			}
		}
	}
	_, state := byPath["STATE.md"]
	_, roadmap := byPath["ROADMAP.md"]
	switch {
	case len(streams) == 1 && !state && !roadmap:
		return pick(streams[0], "the only workstream")
	case len(streams) > 1 && !state && !roadmap:
		l.diag(WorkstreamsDir, 0, "%d workstreams (%s) and none is active: set GSD_WORKSTREAM, a target's workstream: in recite.yaml, or %s; no workstream is read as the project's state",
			len(streams), strings.Join(streams, ", "), ActiveWorkstreamFile)
	}
	return view{}
}

// staleStream says why the shared pointer's stream is not the project's
// state although its folder exists, or "": GSD consults
// .planning/active-workstream only when the session has no key of its own
// (pickActiveWorkstreamAdapter in planning-workspace.cjs), so under Claude
// Code and other agents the file is often a leftover while GSD works on the
// top level. When the top level has its own STATE.md, the stream is read
// only if it has a STATE.md or ROADMAP.md, and its STATE.md's last update
// (front matter last_updated, else last_activity) is not older than the
// top level's (docs/formats.md#workstreams).
func (l *loader) staleStream(name string, top map[string]*walked) string {
	st, ok := top["STATE.md"]
	if !ok {
		return ""
	}
	prefix := WorkstreamsDir + "/" + name + "/"
	own, hasState := top[prefix+"STATE.md"]
	if _, hasRoadmap := top[prefix+"ROADMAP.md"]; !hasState && !hasRoadmap {
		return "its folder holds no STATE.md or ROADMAP.md and the top level has a STATE.md"
	}
	if !hasState {
		return ""
	}
	topDate, ownDate := l.stateDate(st), l.stateDate(own)
	if !topDate.IsZero() && !ownDate.IsZero() && topDate.After(ownDate) {
		return fmt.Sprintf("the top-level STATE.md was updated later (%s, the stream's %s)", topDate.Format(time.DateOnly), ownDate.Format(time.DateOnly))
	}
	return ""
}

// stateDate is the last update a state file's front matter records:
// last_updated (RFC 3339 or a date), else last_activity (a date at its
// start); zero when it records none or the file cannot be read. It reads
// the file without reporting anything: the load reads it again.
func (l *loader) stateDate(w *walked) time.Time {
	if w.size > MaxFileSize {
		return time.Time{}
	}
	data, err := fs.ReadFile(l.fsys, w.path)
	if err != nil {
		return time.Time{}
	}
	fm := string(data[:frontMatterEnd(data)])
	var at time.Time
	for _, key := range []string{"last_updated:", "last_activity:"} {
		for line := range strings.SplitSeq(fm, "\n") {
			v, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), key)
			if !ok {
				continue
			}
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return t
			}
			if len(v) >= 10 {
				if t, err := time.Parse(time.DateOnly, v[:10]); err == nil && at.IsZero() {
					at = t
				}
			}
		}
		if !at.IsZero() {
			return at
		}
	}
	return at
}

// knownStreams is the "; the workstreams are a, b" tail of a diagnostic.
func knownStreams(streams []string) string {
	switch len(streams) {
	case 0:
		return "; the tree has no workstreams"
	case 1:
		return "; the tree's workstream is " + streams[0]
	}
	return "; the tree's workstreams are " + strings.Join(streams, ", ")
}

// failOrDiag reports a problem as a failure of the load (Project.Failures
// and a diagnostic) when fail is set, else as a diagnostic only.
func (l *loader) failOrDiag(fail bool, p string, line int, format string, args ...any) {
	d := Diagnostic{Path: p, Line: line, Message: fmt.Sprintf(format, args...)}
	l.p.Diagnostics = append(l.p.Diagnostics, d)
	if fail {
		l.p.Failures = append(l.p.Failures, d)
	}
}

// applyView gives every file its logical path in the view (lpath: the
// path the readers interpret, "" for a file outside the view) and its
// role: the files of other streams and the pointer file are
// "workstream"; with a stream active, the top level's stream-scoped
// files, and top-level files the stream has its own copy of, are
// "shadowed", with one diagnostic for a shadowed STATE.md, ROADMAP.md or
// phases/ folder holding plans.
func (l *loader) applyView(v view) {
	own := map[string]bool{}
	if v.stream != "" {
		for _, w := range l.files {
			if rest, ok := strings.CutPrefix(w.path, v.prefix); ok {
				own[rest] = true
			}
		}
	}
	shadowedPlans := false
	for i := range l.files {
		w := &l.files[i]
		w.lpath = w.path
		if rest, ok := strings.CutPrefix(w.path, WorkstreamsDir+"/"); ok {
			if name, sub, ok := strings.Cut(rest, "/"); ok && ValidWorkstreamName(name) {
				if name == v.stream {
					w.lpath = sub
				} else {
					w.lpath, w.role = "", "workstream"
					continue
				}
			}
		} else if w.path == ActiveWorkstreamFile {
			w.lpath, w.role = "", "workstream"
			continue
		} else if v.stream != "" && (streamScoped(w.path) || own[w.path]) {
			if w.path == "STATE.md" || w.path == "ROADMAP.md" {
				l.diag(w.path, 0, "not read: workstream %s is active (%s); its %s is %s%s", v.stream, v.source, w.path, v.prefix, w.path)
			} else if strings.HasPrefix(w.path, "phases/") && (fileRole(w.path) == "plan" || fileRole(w.path) == "summary") {
				shadowedPlans = true
			}
			w.lpath, w.role = "", "shadowed"
			continue
		}
		w.role = fileRole(w.lpath)
	}
	if shadowedPlans {
		l.diag("phases", 0, "plans not read: workstream %s is active (%s); its phases are under %sphases/", v.stream, v.source, v.prefix)
	}
}

// otherWorkstreams fills Project.Workstreams: every stream of the tree,
// the active one with its current phase and, with all, every other one
// with its own, each read on its own as if it were active (its
// diagnostics are those of the whole load, not repeated).
func (l *loader) otherWorkstreams(streams []string, v view, all bool) {
	for _, name := range streams {
		ws := Workstream{Name: name, Dir: WorkstreamsDir + "/" + name}
		var p *Project
		switch {
		case name == v.stream:
			ws.Active, ws.Source = true, v.source
			p = l.p
		case !all:
			l.p.Workstreams = append(l.p.Workstreams, ws)
			continue
		default:
			sub := &loader{fsys: l.fsys, cache: l.cache, p: newProject(), files: slices.Clone(l.files), code: l.code}
			sv := view{stream: name, prefix: WorkstreamsDir + "/" + name + "/"}
			sub.applyView(sv)
			sub.v = sv
			sub.buildCore(sub.index())
			resolvePosition(sub.p)
			p = sub.p
		}
		if p.CurrentPhase != nil {
			ws.CurrentPhase = &PhaseRef{Number: p.CurrentPhase.Number, Name: p.CurrentPhase.Name}
		}
		if p.State != nil {
			ws.Status = p.State.Status
		}
		ws.Phases = len(p.Phases)
		for _, ph := range p.Phases {
			if ph.Status == StatusComplete {
				ws.PhasesDone++
			}
		}
		l.p.Workstreams = append(l.p.Workstreams, ws)
	}
	for i := range l.p.Workstreams {
		if l.p.Workstreams[i].Active {
			l.p.Workstream = &l.p.Workstreams[i]
		}
	}
}
