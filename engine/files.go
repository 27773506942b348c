package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/ignore"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// FileEntry is one project file that may enter an agent's context.
type FileEntry struct {
	Path string `json:"path"`
	// NeverExclude says who named the file when it is in context only
	// because something names it ("" otherwise).
	NeverExclude string `json:"never_exclude,omitempty"`
}

// errorTailMessages is how many of a conversation's last messages are
// searched for error-named files.
const errorTailMessages = 200

// maxErrorPaths bounds the candidate paths taken from one error text, so a
// huge log cannot make a build stat thousands of names.
const maxErrorPaths = 64

// fileScope is what decides the files of one build: the never-exclude list
// and the task type with its exclude globs.
type fileScope struct {
	incs []ignore.Include
	// taskFiles are the current task's files, then error-named files, then
	// include lists: the candidates of the files section, in order.
	taskFiles []ignore.Include
	taskType  string // "" for none
	typeWhy   string // where the type came from
	extra     []ignore.ExtraPattern
}

// scope computes the file scope for the given conversations (the targets'
// `conversation:` ids) and extra --include paths. Problems reading a
// conversation or the preservation file are skipped: a missing log must not
// change which files exist.
func (e *Engine) scope(ctx context.Context, cfg *config.Config, proj *planning.Project, convs []string, targetIncludes []config.Target, extra []string) fileScope {
	var sc fileScope
	seen := map[string]bool{}
	add := func(to *[]ignore.Include, p, why string) {
		c, err := ignore.Clean(p)
		if err != nil || c == "." {
			return
		}
		*to = append(*to, ignore.Include{Path: c, Reason: why})
		if !seen[c] {
			seen[c] = true
			sc.incs = append(sc.incs, ignore.Include{Path: c, Reason: why})
		}
	}
	var planFiles, taskFiles, errFiles, incFiles []ignore.Include
	if pl := proj.CurrentPlan; pl != nil {
		for _, f := range pl.FilesModified {
			add(&planFiles, f, "the current plan ("+PlanningDir+"/"+pl.Path+" files_modified)")
		}
		for _, t := range pl.Tasks {
			for _, f := range t.Files {
				var to *[]ignore.Include = &planFiles
				if proj.NextTask != nil && t.Line == proj.NextTask.Line {
					to = &taskFiles
				}
				add(to, f, "the current plan's task "+t.Text)
			}
		}
	}
	for _, ep := range e.errorPaths(ctx, proj, convs) {
		add(&errFiles, ep.Path, "error at "+ep.Source)
	}
	for _, t := range targetIncludes {
		for _, f := range t.Include {
			add(&incFiles, f, "recite.yaml include of target "+t.Name)
		}
	}
	for _, f := range extra {
		add(&incFiles, f, "--include")
	}
	// The files section: the current task's files (else the plan's
	// files_modified), the files named by errors, then include lists.
	if len(taskFiles) == 0 {
		taskFiles = planFiles
	}
	sc.taskFiles = append(append(append(sc.taskFiles, taskFiles...), errFiles...), incFiles...)
	sc.taskType, sc.typeWhy = taskType(&cfg.Files, proj)
	if sc.taskType != "" && sc.taskType != config.TypeTesting {
		for i, g := range cfg.Files.TaskTypes[sc.taskType] {
			file, line := config.FileName, cfg.Files.Line(sc.taskType, i)
			if line == 0 {
				file = "recite default files.task_types." + sc.taskType
			}
			sc.extra = append(sc.extra, ignore.ExtraPattern{Pattern: g, File: file, Line: line, Note: "task type " + sc.taskType + ", " + sc.typeWhy})
		}
	}
	return sc
}

// ErrorPath is a project file named by a recorded error.
type ErrorPath struct {
	Path   string // slash path relative to the project root
	Line   int    // the line the error names, 0 when none
	Source string // where the error was recorded, e.g. ".planning/conversations/main.jsonl#01J…"
}

