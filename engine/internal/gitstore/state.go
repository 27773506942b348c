package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// wantFile is the desired state of one path: its blob, mode and the stat
// information of the work-tree file it was read from, and its content
// until the blob is written (nil for a file HEAD already holds).
type wantFile struct {
	hash    plumbing.Hash
	mode    filemode.FileMode
	info    os.FileInfo
	content []byte
	// cut is the length of the content committed when the Committer's
	// Content took less than the work-tree file (-1: all of it).
	cut int64
}

// state holds one CommitPaths run's view of the paths under the prefixes.
type state struct {
	repo     *git.Repository
	top      string
	gitDir   string
	prefixes []string
	// project is the prefix of repoDir in the work tree ("" or "DIR/"),
	// sel and scan the Committer's Select and Scan (nil: none).
	project string
	sel     func(path string, tracked bool) bool
	scan    func(path string, content []byte) error
	// appendOnly is the Committer's AppendOnly (nil: none); inHead holds
	// HEAD's files under the prefixes, by path.
	appendOnly func(path string) bool
	inHead     map[string]object.TreeEntry
	// content is the Committer's Content (nil: a file whole).
	content func(path string, content []byte) ([]byte, error)

	want        map[string]*wantFile // desired present files
	candidates  map[string]bool      // every path seen in HEAD, index or work tree
	treeChanges map[string]*wantFile // path → new content (never a deletion)
	kept        []string             // tracked in HEAD, missing from the work tree
	blocked     []string             // work-tree files whose commit would delete a kept file
	ignored     []string             // untracked files the ignore rules exclude
}

// selected reports whether the Committer's Select takes the repository
// path p (true without a Select).
func (s *state) selected(p string, tracked bool) bool {
	return s.sel == nil || s.sel(strings.TrimPrefix(p, s.project), tracked)
}

func (s *state) underAny(p string) bool {
	for _, pre := range s.prefixes {
		if under(p, pre) {
			return true
		}
	}
	return false
}

// collect gathers HEAD's, the index's and the work tree's files under the
// prefixes, writes blobs for the work-tree files, and computes the tree
// changes: additions and updates only (the history is append-only; see the
// package comment).
func (s *state) collect(base *object.Tree, idx *index.Index) error {
	s.want = map[string]*wantFile{}
	s.candidates = map[string]bool{}
	s.treeChanges = map[string]*wantFile{}
	inHead, err := s.headFiles(base)
	if err != nil {
		return err
	}
	s.inHead = inHead
	tracked := map[string]bool{}
	for p := range inHead {
		tracked[p] = true
	}
	for _, e := range idx.Entries {
		if s.underAny(e.Name) {
			tracked[e.Name] = true
		}
	}
	for p := range tracked {
		if s.selected(p, true) {
			s.candidates[p] = true
		}
	}
	ignored, err := s.matcher()
	if err != nil {
		return err
	}
	for _, pre := range s.prefixes {
		if err := s.walkPrefix(pre, tracked, ignored); err != nil {
			return fmt.Errorf("walk %s: %w", pre, err)
		}
	}
	for p := range s.candidates {
		w, err := s.readWorktree(p, tracked[p], ignored)
		if err != nil {
			return err
		}
		if w != nil {
			s.want[p] = w
		}
		old, was := inHead[p]
		switch {
		case w == nil && was:
			s.kept = append(s.kept, p) // never commit a deletion
		case w != nil && (!was || old.Hash != w.hash || old.Mode != w.mode):
			s.treeChanges[p] = w
		case w != nil:
			w.content = nil // HEAD holds the blob
		}
	}
	s.dropBlocked(inHead)
	slices.Sort(s.kept)
	slices.Sort(s.blocked)
	slices.Sort(s.ignored)
	return s.scanAndWrite()
}

