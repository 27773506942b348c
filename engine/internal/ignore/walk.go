package ignore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Include names a path that enters context even when an ignore file excludes
// it (docs/architecture.md#never-excluded-files,
// docs/formats.md#files-that-always-enter).
type Include struct {
	// Path is a slash path relative to the root. A directory includes
	// every file below it (except .git).
	Path string `json:"path"`
	// Reason says who named the path, e.g. "current plan
	// .planning/phases/01-x/01-01-PLAN.md"; Explain prints it.
	Reason string `json:"reason"`
}

// WalkOptions tunes Walk. The zero value walks with GOMAXPROCS readers and
// no extra paths.
type WalkOptions struct {
	// Include lists never-exclude paths; those that exist are returned even
	// when ignored. A path that escapes the root is an error.
	Include []Include
	// Workers bounds the directories read at once; 0 means
	// 4×runtime.GOMAXPROCS(0), 1 a plain sequential walk. Directory reads
	// block in the kernel, so more readers than CPUs pay off: on the
	// 90,716-file mktree tree with 2 CPUs, 1 worker takes 104 ms, 2 take
	// 104 ms, 8 take 68 ms, 16 are erratic (BenchmarkWalk).
	Workers int
}

// List loads the ignore files of root and walks it: the one call the
// `recite files` command needs. See Load and (*Matcher).Walk.
func List(ctx context.Context, root string, opts WalkOptions) ([]string, error) {
	m, err := Load(root)
	if err != nil {
		return nil, err
	}
	return m.Walk(ctx, opts)
}

// Walk returns the sorted (bytewise) slash paths, relative to the root, of
// the files that are not ignored, like `git ls-files --others
// --exclude-standard --exclude-from=.powerignore -z` in a repository with
// nothing tracked (apart from .powerignore's higher rank, see Matcher).
//
// Excluded directories are not entered, so nothing below them is listed, but a
// directory is excluded only by a pattern that matches the directory itself:
// "vendor/**" excludes vendor's contents, not vendor/, so "!vendor/keep.txt"
// brings the file back (docs/formats.md#powerignore). Only entries named
// ".git" are skipped without a pattern. Symbolic links are listed as files and
// never followed; sockets, devices and pipes are skipped (git does the same).
// A nested repository is walked like any directory (git would list it as one
// "dir/" entry).
//
// It stops at the first error reading a directory or a .gitignore (the
// error names the path) and when ctx is done, returning ctx.Err().
func (m *Matcher) Walk(ctx context.Context, opts WalkOptions) ([]string, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = 4 * runtime.GOMAXPROCS(0)
	}
	w := &walker{m: m, ctx: ctx, sem: make(chan struct{}, workers-1)}
	root, err := openDir(m.root)
	if err != nil {
		return nil, fmt.Errorf("ignore: walk: %w", err)
	}
	var tree walkNode
	w.dir("", root, nil, &tree)
	w.wg.Wait()
	if w.err != nil {
		return nil, w.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	files := tree.flatten(make([]string, 0, w.files.Load()))
	if len(opts.Include) > 0 {
		extra, err := m.included(ctx, opts.Include)
		if err != nil {
			return nil, err
		}
		slices.Sort(extra)
		files = mergeSorted(files, slices.Compact(extra))
	}
	return files, nil
}

