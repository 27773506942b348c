package planning

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/recite-dev/recite/markdown"
)

// MaxFileSize is the largest file Load reads, in bytes (8 MiB). Larger files
// are listed with role "skipped" and a diagnostic.
const MaxFileSize = 8 << 20

// Load reads the planning tree rooted at fsys (the `.planning/` folder
// itself) into a Project: flavor, brief, roadmap phases merged with the phase
// folders on disk, plans and their tasks, state, blockers, decisions, loops,
// debug files, todos, every file with its role, and the current phase, plan
// and next task (see resolvePosition).
//
// Load is lenient (docs/formats.md#reading-pipeline): a file it cannot read or
// understand becomes a Diagnostic naming the file and line, files over
// MaxFileSize are skipped, and files it does not interpret are listed with
// role "unknown". It returns an error only when the root itself cannot be
// read.
func Load(fsys fs.FS) (*Project, error) {
	return LoadWith(fsys, nil, LoadOptions{})
}

// LoadCached is Load with a cache of parsed files: a file whose bytes did not
// change since the previous load through the same cache is not parsed again
// (docs/formats.md#reading-pipeline). A nil cache parses everything. The
// cached documents are shared between the Projects returned and must be
// treated as read-only.
func LoadCached(fsys fs.FS, cache *Cache) (*Project, error) {
	return LoadWith(fsys, cache, LoadOptions{})
}

// LoadWith is LoadCached with the choices of opts: the workstream to read
// as the project's state (docs/formats.md#workstreams).
func LoadWith(fsys fs.FS, cache *Cache, opts LoadOptions) (*Project, error) {
	if _, err := fs.ReadDir(fsys, "."); err != nil {
		return nil, fmt.Errorf("read planning tree: %w", err)
	}
	l := &loader{fsys: fsys, cache: cache, p: newProject()}
	l.walk()
	l.build(opts)
	l.cache.sweep()
	return l.p, nil
}

// newProject is an empty Project whose lists are empty, not nil.
func newProject() *Project {
	return &Project{
		Phases: []*Phase{}, Blockers: []Blocker{}, Decisions: []Decision{}, Loops: []*Loop{},
		Debug: []*DebugFile{}, Todos: []Todo{}, Files: []File{}, Diagnostics: []Diagnostic{},
		Workstreams: []Workstream{}, Failures: []Diagnostic{},
	}
}

// loader carries one Load.
type loader struct {
	fsys  fs.FS
	cache *Cache
	p     *Project
	// files are every regular file, in walk (lexical) order.
	files []walked
	// read marks the files already read, so none is reported twice.
	read map[string]bool
	// code is GSD's project_code from config.json, or "".
	code string
	// v is the part of the tree read as the project (a workstream or the
	// flat top level).
	v view
}

type walked struct {
	// path is relative to the planning root; lpath is the path the
	// readers interpret in the view (workstream.go): path itself, or the
	// part below workstreams/NAME/ for the active stream's files, "" for a
	// file outside the view.
	path, lpath string
	size        int64
	role        string
	stat        fileStat
	// entry is what the cache holds for the file once read.
	entry *cacheEntry
	// failure is why the file was skipped (binary, over MaxFileSize,
	// unreadable); nil when it was read.
	failure *Diagnostic
}

func (l *loader) diag(p string, line int, format string, args ...any) {
	l.p.Diagnostics = append(l.p.Diagnostics, Diagnostic{Path: p, Line: line, Message: fmt.Sprintf(format, args...)})
}

