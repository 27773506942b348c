package scope

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/ignore"
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
}

// Equal reports whether w and o watch the same files and folders.
func (w Watched) Equal(o Watched) bool {
	return slices.Equal(w.Files, o.Files) && slices.Equal(w.Dirs, o.Dirs)
}

// Watched computes what to watch for cfg's targets as built (targets; nil
// when the build failed, which keeps prev's folders). The file tree's
// folders are listed again only when retree is set (a path outside
// `.planning/` changed, or a rescan) or the tree's settings changed;
// otherwise prev's are kept, so an edit of a plan costs no tree walk.
func (sp *Scope) Watched(ctx context.Context, cfg *config.Config, targets []WatchTarget, prev Watched, retree bool) Watched {
	files := []string{ignore.PowerignoreFile, ignore.GitignoreFile, ignore.ExcludeFile}
	for _, t := range cfg.Targets {
		sys := t.System
		if len(sys) == 0 {
			sys = DefaultSystemFiles
		}
		files = append(files, sys...)
		files = append(files, t.Skills...)
		files = append(files, t.Include...)
		if t.Tools != "" {
			files = append(files, t.Tools)
		}
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
		}
		if cfg.Files.TreeDepth > 0 {
			trees = append(trees, treeArgs{sc.Extra, cfg.Files.TreeDepth, cfg.Files.TreeMaxEntries})
			w.TreeKey += fmt.Sprintf("%d %d %#v;", cfg.Files.TreeDepth, cfg.Files.TreeMaxEntries, sc.Extra)
		}
	}
	w.Files = cleanSorted(files)
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

// cleanSorted returns the slash paths as clean OS paths, sorted, each once.
func cleanSorted(paths []string) []string {
	for i, p := range paths {
		paths[i] = filepath.Clean(filepath.FromSlash(p))
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}