// mergeSorted merges two sorted lists of distinct paths into one, each
// path once.
func mergeSorted(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch c := strings.Compare(a[0], b[0]); {
		case c < 0:
			out, a = append(out, a[0]), a[1:]
		case c > 0:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// direntSlices recycles the entry lists of directories.
var direntSlices = sync.Pool{New: func() any { s := make([]dirent, 0, 64); return &s }}

type walker struct {
	m     *Matcher
	ctx   context.Context
	sem   chan struct{} // free slots for extra goroutines
	wg    sync.WaitGroup
	files atomic.Int64 // files listed, to size the result

	mu  sync.Mutex
	err error
}

// walkNode is one directory of the walk: its entries in context, sorted so
// that listing them depth first gives paths in bytewise order (see
// compareEntries). Each directory sorts its own entries, so no sort ever
// compares two long paths.
type walkNode struct {
	items []walkItem
}

// walkItem is a file or (sub set) a directory of a walkNode: its slash
// path, where its name starts in it, and for a directory its node.
type walkItem struct {
	path string
	sub  *walkNode
	at   uint32
}

func (it walkItem) name() string { return it.path[it.at:] }

// flatten appends the files of n and below, depth first, to out.
func (n *walkNode) flatten(out []string) []string {
	for _, it := range n.items {
		if it.sub == nil {
			out = append(out, it.path)
		} else {
			out = it.sub.flatten(out)
		}
	}
	return out
}

// compareEntries orders the entries of one directory as their paths sort
// bytewise: a directory named d sorts as "d/" (its files are "d/…"), so
// "a.txt" (".", 0x2E) comes before the files of directory "a" ("/",
// 0x2F). Names are distinct and never hold "/".
func compareEntries(a, b walkItem) int {
	an, bn := a.name(), b.name()
	n := min(len(an), len(bn))
	if c := strings.Compare(an[:n], bn[:n]); c != 0 {
		return c
	}
	return cmp.Compare(nextByte(an, a.sub != nil, n), nextByte(bn, b.sub != nil, n))
}

// nextByte is the byte at n, at most len(name), of the sort key of an
// entry named name: '/' after a directory's name, -1 after a file's.
func nextByte(name string, dir bool, n int) int {
	switch {
	case n < len(name):
		return int(name[n])
	case dir:
		return '/'
	}
	return -1
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

func (w *walker) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}

// dir lists directory rel (slash, "" for the root), open as h, into node,
// and closes h; parent holds the .gitignore lists of rel's ancestors,
// deepest first. Subdirectories are opened relative to h and walked in
// another goroutine when a slot is free, else in this one.
func (w *walker) dir(rel string, h dirHandle, parent []*patternList, node *walkNode) {
	defer h.close()
	if w.ctx.Err() != nil || w.failed() {
		return
	}
	prefix := ""
	if rel != "" {
		prefix = rel + "/"
	}
	bufp := direntSlices.Get().(*[]dirent)
	entries, err := h.entries((*bufp)[:0], prefix)
	defer func() {
		clear(entries)
		*bufp = entries[:0]
		direntSlices.Put(bufp)
	}()
	if err != nil {
		w.fail(fmt.Errorf("ignore: walk: %w", err))
		return
	}
	chain := parent
	for _, e := range entries {
		if e.Name() == GitignoreFile && e.Type().IsRegular() {
			l, err := w.m.gitignore(rel)
			if err != nil {
				w.fail(err)
				return
			}
			if l != nil {
				chain = make([]*patternList, 0, len(parent)+1)
				chain = append(append(chain, l), parent...)
			}
			break
		}
	}
	node.items = make([]walkItem, 0, len(entries))
	files := 0
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		typ := e.Type()
		isDir := typ.IsDir()
		if !isDir && !typ.IsRegular() && typ&fs.ModeSymlink == 0 {
			continue
		}
		p := e.path
		if pat, _ := w.m.decide(chain, p, name, isDir); pat != nil && !pat.negative {
			continue
		}
		if !isDir {
			node.items = append(node.items, walkItem{path: p, at: uint32(len(p) - len(name))})
			files++
			continue
		}
		sub := &walkNode{}
		node.items = append(node.items, walkItem{path: p, sub: sub, at: uint32(len(p) - len(name))})
		ch, err := h.openChild(name, p)
		if err != nil {
			w.fail(fmt.Errorf("ignore: walk: %w", err))
			return
		}
		select {
		case w.sem <- struct{}{}:
			w.wg.Add(1)
			go func() {
				defer func() { <-w.sem; w.wg.Done() }()
				w.dir(p, ch, chain, sub)
			}()
		default:
			w.dir(p, ch, chain, sub)
		}
	}
	slices.SortFunc(node.items, compareEntries)
	w.files.Add(int64(files))
}

// dirent is one directory entry: its path (the directory's slash path
// and its name; just the name from readDir), its name, and its type bits
// (fs.ModeDir, fs.ModeSymlink, another irregular bit, or 0 for a regular
// file).
type dirent struct {
	path string
	name string
	typ  fs.FileMode
}

func (d dirent) Name() string      { return d.name }
func (d dirent) Type() fs.FileMode { return d.typ }

// included returns the existing files named by incs, walking included
// directories without any ignore rule (except .git).
func (m *Matcher) included(ctx context.Context, incs []Include) ([]string, error) {
	var out []string
	for _, inc := range incs {
		rel, err := Clean(inc.Path)
		if err != nil {
			return nil, fmt.Errorf("include %q (%s): %w", inc.Path, inc.Reason, err)
		}
		if rel == "." {
			return nil, fmt.Errorf("ignore: include %q (%s) names the whole project", inc.Path, inc.Reason)
		}
		abs := filepath.Join(m.root, filepath.FromSlash(rel))
		st, err := os.Lstat(abs)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a plan may name a file it has yet to create
		}
		if err != nil {
			return nil, fmt.Errorf("ignore: include: %w", err)
		}
		if !st.IsDir() {
			if st.Mode().IsRegular() || st.Mode()&fs.ModeSymlink != 0 {
				out = append(out, rel)
			}
			continue
		}
		err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if d.Name() == ".git" {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
				r, err := filepath.Rel(m.root, p)
				if err != nil {
					return err
				}
				out = append(out, filepath.ToSlash(r))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("ignore: include %s: %w", rel, err)
		}
	}
	return out, nil
}