// errorPaths returns the existing project files named by recorded errors
// (seeds/002 §3 "Files referenced in error messages"): error signals
// (signals.FromMessages) of the last errorTailMessages messages of each
// conversation in convs, the errors of the latest preservation block in
// .planning/context-preserved.md, the error signals of the active loop
// file, and the errors recorded by open debug files. Each path appears
// once, at its first source.
func (e *Engine) errorPaths(ctx context.Context, proj *planning.Project, convs []string) []ErrorPath {
	var texts []signals.Signal
	if len(convs) > 0 {
		if store, err := e.OpenConversations(); err == nil {
			for _, id := range convs {
				if ctx.Err() != nil {
					break
				}
				recs, err := store.Tail(id, errorTailMessages)
				if err != nil {
					continue
				}
				msgs := make([]signals.Message, 0, len(recs))
				for _, r := range recs {
					if r.Kind != conversation.KindMessage {
						continue
					}
					msgs = append(msgs, signals.Message{ID: r.ID, Role: r.Role, Content: capErrorText(r.Content), ToolName: r.ToolName, IsError: r.IsError, Source: ConversationLog(id) + "#" + r.ID})
				}
				for _, s := range signals.FromMessages(msgs) {
					if s.Kind == signals.KindError {
						texts = append(texts, s)
					}
				}
			}
		}
	}
	if src, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(PreservedFile))); err == nil {
		blocks, _ := signals.ParseBlocks(PreservedFile, src)
		if b, ok := signals.Latest(blocks); ok {
			at := fmt.Sprintf("%s:%d", PreservedFile, b.Line)
			for _, s := range b.Signals {
				if s.Kind != signals.KindError {
					continue
				}
				if s.Source == "" || strings.HasPrefix(s.Source, PreservedFile) {
					s.Source = at
				} else {
					s.Source = at + " (recorded at " + s.Source + ")"
				}
				texts = append(texts, s)
			}
		}
	}
	if l := activeLoop(proj); l != nil {
		for _, s := range signals.FromLoop(l) {
			if s.Kind == signals.KindError {
				if !strings.HasPrefix(s.Source, PlanningDir+"/") {
					s.Source = PlanningDir + "/" + s.Source
				}
				texts = append(texts, s)
			}
		}
	}
	if proj != nil {
		for _, d := range proj.Debug {
			for _, s := range signals.FromDebug(d) {
				if s.Kind == signals.KindError {
					if !strings.HasPrefix(s.Source, PlanningDir+"/") {
						s.Source = PlanningDir + "/" + s.Source
					}
					texts = append(texts, s)
				}
			}
		}
	}
	var planDirs []string
	if proj != nil && proj.CurrentPlan != nil {
		for _, f := range proj.CurrentPlan.FilesModified {
			planDirs = append(planDirs, path.Dir(filepath.ToSlash(f)))
		}
		for _, t := range proj.CurrentPlan.Tasks {
			for _, f := range t.Files {
				planDirs = append(planDirs, path.Dir(filepath.ToSlash(f)))
			}
		}
	}
	var out []ErrorPath
	seen := map[string]bool{}
	for _, s := range texts {
		for _, c := range ExtractPaths(s.Text) {
			rel, ok := e.projectFile(c.Path)
			if !ok && !strings.Contains(c.Path, "/") {
				rel, ok = e.bareFile(c.Path, s.Text, planDirs)
			}
			if !ok || seen[rel] {
				continue
			}
			seen[rel] = true
			out = append(out, ErrorPath{Path: rel, Line: c.Line, Source: s.Source})
		}
	}
	return out
}

// bareFile resolves a file name printed without its directory (Go's test
// output says "handler_test.go:29", relative to the package) to a project
// file: it tries the directories named in the same error text (paths, and
// the trailing parts of package paths such as
// "example.com/shortlink/internal/api"), then the directories of the
// current plan's files, and keeps the name only when exactly one candidate
// exists, so a common name such as main.go is never guessed.
func (e *Engine) bareFile(name, text string, planDirs []string) (string, bool) {
	var dirs []string
	for i, f := range strings.Fields(text) {
		if i > 400 {
			break
		}
		f = strings.Trim(f, "\"'`()[]{}<>,;:")
		if !strings.Contains(f, "/") || strings.Contains(f, "://") {
			continue
		}
		if strings.HasSuffix(f, "/"+name) || f == name {
			continue
		}
		parts := strings.Split(strings.Trim(f, "/"), "/")
		if ext := path.Ext(parts[len(parts)-1]); ext != "" {
			parts = parts[:len(parts)-1] // a file: its directory
		}
		for j := range parts {
			dirs = append(dirs, strings.Join(parts[j:], "/"))
		}
	}
	dirs = append(dirs, planDirs...)
	found := ""
	for _, d := range dirs {
		if d == "" || d == "." {
			continue
		}
		if rel, ok := e.projectFile(d + "/" + name); ok {
			if found != "" && found != rel {
				return "", false
			}
			found = rel
		}
	}
	return found, found != ""
}

