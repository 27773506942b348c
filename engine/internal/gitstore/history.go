package gitstore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Item is something a later commit can settle: an error message of a
// conversation (settled by a fix) or an iteration's approach (settled by
// committing its files).
type Item struct {
	// ID keys the result of CommitsTouching.
	ID string
	// Text is an error's text; the files of HEAD's tree it names count.
	Text string
	// Files are project-relative files (slash-separated) that count.
	Files []string
	// After and Before bound the commit time: at or after After (to the
	// second; git keeps whole seconds) and, when Before is not zero,
	// before Before.
	After, Before time.Time
}

// maxFixCommits bounds the commits inside a window that CommitsTouching
// reads.
const maxFixCommits = 500

// maxCommitsCache bounds the answers a History keeps (one per HEAD and
// item set; a watch session has one per target between passes).
const maxCommitsCache = 16

// History answers CommitsTouching for one project and remembers the
// answers by HEAD and question, so a rebuild that asks again while HEAD
// stays put reads no commit. The zero History is ready to use; it is not
// safe for concurrent use.
type History struct {
	answers map[string]map[string]string
}

// Reset forgets every remembered answer.
func (h *History) Reset() { h.answers = nil }

// CommitsTouching returns, for each item a commit settles, the commit's
// abbreviated hash (7 hex digits): the newest commit on the first-parent
// line from HEAD of the repository holding dir (the project's own
// history; a merged branch's commits are someone else's work), made inside
// the item's time bounds, that changed one of the item's files against its
// first parent. An error's files are the words of its text that, without
// a ":line:col" suffix and quotes or brackets, are files of HEAD's tree
// (relative to the project). Commits are walked once, from HEAD back to
// the oldest item; at most 500 commits inside a window are read. No
// repository, or any git failure, settles nothing.
func (h *History) CommitsTouching(dir string, items []Item) map[string]string {
	found := map[string]string{}
	if len(items) == 0 {
		return found
	}
	hc, prefix, ok := headCommit(dir)
	if !ok {
		return found
	}
	htree, err := hc.Tree()
	if err != nil {
		return found
	}
	key := commitsKey(hc.Hash, items)
	if found, ok := h.answers[key]; ok {
		return found
	}
	items, paths, oldest := itemPaths(items, prefix, htree)
	walkFirstParents(hc, items, paths, oldest, found)
	if len(h.answers) >= maxCommitsCache {
		clear(h.answers)
	}
	if h.answers == nil {
		h.answers = map[string]map[string]string{}
	}
	h.answers[key] = found
	return found
}

// headCommit opens the repository holding dir and returns HEAD's commit
// and the project's folder in the work tree as a prefix ("" at the root,
// else ending in "/"); ok is false on any failure.
func headCommit(dir string) (*object.Commit, string, bool) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, "", false
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, "", false
	}
	prefix := ""
	if absDir, err := filepath.Abs(dir); err == nil {
		if rel, err := filepath.Rel(wt.Filesystem.Root(), absDir); err == nil && rel != "." && filepath.IsLocal(rel) {
			prefix = filepath.ToSlash(rel) + "/"
		}
	}
	head, err := repo.Head()
	if err != nil {
		return nil, "", false
	}
	hc, err := repo.CommitObject(head.Hash())
	if err != nil {
		return nil, "", false
	}
	return hc, prefix, true
}

// itemPaths returns a copy of items with their After truncated to the
// second (git keeps whole seconds: a window opens at the second its time
// falls in, so a commit made in the same second as the message counts),
// the repository paths each item counts, and the oldest After.
func itemPaths(items []Item, prefix string, htree *object.Tree) ([]Item, [][]string, time.Time) {
	items = slices.Clone(items)
	for i := range items {
		items[i].After = items[i].After.Truncate(time.Second)
	}
	oldest := items[0].After
	paths := make([][]string, len(items))
	for i, it := range items {
		if it.After.Before(oldest) {
			oldest = it.After
		}
		if it.Text != "" {
			paths[i] = namedFiles(it.Text, prefix, htree)
		}
		for _, f := range it.Files {
			paths[i] = append(paths[i], prefix+f)
		}
	}
	return items, paths, oldest
}

