package watch

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// restoreSet is the files of Options.Restore and their parent directories,
// absolute and cleaned.
type restoreSet struct {
	files, dirs map[string]bool
}

// restoreSet makes the set of restore paths.
func (w *Watcher) restoreSet(paths []string) *restoreSet {
	rs := &restoreSet{files: map[string]bool{}, dirs: map[string]bool{}}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(w.project, p)
		}
		p = filepath.Clean(p)
		rs.files[p] = true
		rs.dirs[filepath.Dir(p)] = true
	}
	return rs
}

// addRestoreDirs watches the existing parent directories of the restore
// files. Re-adding a watched directory is harmless.
func (w *Watcher) addRestoreDirs(rs *restoreSet) {
	for dir := range rs.dirs {
		if err := w.fsw.Add(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.log.Warn("watch: cannot watch the prompt files' directory", "dir", dir, "err", fmt.Sprintf("%v%s", err, limitHint(err)))
		}
	}
}

// SetRestore replaces the Restore list (see Options.Restore) and watches
// the parent directories that exist now. It is safe to call concurrently
// with Run, from Run's callback in particular.
func (w *Watcher) SetRestore(paths []string) {
	rs := w.restoreSet(paths)
	w.restore.Store(rs)
	w.addRestoreDirs(rs)
}
