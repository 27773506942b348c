package scope

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/ignore"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/planning"
)

// DefaultSystemFiles are read into the system prompt when a target names
// no system files (docs/formats.md#files-that-always-enter).
var DefaultSystemFiles = []string{"AGENTS.md", "CLAUDE.md"}

// WatchTarget is one target of a build as the watcher asks about it: the
// target and the project it was built from.
type WatchTarget struct {
	Target  *config.Target
	Project *planning.Project
}

// Watched is what the watcher must watch beside `.planning/` for a build.
type Watched struct {
	// Files are the project files whose content feeds a prompt: the root
	// .powerignore, .gitignore and .git/info/exclude, every target's
	// system (or DefaultSystemFiles), skill, include and tools files, and
	// the files section's task and error-named files; clean OS paths
	// relative to the project root, sorted, each once.
	Files []string
	// Dirs are the directories the file-tree section lists (their entries
	// feed it), in the same form.
	Dirs []string
	// TreeKey identifies the file-tree settings Dirs were computed for.
	TreeKey string
	// Feeds maps each target's name to the project files whose contents
	// its prompt carries (its system, skill, include and tools files, its
	// task and error-named files, and where those that are symbolic links
	// lead), in the same form: a change to one of them need rebuild only
	// the targets that list it (see Affected).
	Feeds map[string][]string
}

// Equal reports whether w and o watch the same files and folders.
func (w Watched) Equal(o Watched) bool {
	return slices.Equal(w.Files, o.Files) && slices.Equal(w.Dirs, o.Dirs)
}

// Affected returns the names of the targets a change of the
// project-relative slash paths feeds, or all = true when it may feed every
// target: a path under `.planning/` (the planning tree, recite.yaml and
// the conversations feed every target's recitation and signals), an ignore
// file, or any change while the file tree is not fresh (treeFresh false:
// an entry was added, removed or renamed in a folder the tree lists, as an
// editor's save through a temporary file does). With the tree fresh, a
// path feeds the targets whose Feeds list it, and a file no target lists
// feeds none: outside `.planning/` a prompt carries only the contents of
// those files and the tree's names.
func (w Watched) Affected(changed []string, treeFresh bool) (names map[string]bool, all bool) {
	if len(changed) == 0 || !treeFresh {
		return nil, true
	}
	names = map[string]bool{}
	for _, p := range changed {
		if p == layout.PlanningDir || strings.HasPrefix(p, layout.PlanningDir+"/") {
			return nil, true
		}
		op := filepath.Clean(filepath.FromSlash(p))
		switch op {
		case filepath.FromSlash(ignore.PowerignoreFile), filepath.FromSlash(ignore.GitignoreFile), filepath.FromSlash(ignore.ExcludeFile), ".":
			return nil, true
		}
		for name, files := range w.Feeds {
			if _, ok := slices.BinarySearch(files, op); ok {
				names[name] = true
			}
		}
	}
	return names, false
}

// Watched computes what to watch for cfg's targets as built (targets; nil
// when the build failed, which keeps prev's folders). The file tree's
// folders are listed again only when retree is set (a path outside
// `.planning/` changed, or a rescan) or the tree's settings changed;
// otherwise prev's are kept, so an edit of a plan costs no tree walk.
func (sp *Scope) Watched(ctx context.Context, cfg *config.Config, targets []WatchTarget, prev Watched, retree bool) Watched {
	files := []string{ignore.PowerignoreFile, ignore.GitignoreFile, ignore.ExcludeFile}
	feeds := map[string][]string{}
	for _, t := range cfg.Targets {
		sys := t.System
		if len(sys) == 0 {
			sys = DefaultSystemFiles
		}
		own := slices.Concat(sys, t.Skills, t.Include)
		if t.Tools != "" {
			own = append(own, t.Tools)
		}
		feeds[t.Name] = append(feeds[t.Name], own...)
		files = append(files, own...)
	}
	type treeArgs struct {
		extra      []ignore.ExtraPattern
		depth, max int
	}
	var w Watched
	var trees []treeArgs
	for _, wt := range targets {
		var convs []string
		if wt.Target.Conversation != "" {
			convs = []string{wt.Target.Conversation}
		}
		sc := sp.Compute(ctx, cfg, wt.Project, convs, []config.Target{*wt.Target}, nil)
		for _, inc := range sc.TaskFiles {
			files = append(files, inc.Path)
			feeds[wt.Target.Name] = append(feeds[wt.Target.Name], inc.Path)
		}
		if cfg.Files.TreeDepth > 0 {
			trees = append(trees, treeArgs{sc.Extra, cfg.Files.TreeDepth, cfg.Files.TreeMaxEntries})
			w.TreeKey += fmt.Sprintf("%d %d %#v;", cfg.Files.TreeDepth, cfg.Files.TreeMaxEntries, sc.Extra)
		}
	}
	w.Files = cleanSorted(files)
	w.Feeds = make(map[string][]string, len(feeds))
	for name, paths := range feeds {
		w.Feeds[name] = cleanSorted(sp.withLinkTargets(paths))
	}
	if targets == nil || !(retree || w.TreeKey != prev.TreeKey) {
		w.Dirs = prev.Dirs
		return w
	}
	var dirs []string
	for _, ta := range trees {
		dirs = append(dirs, sp.TreeDirs(ctx, ta.extra, ta.depth, ta.max)...)
	}
	w.Dirs = cleanSorted(dirs)
	return w
}

// withLinkTargets returns paths (project-relative slash paths) with, after
// each that is a symbolic link, the project-relative path it resolves to,
// so an edit of a link's target is known to feed what the link feeds.
func (sp *Scope) withLinkTargets(paths []string) []string {
	out := paths
	for _, p := range paths {
		abs := filepath.Join(sp.dir, filepath.FromSlash(p))
		if fi, err := os.Lstat(abs); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			continue
		}
		root, err := filepath.EvalSymlinks(sp.dir)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(root, real); err == nil && filepath.IsLocal(rel) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// cleanSorted returns the slash paths as clean OS paths, sorted, each once.
func cleanSorted(paths []string) []string {
	for i, p := range paths {
		paths[i] = filepath.Clean(filepath.FromSlash(p))
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}