// walk lists the tree in fs.WalkDir's order (lexical, depth first),
// skipping .git and node_modules folders. Unreadable subfolders become
// diagnostics. A folder whose stat is unchanged is not listed again (see
// Cache.listDir), and the files are stat'ed by two goroutines: on a warm
// rebuild these system calls are most of the cost of a load.
func (l *loader) walk() {
	var ents []fs.DirEntry
	var paths []string
	var visit func(dir string)
	visit = func(dir string) {
		list, err := l.cache.listDir(l.fsys, dir)
		if err != nil {
			if dir != "." && !errors.Is(err, fs.ErrNotExist) {
				// Unreadable is not empty: what the folder holds is
				// unknown, so the view is incomplete (docs/formats.md#unreadable-files).
				l.failOrDiag(!ownFolder(dir), dir, 0, "cannot read the folder: %v", reason(err))
			}
			return
		}
		for _, d := range list {
			p := d.Name()
			if dir != "." {
				p = dir + "/" + p
			}
			switch {
			case d.IsDir():
				if d.Name() != ".git" && d.Name() != "node_modules" {
					visit(p)
				}
			case d.Type().IsRegular():
				ents, paths = append(ents, d), append(paths, p)
			}
		}
	}
	visit(".")
	infos := make([]fs.FileInfo, len(ents))
	errs := make([]error, len(ents))
	stat := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			infos[i], errs[i] = ents[i].Info()
		}
	}
	if half := len(ents) / 2; half >= 16 {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); stat(half, len(ents)) }()
		stat(0, half)
		wg.Wait()
	} else {
		stat(0, len(ents))
	}
	for i, p := range paths {
		if errs[i] != nil {
			// A file that vanished between the listing and its stat (the
			// temp file of an atomic write by a parallel build, an editor's
			// swap file) is simply not there: no warning.
			if !errors.Is(errs[i], fs.ErrNotExist) {
				l.failOrDiag(!ownFolder(p), p, 0, "cannot stat: %v", reason(errs[i]))
			}
			continue
		}
		// The role is given once the view is chosen (applyView).
		l.files = append(l.files, walked{path: p, lpath: p, size: infos[i].Size(), stat: statOf(infos[i])})
	}
}

// ownFolder reports a path of recite's own outputs (prompts/, .recite/),
// which no reader of the tree interprets.
func ownFolder(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return first == "prompts" || first == ".recite"
}

// reason is the cause of a file-system error without the path the
// diagnostic already names: "permission denied" for "open x: permission
// denied".
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// build interprets the files walked: it picks the view (the active
// workstream or the top level), reads it, then every other markdown
// file's front matter.
func (l *loader) build(opts LoadOptions) {
	streams := workstreamNames(l.files)
	top := map[string]*walked{}
	for i := range l.files {
		top[l.files[i].path] = &l.files[i]
	}
	l.v = l.chooseView(opts, streams, top)
	l.applyView(l.v)
	byPath := l.index()
	l.code = l.readProjectCode(byPath)
	l.buildCore(byPath)
	l.loadLoops(byPath)
	l.loadDebugAndTodos()

	// Every other markdown file: front matter only, for its diagnostics
	// (invalid YAML is reported wherever it is).
	for i := range l.files {
		w := &l.files[i]
		if !l.read[w.path] && strings.HasSuffix(w.path, ".md") && w.role != "recite" {
			l.checkFrontMatter(w)
		}
	}
	l.finish(streams, opts.AllWorkstreams)
}

// index maps the logical path of every file in the view to its entry.
func (l *loader) index() map[string]*walked {
	byPath := map[string]*walked{}
	for i := range l.files {
		if w := &l.files[i]; w.lpath != "" {
			byPath[w.lpath] = w
		}
	}
	return byPath
}

// buildCore reads what makes the project's position: the brief, roadmap,
// state, HANDOFF.json and the phase folders with their plans.
func (l *loader) buildCore(byPath map[string]*walked) {
	rphases := l.buildOverview(byPath)
	l.buildState(byPath)
	l.buildHandoff(byPath)
	disk := l.scanPhases(byPath)
	l.p.Phases = mergePhases(rphases, disk, l.archivedPhases(byPath))
}

// docOf reads and parses the root file name, or returns nil when the tree
// has none or it cannot be read.
func (l *loader) docOf(byPath map[string]*walked, name string) *markdown.Document {
	if w, ok := byPath[name]; ok {
		return l.readDoc(w, false)
	}
	return nil
}

