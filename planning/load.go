package planning

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

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
// Load is lenient (DESIGN.md §2): a file it cannot read or understand
// becomes a Diagnostic naming the file and line, files over MaxFileSize are
// skipped, and files it does not interpret are listed with role "unknown".
// It returns an error only when the root itself cannot be read.
func Load(fsys fs.FS) (*Project, error) {
	return LoadCached(fsys, nil)
}

// LoadCached is Load with a cache of parsed files: a file whose bytes did
// not change since the previous load through the same cache is not parsed
// again (issue "recite watch" §2: re-parse only the files that changed).
// A nil cache parses everything. The cached documents are shared between
// the Projects returned and must be treated as read-only.
func LoadCached(fsys fs.FS, cache *Cache) (*Project, error) {
	if _, err := fs.ReadDir(fsys, "."); err != nil {
		return nil, fmt.Errorf("read planning tree: %w", err)
	}
	l := &loader{fsys: fsys, cache: cache, p: &Project{
		Phases: []*Phase{}, Blockers: []Blocker{}, Decisions: []Decision{}, Loops: []*Loop{},
		Debug: []*DebugFile{}, Todos: []Todo{}, Files: []File{}, Diagnostics: []Diagnostic{},
	}}
	l.walk()
	l.build()
	l.cache.sweep()
	return l.p, nil
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
}

type walked struct {
	path string
	size int64
	role string
	stat fileStat
	// entry is what the cache holds for the file once read.
	entry *cacheEntry
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
			if dir != "." {
				l.diag(dir, 0, "cannot read: %v", err)
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
			l.diag(p, 0, "cannot stat: %v", errs[i])
			continue
		}
		l.files = append(l.files, walked{path: p, size: infos[i].Size(), role: fileRole(p), stat: statOf(infos[i])})
	}
}

// fileRole names what a path is by its place and name (FORMATS.md §1.1,
// §1.2; DESIGN.md §2 for recite's own files).
func fileRole(p string) string {
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	first, _, _ := strings.Cut(p, "/")
	if dir == "" {
		switch name {
		case "PROJECT.md":
			return "project"
		case "VISION.md":
			return "vision"
		case "ROADMAP.md":
			return "roadmap"
		case "STATE.md", "CONSCIENCE.md":
			return "state"
		case "BLOCKERS.md":
			return "blockers"
		case "REQUIREMENTS.md":
			return "requirements"
		case "DECISION_LOG.md", "DECISIONS.md":
			return "decisions"
		case "context-preserved.md":
			return "preserved"
		case "config.json", "config.yml", "config.yaml":
			return "config"
		case "recite.yaml", ".gitattributes":
			return "recite"
		case "todos.md":
			return "todo"
		}
		return "unknown"
	}
	switch first {
	case "conversations":
		return "conversation"
	case "prompts", ".recite":
		return "recite"
	case "loops":
		return "loop"
	case "debug":
		if strings.HasSuffix(name, ".md") {
			return "debug"
		}
	case "todos":
		if strings.HasSuffix(name, ".md") {
			return "todo"
		}
	case "phases", "quick":
		switch k, _ := classifyPhaseFile(name); k {
		case kindPlan:
			return "plan"
		case kindSummary:
			return "summary"
		}
		if strings.HasSuffix(strings.ToUpper(name), "CONTEXT.MD") || name == ".continue-here.md" {
			return "context"
		}
	}
	return "unknown"
}

// readDoc reads and parses one markdown file, or returns nil with a
// diagnostic when it is too large, unreadable or binary. Only the front
// matter is parsed when fmOnly is set (summaries: their existence is what
// counts, their front matter is checked).
func (l *loader) readDoc(w *walked, fmOnly bool) *markdown.Document {
	e := l.load(w, fmOnly, false)
	if e == nil || e.doc == nil {
		return nil
	}
	l.p.Diagnostics = append(l.p.Diagnostics, e.doc.Diagnostics...)
	return e.doc
}

// readFile reads a file within the size limit; binary or non-UTF-8 content
// is reported (FORMATS.md §4.8). It returns nil when the file must be
// skipped.
func (l *loader) readFile(w *walked) []byte {
	if e := l.load(w, false, true); e != nil {
		return e.data
	}
	return nil
}

