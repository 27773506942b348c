package gitstore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// changeNode is one directory level of the tree changes.
type changeNode struct {
	children map[string]*changeNode
	file     *wantFile // leaf: new content
	leaf     bool
}

func buildChangeTree(changes map[string]*wantFile) *changeNode {
	root := &changeNode{children: map[string]*changeNode{}}
	for p, w := range changes {
		n := root
		parts := strings.Split(p, "/")
		for _, part := range parts[:len(parts)-1] {
			c := n.children[part]
			if c == nil || c.leaf {
				c = &changeNode{children: map[string]*changeNode{}}
				n.children[part] = c
			}
			n = c
		}
		last := parts[len(parts)-1]
		if c := n.children[last]; c != nil && !c.leaf {
			if w == nil {
				continue // a deleted file replaced by a directory of changes
			}
		}
		n.children[last] = &changeNode{leaf: true, file: w}
	}
	return root
}

// rebuild writes the tree that results from applying n to the tree base
// (zero hash: empty) and returns its hash; an empty result gives the zero
// hash. Untouched entries, including submodules, are kept as they are.
func (s *state) rebuild(base plumbing.Hash, n *changeNode) (plumbing.Hash, error) {
	entries := map[string]object.TreeEntry{}
	if !base.IsZero() {
		t, err := object.GetTree(s.repo.Storer, base)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		for _, e := range t.Entries {
			entries[e.Name] = e
		}
	}
	for name, c := range n.children {
		if c.leaf {
			if c.file == nil {
				delete(entries, name)
			} else {
				entries[name] = object.TreeEntry{Name: name, Mode: c.file.mode, Hash: c.file.hash}
			}
			continue
		}
		var sub plumbing.Hash
		if e, ok := entries[name]; ok && e.Mode == filemode.Dir {
			sub = e.Hash
		}
		h, err := s.rebuild(sub, c)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h.IsZero() {
			delete(entries, name)
		} else {
			entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	t := &object.Tree{}
	for _, e := range entries {
		t.Entries = append(t.Entries, e)
	}
	// git orders entries by name, comparing a tree's name as if it ended in
	// "/" (git's base_name_compare).
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(t.Entries, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
	obj := s.repo.Storer.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	if s.repo.Storer.HasEncodedObject(obj.Hash()) == nil {
		return obj.Hash(), nil
	}
	return s.repo.Storer.SetEncodedObject(obj)
}

// updateIndex replaces the entries of the candidate paths present in the
// work tree with the desired state and reports whether anything changed.
// Other entries — including those of missing (kept) and blocked paths —
// are untouched.
func (s *state) updateIndex(idx *index.Index) bool {
	current := map[string][]*index.Entry{}
	for _, e := range idx.Entries {
		if s.candidates[e.Name] {
			current[e.Name] = append(current[e.Name], e)
		}
	}
	changed := false
	drop := map[string]bool{}
	var add []*index.Entry
	for p := range s.candidates {
		w := s.want[p]
		cur := current[p]
		if w == nil {
			continue // missing, ignored or blocked: the user's git decides
		}
		// Stage 0 is a merged entry; go-git's index.Merged constant is 1
		// (equal to AncestorMode), so compare with 0 directly.
		if len(cur) == 1 && cur[0].Stage == 0 && !cur[0].IntentToAdd && !cur[0].SkipWorktree &&
			cur[0].Hash == w.hash && cur[0].Mode == w.mode {
			continue
		}
		drop[p], changed = true, true
		add = append(add, newEntry(p, w))
	}
	if !changed {
		return false
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if !drop[e.Name] {
			kept = append(kept, e)
		}
	}
	idx.Entries = append(kept, add...)
	idx.Cache = nil // the cache tree is stale; the encoder does not write it anyway
	idx.ResolveUndo = nil
	return true
}

func newEntry(p string, w *wantFile) *index.Entry {
	e := &index.Entry{
		Name:       p,
		Hash:       w.hash,
		Mode:       w.mode,
		ModifiedAt: w.info.ModTime(),
		Size:       uint32(w.info.Size()),
	}
	fillStat(e, w.info)
	if w.cut >= 0 {
		// The blob is less than the file: a size that differs from the
		// file's makes git read it again rather than take it as clean.
		e.Size = uint32(w.cut)
	}
	return e
}