// Explanation says why a path enters context or not, for `recite files
// --why`.
type Explanation struct {
	Path string `json:"path"` // cleaned slash path
	// InContext is the final answer: not ignored, or named by an Include.
	InContext bool `json:"in_context"`
	// Verdict is what the ignore files alone decide.
	Verdict Verdict `json:"verdict"`
	// Include is the never-exclude entry that names the path, if any.
	Include *Include `json:"include,omitempty"`
}

// String renders e like `git check-ignore -v` (SOURCE:LINE:PATTERN, a TAB,
// the path), with "never-exclude: named by REASON" when an Include decides
// and "::" when no pattern matches (as check-ignore -v -n does).
func (e Explanation) String() string {
	switch {
	case e.Include != nil && e.Verdict.Ignored:
		return fmt.Sprintf("never-exclude: named by %s (overrides %s)\t%s", e.Include.Reason, e.Verdict.Source, e.Path)
	case e.Include != nil:
		return fmt.Sprintf("never-exclude: named by %s\t%s", e.Include.Reason, e.Path)
	case e.Verdict.Source == nil:
		return "::\t" + e.Path
	case e.Verdict.Via != "":
		return fmt.Sprintf("%s\t%s (inside excluded directory %s)%s", e.Verdict.Source, e.Path, e.Verdict.Via, note(e.Verdict.Source))
	default:
		return fmt.Sprintf("%s\t%s%s", e.Verdict.Source, e.Path, note(e.Verdict.Source))
	}
}

func note(s *Source) string {
	if s == nil || s.Note == "" {
		return ""
	}
	return " (" + s.Note + ")"
}

// Explain tells why rel (a directory when isDir) is or is not in context,
// given the never-exclude list incs. A path outside the root gets an
// empty, not-in-context Explanation.
func (m *Matcher) Explain(rel string, isDir bool, incs []Include) Explanation {
	c, err := Clean(rel)
	if err != nil {
		return Explanation{Path: rel}
	}
	e := Explanation{Path: c, Verdict: m.Match(c, isDir)}
	for i := range incs {
		ic, err := Clean(incs[i].Path)
		if err != nil {
			continue
		}
		if ic == c || strings.HasPrefix(c, ic+"/") {
			inc := incs[i]
			e.Include = &inc
			break
		}
	}
	e.InContext = !e.Verdict.Ignored || e.Include != nil
	return e
}

// Explain loads root's ignore files and explains rel; whether rel is a
// directory is read from the disk (a missing path counts as a file unless
// it ends in "/").
func Explain(root, rel string, incs []Include) (Explanation, error) {
	m, err := Load(root)
	if err != nil {
		return Explanation{}, err
	}
	c, err := Clean(rel)
	if err != nil {
		return Explanation{}, err
	}
	isDir := strings.HasSuffix(rel, "/")
	if st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(c))); err == nil {
		isDir = st.IsDir()
	}
	return m.Explain(c, isDir, incs), nil
}

// Entry is one directory entry that is in context.
type Entry struct {
	Name string // base name
	Dir  bool   // a directory (symbolic links count as files, never followed)
}

// ReadDir returns the entries of directory rel (slash path, "" for the
// root) that no ignore file or extra pattern excludes, sorted bytewise by
// name, skipping .git, sockets, devices and pipes as Walk does. Whether rel
// itself is excluded is not checked: callers descend from the root through
// entries ReadDir returned, as the file-tree section does, reading only the
// directories they show instead of the whole tree.
func (m *Matcher) ReadDir(rel string) ([]Entry, error) {
	c := ""
	if rel != "" && rel != "." {
		var err error
		if c, err = Clean(rel); err != nil {
			return nil, err
		}
	}
	var chain []*patternList
	dir := ""
	parts := []string{}
	if c != "" {
		parts = strings.Split(c, "/")
	}
	for i := 0; ; i++ {
		l, err := m.gitignore(dir)
		if err != nil {
			return nil, err
		}
		if l != nil {
			chain = append([]*patternList{l}, chain...)
		}
		if i == len(parts) {
			break
		}
		if dir == "" {
			dir = parts[i]
		} else {
			dir += "/" + parts[i]
		}
	}
	ents, err := readDir(filepath.Join(m.root, filepath.FromSlash(c)))
	if err != nil {
		return nil, fmt.Errorf("ignore: %w", err)
	}
	prefix := ""
	if c != "" {
		prefix = c + "/"
	}
	out := make([]Entry, 0, len(ents))
	for _, e := range ents {
		name := e.Name()
		typ := e.Type()
		if name == ".git" || !typ.IsDir() && !typ.IsRegular() && typ&fs.ModeSymlink == 0 {
			continue
		}
		if pat, _ := m.decide(chain, prefix+name, name, typ.IsDir()); pat != nil && !pat.negative {
			continue
		}
		out = append(out, Entry{Name: name, Dir: typ.IsDir()})
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