// load returns the cache entry of a file (parsed as markdown unless raw;
// only its front matter with fmOnly), from the cache without reading it
// when its stat is unchanged, and reports the file's reading problems. It
// returns nil, with a diagnostic, when the file must be skipped.
func (l *loader) load(w *walked, fmOnly, raw bool) *cacheEntry {
	if l.read == nil {
		l.read = map[string]bool{}
	}
	l.read[w.path] = true
	if w.size > MaxFileSize {
		l.diag(w.path, 0, "file is %d bytes, over the %d-byte limit; skipped", w.size, MaxFileSize)
		w.role = "skipped"
		return nil
	}
	k := cacheKey{path: w.path, fmOnly: fmOnly && !raw}
	e := l.cache.fresh(k, w.stat)
	if e == nil {
		readAt := l.cache.clock()
		data, err := fs.ReadFile(l.fsys, w.path)
		if err != nil {
			l.diag(w.path, 0, "cannot read: %v", err)
			w.role = "skipped"
			return nil
		}
		var diags []Diagnostic
		skipped := false
		if i := bytes.IndexByte(data, 0); i >= 0 {
			diags = append(diags, Diagnostic{Path: w.path, Line: lineOf(data, i), Message: "binary content (NUL byte); skipped"})
			skipped = true
		} else if !utf8.Valid(data) {
			diags = append(diags, Diagnostic{Path: w.path, Line: lineOf(data, firstInvalid(data)), Message: "not valid UTF-8; invalid bytes read as U+FFFD"})
			data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
		}
		if k.fmOnly {
			data = data[:frontMatterEnd(data)]
		}
		e = l.cache.store(k, w.stat, readAt, data, diags, skipped, raw)
	}
	l.p.Diagnostics = append(l.p.Diagnostics, e.diags...)
	w.entry = e
	if e.skipped {
		w.role = "skipped"
		return nil
	}
	return e
}

func lineOf(data []byte, off int) int { return bytes.Count(data[:off], []byte{'\n'}) + 1 }

func firstInvalid(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// frontMatterEnd returns the byte offset just past the stacked front matter
// blocks at the top of data (after a BOM), or 0 when there are none, so that
// a summary's front matter can be checked without parsing its body.
func frontMatterEnd(data []byte) int {
	off := 0
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		off = 3
	}
	end := 0
	for {
		rest := data[off:]
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 || strings.TrimRight(string(rest[:nl]), "\r \t") != "---" {
			return end
		}
		pos := off + nl + 1
		closed := false
		for pos < len(data) {
			e := bytes.IndexByte(data[pos:], '\n')
			line := data[pos:]
			next := len(data)
			if e >= 0 {
				line, next = data[pos:pos+e], pos+e+1
			}
			if strings.TrimRight(string(line), "\r \t") == "---" {
				closed = true
				pos = next
				break
			}
			pos = next
		}
		if !closed {
			return len(data)
		}
		end, off = pos, pos
		// Stacked blocks may be separated by blank lines.
		for off < len(data) && (data[off] == '\n' || data[off] == '\r') {
			off++
		}
	}
}