// buildOverview reads the brief, the vision and the roadmap
// (docs/formats.md#gsd-and-fire-flow-names,
// docs/formats.md#the-brief-and-the-vision) and returns the phases the roadmap
// declares. Without a ROADMAP.md that declares phases, a VISION.md that does
// is the roadmap (fire-flow's first era).
func (l *loader) buildOverview(byPath map[string]*walked) []roadmapPhase {
	p := l.p
	project := l.docOf(byPath, "PROJECT.md")
	vision := l.docOf(byPath, "VISION.md")
	roadmap := l.docOf(byPath, "ROADMAP.md")
	if project != nil {
		p.Brief = &Doc{Path: byPath["PROJECT.md"].path, Title: project.Title(), Markdown: project}
	}
	if vision != nil {
		p.Vision = &Doc{Path: byPath["VISION.md"].path, Title: vision.Title(), Markdown: vision}
		if p.Brief == nil {
			p.Brief = p.Vision
		}
	}
	var rphases []roadmapPhase
	if roadmap != nil {
		p.Roadmap = &Doc{Path: byPath["ROADMAP.md"].path, Title: roadmap.Title(), Markdown: roadmap}
		rphases = l.roadmap(byPath["ROADMAP.md"], roadmap)
	}
	if len(rphases) == 0 && vision != nil {
		if vp := l.roadmap(byPath["VISION.md"], vision); len(vp) > 0 {
			rphases = vp
			if p.Roadmap == nil {
				p.Roadmap = p.Vision
			}
		}
	}
	return rphases
}

// buildState reads the state file (STATE.md wins over CONSCIENCE.md when
// both exist; the other is read for its diagnostics only) with its
// decisions and blockers, BLOCKERS.md, and the front matter of the
// requirements and decision logs.
func (l *loader) buildState(byPath map[string]*walked) {
	p := l.p
	stateName := ""
	if _, ok := byPath["STATE.md"]; ok {
		stateName = "STATE.md"
	} else if _, ok := byPath["CONSCIENCE.md"]; ok {
		stateName = "CONSCIENCE.md"
	}
	if stateName != "" {
		w := byPath[stateName]
		if doc := l.docOf(byPath, stateName); doc != nil {
			st, decisions, blockers := parseState(w.path, doc)
			p.State = st
			p.Decisions = append(p.Decisions, decisions...)
			p.Blockers = append(p.Blockers, blockers...)
		} else {
			p.State = &State{Path: w.path, Failure: w.failure}
		}
	}
	if stateName == "STATE.md" {
		l.docOf(byPath, "CONSCIENCE.md") // read for its diagnostics only
	}
	if doc := l.docOf(byPath, "BLOCKERS.md"); doc != nil {
		p.Blockers = append(p.Blockers, parseBlockers(byPath["BLOCKERS.md"].path, doc)...)
	}
	for _, name := range []string{"REQUIREMENTS.md", "DECISION_LOG.md", "DECISIONS.md"} {
		l.docOf(byPath, name) // diagnostics (front matter) only
	}
}

// loadDebugAndTodos reads the debug files, todos.md and the todo files.
func (l *loader) loadDebugAndTodos() {
	p := l.p
	for i := range l.files {
		w := &l.files[i]
		switch {
		case w.role == "debug":
			if doc := l.readDoc(w, false); doc != nil {
				df, diags := parseDebug(w.path, doc)
				p.Diagnostics = append(p.Diagnostics, diags...)
				if df != nil {
					p.Debug = append(p.Debug, df)
				}
			}
		case w.role == "todo" && w.lpath == "todos.md":
			if doc := l.readDoc(w, false); doc != nil {
				p.Todos = append(p.Todos, parseTodoList(w.path, doc)...)
			}
		case w.role == "todo":
			if doc := l.readDoc(w, false); doc != nil {
				p.Todos = append(p.Todos, parseTodo(w.path, doc))
			}
		}
	}
}

