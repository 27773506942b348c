// Package watch turns file-system changes under a project's planning tree
// into debounced batches of path hints, over github.com/fsnotify/fsnotify.
//
// # Model
//
// Events are hints, never facts (docs/architecture.md#events-are-hints): a
// Batch says which paths may have changed, and the consumer re-reads them.
// That covers every save pattern editors and tools use — in-place writes,
// temp-and-rename, rename-to-backup-then-write, unlink-and-recreate by git
// checkout — without interpreting operation sequences
// (docs/architecture.md#editor-save-patterns).
//
// The Watcher watches directories only, never single files
// (docs/architecture.md#watch-rules): Root recursively, plus the parent of
// Root and the parents of the extra paths with a name filter. A directory that
// appears under Root is added and scanned at once, because files written
// straight into it often raise no event. Root's parent is watched so a deleted
// and re-created Root is picked up. A kernel queue overflow or a failed watch
// yields a Batch with Rescan set after all watches were re-added
// (docs/architecture.md#watch-rules, docs/architecture.md#watcher-checks).
//
// Root may be a symbolic link to a directory (a planning tree kept
// elsewhere): the tree it points to is walked and watched under Root's own
// path, so events name paths below Root, and the directory holding the
// link's target is watched too, so the target moved away and back is
// picked up. Symbolic links below Root are not followed: the planning
// loader does not read through them either (planning.Load lists regular
// files and real folders only).
//
// Files recite owns (Options.Restore, SetRestore) are the one exception to
// Options.Ignore: when one is removed or renamed away, its path is
// reported, so the consumer writes it again. recite's own atomic writes
// never raise that: a temp file renamed over the file shows as Create of
// the file's name, and the replaced file raises no Remove.
//
// The Debouncer is the pure timing layer: channel in, channel out, one
// goroutine, one timer.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// Options configures a Watcher.
type Options struct {
	// Project is the project root directory. Required.
	Project string
	// Root is the directory watched recursively; default Project/.planning.
	// It may be absent at start and may be deleted and re-created later; its
	// parent directory must exist.
	Root string
	// Extra lists further files (relative to Project or absolute) whose
	// changes matter, such as CLAUDE.md. Their parent directories are
	// watched without recursion and events are filtered to these names. An
	// extra whose parent directory is missing at start is skipped with a log
	// line; a parent deleted later is not re-watched.
	Extra []string
	// Dirs lists further directories (relative to Project or absolute)
	// watched without recursion, every entry reported: the directories a
	// file-tree section lists. Directories under Root are skipped (Root is
	// watched anyway); one missing at start is skipped with a log line.
	Dirs []string
	// Ignore, when set, drops every path (absolute, cleaned) for which it
	// returns true. A directory it drops is not watched at all (but see
	// Restore). Use it for recite's own outputs; see IgnoreReciteOutputs.
	Ignore func(path string) bool
	// Restore lists files (relative to Project or absolute) recite owns and
	// must write again when they go missing: the prompt files of the
	// current targets. A Remove or Rename of one is reported even when
	// Ignore drops it; every other event on it stays dropped. Their parent
	// directories are watched without recursion (those missing are added
	// when they appear under Root, or at SetRestore). Replace the list with
	// (*Watcher).SetRestore.
	Restore []string
	// Debounce configures the batching; zero values take the defaults
	// (50 ms quiet, 250 ms maximum wait, 1000 paths).
	Debounce DebounceOptions
	// Logger receives watch failures and overflow notices; nil discards.
	Logger *slog.Logger
}

// Stats counts what a Watcher saw; read it with (*Watcher).Stats.
type Stats struct {
	// Events is the number of raw fsnotify events received.
	Events int64
	// Overflows is the number of fsnotify.ErrEventOverflow errors received.
	Overflows int64
	// Batches is the number of batches handed to the Run callback.
	Batches int64
	// RescanBatches is how many of them had Rescan set.
	RescanBatches int64
}