// build interprets the files walked.
func (l *loader) build() {
	p := l.p
	byPath := map[string]*walked{}
	for i := range l.files {
		byPath[l.files[i].path] = &l.files[i]
	}
	docOf := func(name string) *markdown.Document {
		if w, ok := byPath[name]; ok {
			return l.readDoc(w, false)
		}
		return nil
	}

	// Brief, vision, roadmap (FORMATS.md §1.1, §2.2).
	project := docOf("PROJECT.md")
	vision := docOf("VISION.md")
	roadmap := docOf("ROADMAP.md")
	if project != nil {
		p.Brief = &Doc{Path: "PROJECT.md", Title: project.Title(), Markdown: project}
	}
	if vision != nil {
		p.Vision = &Doc{Path: "VISION.md", Title: vision.Title(), Markdown: vision}
		if p.Brief == nil {
			p.Brief = p.Vision
		}
	}
	var rphases []roadmapPhase
	if roadmap != nil {
		p.Roadmap = &Doc{Path: "ROADMAP.md", Title: roadmap.Title(), Markdown: roadmap}
		rphases = l.roadmap(byPath["ROADMAP.md"], roadmap)
	}
	if len(rphases) == 0 && vision != nil {
		// fire-flow's first era: VISION.md is the roadmap.
		if vp := l.roadmap(byPath["VISION.md"], vision); len(vp) > 0 {
			rphases = vp
			if p.Roadmap == nil {
				p.Roadmap = p.Vision
			}
		}
	}

	// State (STATE.md wins over CONSCIENCE.md when both exist).
	stateName := ""
	if _, ok := byPath["STATE.md"]; ok {
		stateName = "STATE.md"
	} else if _, ok := byPath["CONSCIENCE.md"]; ok {
		stateName = "CONSCIENCE.md"
	}
	if stateName == "CONSCIENCE.md" || stateName == "STATE.md" {
		if doc := docOf(stateName); doc != nil {
			st, decisions, blockers := parseState(stateName, doc)
			p.State = st
			p.Decisions = append(p.Decisions, decisions...)
			p.Blockers = append(p.Blockers, blockers...)
		}
	}
	if stateName == "STATE.md" {
		if _, ok := byPath["CONSCIENCE.md"]; ok {
			docOf("CONSCIENCE.md") // read for its diagnostics only
		}
	}
	if doc := docOf("BLOCKERS.md"); doc != nil {
		p.Blockers = append(p.Blockers, parseBlockers("BLOCKERS.md", doc)...)
	}
	for _, name := range []string{"REQUIREMENTS.md", "DECISION_LOG.md", "DECISIONS.md"} {
		if _, ok := byPath[name]; ok {
			docOf(name) // diagnostics (front matter) only
		}
	}

	// Phase folders, plans and summaries.
	disk := l.scanPhases(byPath)
	p.Phases = mergePhases(rphases, disk)

	// Loops, debug, todos.
	l.loadLoops(byPath)
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
		case w.role == "todo" && w.path == "todos.md":
			if doc := l.readDoc(w, false); doc != nil {
				p.Todos = append(p.Todos, parseTodoList(w.path, doc)...)
			}
		case w.role == "todo":
			if doc := l.readDoc(w, false); doc != nil {
				p.Todos = append(p.Todos, parseTodo(w.path, doc))
			}
		}
	}

	// Every other markdown file: front matter only, for its diagnostics
	// (invalid YAML is reported wherever it is).
	for i := range l.files {
		w := &l.files[i]
		if !l.read[w.path] && strings.HasSuffix(w.path, ".md") && w.role != "recite" {
			l.readDoc(w, true)
		}
	}

	p.Flavor = detectFlavor(l.files)
	resolvePosition(p)

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

// diskPhase is one phase folder (or loose phase files) found on disk.
type diskPhase struct {
	number, name, dir string
	plans             []*Plan
}

// scanPhases reads phases/: each folder whose name starts with a phase
// number (FORMATS.md §1.2: `^0*(\d+[A-Za-z]?(?:\.\d+)*)`, widened to
// "3.5d"), its flat plans and summaries and a nested plans/ folder; files
// directly in phases/ whose name starts with a number ("11-PLAN.md",
// AutoFiller) join the phase of that number. Folders sharing a number are
// merged, with a diagnostic.
func (l *loader) scanPhases(byPath map[string]*walked) []*diskPhase {
	var out []*diskPhase
	index := map[string]*diskPhase{}
	summaries := map[*diskPhase]map[string]string{}
	for i := range l.files {
		w := &l.files[i]
		parts := strings.Split(w.path, "/")
		if parts[0] != "phases" || len(parts) < 2 {
			continue
		}
		isPlanFile := w.role == "plan" || w.role == "summary"
		var dp *diskPhase
		switch {
		case len(parts) == 2:
			if !isPlanFile {
				continue
			}
			dp = l.phaseFor(parts[1], false, index, &out)
		default:
			dp = l.phaseFor(parts[1], true, index, &out)
			if len(parts) > 4 || (len(parts) == 4 && parts[2] != "plans") {
				isPlanFile = false
			}
		}
		if dp == nil || !isPlanFile {
			continue
		}
		_, key := classifyPhaseFile(parts[len(parts)-1])
		if w.role == "summary" {
			if summaries[dp] == nil {
				summaries[dp] = map[string]string{}
			}
			if _, dup := summaries[dp][key]; !dup {
				summaries[dp][key] = w.path
			}
			l.readDoc(w, true) // front matter diagnostics
			continue
		}
		dp.plans = append(dp.plans, &Plan{Path: w.path, ID: planID(parts[len(parts)-1]), pairKey: key})
	}
	for _, dp := range out {
		pairPlans(dp.plans, summaries[dp])
		for _, pl := range dp.plans {
			w := byPath[pl.Path]
			if doc := l.readDoc(w, false); doc != nil {
				l.plan(w, pl, doc)
			}
		}
	}
	return out
}