// maxErrorText bounds the text of one message searched for error paths, in
// bytes: the head and the tail are kept (a stack trace names files at both
// ends), so a 10 MB tool output costs no more than 64 KiB.
const maxErrorText = 64 << 10

// capErrorText keeps the first and last maxErrorText/2 bytes of s.
func capErrorText(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	return strings.ToValidUTF8(s[:maxErrorText/2]+"\n"+s[len(s)-maxErrorText/2:], "")
}

// activeLoop is the loop the health section shows: the one
// loops/active-loop.json names, else the last.
func activeLoop(proj *planning.Project) *planning.Loop {
	if proj == nil || len(proj.Loops) == 0 {
		return nil
	}
	l := proj.Loops[len(proj.Loops)-1]
	for _, cand := range proj.Loops {
		if cand.ID == proj.ActiveLoop {
			l = cand
		}
	}
	return l
}

// projectFile turns a path named in an error (relative to the project root,
// or absolute under it) into a slash path relative to the root when it is a
// regular file inside the project, following symbolic links only when they
// stay inside.
func (e *Engine) projectFile(p string) (string, bool) {
	var rel string
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		r, ok := e.relPath(p)
		if !ok {
			return "", false
		}
		rel = r
	} else {
		c, err := ignore.Clean(p)
		if err != nil || c == "." {
			return "", false
		}
		rel = c
	}
	if rel == ".git" || strings.HasPrefix(rel, ".git/") || strings.Contains(rel, "/.git/") {
		return "", false
	}
	abs := filepath.Join(e.dir, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", false
	}
	if r, ok := e.relPath(real); !ok || r == "." {
		return "", false
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return rel, true
}

// PathRef is a file path named in a text, with the line it names (0 when
// none).
type PathRef struct {
	Path string
	Line int
}

// ExtractPaths finds the file paths an error text names, in order of first
// appearance, each once: "internal/api/handler.go:42:", "at src/x.ts:10:5",
// "(/abs/proj/src/x.ts:10:5)", "src/x.ts(10,5)", `File "app/main.py", line
// 12`, "--> src/main.rs:3:1" or a bare "pkg/util/strings.go". A candidate
// contains a "/" or ends in an extension of 1–10 letters or digits; URLs,
// options ("-x") and names with characters paths rarely hold are left out.
// Paths come back cleaned but not checked: the caller keeps those that exist
// inside the project. At most maxErrorPaths are returned.
func ExtractPaths(text string) []PathRef {
	var out []PathRef
	seen := map[string]bool{}
	isDelim := func(r rune) bool {
		switch r {
		case ' ', '\t', '\n', '\r', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|', '=', '*':
			return true
		}
		return false
	}
	fields := strings.FieldsFunc(text, isDelim)
	for i, tok := range fields {
		if len(out) >= maxErrorPaths {
			break
		}
		p, line := splitLineSuffix(tok)
		if line == 0 && i+2 < len(fields) && fields[i+1] == "line" {
			// Python: File "x.py", line 12
			if n, err := strconv.Atoi(strings.TrimRight(fields[i+2], ":")); err == nil && n > 0 {
				line = n
			}
		}
		p = strings.TrimRight(p, ".:")
		if !pathLike(p) {
			continue
		}
		clean := path.Clean(p)
		if strings.HasPrefix(p, "/") {
			clean = "/" + strings.TrimPrefix(clean, "/")
		}
		if clean == "." || clean == "/" || clean == ".." || strings.HasPrefix(clean, "../") || seen[clean] {
			continue
		}
		seen[clean] = true
		out = append(out, PathRef{Path: clean, Line: line})
	}
	return out
}

// splitLineSuffix cuts ":42", ":42:5" and a trailing ":" from tok and
// returns the line.
func splitLineSuffix(tok string) (string, int) {
	tok = strings.TrimRight(tok, ":")
	i := strings.IndexByte(tok, ':')
	if i <= 0 {
		return tok, 0
	}
	rest := tok[i+1:]
	num := rest
	if j := strings.IndexByte(rest, ':'); j >= 0 {
		num = rest[:j]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		return tok, 0
	}
	return tok[:i], n
}

