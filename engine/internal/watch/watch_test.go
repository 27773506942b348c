package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// pollDeadline bounds every wait; correctness never depends on a sleep.
const pollDeadline = 20 * time.Second

// harness runs a Watcher over project/.planning with a consumer that keeps an
// index of file contents, re-reading hinted paths and walking on Rescan —
// the contract the engine follows.
type harness struct {
	t       *testing.T
	project string
	root    string
	w       *Watcher
	delay   time.Duration // consumer time per batch (a slow consumer)

	mu      sync.Mutex
	batches []Batch
	index   map[string]string // path relative to project → content
	runErr  chan error
}

type harnessOpt func(*Options)

func newHarness(t *testing.T, setup func(project string), opts ...harnessOpt) *harness {
	t.Helper()
	return newHarnessIn(t, t.TempDir(), setup, opts...)
}

// newHarnessIn is newHarness in a given, existing project directory.
func newHarnessIn(t *testing.T, project string, setup func(project string), opts ...harnessOpt) *harness {
	t.Helper()
	root := filepath.Join(project, ".planning")
	mkdir(t, root)
	if setup != nil {
		setup(project)
	}
	o := Options{Project: project, Ignore: IgnoreReciteOutputs(root)}
	for _, f := range opts {
		f(&o)
	}
	w, err := New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h := &harness{t: t, project: project, root: root, w: w, index: map[string]string{}, runErr: make(chan error, 1)}
	h.walk(root)
	t.Cleanup(func() { _ = w.Close() })
	return h
}

// start runs the watcher until the test ends.
func (h *harness) start() {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { h.runErr <- h.w.Run(ctx, h.consume) }()
	h.t.Cleanup(func() {
		cancel()
		if err := <-h.runErr; err != nil {
			h.t.Errorf("Run: %v", err)
		}
	})
}

func (h *harness) consume(b Batch) error {
	if !b.Rescan && !slices.IsSorted(b.Paths) {
		return fmt.Errorf("batch not sorted: %v", b.Paths)
	}
	if !b.Rescan && len(slices.Compact(slices.Clone(b.Paths))) != len(b.Paths) {
		return fmt.Errorf("batch has duplicates: %v", b.Paths)
	}
	time.Sleep(h.delay)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.batches = append(h.batches, b)
	if b.Rescan {
		clear(h.index)
		h.walkLocked(h.root)
		return nil
	}
	for _, p := range b.Paths {
		h.refreshLocked(p)
	}
	return nil
}

func (h *harness) rel(p string) string {
	r, err := filepath.Rel(h.project, p)
	if err != nil {
		h.t.Errorf("rel %s: %v", p, err)
	}
	return filepath.ToSlash(r)
}

func (h *harness) walk(dir string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.walkLocked(dir)
}

// walkLocked indexes every regular file under dir the watcher would not
// ignore.
func (h *harness) walkLocked(dir string) {
	ignore := IgnoreReciteOutputs(h.root)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ignore(p) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !noise(p) {
			if b, err := os.ReadFile(p); err == nil {
				h.index[h.rel(p)] = string(b)
			}
		}
		return nil
	})
}

// refreshLocked re-reads one hinted path: a file, a directory subtree, or a
// vanished path (its entry and everything below it leave the index).
func (h *harness) refreshLocked(p string) {
	r := h.rel(p)
	for k := range h.index {
		if k == r || strings.HasPrefix(k, r+"/") {
			delete(h.index, k)
		}
	}
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
	case fi.IsDir():
		h.walkLocked(p)
	case fi.Mode().IsRegular():
		if b, err := os.ReadFile(p); err == nil {
			h.index[r] = string(b)
		}
	}
}

// waitFor polls cond under the lock until it holds or the deadline passes.
func (h *harness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(pollDeadline)
	for {
		h.mu.Lock()
		ok := cond()
		h.mu.Unlock()
		if ok {
			return
		}
		select {
		case err := <-h.runErr:
			h.runErr <- err
			h.t.Fatalf("Run ended while waiting for %s: %v", what, err)
		default:
		}
		if time.Now().After(deadline) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.t.Fatalf("timed out waiting for %s; %d batches, index has %d files", what, len(h.batches), len(h.index))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *harness) waitContent(rel, want string) {
	h.t.Helper()
	h.waitFor(fmt.Sprintf("%s = %q", rel, want), func() bool {
		got, ok := h.index[rel]
		return ok && got == want
	})
}

// probe writes a fresh file and waits until it is indexed: every event
// raised before it has been delivered by then.
func (h *harness) probe(name string) {
	h.t.Helper()
	write(h.t, filepath.Join(h.root, name), name)
	h.waitContent(".planning/"+name, name)
}

// seen lists every path (relative) that appeared in any batch.
func (h *harness) seen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, b := range h.batches {
		for _, p := range b.Paths {
			out = append(out, h.rel(p))
		}
	}
	return out
}