// roadmap is parseRoadmap, once per version of the file.
func (l *loader) roadmap(w *walked, doc *markdown.Document) []roadmapPhase {
	return l.cache.derive(w.entry, "roadmap", func() any { return parseRoadmap(w.path, doc) }).([]roadmapPhase)
}

// plan is parsePlan, once per version of the file and completion (the
// tasks of a plan with a summary are done).
func (l *loader) plan(w *walked, pl *Plan, doc *markdown.Document) {
	key := "plan"
	if pl.Done {
		key = "plan-done"
	}
	q := l.cache.derive(w.entry, key, func() any {
		q := &Plan{Done: pl.Done}
		parsePlan(q, doc)
		return q
	}).(*Plan)
	pl.Markdown, pl.Title, pl.Type, pl.Objective = q.Markdown, q.Title, q.Type, q.Objective
	pl.FilesModified, pl.Tasks = q.FilesModified, q.Tasks
}

// phaseFor returns the disk phase for a folder (isDir) or loose file name
// under phases/, creating it; nil when the name has no phase number.
func (l *loader) phaseFor(name string, isDir bool, index map[string]*diskPhase, out *[]*diskPhase) *diskPhase {
	num := NormalizePhase(name)
	if num == "" {
		return nil
	}
	dp, ok := index[num]
	if !ok {
		dp = &diskPhase{number: num}
		index[num] = dp
		*out = append(*out, dp)
	}
	if isDir {
		dir := "phases/" + name
		switch {
		case dp.dir == "":
			dp.dir = dir
			m := phaseNumRe.FindStringSubmatch(name)
			dp.name = strings.TrimLeft(name[len(m[1]):], "-_ .")
		case dp.dir != dir:
			l.diag(dir, 0, "phase folder has the same number (%s) as %s; their plans are merged", num, dp.dir)
			dp.dir = dir // keep the last, but remember both plans
		}
	}
	return dp
}

// planID is the plan id from a file name: "03-02" from "03-02-PLAN.md",
// else the name without its extension.
func planID(name string) string {
	base := strings.TrimSuffix(name, path.Ext(name))
	if m := planIDRe.FindString(base); m != "" {
		return m
	}
	return base
}

// mergePhases joins roadmap phases with disk phases by normalised number:
// roadmap order first, then disk-only phases by number. A phase's status is
// the roadmap's explicit complete, deferred or in_progress (`[x]`, `[-]`,
// `[~]`, a Progress table, a heading marker), else the disk's: complete when
// every plan has a summary, in_progress when some do, planned when plans
// exist, else the roadmap's not_started (FORMATS.md §1.2, §2.16: derive
// from disk, never from counters).
func mergePhases(rps []roadmapPhase, disk []*diskPhase) []*Phase {
	byNum := map[string]*diskPhase{}
	for _, d := range disk {
		byNum[d.number] = d
	}
	used := map[string]bool{}
	out := make([]*Phase, 0, len(rps)+len(disk))
	for _, rp := range rps {
		ph := &Phase{Number: rp.number, Name: rp.name, Goal: rp.goal, Line: rp.line, Archived: rp.archived, Plans: []*Plan{}}
		if d, ok := byNum[rp.number]; ok {
			used[rp.number] = true
			ph.Dir = d.dir
			if d.plans != nil {
				ph.Plans = d.plans
			}
			if ph.Name == "" {
				ph.Name = d.name
			}
		}
		ph.Status = phaseStatus(rp.status, ph)
		out = append(out, ph)
	}
	var rest []*Phase
	for _, d := range disk {
		if used[d.number] {
			continue
		}
		ph := &Phase{Number: d.number, Name: d.name, Dir: d.dir, Plans: d.plans}
		if ph.Plans == nil {
			ph.Plans = []*Plan{}
		}
		ph.Status = phaseStatus("", ph)
		rest = append(rest, ph)
	}
	sort.SliceStable(rest, func(i, j int) bool { return comparePhase(rest[i].Number, rest[j].Number) < 0 })
	return append(out, rest...)
}