// scanAndWrite shows the content of every change to the Committer's Scan,
// in path order, then writes their blobs: nothing is written when Scan
// refused any, and the errors it returned come back joined.
func (s *state) scanAndWrite() error {
	paths := make([]string, 0, len(s.treeChanges))
	for p := range s.treeChanges {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if err := s.checkShrunk(paths); err != nil {
		return err
	}
	if s.scan != nil {
		var errs []error
		for _, p := range paths {
			if err := s.scan(strings.TrimPrefix(p, s.project), s.treeChanges[p].content); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			return errors.Join(errs...)
		}
	}
	for _, p := range paths {
		w := s.treeChanges[p]
		if _, err := s.writeBlob(w.content); err != nil {
			return fmt.Errorf("write blob %s: %w", p, err)
		}
		w.content = nil
	}
	return nil
}

// checkShrunk returns the *ShrunkError of every append-only change whose
// content has fewer lines than HEAD's, joined. HEAD's blob is read only
// when the new content is smaller than it.
func (s *state) checkShrunk(paths []string) error {
	if s.appendOnly == nil {
		return nil
	}
	var errs []error
	for _, p := range paths {
		rel := strings.TrimPrefix(p, s.project)
		old, was := s.inHead[p]
		if !was || !s.appendOnly(rel) {
			continue
		}
		content := s.treeChanges[p].content
		blob, err := s.repo.BlobObject(old.Hash)
		if err != nil {
			return fmt.Errorf("read %s in HEAD: %w", p, err)
		}
		if int64(len(content)) >= blob.Size {
			continue
		}
		r, err := blob.Reader()
		if err != nil {
			return fmt.Errorf("read %s in HEAD: %w", p, err)
		}
		headLines, err := countLines(r)
		_ = r.Close()
		if err != nil {
			return fmt.Errorf("read %s in HEAD: %w", p, err)
		}
		if lines := bytes.Count(content, []byte{'\n'}); lines < headLines {
			errs = append(errs, &ShrunkError{Path: rel, HeadLines: headLines, Lines: lines})
		}
	}
	return errors.Join(errs...)
}

// countLines counts the line feeds r yields.
func countLines(r io.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := r.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// headFiles lists the files of base (HEAD's tree; nil: none) under the
// prefixes, by path.
func (s *state) headFiles(base *object.Tree) (map[string]object.TreeEntry, error) {
	inHead := map[string]object.TreeEntry{}
	if base == nil {
		return inHead, nil
	}
	for _, pre := range s.prefixes {
		e, err := base.FindEntry(pre)
		if err != nil {
			continue // not in HEAD
		}
		switch {
		case e.Mode == filemode.Dir:
			sub, err := base.Tree(pre)
			if err != nil {
				return nil, fmt.Errorf("read tree %s: %w", pre, err)
			}
			w := object.NewTreeWalker(sub, true, nil)
			for {
				name, ent, err := w.Next()
				if err != nil {
					break
				}
				if ent.Mode.IsFile() {
					inHead[pre+"/"+name] = ent
				}
			}
			w.Close()
		case e.Mode.IsFile():
			inHead[pre] = *e
		}
	}
	return inHead, nil
}

// walkPrefix adds to the candidates the work tree's regular files and
// symbolic links under pre, skipping .git folders, nested repositories,
// ignored folders holding nothing tracked and ignored untracked files.
func (s *state) walkPrefix(pre string, tracked map[string]bool, ignored gitignore.Matcher) error {
	root := filepath.Join(s.top, filepath.FromSlash(pre))
	return filepath.WalkDir(root, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, err := filepath.Rel(s.top, fp)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		parts := strings.Split(rel, "/")
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			if fp != root {
				if _, err := os.Lstat(filepath.Join(fp, ".git")); err == nil {
					return fs.SkipDir // a nested repository
				}
			}
			if ignored.Match(parts, true) && !hasTrackedBelow(tracked, rel) {
				s.ignored = append(s.ignored, strings.TrimPrefix(rel, s.project)+"/")
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		if !tracked[rel] && ignored.Match(parts, false) {
			s.ignored = append(s.ignored, strings.TrimPrefix(rel, s.project))
			return nil // never stage an ignored untracked file
		}
		if s.selected(rel, tracked[rel]) {
			s.candidates[rel] = true
		}
		return nil
	})
}

// dropBlocked leaves out a change that cannot enter the tree without
// deleting a file HEAD holds — a file below a path HEAD has as a file, or
// a file where HEAD has a directory — and lists it as blocked.
func (s *state) dropBlocked(inHead map[string]object.TreeEntry) {
	headDirs := map[string]bool{}
	for p := range inHead {
		for d := path.Dir(p); d != "." && !headDirs[d]; d = path.Dir(d) {
			headDirs[d] = true
		}
	}
	for p := range s.treeChanges {
		blocked := headDirs[p]
		for d := path.Dir(p); !blocked && d != "."; d = path.Dir(d) {
			_, blocked = inHead[d]
		}
		if blocked {
			delete(s.treeChanges, p)
			delete(s.want, p)
			s.blocked = append(s.blocked, p)
		}
	}
}

func hasTrackedBelow(tracked map[string]bool, dir string) bool {
	for p := range tracked {
		if under(p, dir) {
			return true
		}
	}
	return false
}

// readWorktree returns the desired state of p from the work tree, with its
// blob's hash and content (scanAndWrite writes the blob), or nil when p is
// absent (or an untracked ignored file).
func (s *state) readWorktree(p string, tracked bool, ignored gitignore.Matcher) (*wantFile, error) {
	fp := filepath.Join(s.top, filepath.FromSlash(p))
	fi, err := os.Lstat(fp)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR()) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", p, err)
	}
	var content []byte
	var mode filemode.FileMode
	cut := int64(-1)
	switch {
	case fi.Mode().IsRegular():
		if !tracked && ignored.Match(strings.Split(p, "/"), false) {
			return nil, nil
		}
		if content, err = os.ReadFile(fp); err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		n := len(content)
		if content, err = s.committable(p, content); err != nil {
			return nil, err
		}
		if len(content) != n {
			cut = int64(len(content))
		}
		mode = filemode.Regular
		if fi.Mode()&0o111 != 0 {
			mode = filemode.Executable
		}
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(fp)
		if err != nil {
			return nil, fmt.Errorf("read link %s: %w", p, err)
		}
		content, mode = []byte(filepath.ToSlash(target)), filemode.Symlink
	default:
		return nil, nil // a directory or special file where a file was
	}
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	return &wantFile{hash: h, mode: mode, info: fi, content: content, cut: cut}, nil
}