func (h *harness) batchCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.batches)
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
}

// TestSavePatterns replays the save sequences of
// docs/architecture.md#editor-save-patterns on a real file system; each must
// end with the new content indexed and no artefact name in any batch.
func TestSavePatterns(t *testing.T) {
	tests := []struct {
		name  string
		file  string // relative to .planning, exists with "old\n" before
		save  func(t *testing.T, path string)
		noise []string // base names that must never appear in a batch
	}{
		{
			name: "in-place write (VS Code, pattern 5)",
			file: "STATE.md",
			save: func(t *testing.T, p string) {
				f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = f.WriteString("new part one\n")
				_, _ = f.WriteString("new part two\n")
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "JetBrains safe write (pattern 8)",
			file: "PLAN.md",
			save: func(t *testing.T, p string) {
				write(t, p+"___jb_tmp___", "new part one\nnew part two\n")
				rename(t, p, p+"___jb_old___")
				rename(t, p+"___jb_tmp___", p)
				remove(t, p+"___jb_old___")
			},
			noise: []string{"PLAN.md___jb_tmp___", "PLAN.md___jb_old___"},
		},
		{
			name: "vim backupcopy=no: swap, 4913 probe, rename to backup, write anew (patterns 1, 2)",
			file: "notes.md",
			save: func(t *testing.T, p string) {
				dir := filepath.Dir(p)
				swp := filepath.Join(dir, ".notes.md.swp")
				write(t, swp, "swap")
				write(t, filepath.Join(dir, ".notes.md.swx"), "x")
				remove(t, filepath.Join(dir, ".notes.md.swx"))
				write(t, filepath.Join(dir, "4913"), "")
				remove(t, filepath.Join(dir, "4913"))
				rename(t, p, p+"~")
				write(t, p, "new part one\nnew part two\n")
				remove(t, p+"~")
				remove(t, swp)
			},
			noise: []string{".notes.md.swp", ".notes.md.swx", "4913", "notes.md~"},
		},
		{
			name: "temp and rename over (renameio, sed -i, patterns 6, 7)",
			file: "ROADMAP.md",
			save: func(t *testing.T, p string) {
				tmp := filepath.Join(filepath.Dir(p), "sedAb3xYz")
				write(t, tmp, "new part one\nnew part two\n")
				rename(t, tmp, p)
			},
			noise: []string{"sedAb3xYz"},
		},
		{
			name: "Emacs: lock symlink, backup rename, later in-place save (pattern 9)",
			file: "VISION.md",
			save: func(t *testing.T, p string) {
				dir := filepath.Dir(p)
				lock := filepath.Join(dir, ".#VISION.md")
				if err := os.Symlink("root@vm.24745", lock); err != nil {
					t.Fatal(err)
				}
				rename(t, p, p+"~") // left behind, as Emacs does
				write(t, p, "new part one\nnew part two\n")
				remove(t, lock)
				write(t, filepath.Join(dir, "#VISION.md#"), "autosave")
			},
			noise: []string{".#VISION.md", "VISION.md~", "#VISION.md#"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, func(project string) {
				write(t, filepath.Join(project, ".planning", tt.file), "old\n")
			})
			h.start()
			tt.save(t, filepath.Join(h.root, tt.file))
			h.waitContent(".planning/"+tt.file, "new part one\nnew part two\n")
			h.probe("probe.md")
			for _, p := range h.seen() {
				if slices.Contains(tt.noise, filepath.Base(p)) {
					t.Errorf("artefact %s reached a batch", p)
				}
			}
		})
	}
}

// TestIgnored checks that recite's own outputs, GSD locks, chmod-only
// events and unrelated files in the project root never reach a batch.
func TestExtraPaths(t *testing.T) {
	h := newHarness(t, nil, func(o *Options) { o.Extra = []string{"CLAUDE.md", "docs/notes.md", "missing/x.md"} })
	mkdir(t, filepath.Join(h.project, "docs")) // created after New: not watched
	h.start()
	write(t, filepath.Join(h.project, "CLAUDE.md"), "c")
	write(t, filepath.Join(h.project, "README.md"), "r")
	h.waitContent("CLAUDE.md", "c")
	h.probe("probe.md")
	if got := h.seen(); slices.Contains(got, "README.md") {
		t.Errorf("unfiltered sibling of an extra path reached a batch: %v", got)
	}
}