func phaseStatus(explicit string, ph *Phase) string {
	switch explicit {
	case StatusComplete, StatusDeferred, StatusInProgress:
		return explicit
	}
	n, done := len(ph.Plans), ph.PlansDone()
	switch {
	case n > 0 && done >= n:
		return StatusComplete
	case done > 0:
		return StatusInProgress
	case n > 0:
		return StatusPlanned
	case explicit != "":
		return explicit
	}
	return StatusNotStarted
}

// loadLoops reads loops/: fire-loop-ID.md loop files, sabbath-ID-*.md
// snapshots attached to their loop, and active-loop.json (FORMATS.md §2.6).
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
// phases/ and fire-loop files for fire; both → mixed. Without strong
// markers the weak ones decide: ROADMAP.md or PLAN/SUMMARY files in phases/
// (gsd), VISION.md or BLOCKERS.md (fire). A root BLUEPRINT.md is a product
// spec, not a fire-flow plan (FORMATS.md §4.3), so it marks nothing.
func detectFlavor(files []walked) Flavor {
	var gsd, fire, weakGSD, weakFire bool
	for _, w := range files {
		name := path.Base(w.path)
		upper := strings.ToUpper(name)
		switch {
		case w.path == "STATE.md":
			gsd = true
		case w.path == "CONSCIENCE.md":
			fire = true
		case strings.HasPrefix(w.path, "phases/") && (strings.HasSuffix(upper, "BLUEPRINT.MD") || strings.HasSuffix(upper, "-RECORD.MD")):
			fire = true
		case strings.HasPrefix(w.path, "loops/fire-loop-"):
			fire = true
		case w.path == "ROADMAP.md" || (strings.HasPrefix(w.path, "phases/") && (w.role == "plan" || w.role == "summary")):
			weakGSD = true
		case w.path == "VISION.md" || w.path == "BLOCKERS.md":
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

// resolvePosition sets CurrentPhase, CurrentPlan and NextTask. The current
// phase is the state's front matter current_phase, else its Phase field in
// the position section ("None" and "Not started" name no phase), else the
// first phase not complete or deferred, in roadmap order. The current plan is
// the first plan of that phase without a summary, in name order; the next
// task is its first task not done (see nextTask).
func resolvePosition(p *Project) {
	var num string
	if p.State != nil {
		num = statePhaseNumber(p.State.Phase)
		if num != "" && p.phase(num) == nil {
			p.Diagnostics = append(p.Diagnostics, Diagnostic{Path: p.State.Path, Line: p.State.Line,
				Message: fmt.Sprintf("current phase %s is neither in the roadmap nor in phases/", num)})
			num = ""
		}
	}
	if num != "" {
		p.CurrentPhase = p.phase(num)
	} else {
		for _, ph := range p.Phases {
			if ph.Status != StatusComplete && ph.Status != StatusDeferred && !ph.Archived {
				p.CurrentPhase = ph
				break
			}
		}
	}
	if p.CurrentPhase == nil {
		return
	}
	for _, pl := range p.CurrentPhase.Plans {
		if !pl.Done {
			p.CurrentPlan = pl
			break
		}
	}
	p.NextTask = nextTask(p.CurrentPlan)
}

// phase returns the phase with the normalised number, or nil.
func (p *Project) phase(num string) *Phase {
	for _, ph := range p.Phases {
		if ph.Number == num {
			return ph
		}
	}
	return nil
}