// finish detects the flavor, resolves the current position, lists the
// workstreams with theirs and the files, and sorts the diagnostics by
// path, then line.
func (l *loader) finish(streams []string, all bool) {
	p := l.p
	p.Flavor = detectFlavor(l.files)
	resolvePosition(p)
	l.otherWorkstreams(streams, l.v, all)
	for _, w := range l.files {
		p.Files = append(p.Files, File{Path: w.path, Role: w.role, Size: w.size})
	}
	sort.SliceStable(p.Diagnostics, func(i, j int) bool {
		a, b := p.Diagnostics[i], p.Diagnostics[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
}

// loadLoops reads loops/: fire-loop-ID.md loop files, sabbath-ID-*.md
// snapshots attached to their loop, and active-loop.json
// (docs/formats.md#loop-files).
func (l *loader) loadLoops(byPath map[string]*walked) {
	p := l.p
	var snaps []*Snapshot
	for i := range l.files {
		w := &l.files[i]
		if w.role != "loop" {
			continue
		}
		name := path.Base(w.path)
		switch {
		case strings.HasSuffix(name, ".md") && strings.HasPrefix(name, "sabbath-"):
			if doc := l.readDoc(w, false); doc != nil {
				s, diags := parseSnapshot(w.path, doc)
				p.Diagnostics = append(p.Diagnostics, diags...)
				if s != nil {
					snaps = append(snaps, s)
				}
			}
		case strings.HasSuffix(name, ".md") && strings.HasPrefix(name, "fire-loop-"):
			if doc := l.readDoc(w, false); doc != nil {
				lp, diags := parseLoop(w.path, doc)
				p.Diagnostics = append(p.Diagnostics, diags...)
				if lp != nil {
					if lp.ID == "" {
						lp.ID = strings.TrimSuffix(strings.TrimPrefix(name, "fire-loop-"), ".md")
					}
					p.Loops = append(p.Loops, lp)
				}
			}
		case name == "active-loop.json":
			if data := l.readFile(w); data != nil {
				id, _, _, diags := parseActiveLoop(w.path, data)
				p.Diagnostics = append(p.Diagnostics, diags...)
				p.ActiveLoop = id
			}
		}
	}
	for _, s := range snaps {
		name := path.Base(s.Path)
		var owner *Loop
		for _, lp := range p.Loops {
			if lp.ID != "" && strings.HasPrefix(name, "sabbath-"+lp.ID+"-") {
				owner = lp
				break
			}
		}
		if owner == nil {
			l.diag(s.Path, 0, "sabbath snapshot of no known loop file")
			continue
		}
		owner.Snapshots = append(owner.Snapshots, s)
	}
}

// detectFlavor names the family that wrote the tree from its files. Strong
// markers: STATE.md for gsd; CONSCIENCE.md, -BLUEPRINT/-RECORD files in
// phases/ and fire-loop files for fire; both → mixed. Without strong markers
// the weak ones decide: ROADMAP.md or PLAN/SUMMARY files in phases/ (gsd),
// VISION.md or BLOCKERS.md (fire). A root BLUEPRINT.md is a product spec, not
// a fire-flow plan (docs/formats.md#heading-and-numbering-traps), so it marks
// nothing.
func detectFlavor(files []walked) Flavor {
	var gsd, fire, weakGSD, weakFire bool
	for _, w := range files {
		name := path.Base(w.path)
		upper := strings.ToUpper(name)
		lp := w.lpath
		switch {
		case lp == "STATE.md" || (strings.HasPrefix(w.path, WorkstreamsDir+"/") && name == "STATE.md"):
			// A workstream's STATE.md is GSD's too, active or not.
			gsd = true
		case lp == "CONSCIENCE.md":
			fire = true
		case strings.HasPrefix(lp, "phases/") && (strings.HasSuffix(upper, "BLUEPRINT.MD") || strings.HasSuffix(upper, "-RECORD.MD")):
			fire = true
		case strings.HasPrefix(lp, "loops/fire-loop-"):
			fire = true
		case lp == "ROADMAP.md" || (strings.HasPrefix(lp, "phases/") && (w.role == "plan" || w.role == "summary")):
			weakGSD = true
		case lp == "VISION.md" || lp == "BLOCKERS.md":
			weakFire = true
		}
	}
	switch {
	case gsd && fire:
		return FlavorMixed
	case gsd:
		return FlavorGSD
	case fire:
		return FlavorFire
	case weakGSD && weakFire:
		return FlavorMixed
	case weakGSD:
		return FlavorGSD
	case weakFire:
		return FlavorFire
	}
	return FlavorNone
}