// walkFirstParents walks from hc along first parents only — the project's
// own line of history: a merged branch's commits (a teammate's, with their
// own dates) are not this session's work and must not land an approach —
// back to oldest, and records in found each item the newest commit inside
// its window settles.
func walkFirstParents(hc *object.Commit, items []Item, paths [][]string, oldest time.Time, found map[string]string) {
	entries := entryHashes{}
	for c, n := hc, 0; c != nil && n < maxFixCommits; c = firstParent(c) {
		if c.Committer.When.Before(oldest) {
			break
		}
		when := c.Committer.When
		open := func(it Item) bool {
			return found[it.ID] == "" && !when.Before(it.After) && (it.Before.IsZero() || when.Before(it.Before))
		}
		if !slices.ContainsFunc(items, open) {
			continue
		}
		// Only commits inside a window count against the bound, so new
		// unrelated commits never push an old answer out of reach.
		n++
		tree, ptree, ok := commitTrees(c)
		if !ok {
			break
		}
		for i, it := range items {
			if !open(it) {
				continue
			}
			if slices.ContainsFunc(paths[i], func(f string) bool { return entries.hash(tree, f) != entries.hash(ptree, f) }) {
				found[it.ID] = c.Hash.String()[:7]
			}
		}
	}
}

// commitTrees returns c's tree and its first parent's. A root commit is
// diffed against the empty tree (ptree nil); a commit whose parent cannot
// be read (a shallow clone's boundary) reports ok false, so it settles
// nothing: every file would look changed.
func commitTrees(c *object.Commit) (tree, ptree *object.Tree, ok bool) {
	tree, err := c.Tree()
	if err != nil {
		return nil, nil, false
	}
	if c.NumParents() > 0 {
		pc, err := c.Parent(0)
		if err != nil {
			return nil, nil, false
		}
		if ptree, err = pc.Tree(); err != nil {
			return nil, nil, false
		}
	}
	return tree, ptree, true
}

// commitsKey identifies a CommitsTouching question: HEAD and every field
// of the items.
func commitsKey(head plumbing.Hash, items []Item) string {
	h := sha256.New()
	h.Write(head[:])
	for _, it := range items {
		fmt.Fprintf(h, "%q %q %q %d %d\n", it.ID, it.Text, it.Files, it.After.UnixNano(), it.Before.UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// firstParent is c's first parent, nil for a root commit or when it cannot
// be read (a shallow clone's boundary).
func firstParent(c *object.Commit) *object.Commit {
	if c.NumParents() == 0 {
		return nil
	}
	p, err := c.Parent(0)
	if err != nil {
		return nil
	}
	return p
}

// entryHashes memoises blob hashes by tree and path during one walk: a
// commit's parent tree is the next commit's tree in a linear history, so
// each lookup is made once.
type entryHashes map[[2]string]plumbing.Hash

// hash is the blob hash of path in tree, zero when absent or tree is nil.
func (m entryHashes) hash(tree *object.Tree, path string) plumbing.Hash {
	if tree == nil {
		return plumbing.ZeroHash
	}
	k := [2]string{tree.Hash.String(), path}
	if h, ok := m[k]; ok {
		return h
	}
	h := plumbing.ZeroHash
	if e, err := tree.FindEntry(path); err == nil {
		h = e.Hash
	}
	m[k] = h
	return h
}

// namedFiles are the words of an error text that name files of tree, with
// prefix (the project's folder in the repository) prepended.
func namedFiles(text, prefix string, tree *object.Tree) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '(' || r == ')' || r == '[' || r == ']' || r == '"' || r == '\'' || r == '`' || r == ','
	}) {
		w = strings.TrimPrefix(strings.TrimSuffix(w, ":"), "./")
		for {
			i := strings.LastIndexByte(w, ':')
			if i < 0 || strings.Trim(w[i+1:], "0123456789") != "" {
				break
			}
			w = w[:i]
		}
		if w == "" || !strings.Contains(w, ".") || seen[w] {
			continue
		}
		seen[w] = true
		if _, err := tree.FindEntry(prefix + w); err == nil {
			out = append(out, prefix+w)
		}
	}
	return out
}