func (s *state) writeBlob(content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	if s.repo.Storer.HasEncodedObject(h) == nil {
		return h, nil
	}
	obj := s.repo.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		return h, err
	}
	if _, err := w.Write(content); err != nil {
		return h, err
	}
	if err := w.Close(); err != nil {
		return h, err
	}
	return s.repo.Storer.SetEncodedObject(obj)
}

// matcher loads the ignore rules that can apply below the prefixes: the
// system and global excludes, .git/info/exclude, the .gitignore of every
// ancestor directory of a prefix, and every .gitignore below a prefix.
func (s *state) matcher() (gitignore.Matcher, error) {
	var ps []gitignore.Pattern
	root := osfs.New("/")
	if sys, err := gitignore.LoadSystemPatterns(root); err == nil {
		ps = append(ps, sys...)
	}
	if glob, err := gitignore.LoadGlobalPatterns(root); err == nil {
		ps = append(ps, glob...)
	}
	wt := osfs.New(s.top)
	seen := map[string]bool{}
	readOne := func(dir []string) error {
		key := strings.Join(dir, "/")
		if seen[key] {
			return nil
		}
		seen[key] = true
		b, err := os.ReadFile(filepath.Join(s.top, filepath.FromSlash(path.Join(append(slices.Clone(dir), ".gitignore")...))))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR()) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read .gitignore: %w", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
				continue
			}
			ps = append(ps, gitignore.ParsePattern(line, dir))
		}
		return nil
	}
	if b, err := os.ReadFile(filepath.Join(s.gitDir, "info", "exclude")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
				continue
			}
			ps = append(ps, gitignore.ParsePattern(strings.TrimSuffix(line, "\r"), nil))
		}
	}
	for _, pre := range s.prefixes {
		parts := strings.Split(pre, "/")
		for i := 0; i < len(parts); i++ {
			if err := readOne(slices.Clone(parts[:i])); err != nil {
				return nil, err
			}
		}
		if fi, err := os.Stat(filepath.Join(s.top, filepath.FromSlash(pre))); err == nil && fi.IsDir() {
			sub, err := gitignore.ReadPatterns(wt, parts)
			if err != nil {
				return nil, fmt.Errorf("read .gitignore under %s: %w", pre, err)
			}
			ps = append(ps, sub...)
		}
	}
	return gitignore.NewMatcher(ps), nil
}
