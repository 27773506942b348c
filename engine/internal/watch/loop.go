package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// loop reads fsnotify until ctx is done or the watcher is closed.
func (w *Watcher) loop(ctx context.Context, hints chan<- Hint) {
	emit := func(h Hint) bool {
		select {
		case hints <- h:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			w.events.Add(1)
			w.handle(ev, emit)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.overflows.Add(1)
				w.log.Warn("watch: event queue overflow; rescanning", "root", w.root)
			} else {
				w.log.Warn("watch: error; rescanning", "err", err)
			}
			w.rewatch()
			emit(Hint{Rescan: true})
		}
	}
}

// handle turns one event into hints. Chmod-only events are dropped
// (docs/architecture.md#events-are-hints; `touch` is pattern 14 of
// docs/architecture.md#editor-save-patterns); a new directory under Root is
// watched and scanned; removed or renamed directories are forgotten.
func (w *Watcher) handle(ev fsnotify.Event, emit func(Hint) bool) {
	if ev.Op == fsnotify.Chmod || ev.Name == "" {
		return
	}
	path := filepath.Clean(ev.Name)
	if a, ok := w.alias[path]; ok {
		path = a // the target of a symbolic link Root
	}
	rs := w.restore.Load()
	if rs.files[path] && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
		// A file recite owns went missing: have it written again.
		emit(Hint{Path: path})
		return
	}
	if rs.dirs[path] && ev.Has(fsnotify.Create) {
		// The prompt files' directory is back: watch it for removals again
		// (it is ignored otherwise).
		if err := w.fsw.Add(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.log.Warn("watch: cannot watch the prompt files' directory", "dir", path, "err", err)
		}
	}
	if !w.underRoot(path) && !w.filters[filepath.Dir(path)][filepath.Base(path)] && !w.open[filepath.Dir(path)] {
		return
	}
	if w.ignored(path) {
		return
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		if _, ok := w.dirs[path]; ok {
			w.forget(path)
			emit(Hint{Path: path})
			return
		}
	}
	if ev.Has(fsnotify.Create) && w.underRoot(path) {
		// A rename's new name arrives as Create
		// (docs/architecture.md#editor-save-patterns), so this also covers
		// directories moved in. Root itself is followed when it is a symbolic
		// link; links below it are not (see the package comment).
		stat := os.Lstat
		if path == w.root {
			stat = os.Stat
		}
		if fi, err := stat(path); err == nil && fi.IsDir() {
			if failed, _ := w.addTree(path, emit); failed {
				w.rewatch()
				emit(Hint{Rescan: true})
			}
			return
		}
	}
	if noise(path) {
		return
	}
	emit(Hint{Path: path})
}

// forget drops dir and every watched directory below it. The kernel already
// removed the watch of a deleted or moved directory itself; watches of
// subdirectories of a moved tree are still alive and are removed here.
func (w *Watcher) forget(dir string) {
	prefix := dir + string(filepath.Separator)
	for d := range w.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(w.dirs, d)
			if d != dir {
				_ = w.fsw.Remove(d)
			}
		}
	}
}

// addTree watches dir and every directory below it that is not ignored. When
// emit is set it also hints every path found: files written into a new
// directory before its watch existed raise no event
// (docs/architecture.md#watch-rules); the debouncer's set removes duplicates
// with real events. It reports whether some watch failed, with the first
// error.
//
// When dir itself is a symbolic link to a directory (Root kept elsewhere),
// the tree it points to is walked and every directory watched under dir's
// path: the kernel resolves the link in the watched path, and the events
// then name paths below dir. Links below dir are not followed, so a link
// cycle cannot make the walk loop.
func (w *Watcher) addTree(dir string, emit func(Hint) bool) (failed bool, first error) {
	walk := dir
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return false, nil // dangling: the link's next event covers it
		}
		walk = real
	}
	_ = filepath.WalkDir(walk, func(rp string, d fs.DirEntry, err error) error {
		p := dir + rp[len(walk):] // the path below dir

		if err != nil {
			// Vanished while walking, or unreadable: a later event or rescan
			// covers it.
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != dir && w.ignored(p) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if err := w.fsw.Add(p); err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					w.log.Warn("watch: cannot watch directory", "dir", p, "err", fmt.Sprintf("%v%s", err, limitHint(err)))
					failed = true
					if first == nil {
						first = err
					}
				}
				return fs.SkipDir
			}
			w.dirs[p] = struct{}{}
		} else if noise(p) {
			return nil
		}
		if emit != nil && !emit(Hint{Path: p}) {
			return fs.SkipAll
		}
		return nil
	})
	return failed, first
}

// rewatch re-adds every watch after an overflow or a failed watch: events for
// directories created meanwhile may have been lost
// (docs/architecture.md#watch-rules).
func (w *Watcher) rewatch() {
	for dir := range w.filters {
		if err := w.fsw.Add(dir); err != nil {
			w.log.Warn("watch: cannot re-watch directory", "dir", dir, "err", err)
		}
	}
	for dir := range w.open {
		if err := w.fsw.Add(dir); err != nil {
			w.log.Warn("watch: cannot re-watch directory", "dir", dir, "err", err)
		}
	}
	// Re-adding an existing watch is harmless; deleted directories lost
	// their watches in the kernel already.
	clear(w.dirs)
	if _, err := w.addTree(w.root, nil); err != nil {
		w.log.Warn("watch: re-watch incomplete", "root", w.root, "err", err)
	}
	w.addRestoreDirs(w.restore.Load())
}