// pathLike reports whether s looks like a file path worth a stat.
func pathLike(s string) bool {
	if len(s) < 3 || len(s) > 1024 || strings.HasPrefix(s, "-") || strings.Contains(s, "://") || strings.Contains(s, "//") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '/', c == '.', c == '_', c == '-', c == '@', c == '+', c == '~', c == '$', c >= 0x80:
		default:
			return false
		}
	}
	base := s[strings.LastIndexByte(s, '/')+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot > 0 && dot < len(base)-1 && len(base)-dot-1 <= 10 {
		ext := base[dot+1:]
		letter := false
		for i := 0; i < len(ext); i++ {
			c := ext[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
			if c > '9' {
				letter = true
			}
		}
		if letter {
			return true
		}
	}
	return strings.Contains(strings.Trim(s, "/"), "/") && base != ""
}

// taskType picks the current task type (FORMATS.md §2.10 "Dynamic
// exclusion"): the first of the current plan's front matter keys
// task_type, type and subsystem whose value is a configured task type or
// "testing" ("tdd" counts as testing), else the task type whose keywords
// (files.task_keywords, or its own name) appear as whole words in the
// current task's name. When the name matches several types, testing wins
// (it includes everything); any other tie gives no type. It returns the
// type and where it came from, or "" twice.
func taskType(f *config.Files, proj *planning.Project) (string, string) {
	pl := proj.CurrentPlan
	if pl == nil {
		return "", ""
	}
	known := func(t string) bool {
		_, ok := f.TaskTypes[t]
		return ok || t == config.TypeTesting
	}
	if md := pl.Markdown; md != nil {
		for _, key := range []string{"task_type", "type", "subsystem"} {
			v, ok := md.Meta(key)
			if !ok {
				continue
			}
			v = strings.ToLower(strings.Trim(strings.TrimSpace(v), `"'`))
			if v == "tdd" {
				v = config.TypeTesting
			}
			if known(v) {
				return v, "front matter " + key + " of " + PlanningDir + "/" + pl.Path
			}
		}
	}
	t := proj.NextTask
	if t == nil || len(f.TaskKeywords) == 0 && len(f.TaskTypes) == 0 {
		return "", ""
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(t.Text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r >= 0x80)
	}) {
		words[w] = true
	}
	types := f.Types()
	if _, ok := f.TaskTypes[config.TypeTesting]; !ok {
		types = append(types, config.TypeTesting)
	}
	var hits []string
	var hitWord string
	for _, typ := range types {
		kws, ok := f.TaskKeywords[typ]
		if !ok {
			kws = []string{typ}
		}
		for _, k := range kws {
			if words[strings.ToLower(k)] {
				hits = append(hits, typ)
				if hitWord == "" || typ == config.TypeTesting {
					hitWord = k
				}
				break
			}
		}
	}
	where := fmt.Sprintf("%s/%s:%d", PlanningDir, pl.Path, t.Line)
	for _, h := range hits {
		if h == config.TypeTesting {
			return h, fmt.Sprintf("keyword %q of the current task (%s)", hitWord, where)
		}
	}
	if len(hits) == 1 {
		return hits[0], fmt.Sprintf("keyword %q of the current task (%s)", hitWord, where)
	}
	return "", ""
}

// Files returns the project files that may enter context, sorted: what
// `.gitignore` files, `.git/info/exclude`, `.powerignore` and the current
// task type's exclude globs (recite.yaml files.task_types) leave, plus the
// never-exclude files that exist: files named by the current plan, by
// recorded errors (the targets' conversations, the latest preservation
// block, the active loop), by the targets' include lists and by include.
// The global excludes file is not read.
func (e *Engine) Files(ctx context.Context, include []string) ([]FileEntry, error) {
	m, sc, err := e.matcher(ctx, include)
	if err != nil {
		return nil, err
	}
	paths, err := m.Walk(ctx, ignore.WalkOptions{Include: sc.incs})
	if err != nil {
		return nil, err
	}
	why := map[string]string{}
	for _, inc := range sc.incs {
		if _, seen := why[inc.Path]; seen {
			continue
		}
		if fi, err := os.Stat(filepath.Join(e.dir, filepath.FromSlash(inc.Path))); err == nil && !fi.IsDir() && m.Match(inc.Path, false).Ignored {
			why[inc.Path] = inc.Reason
		}
	}
	// Walk returns the paths sorted bytewise.
	out := make([]FileEntry, 0, len(paths))
	for _, p := range paths {
		out = append(out, FileEntry{Path: p, NeverExclude: why[p]})
	}
	return out, nil
}

// Explanation is the answer of Why: what the ignore files and the
// never-exclude list decide (ignore.Explanation; its fields are inlined in
// JSON), or, for a path that never enters context whatever they say, the
// reason in Excluded.
type Explanation struct {
	ignore.Explanation
	// Excluded says why the path can never enter context: ".git/ is never
	// part of context", or "beyond a symbolic link that leaves the
	// project"; "" otherwise.
	Excluded string `json:"excluded,omitempty"`
}