// TestRecreatePlanning is the tree-deleted-and-re-created check of
// docs/architecture.md#watcher-checks: rm -rf .planning, mkdir, write at once,
// later write again → two regenerations, with "new" then "newer".
func TestRecreatePlanning(t *testing.T) {
	h := newHarness(t, func(project string) {
		write(t, filepath.Join(project, ".planning", "STATE.md"), "old")
		mkdir(t, filepath.Join(project, ".planning", "phases", "01-a"))
	}, func(o *Options) { o.Debounce.Quiet = 200 * time.Millisecond; o.Debounce.MaxWait = time.Second })
	h.start()
	remove(t, h.root)
	mkdir(t, h.root)
	write(t, filepath.Join(h.root, "STATE.md"), "new")
	h.waitContent(".planning/STATE.md", "new")
	first := h.batchCount()
	write(t, filepath.Join(h.root, "STATE.md"), "newer")
	h.waitContent(".planning/STATE.md", "newer")
	if n := h.batchCount(); first != 1 || n != 2 {
		t.Errorf("batches: %d until new, %d until newer; want 1 and 2", first, n)
	}
	// The re-created tree is watched recursively again.
	mkdir(t, filepath.Join(h.root, "phases", "02-b"))
	write(t, filepath.Join(h.root, "phases", "02-b", "02-01-PLAN.md"), "plan")
	h.waitContent(".planning/phases/02-b/02-01-PLAN.md", "plan")
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.index[".planning/phases/01-a"]; ok {
		t.Error("deleted directory still indexed")
	}
}

// TestNewDirectoryWrittenAtOnce is the new-directory check of
// docs/architecture.md#watcher-checks, ten times: MkdirAll then WriteFile at
// once from this process; the file must be indexed (by event or by the scan of
// the new directory) and no batch may list it twice.
func TestNewDirectoryWrittenAtOnce(t *testing.T) {
	h := newHarness(t, nil)
	h.start()
	for i := range 10 {
		dir := filepath.Join(h.root, fmt.Sprintf("phase-%d", i), "tasks", "sub")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(filepath.Dir(dir), "TASK.md"), "- [ ] t\n")
		write(t, filepath.Join(dir, "deep.md"), "d")
	}
	for i := range 10 {
		h.waitContent(fmt.Sprintf(".planning/phase-%d/tasks/TASK.md", i), "- [ ] t\n")
		h.waitContent(fmt.Sprintf(".planning/phase-%d/tasks/sub/deep.md", i), "d")
	}
	// consume rejects duplicate paths inside a batch; the all-digit directory
	// name of a phase is a directory, not vim's 4913 probe.
	mkdir(t, filepath.Join(h.root, "08"))
	write(t, filepath.Join(h.root, "08", "08-01-PLAN.md"), "p")
	h.waitContent(".planning/08/08-01-PLAN.md", "p")
	// Later writes inside the new directories raise events: they are watched.
	write(t, filepath.Join(h.root, "phase-3", "tasks", "sub", "deep.md"), "d2")
	h.waitContent(".planning/phase-3/tasks/sub/deep.md", "d2")
}

// TestDirectoryMovedAway: a rename of a watched directory hints the
// directory, so the consumer drops what was below it.
func TestDirectoryMovedAway(t *testing.T) {
	h := newHarness(t, func(project string) {
		mkdir(t, filepath.Join(project, ".planning", "phases", "01-a", "deep"))
		write(t, filepath.Join(project, ".planning", "phases", "01-a", "deep", "x.md"), "x")
	})
	h.start()
	rename(t, filepath.Join(h.root, "phases", "01-a"), filepath.Join(h.project, "away"))
	h.waitFor("moved files leave the index", func() bool {
		_, ok := h.index[".planning/phases/01-a/deep/x.md"]
		return !ok
	})
	// Writes in the moved-away tree must not produce stale-name hints.
	write(t, filepath.Join(h.project, "away", "deep", "x.md"), "changed")
	h.probe("probe.md")
	for _, p := range h.seen() {
		if strings.HasPrefix(p, ".planning/phases/01-a/deep") {
			t.Errorf("stale hint %s", p)
		}
	}
}

