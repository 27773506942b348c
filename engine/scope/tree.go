package scope

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/internal/ignore"
	"github.com/recite-dev/recite/engine/internal/layout"
)

// treeCache is the last file tree with the state of every file it was
// built from: the directories it read, the .gitignore files in them, the
// root's .powerignore and .git/info/exclude.
type treeCache struct {
	key    string
	stamps []fileStamp
	tree   string
}

type fileStamp struct {
	rel   string
	mtime int64 // ns; -1 when the file did not exist
	size  int64
}

func (sp *Scope) stamp(rel string) fileStamp {
	st, err := os.Lstat(filepath.Join(sp.dir, filepath.FromSlash(rel)))
	if err != nil {
		return fileStamp{rel: rel, mtime: -1}
	}
	return fileStamp{rel: rel, mtime: st.ModTime().UnixNano(), size: st.Size()}
}

// TreeFresh reports whether the file tree the last build showed still
// holds: no tree is shown (depth 0), or the tree was kept and none of the
// directories, .gitignore, .powerignore and exclude files it was built
// from changed since (a directory's mtime changes when an entry is added,
// removed or renamed in it). A tree built from files changed within
// racyWindow is not kept, so it is never fresh.
func (sp *Scope) TreeFresh(depth int) bool {
	if depth <= 0 {
		return true
	}
	c := sp.tree
	if c == nil {
		return false
	}
	for _, s := range c.stamps {
		if sp.stamp(s.rel) != s {
			return false
		}
	}
	return true
}

// racyWindow: a file changed this recently may change again within the
// same timestamp tick, so a tree read from it is not cached (git's "racy
// clean" rule).
const racyWindow = 2 * time.Second

// cachedTree returns the file tree, rebuilt only when one of the files it
// was built from changed (a directory's mtime changes when an entry is
// added, removed or renamed in it): a rebuild costs about 2 directory
// reads per entry shown, a check 2 stats.
func (sp *Scope) cachedTree(ctx context.Context, m *ignore.Matcher, extra []ignore.ExtraPattern, depth, maxEntries int) (string, error) {
	key := fmt.Sprintf("%d %d %#v", depth, maxEntries, extra)
	if c := sp.tree; c != nil && c.key == key {
		fresh := true
		for _, s := range c.stamps {
			if sp.stamp(s.rel) != s {
				fresh = false
				break
			}
		}
		if fresh {
			return c.tree, nil
		}
	}
	sp.tree = nil
	var dirs []string
	tree, err := fileTree(ctx, m, depth, maxEntries, func(rel string) { dirs = append(dirs, rel) })
	if err != nil {
		return "", err
	}
	c := &treeCache{key: key, tree: tree}
	limit := time.Now().Add(-racyWindow).UnixNano()
	add := func(rel string) bool {
		s := sp.stamp(rel)
		c.stamps = append(c.stamps, s)
		return s.mtime < limit
	}
	ok := add(ignore.PowerignoreFile) && add(ignore.ExcludeFile)
	for _, d := range dirs {
		if !ok {
			break
		}
		gi := ignore.GitignoreFile
		if d != "" {
			gi = d + "/" + gi
		}
		ok = add(gi) && add(strings.TrimSuffix(d+"/.", "/."))
	}
	if ok {
		sp.tree = c
	}
	return tree, nil
}

// fileTree renders the tree section body (see fileSections), calling
// readDir with every directory it reads.
func fileTree(ctx context.Context, m *ignore.Matcher, depth, maxEntries int, readDir func(rel string)) (string, error) {
	type node struct {
		name     string
		rel      string
		dir      bool
		children []*node
		total    int  // entries in context inside a directory
		read     bool // children listed (fully or partly)
	}
	root := &node{dir: true}
	read := func(n *node) ([]ignore.Entry, error) {
		if readDir != nil {
			readDir(n.rel)
		}
		ents, err := m.ReadDir(n.rel)
		if err != nil {
			return nil, err
		}
		if n.rel == "" {
			kept := ents[:0]
			for _, en := range ents {
				if en.Name != layout.PlanningDir {
					kept = append(kept, en)
				}
			}
			ents = kept
		}
		n.total = len(ents)
		return ents, nil
	}
	budget := maxEntries
	level := []*node{root}
	for d := 1; d <= depth && len(level) > 0; d++ {
		var next []*node
		for _, n := range level {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			ents, err := read(n)
			if err != nil {
				return "", err
			}
			if budget <= 0 {
				continue
			}
			n.read = true
			for _, en := range ents {
				if budget <= 0 {
					break
				}
				budget--
				c := &node{name: en.Name, dir: en.Dir, rel: strings.TrimPrefix(n.rel+"/"+en.Name, "/")}
				n.children = append(n.children, c)
				if c.dir {
					next = append(next, c)
				}
			}
		}
		level = next
	}
	// Directories shown but not opened get their entry count.
	for _, n := range level {
		if !n.read {
			if _, err := read(n); err != nil {
				return "", err
			}
		}
	}
	var b strings.Builder
	b.WriteString(fmt.Sprintf("Files in context (.powerignore, .gitignore and the task type applied; %d levels, %d entries at most; .planning/ not listed):\n", depth, maxEntries))
	var walk func(n *node, indent string)
	walk = func(n *node, indent string) {
		for _, c := range n.children {
			b.WriteString(indent + c.name)
			if c.dir {
				b.WriteString("/")
				if !c.read {
					fmt.Fprintf(&b, " (%d %s)", c.total, plural(c.total, "entry", "entries"))
				}
			}
			b.WriteString("\n")
			if c.dir && c.read {
				walk(c, indent+"  ")
			}
		}
		if n.read && len(n.children) < n.total {
			more := n.total - len(n.children)
			fmt.Fprintf(&b, "%s… %d more %s\n", indent, more, plural(more, "entry", "entries"))
		}
	}
	walk(root, "")
	return strings.TrimRight(b.String(), "\n"), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// TreeDirs lists the directories the file tree of the files section reads
// (as slash paths relative to the project root, "" for the root), for the
// task type's exclude globs extra, depth levels and maxEntries lines: what
// a watcher must watch to see the tree change. A project whose ignore
// files cannot be read has none (the build reports it).
func (sp *Scope) TreeDirs(ctx context.Context, extra []ignore.ExtraPattern, depth, maxEntries int) []string {
	m, err := ignore.Load(sp.dir)
	if err != nil {
		return nil
	}
	m.SetExtra(extra)
	var dirs []string
	_, _ = fileTree(ctx, m, depth, maxEntries, func(rel string) { dirs = append(dirs, rel) })
	return dirs
}