// String renders x like `git check-ignore -v` (see ignore.Explanation),
// or "excluded: REASON", a TAB and the path.
func (x Explanation) String() string {
	if x.Excluded != "" {
		return "excluded: " + x.Excluded + "\t" + x.Path
	}
	return x.Explanation.String()
}

// Why explains the verdict on one path like `git check-ignore -v`: the
// deciding file, line and pattern (a task-type glob names recite.yaml and
// the task type), or "never-exclude: named by …" (for a file named by an
// error: "never-exclude: named by error at SOURCE"), or, for a path under
// .git/ or beyond a symbolic link that leaves the project, "excluded: …".
func (e *Engine) Why(ctx context.Context, rel string, include []string) (Explanation, error) {
	m, sc, err := e.matcher(ctx, include)
	if err != nil {
		return Explanation{}, err
	}
	c, err := ignore.Clean(rel)
	if err != nil {
		return Explanation{}, &InputError{err}
	}
	isDir := strings.HasSuffix(rel, "/")
	if st, err := os.Lstat(filepath.Join(e.dir, filepath.FromSlash(c))); err == nil {
		isDir = st.IsDir()
	}
	x := Explanation{Explanation: m.Explain(c, isDir, sc.incs)}
	switch {
	case inGitDir(c):
		x.Excluded = ".git/ is never part of context"
	case !e.resolvesInside(c):
		x.Excluded = "beyond a symbolic link that leaves the project"
	}
	if x.Excluded != "" {
		x.InContext, x.Include = false, nil
	}
	return x, nil
}

// inGitDir reports whether slash path rel is a .git directory or inside
// one (the project's or a nested repository's): never listed, never
// read, whatever the ignore files or a never-exclude entry say.
func inGitDir(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" {
			return true
		}
	}
	return false
}

// resolvesInside reports whether the directory of slash path rel,
// relative to the project, stays inside the project once every symbolic
// link on its way is resolved (issue 6 review: a plan naming
// src/dirlink/outside.txt, with src/dirlink a link to /tmp/x, must not
// list it). The last component is not followed: like git, recite lists a
// symbolic link as itself (src/dirlink), and the files section never
// reads one that leaves the project (projectFile). A directory that does
// not exist yet is judged by its longest existing ancestor.
func (e *Engine) resolvesInside(rel string) bool {
	root, err := filepath.EvalSymlinks(e.dir)
	if err != nil {
		return false
	}
	p := filepath.Dir(filepath.Join(e.dir, filepath.FromSlash(rel)))
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			r, err := filepath.Rel(root, real)
			return err == nil && (r == "." || filepath.IsLocal(r))
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

// keepInside drops the never-exclude entries that name a path under .git
// or beyond a symbolic link that leaves the project (resolvesInside): git
// itself never lists a path beyond a symbolic link, and the walk of
// included paths would otherwise follow the link.
func (e *Engine) keepInside(incs []ignore.Include) []ignore.Include {
	kept := incs[:0:0]
	for _, inc := range incs {
		if inGitDir(inc.Path) || !e.resolvesInside(inc.Path) {
			continue
		}
		kept = append(kept, inc)
	}
	return kept
}

// matcher loads the ignore files with the current task type's globs and
// computes the never-exclude list over every target's conversation.
func (e *Engine) matcher(ctx context.Context, include []string) (*ignore.Matcher, fileScope, error) {
	for _, p := range include {
		if c := path.Clean(filepath.ToSlash(p)); !fs.ValidPath(strings.TrimPrefix(c, "./")) || c == "." {
			return nil, fileScope{}, &InputError{fmt.Errorf("--include %q: a path must be relative to the project and stay inside it", p)}
		}
	}
	cfg, _, err := config.Load(e.dir)
	if err != nil {
		return nil, fileScope{}, &InputError{err}
	}
	proj := &planning.Project{}
	if pdir, err := e.planningDir(); err == nil {
		if p, err := planning.LoadCached(os.DirFS(pdir), e.parsed); err == nil {
			proj = p
		}
	}
	var convs []string
	for _, t := range cfg.Targets {
		if t.Conversation != "" {
			convs = append(convs, t.Conversation)
		}
	}
	sc := e.scope(ctx, cfg, proj, convs, cfg.Targets, include)
	sc.incs = e.keepInside(sc.incs)
	m, err := ignore.Load(e.dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, sc, &InputError{err}
		}
		return nil, sc, err
	}
	m.SetExtra(sc.extra)
	return m, sc, nil
}
