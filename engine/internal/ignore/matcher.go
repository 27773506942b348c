package ignore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Names of the ignore files a Matcher reads, relative to the root.
const (
	// PowerignoreFile is recite's context filter at the project root, in
	// gitignore syntax (docs/formats.md#powerignore). It outranks every git
	// file.
	PowerignoreFile = ".powerignore"
	// GitignoreFile is read in every directory the walk enters.
	GitignoreFile = ".gitignore"
	// ExcludeFile is the repository's own exclude list, the lowest rank.
	ExcludeFile = ".git/info/exclude"
)

// Source names the pattern that decided a verdict, as `git check-ignore -v`
// prints it: File is the slash path of the ignore file relative to the root,
// Line is 1-based, Pattern is the line as written (with "!" and a trailing
// "/" but without trimmed trailing spaces).
type Source struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Pattern string `json:"pattern"`
	// Note says why an extra pattern applies (SetExtra), e.g. "task type
	// frontend, front matter task_type of …"; "" for ignore files.
	Note string `json:"note,omitempty"`
}

// String formats s as FILE:LINE:PATTERN.
func (s Source) String() string {
	return fmt.Sprintf("%s:%d:%s", s.File, s.Line, s.Pattern)
}

// Verdict is the result of matching one path.
type Verdict struct {
	// Ignored reports whether git (with .powerignore on top) excludes the
	// path, either by its own last matching pattern or because an ancestor
	// directory is excluded.
	Ignored bool `json:"ignored"`
	// Source is the deciding pattern; nil when no pattern matched. A
	// negative pattern can decide a verdict with Ignored false.
	Source *Source `json:"source,omitempty"`
	// Via is the excluded ancestor directory that hides the path (slash
	// path relative to the root), or "" when the path's own match decided.
	Via string `json:"via,omitempty"`
}

// Matcher answers gitignore questions for one directory tree with git's
// semantics (git 2.39 dir.c), plus .powerignore.
//
// Precedence, highest first (the first list holding a matching pattern
// decides, and inside a list the last matching line wins):
//
//  1. .powerignore at the root (recite's context filter);
//  2. .gitignore files, the deepest directory first, each relative to its
//     own directory;
//  3. .git/info/exclude.
//
// Git ranks --exclude-from files below .gitignore files; recite puts
// .powerignore above them so that a "!" line in a .gitignore cannot pull a
// file back into context. The global excludes file (core.excludesFile,
// ~/.config/git/ignore) is deliberately not read: context must not depend on
// the machine it is built on. core.ignoreCase is taken as false. .gitignore
// files that are symlinks are not read (as git ≥ 2.32).
//
// A Matcher is safe for concurrent use; .gitignore files below the root are
// read on first use and cached.
type Matcher struct {
	root    string
	power   *patternList
	exclude *patternList
	extra   *patternList // SetExtra: excluded on top of every ignore file

	mu   sync.Mutex
	dirs map[string]*patternList // dir slash path ("" = root) → its .gitignore (nil = none)
}

// Load reads root/.powerignore, root/.git/info/exclude and root/.gitignore.
// Missing files are fine. It returns an error when root is not a directory
// or an existing ignore file cannot be read; .gitignore files deeper down
// are read later, by Match and Walk.
func Load(root string) (*Matcher, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("ignore: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("ignore: %s is not a directory", root)
	}
	m := &Matcher{root: root, dirs: map[string]*patternList{}}
	if m.power, err = readList(root, PowerignoreFile, ""); err != nil {
		return nil, err
	}
	if m.exclude, err = readList(root, ExcludeFile, ""); err != nil {
		return nil, err
	}
	if _, err := m.gitignore(""); err != nil {
		return nil, err
	}
	return m, nil
}

// Parse builds a Matcher without touching the disk below root: powerignore,
// gitignore and exclude are the contents of the three root files (nil for
// none). Deeper .gitignore files are still read from root on demand; pass a
// root without any to use the contents alone.
func Parse(root string, powerignore, gitignore, exclude []byte) *Matcher {
	m := &Matcher{root: root, dirs: map[string]*patternList{}}
	if powerignore != nil {
		m.power = parsePatterns(powerignore, PowerignoreFile, "")
	}
	if exclude != nil {
		m.exclude = parsePatterns(exclude, ExcludeFile, "")
	}
	var l *patternList
	if gitignore != nil {
		l = parsePatterns(gitignore, GitignoreFile, "")
	}
	m.dirs[""] = l
	return m
}

// readList reads one ignore file; a missing file, or a path that is not a
// regular file (a symlink, a directory), gives a nil list.
func readList(root, rel, base string) (*patternList, error) {
	name := filepath.Join(root, filepath.FromSlash(rel))
	st, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ignore: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("ignore: %w", err)
	}
	return parsePatterns(data, rel, base), nil
}

// gitignore returns the parsed .gitignore of directory dir (slash path, ""
// for the root), reading it on first use.
func (m *Matcher) gitignore(dir string) (*patternList, error) {
	m.mu.Lock()
	l, ok := m.dirs[dir]
	m.mu.Unlock()
	if ok {
		return l, nil
	}
	base := ""
	file := GitignoreFile
	if dir != "" {
		base = dir + "/"
		file = base + GitignoreFile
	}
	l, err := readList(m.root, file, base)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.dirs[dir] = l
	m.mu.Unlock()
	return l, nil
}