// Watcher watches a planning tree and delivers debounced batches to Run.
// Create it with New, call Run once, and Close it when done.
type Watcher struct {
	project string
	root    string
	filters map[string]map[string]bool // non-recursive dir → base names of interest
	open    map[string]bool            // non-recursive dirs whose every entry counts
	ignore  func(string) bool
	deb     DebounceOptions
	log     *slog.Logger
	fsw     *fsnotify.Watcher
	// alias maps the path of a symbolic link Root's target (in the target's
	// parent directory, watched with a name filter) to Root.
	alias map[string]string
	// restore is the current Restore set; SetRestore replaces it while the
	// event goroutine reads it.
	restore atomic.Pointer[restoreSet]

	// dirs holds the directories under root that are watched. New fills it
	// before Run starts; afterwards only Run's event goroutine touches it.
	dirs map[string]struct{}

	running                                   atomic.Bool
	events, overflows, batches, rescanBatches atomic.Int64
}

// New creates a Watcher and adds its watches: every directory under Root
// (skipping ignored ones; through Root itself when it is a symbolic link),
// Root's parent, the directory of a symbolic link Root's target, and the
// parents of the extra and restore paths. Changes made after New returns
// are reported by Run.
//
// Errors: Project missing or not a directory; Root's parent not watchable; the
// inotify instance limit (docs/architecture.md#watch-rules), reported with the
// sysctl to raise. A directory under Root that cannot be watched is logged and
// leads to a Rescan batch instead.
func New(opts Options) (*Watcher, error) {
	if opts.Project == "" {
		return nil, errors.New("watch: no project directory")
	}
	project, err := filepath.Abs(opts.Project)
	if err != nil {
		return nil, fmt.Errorf("watch: project: %w", err)
	}
	if fi, err := os.Stat(project); err != nil {
		return nil, fmt.Errorf("watch: project: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("watch: project %s is not a directory", project)
	}
	root := opts.Root
	if root == "" {
		root = ".planning"
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(project, root)
	}
	root = filepath.Clean(root)

	w := &Watcher{
		project: project,
		root:    root,
		filters: map[string]map[string]bool{},
		open:    map[string]bool{},
		ignore:  opts.Ignore,
		deb:     opts.Debounce,
		log:     opts.Logger,
		dirs:    map[string]struct{}{},
		alias:   map[string]string{},
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	w.filter(root)
	w.restore.Store(w.restoreSet(opts.Restore))
	for _, e := range opts.Extra {
		if !filepath.IsAbs(e) {
			e = filepath.Join(project, e)
		}
		e = filepath.Clean(e)
		if !w.underRoot(e) {
			w.filter(e)
		}
	}

	for _, d := range opts.Dirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(project, d)
		}
		d = filepath.Clean(d)
		if !w.underRoot(d) {
			w.open[d] = true
		}
	}

	w.fsw, err = fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch: %w%s", err, limitHint(err))
	}
	for dir := range w.filters {
		if err := w.fsw.Add(dir); err != nil {
			if dir == filepath.Dir(root) {
				_ = w.fsw.Close()
				return nil, fmt.Errorf("watch: %s: %w%s", dir, err, limitHint(err))
			}
			// Usually a directory that does not exist (yet): not a problem
			// worth a warning; the caller re-creates the Watcher when it
			// appears.
			w.log.Debug("watch: extra path's directory not watched", "dir", dir, "err", err)
			delete(w.filters, dir)
		}
	}
	for dir := range w.open {
		if _, ok := w.filters[dir]; ok {
			continue // already watched
		}
		if err := w.fsw.Add(dir); err != nil {
			w.log.Debug("watch: directory not watched", "dir", dir, "err", fmt.Sprintf("%v%s", err, limitHint(err)))
			delete(w.open, dir)
		}
	}
	w.watchLinkTarget()
	if _, err := w.addTree(root, nil); err != nil {
		w.log.Warn("watch: initial watch incomplete", "root", root, "err", err)
	}
	w.addRestoreDirs(w.restore.Load())
	return w, nil
}

