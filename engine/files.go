package engine

import (
	"context"
	"os"
	"path/filepath"
	"sort"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/ignore"
	"github.com/recite-dev/recite/planning"
)

// FileEntry is one project file that may enter an agent's context.
type FileEntry struct {
	Path string `json:"path"`
	// NeverExclude says who named the file when it is in context only
	// because something names it ("" otherwise).
	NeverExclude string `json:"never_exclude,omitempty"`
}

// neverExclude lists the files that enter context even when an ignore file
// matches them (DESIGN.md invariant 9; seeds/002 §3): files named by the
// current plan's tasks and files_modified, the targets' include lists, and
// extra paths from the user.
func neverExclude(cfg *config.Config, proj *planning.Project, extra []string) []ignore.Include {
	var incs []ignore.Include
	add := func(p, why string) {
		if c, err := ignore.Clean(p); err == nil {
			incs = append(incs, ignore.Include{Path: c, Reason: why})
		}
	}
	if pl := proj.CurrentPlan; pl != nil {
		for _, f := range pl.FilesModified {
			add(f, "the current plan ("+PlanningDir+"/"+pl.Path+" files_modified)")
		}
		for _, t := range pl.Tasks {
			for _, f := range t.Files {
				add(f, "the current plan's task "+t.Text)
			}
		}
	}
	for _, t := range cfg.Targets {
		for _, f := range t.Include {
			add(f, "recite.yaml include of target "+t.Name)
		}
	}
	for _, f := range extra {
		add(f, "--include")
	}
	return incs
}

// Files returns the project files that may enter context, sorted: what
// `.gitignore` files, `.git/info/exclude` and `.powerignore` leave, plus the
// never-exclude files that exist. The global excludes file is not read.
func (e *Engine) Files(ctx context.Context, include []string) ([]FileEntry, error) {
	incs, err := e.includes(include)
	if err != nil {
		return nil, err
	}
	paths, err := ignore.List(ctx, e.dir, ignore.WalkOptions{Include: incs})
	if err != nil {
		return nil, err
	}
	why := map[string]string{}
	m, err := ignore.Load(e.dir)
	if err != nil {
		return nil, err
	}
	for _, inc := range incs {
		if fi, err := os.Stat(filepath.Join(e.dir, filepath.FromSlash(inc.Path))); err == nil && !fi.IsDir() && m.Match(inc.Path, false).Ignored {
			why[inc.Path] = inc.Reason
		}
	}
	out := make([]FileEntry, 0, len(paths))
	for _, p := range paths {
		out = append(out, FileEntry{Path: p, NeverExclude: why[p]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Why explains the verdict on one path like `git check-ignore -v`: the
// deciding file, line and pattern, or "never-exclude: named by …".
func (e *Engine) Why(ctx context.Context, rel string, include []string) (ignore.Explanation, error) {
	incs, err := e.includes(include)
	if err != nil {
		return ignore.Explanation{}, err
	}
	return ignore.Explain(e.dir, rel, incs)
}

func (e *Engine) includes(extra []string) ([]ignore.Include, error) {
	cfg, _, err := config.Load(e.dir)
	if err != nil {
		return nil, &InputError{err}
	}
	proj := &planning.Project{}
	if pdir, err := e.planningDir(); err == nil {
		if p, err := planning.LoadCached(os.DirFS(pdir), e.parsed); err == nil {
			proj = p
		}
	}
	return neverExclude(cfg, proj, extra), nil
}