// decide applies the precedence to one path whose parent directories are
// not excluded. chain holds the .gitignore lists of the path's directory and
// its ancestors, deepest first.
func (m *Matcher) decide(chain []*patternList, rel, name string, isDir bool) (*pattern, *patternList) {
	p, l := m.decideFiles(chain, rel, name, isDir)
	if (p == nil || p.negative) && m.extra != nil {
		if q := m.extra.match(rel, name, isDir); q != nil && !q.negative {
			return q, m.extra
		}
	}
	return p, l
}

// decideFiles applies the precedence of the ignore files alone.
func (m *Matcher) decideFiles(chain []*patternList, rel, name string, isDir bool) (*pattern, *patternList) {
	if p := m.power.match(rel, name, isDir); p != nil {
		return p, m.power
	}
	for _, l := range chain {
		if p := l.match(rel, name, isDir); p != nil {
			return p, l
		}
	}
	if p := m.exclude.match(rel, name, isDir); p != nil {
		return p, m.exclude
	}
	return nil, nil
}

// ExtraPattern is one exclude pattern that does not come from an ignore file,
// such as a task-type glob of recite.yaml
// (docs/formats.md#task-type-exclusions): gitignore syntax relative to the
// root, and the file and line that Explain names as its source.
type ExtraPattern struct {
	Pattern string
	File    string
	Line    int
	// Note says why the pattern applies; Explain reports it (the first
	// pattern's note stands for all).
	Note string
}

// SetExtra adds patterns excluded on top of every ignore file: a path is
// out of context when the ignore files exclude it or when the last of these
// patterns that matches it is not a "!" pattern. A "!" line here only
// cancels earlier extra lines; it never re-includes what an ignore file
// excludes. Call it before Walk, Match or ReadDir; nil removes them.
func (m *Matcher) SetExtra(pats []ExtraPattern) {
	if len(pats) == 0 {
		m.extra = nil
		return
	}
	l := &patternList{file: pats[0].File, note: pats[0].Note}
	for _, ep := range pats {
		if p, ok := parseLine(trimTrailingSpaces(ep.Pattern), ep.Line); ok {
			l.patterns = append(l.patterns, p)
		}
	}
	m.extra = l
}

// CheckPattern reports why s is not a usable gitignore pattern for an
// exclude list written in YAML (one pattern per item): empty, a comment,
// a lone "!" or "/", a ".." element (patterns cannot leave the root), a
// trailing unescaped backslash, or an unclosed "[" (git treats a pattern
// with an unclosed bracket as matching nothing).
func CheckPattern(s string) error {
	t := trimTrailingSpaces(s)
	switch {
	case strings.TrimSpace(t) == "":
		return errors.New("empty pattern")
	case strings.HasPrefix(t, "#"):
		return fmt.Errorf("pattern %q starts with \"#\" (a comment in gitignore syntax; write \\# for a literal #)", s)
	}
	if _, ok := parseLine(t, 1); !ok {
		return fmt.Errorf("pattern %q matches nothing", s)
	}
	body := strings.TrimPrefix(t, "!")
	for _, el := range strings.Split(body, "/") {
		if el == ".." {
			return fmt.Errorf("pattern %q has a \"..\" element: patterns are relative to the project root and cannot leave it", s)
		}
	}
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\\':
			if i+1 >= len(body) {
				return fmt.Errorf("pattern %q ends with an unescaped backslash", s)
			}
			i++
		case '[':
			j := i + 1
			if j < len(body) && (body[j] == '!' || body[j] == '^') {
				j++
			}
			if j < len(body) && body[j] == ']' {
				j++
			}
			for j < len(body) && body[j] != ']' {
				if body[j] == '[' && j+1 < len(body) && body[j+1] == ':' {
					if k := strings.Index(body[j+2:], ":]"); k >= 0 {
						j += k + 4
						continue
					}
				}
				j++
			}
			if j >= len(body) {
				return fmt.Errorf("pattern %q has an unclosed \"[\"", s)
			}
			i = j
		}
	}
	return nil
}

func source(p *pattern, l *patternList) *Source {
	if p == nil {
		return nil
	}
	return &Source{File: l.file, Line: p.line, Pattern: p.display, Note: l.note}
}

// Clean checks that rel is a local slash path and returns it cleaned ("."
// for the root). Trailing spaces are kept: they are part of file names.
func Clean(rel string) (string, error) {
	c := path.Clean(strings.TrimSuffix(rel, "/"))
	if c == "" || strings.HasPrefix(c, "/") || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("ignore: path %q is not inside the project", rel)
	}
	return c, nil
}

// Match decides whether the slash path rel (relative to the root, a
// directory when isDir) is excluded, like `git check-ignore -v --no-index`
// with .powerignore on top: an excluded ancestor directory excludes
// everything below it, whatever later "!" lines say ("It is not possible to
// re-include a file if a parent directory of that file is excluded",
// gitignore(5)). A .gitignore that cannot be read counts as empty; Walk
// reports such errors. A path outside the root is reported not ignored.
func (m *Matcher) Match(rel string, isDir bool) Verdict {
	c, err := Clean(rel)
	if err != nil || c == "." {
		return Verdict{}
	}
	parts := strings.Split(c, "/")
	chain := make([]*patternList, 0, len(parts))
	dir := ""
	for i, name := range parts {
		l, _ := m.gitignore(dir)
		if l != nil {
			chain = append([]*patternList{l}, chain...)
		}
		cur := name
		if dir != "" {
			cur = dir + "/" + name
		}
		last := i == len(parts)-1
		p, l := m.decide(chain, cur, name, isDir || !last)
		if last {
			return Verdict{Ignored: p != nil && !p.negative, Source: source(p, l)}
		}
		if p != nil && !p.negative {
			return Verdict{Ignored: true, Source: source(p, l), Via: cur}
		}
		dir = cur
	}
	return Verdict{}
}