// watchLinkTarget watches, when Root is a symbolic link to a directory, the
// directory holding the link's target with a filter on the target's name,
// and records the alias: the target deleted or moved away and back raises
// events there only. A target directory that is the same directory as one
// already watched (the project root written another way) is named as that
// one, since the kernel gives one directory a single watch.
func (w *Watcher) watchLinkTarget() {
	fi, err := os.Lstat(w.root)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return
	}
	real, err := filepath.EvalSymlinks(w.root)
	if err != nil {
		return // dangling: the link's own events cover it
	}
	parent, name := filepath.Dir(real), filepath.Base(real)
	if pfi, err := os.Stat(parent); err == nil {
		for dir := range w.filters {
			if dfi, err := os.Stat(dir); err == nil && os.SameFile(pfi, dfi) {
				parent = dir
				break
			}
		}
	}
	target := filepath.Join(parent, name)
	if target == w.root || w.underRoot(target) {
		return
	}
	if _, ok := w.filters[parent]; !ok {
		if err := w.fsw.Add(parent); err != nil {
			w.log.Debug("watch: directory of .planning's target not watched", "dir", parent, "err", err)
			return
		}
	}
	w.filter(target)
	w.alias[target] = w.root
}

func (w *Watcher) filter(path string) {
	dir, name := filepath.Dir(path), filepath.Base(path)
	if w.filters[dir] == nil {
		w.filters[dir] = map[string]bool{}
	}
	w.filters[dir][name] = true
}

func (w *Watcher) underRoot(path string) bool {
	return path == w.root || strings.HasPrefix(path, w.root+string(filepath.Separator))
}

func (w *Watcher) ignored(path string) bool {
	return w.ignore != nil && w.ignore(path)
}

// noise reports whether a non-directory path is an editor artefact or a lock
// file that must never reach a batch
// (docs/architecture.md#editor-save-patterns).
func noise(path string) bool {
	return IsEditorTemp(path) || IsLockFile(path)
}

// limitHint explains the inotify limits behind an error (pattern 17 of
// docs/architecture.md#editor-save-patterns).
func limitHint(err error) string {
	switch {
	case errors.Is(err, syscall.EMFILE):
		return " (inotify instances exhausted; raise sysctl fs.inotify.max_user_instances)"
	case errors.Is(err, syscall.ENOSPC):
		return " (inotify watches exhausted; raise sysctl fs.inotify.max_user_watches)"
	}
	return ""
}

// Stats returns the counters so far. It is safe to call concurrently.
func (w *Watcher) Stats() Stats {
	return Stats{
		Events:        w.events.Load(),
		Overflows:     w.overflows.Load(),
		Batches:       w.batches.Load(),
		RescanBatches: w.rescanBatches.Load(),
	}
}

// Close releases the inotify instance. A running Run then drains and returns
// nil. Close is safe to call more than once.
func (w *Watcher) Close() error {
	return w.fsw.Close()
}

// Run delivers batches to fn until ctx is done (then it returns nil), fn
// returns an error (Run returns it), or the Watcher is closed (nil). fn runs
// on Run's goroutine, one batch at a time; while it runs, new hints keep
// accumulating. Paths in a batch are absolute and cleaned; a directory path
// means "re-read this subtree" (it appeared, moved away or was deleted).
// Run may be called once.
func (w *Watcher) Run(ctx context.Context, fn func(Batch) error) error {
	if !w.running.CompareAndSwap(false, true) {
		return errors.New("watch: Run called twice")
	}
	hints := make(chan Hint, 256)
	deb := NewDebouncer(hints, w.deb)
	loopCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(hints)
		w.loop(loopCtx, hints)
	})
	stop := func() {
		cancel()
		wg.Wait()
		_ = deb.Close()
	}
	for {
		select {
		case <-ctx.Done():
			stop()
			return nil
		case b, ok := <-deb.Batches():
			if !ok {
				stop()
				return nil
			}
			w.batches.Add(1)
			if b.Rescan {
				w.rescanBatches.Add(1)
			}
			if err := fn(b); err != nil {
				stop()
				return err
			}
		}
	}
}

// IgnoreReciteOutputs returns an Options.Ignore predicate for recite's own
// outputs under the planning directory root: root/prompts/, root/.recite/ and
// renameio temp files anywhere (docs/formats.md#files-recite-writes,
// docs/architecture.md#no-self-trigger). A relative root is made absolute
// first, since the Watcher's paths are.
func IgnoreReciteOutputs(root string) func(path string) bool {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	root = filepath.Clean(root)
	prompts := filepath.Join(root, "prompts")
	cache := filepath.Join(root, ".recite")
	sep := string(filepath.Separator)
	return func(path string) bool {
		for _, d := range []string{prompts, cache} {
			if path == d || strings.HasPrefix(path, d+sep) {
				return true
			}
		}
		return IsRenameioTemp(path)
	}
}