// TestCheckoutSwitch: git checkout unlinks and re-creates every changed file
// (pattern 10 of docs/architecture.md#editor-save-patterns); 500 files switch
// in one go.
func TestCheckoutSwitch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	const n = 500
	var h *harness
	gitRun := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	writeAll := func(project, content string) {
		dir := filepath.Join(project, ".planning", "gen")
		mkdir(t, dir)
		for i := range n {
			write(t, filepath.Join(dir, fmt.Sprintf("f%03d.md", i)), content)
		}
	}
	h = newHarness(t, func(project string) {
		gitRun(project, "init", "-q", "-b", "main")
		writeAll(project, "a")
		gitRun(project, "add", ".")
		gitRun(project, "commit", "-q", "-m", "a")
		gitRun(project, "checkout", "-q", "-b", "other")
		writeAll(project, "b")
		gitRun(project, "commit", "-q", "-am", "b")
		gitRun(project, "checkout", "-q", "main")
	})
	h.start()
	gitRun(h.project, "checkout", "-q", "other")
	h.waitFor("all 500 files switched to b", func() bool {
		count := 0
		for k, v := range h.index {
			if strings.HasPrefix(k, ".planning/gen/") && v == "b" {
				count++
			}
		}
		return count == n
	})
	for _, p := range h.seen() {
		if strings.HasPrefix(p, ".git") {
			t.Errorf("git's own files reached a batch: %s", p)
			break
		}
	}
}

// TestOverflow is the queue-overflow check of
// docs/architecture.md#watcher-checks: 12,000 files (create + write each,
// 24,000 events) while nobody reads the watcher exceed max_queued_events; the
// watcher reports the overflow as a Rescan batch, the consumer walks, and all
// 12,000 files are indexed. The watcher keeps running afterwards.
func TestOverflow(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 12,000 files")
	}
	const n = 12000
	limit := "unknown"
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
		limit = strings.TrimSpace(string(b))
	}
	h := newHarness(t, func(project string) {
		mkdir(t, filepath.Join(project, ".planning", "gen"))
	})
	h.delay = 100 * time.Millisecond // a slow consumer
	// Run is not started yet: the 24,000 events pile up in the kernel queue.
	for i := range n {
		write(t, filepath.Join(h.root, "gen", fmt.Sprintf("f%05d.md", i)), "x")
	}
	h.start()
	h.waitFor("12,000 files indexed", func() bool {
		count := 0
		for k := range h.index {
			if strings.HasPrefix(k, ".planning/gen/") {
				count++
			}
		}
		return count == n
	})
	h.probe("after-overflow.md")
	st := h.w.Stats()
	t.Logf("max_queued_events=%s; stats %+v", limit, st)
	if limit == "16384" && st.Overflows == 0 {
		t.Errorf("no ErrEventOverflow for %d events with max_queued_events=%s", 2*n, limit)
	}
	if st.RescanBatches == 0 {
		t.Error("no Rescan batch")
	}
}

func TestRunStops(t *testing.T) {
	t.Run("callback error is returned", func(t *testing.T) {
		h := newHarness(t, nil)
		boom := errors.New("boom")
		done := make(chan error, 1)
		go func() { done <- h.w.Run(context.Background(), func(Batch) error { return boom }) }()
		write(t, filepath.Join(h.root, "a.md"), "a")
		select {
		case err := <-done:
			if !errors.Is(err, boom) {
				t.Errorf("Run = %v, want boom", err)
			}
		case <-time.After(pollDeadline):
			t.Fatal("Run did not return")
		}
		if err := h.w.Run(context.Background(), func(Batch) error { return nil }); err == nil {
			t.Error("second Run succeeded")
		}
	})
	t.Run("Close ends Run", func(t *testing.T) {
		h := newHarness(t, nil)
		done := make(chan error, 1)
		go func() { done <- h.w.Run(context.Background(), func(Batch) error { return nil }) }()
		if err := h.w.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v, want nil", err)
			}
		case <-time.After(pollDeadline):
			t.Fatal("Run did not return after Close")
		}
	})
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	write(t, file, "")
	tests := []struct {
		name string
		opts Options
	}{
		{"no project", Options{}},
		{"missing project", Options{Project: filepath.Join(dir, "nope")}},
		{"project is a file", Options{Project: file}},
		{"root's parent missing", Options{Project: dir, Root: "a/b/.planning"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := New(tt.opts)
			if err == nil {
				_ = w.Close()
				t.Fatal("New succeeded")
			}
		})
	}
}
