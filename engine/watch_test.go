package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recite-dev/recite/internal/sharedtest"
)

var watchSeed = flag.Uint64("watch.seed", 0, "seed of TestWatchRandomEdits (0: from the clock; the seed is logged)")

// Timing of the convergence checks. They are failure guards and the quiet
// window that defines "settled", never assertions about speed.
const (
	// settleQuiet is how long no render may happen before the project
	// counts as settled: well above the 250 ms maximum wait, so a render
	// still owed to earlier events, or one caused by recite's own writes,
	// falls inside it.
	settleQuiet = 700 * time.Millisecond
	// convergeGuard bounds the wait for the expected prompt files.
	convergeGuard = 30 * time.Second
)

// countOpts are the watch options of tests that count renders: a quiet
// period wider than the default, so a test goroutine descheduled between
// two steps of one save on a loaded machine does not split the save into
// two batches. The default timing is exercised by TestWatchRandomEdits and
// the benchmarks.
var countOpts = WatchOptions{Quiet: 150 * time.Millisecond, MaxWait: 400 * time.Millisecond}

// watchRun is one Engine.Watch running in a goroutine on a project.
type watchRun struct {
	t       *testing.T
	dir     string
	events  chan WatchEvent
	renders atomic.Int64
	// mark is the render count when the watch last settled (or started):
	// renders after it belong to the change the test made since.
	mark   int64
	cancel context.CancelFunc
	done   chan error
}

// startWatch runs Engine.Watch on dir and waits for the initial render.
func startWatch(t *testing.T, dir string, opts WatchOptions) *watchRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &watchRun{t: t, dir: dir, events: make(chan WatchEvent, 4096), cancel: cancel, done: make(chan error, 1)}
	go func() {
		h.done <- New(dir).Watch(ctx, opts, func(ev WatchEvent) {
			if ev.Kind == EventRender {
				h.renders.Add(1)
			}
			h.events <- ev
		})
	}()
	t.Cleanup(h.stop)
	ev := h.next("the initial render")
	if ev.Trigger != "start" || ev.Error != "" {
		t.Fatalf("first event %+v, want the start render", ev)
	}
	h.mark = h.renders.Load()
	return h
}

// stop cancels the watch and checks it returned nil.
func (h *watchRun) stop() {
	h.cancel()
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("Watch returned %v after cancel, want nil", err)
		}
		h.done <- nil // a second stop returns at once
	case <-time.After(convergeGuard):
		h.t.Error("Watch did not return after cancel")
	}
}

func (h *watchRun) next(what string) WatchEvent {
	h.t.Helper()
	select {
	case ev := <-h.events:
		h.logEvent(ev)
		return ev
	case err := <-h.done:
		h.t.Fatalf("waiting for %s: Watch returned %v", what, err)
	case <-time.After(convergeGuard):
		h.t.Fatalf("no event within %v waiting for %s", convergeGuard, what)
	}
	return WatchEvent{}
}

func (h *watchRun) logEvent(ev WatchEvent) {
	h.t.Logf("event %s/%s written=%d changed=%v err=%q commit=%s", ev.Kind, ev.Trigger, len(ev.Written), ev.Changed, ev.Error, ev.Commit)
}

// converge waits until the prompt files equal a fresh build of a copy of
// the project, then until no render happened for settleQuiet, and checks
// the files once more. It returns the number of renders since the watch
// last settled, so a render that lands while the fresh build runs counts.
func (h *watchRun) converge(label string) int {
	h.t.Helper()
	before := h.mark
	want := freshPrompts(h.t, h.dir)
	guard := time.After(convergeGuard)
	for !promptsEqual(readPrompts(h.t, h.dir), want) {
		select {
		case ev := <-h.events:
			h.logEvent(ev)
		case <-guard:
			h.t.Fatalf("%s: prompt files never matched a fresh build:\n%s", label, promptsDiff(readPrompts(h.t, h.dir), want))
		}
	}
	h.settle(label)
	if got := readPrompts(h.t, h.dir); !promptsEqual(got, want) {
		h.t.Fatalf("%s: prompt files changed after convergence:\n%s", label, promptsDiff(got, want))
	}
	return int(h.renders.Load() - before)
}

// settle waits until no event came for settleQuiet. Renders that feed on
// recite's own writes would never stop and hit the guard.
func (h *watchRun) settle(label string) {
	h.t.Helper()
	guard := time.After(convergeGuard)
	quiet := time.NewTimer(settleQuiet)
	defer quiet.Stop()
	for {
		select {
		case ev := <-h.events:
			h.logEvent(ev)
			quiet.Reset(settleQuiet)
		case <-quiet.C:
			h.mark = h.renders.Load()
			return
		case <-guard:
			h.t.Fatalf("%s: renders did not stop within %v (recite reacting to its own writes?)", label, convergeGuard)
		}
	}
}

// freshPrompts copies dir's inputs (everything but .planning/prompts and
// .planning/.recite) to a new directory, builds there with a new Engine and
// returns the prompt files. A symbolic link .planning is copied as the
// folder it points to.
func freshPrompts(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	dst := t.TempDir()
	if err := copyInputs(dir, dst, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := New(dst).Build(context.Background()); err != nil {
		if _, statErr := os.Stat(filepath.Join(dst, PlanningDir)); statErr == nil {
			t.Fatalf("fresh build: %v", err)
		}
	}
	return readPrompts(t, dst)
}

// copyInputs copies the tree at src to dst/base, where base is src's path
// relative to the project root, skipping recite's outputs; the .planning
// folder is followed when it is a symbolic link.
func copyInputs(src, dst, base string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.Join(base, rel)
		if d.IsDir() && (rel == filepath.FromSlash(PromptsDir) || rel == filepath.FromSlash(CacheDir)) {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			if fi, err := os.Stat(p); err == nil && fi.IsDir() && rel == PlanningDir {
				real, err := filepath.EvalSymlinks(p)
				if err != nil {
					return err
				}
				return copyInputs(real, dst, rel)
			}
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// readPrompts returns the files in dir/.planning/prompts by name.
func readPrompts(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	entries, err := os.ReadDir(filepath.Join(dir, PromptsDir))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, PromptsDir, e.Name()))
		if err != nil {
			if os.IsNotExist(err) {
				continue // replaced this instant; the next look sees it
			}
			t.Fatal(err)
		}
		m[e.Name()] = b
	}
	return m
}

func promptsEqual(a, b map[string][]byte) bool {
	return len(a) == len(b) && func() bool {
		for k, v := range a {
			if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
				return false
			}
		}
		return true
	}()
}

func promptsDiff(got, want map[string][]byte) string {
	var b strings.Builder
	var names []string
	for k := range got {
		names = append(names, k)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		g, gok := got[k]
		w, wok := want[k]
		switch {
		case !gok:
			fmt.Fprintf(&b, "  %s: missing\n", k)
		case !wok:
			fmt.Fprintf(&b, "  %s: unexpected\n", k)
		case !bytes.Equal(g, w):
			i := commonPrefix(g, w)
			fmt.Fprintf(&b, "  %s: differs at byte %d: got %q, want %q\n", k, i, excerpt(g, i), excerpt(w, i))
		}
	}
	return b.String()
}

func excerpt(b []byte, i int) string {
	return string(b[i:min(len(b), i+80)])
}

// gsdProject copies examples/gsd into dir (a new temp dir when "").
func gsdProject(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd")
	if dir == "" {
		return copyTree(t, src)
	}
	if err := sharedtest.CopyTree(src, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// projectLine is a line the gsd example's prompt carries: PROJECT.md is the
// project brief, copied whole.
func projectLine(n int) string { return fmt.Sprintf("\n- watch test marker %d\n", n) }

// TestWatchSavePatterns applies each editor's save pattern
// (docs/architecture.md#editor-save-patterns) to a file that feeds the prompt
// and checks that the prompt files converge to a fresh build's, with one
// render for a plain save.
func TestWatchSavePatterns(t *testing.T) {
	type pattern struct {
		name string
		// save changes the project; the prompt must change too unless
		// same is set.
		save func(t *testing.T, dir string)
		same bool
		// renders is the exact number of renders expected (-1: any).
		renders int
	}
	project := func(dir string) string { return filepath.Join(dir, ".planning", "PROJECT.md") }
	patterns := []pattern{
		{
			name: "in-place write (VS Code)", renders: 1,
			save: func(t *testing.T, dir string) {
				p := project(dir)
				content := mustRead(t, p) + projectLine(1)
				f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
				if err != nil {
					t.Fatal(err)
				}
				// Two writes, as VS Code does (pattern 5 of
				// docs/architecture.md#editor-save-patterns).
				half := len(content) / 2
				if _, err := f.WriteString(content[:half]); err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString(content[half:]); err != nil {
					t.Fatal(err)
				}
				if err := f.Close(); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "temp file renamed over (JetBrains, vim backupcopy=no, sed -i)", renders: 1,
			save: func(t *testing.T, dir string) {
				p := project(dir)
				tmp := p + "___jb_tmp___"
				mustWrite(t, tmp, mustRead(t, p)+projectLine(2))
				mustRename(t, p, p+"___jb_old___")
				mustRename(t, tmp, p)
				if err := os.Remove(p + "___jb_old___"); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "rename to backup then write anew (vim default)", renders: 1,
			save: func(t *testing.T, dir string) {
				p := project(dir)
				swp := filepath.Join(filepath.Dir(p), ".PROJECT.md.swp")
				mustWrite(t, swp, "swap")
				content := mustRead(t, p) + projectLine(3)
				probe := filepath.Join(filepath.Dir(p), "4913")
				mustWrite(t, probe, "")
				if err := os.Remove(probe); err != nil {
					t.Fatal(err)
				}
				mustRename(t, p, p+"~")
				mustWrite(t, p, content)
				for _, f := range []string{p + "~", swp} {
					if err := os.Remove(f); err != nil {
						t.Fatal(err)
					}
				}
			},
		},
		{
			name: "emacs lock symlink alone", same: true, renders: 0,
			save: func(t *testing.T, dir string) {
				if err := os.Symlink("root@vm.24745:1700000000", filepath.Join(dir, ".planning", ".#PROJECT.md")); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "emacs save: lock, rename to backup, write, unlock", renders: 1,
			save: func(t *testing.T, dir string) {
				p := project(dir)
				lock := filepath.Join(dir, ".planning", ".#PROJECT.md")
				if err := os.Symlink("root@vm.24745:1700000000", lock); err != nil {
					t.Fatal(err)
				}
				content := mustRead(t, p) + projectLine(4)
				mustRename(t, p, p+"~")
				mustWrite(t, p, content)
				if err := os.Remove(lock); err != nil {
					t.Fatal(err)
				}
				// Emacs leaves PROJECT.md~ behind.
			},
		},
		{
			name: "delete and re-create .planning", renders: -1,
			save: func(t *testing.T, dir string) {
				pl := filepath.Join(dir, ".planning")
				files := map[string]string{}
				err := filepath.WalkDir(pl, func(p string, d fs.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					rel, _ := filepath.Rel(pl, p)
					if !strings.HasPrefix(rel, "prompts") && !strings.HasPrefix(rel, ".recite") {
						files[rel] = mustRead(t, p)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				files["PROJECT.md"] += projectLine(5)
				// rm -rf .planning && mkdir .planning && write at once.
				// The watch may render while the removal runs (the quiet
				// period is 20 ms) and write into .planning/.recite again;
				// rm -rf then fails with "directory not empty", and is run
				// again, as a user would.
				err = os.RemoveAll(pl)
				for try := 0; err != nil && try < 100; try++ {
					time.Sleep(10 * time.Millisecond)
					err = os.RemoveAll(pl)
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(pl, 0o755); err != nil {
					t.Fatal(err)
				}
				for rel, content := range files {
					mustWrite(t, filepath.Join(pl, rel), content)
				}
			},
		},
		{
			name: "mkdir -p then write at once into the new folder", renders: -1,
			save: func(t *testing.T, dir string) {
				// The current plan's folder goes away and comes back
				// with a changed plan, written straight into new folders.
				phase := filepath.Join(dir, ".planning", "phases", "02-http-api")
				away := filepath.Join(dir, "phase.saved")
				mustRename(t, phase, away)
				if err := os.MkdirAll(phase, 0o755); err != nil {
					t.Fatal(err)
				}
				entries, err := os.ReadDir(away)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					content := mustRead(t, filepath.Join(away, e.Name()))
					if e.Name() == "02-02-PLAN.md" {
						content = strings.Replace(content, "Register `GET /{slug}`", "Register `GET /{slug}` (watch test)", 1)
					}
					mustWrite(t, filepath.Join(phase, e.Name()), content)
				}
				mustWrite(t, filepath.Join(phase, "notes", "deep", "NOTE.md"), "# note\n")
				if err := os.RemoveAll(away); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "AGENTS.md at the project root (a system file)", renders: 1,
			save: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "AGENTS.md")
				mustWrite(t, p+".vsctmp", mustRead(t, p)+"\n- watch test rule\n")
				mustRename(t, p+".vsctmp", p)
			},
		},
		{
			name: "a file the current task names (files section)", renders: 1,
			save: func(t *testing.T, dir string) {
				p := filepath.Join(dir, "internal", "api", "handler.go")
				mustWrite(t, p, mustRead(t, p)+"\n// watch test edit\n")
			},
		},
		{
			name: "a new folder and file in the project (file tree)", renders: -1,
			save: func(t *testing.T, dir string) {
				mustWrite(t, filepath.Join(dir, "internal", "newpkg", "new.go"), "package newpkg\n")
			},
		},
		{
			name: "touch only (chmod event)", same: true, renders: 0,
			save: func(t *testing.T, dir string) {
				now := time.Now()
				if err := os.Chtimes(project(dir), now, now); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
	for _, p := range patterns {
		t.Run(p.name, func(t *testing.T) {
			dir := gsdProject(t, "")
			h := startWatch(t, dir, countOpts)
			h.settle("start")
			before := readPrompts(t, dir)
			n0 := h.renders.Load()
			p.save(t, dir)
			h.converge(p.name)
			after := readPrompts(t, dir)
			if changed := !promptsEqual(before, after); changed == p.same {
				t.Errorf("prompt changed = %v, want %v", changed, !p.same)
			}
			if n := int(h.renders.Load() - n0); p.renders >= 0 && n != p.renders {
				t.Errorf("%d renders, want %d", n, p.renders)
			}
		})
	}
}

// TestWatchSymlinkedPlanning: .planning is a symbolic link to a folder kept
// elsewhere (docs/architecture.md#watch-rules). After the first render, an
// edit through the link and a phase folder written anew each render once and
// converge to a fresh build.
func TestWatchSymlinkedPlanning(t *testing.T) {
	dir := gsdProject(t, "")
	real := filepath.Join(t.TempDir(), "w2real")
	mustRename(t, filepath.Join(dir, PlanningDir), real)
	if err := os.Symlink(real, filepath.Join(dir, PlanningDir)); err != nil {
		t.Fatal(err)
	}
	h := startWatch(t, dir, countOpts)
	h.settle("start")

	// sed -i .planning/PROJECT.md: a temp file renamed over it.
	before := readPrompts(t, dir)
	p := filepath.Join(dir, PlanningDir, "PROJECT.md")
	tmp := filepath.Join(dir, PlanningDir, "sedAb3xYz")
	mustWrite(t, tmp, mustRead(t, p)+projectLine(7))
	mustRename(t, tmp, p)
	if n := h.converge("sed -i PROJECT.md"); n != 1 {
		t.Errorf("%d renders after sed -i, want 1", n)
	}
	if promptsEqual(before, readPrompts(t, dir)) {
		t.Error("the prompt did not change with PROJECT.md")
	}

	// The current phase's folder moved away and written anew at once,
	// with a changed plan.
	before = readPrompts(t, dir)
	phase := filepath.Join(dir, PlanningDir, "phases", "02-http-api")
	away := filepath.Join(t.TempDir(), "phase.saved")
	mustRename(t, phase, away)
	entries, err := os.ReadDir(away)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		content := mustRead(t, filepath.Join(away, e.Name()))
		if e.Name() == "02-02-PLAN.md" {
			content = strings.Replace(content, "Register `GET /{slug}`", "Register `GET /{slug}` (symlink test)", 1)
		}
		mustWrite(t, filepath.Join(phase, e.Name()), content)
	}
	h.converge("phase folder written anew")
	if promptsEqual(before, readPrompts(t, dir)) {
		t.Error("the prompt did not change with the plan")
	}
}

// TestWatchRestoresDeletedPrompt: a prompt file the user deletes or moves away
// is written again, byte-identical to a fresh build, by exactly one render
// (docs/architecture.md#watch-rules); recite's own rewrite triggers none.
func TestWatchRestoresDeletedPrompt(t *testing.T) {
	dir := gsdProject(t, "")
	h := startWatch(t, dir, countOpts)
	h.settle("start")
	prompts := filepath.Join(dir, PromptsDir)
	agent := filepath.Join(prompts, "agent.md")
	want := mustRead(t, agent)

	if err := os.Remove(agent); err != nil {
		t.Fatal(err)
	}
	if n := h.converge("rm agent.md"); n != 1 {
		t.Errorf("%d renders after rm agent.md, want 1", n)
	}
	if got := mustRead(t, agent); got != want {
		t.Error("agent.md came back with other bytes")
	}

	mustRename(t, agent, filepath.Join(t.TempDir(), "agent.md.moved"))
	if n := h.converge("mv agent.md away"); n != 1 {
		t.Errorf("%d renders after mv agent.md away, want 1", n)
	}

	if err := os.RemoveAll(prompts); err != nil {
		t.Fatal(err)
	}
	h.converge("rm -r prompts/")
	// prompts/ is watched again: a second deletion is restored too.
	if err := os.Remove(filepath.Join(prompts, "agent.openai.json")); err != nil {
		t.Fatal(err)
	}
	if n := h.converge("rm agent.openai.json"); n != 1 {
		t.Errorf("%d renders after rm agent.openai.json, want 1", n)
	}
}

// TestWatchRealVim saves with the real editor and its default settings in a
// project outside /tmp, where vim saves by renaming (the backupskip note of
// docs/architecture.md#editor-save-patterns).
func TestWatchRealVim(t *testing.T) {
	vim, err := exec.LookPath("vim")
	if err != nil {
		t.Skip("vim not installed (.ci/run installs it; apt-get install -y vim); the real-editor save is not checked")
	}
	base, err := os.MkdirTemp("/var/tmp", "recite-watch-vim-")
	if err != nil {
		t.Skipf("no writable /var/tmp for a project outside vim's backupskip: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	for _, env := range []string{"TMPDIR", "TMP", "TEMP"} {
		if v := os.Getenv(env); v != "" && strings.HasPrefix(base, v) {
			t.Skipf("$%s=%s puts the project in vim's backupskip", env, v)
		}
	}
	dir := gsdProject(t, base)
	h := startWatch(t, dir, countOpts)
	h.settle("start")
	before := readPrompts(t, dir)
	p := filepath.Join(dir, ".planning", "PROJECT.md")
	ino := inodeOf(t, p)
	n0 := h.renders.Load()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, vim, "-u", "NONE", "-N", "-i", "NONE", "-es",
		"-c", `call append(line("$"), "- added by vim")`, "-c", "wq", p)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("vim: %v\n%s", err, out)
	}
	t.Logf("vim saved by %s", map[bool]string{true: "rename (new inode)", false: "in-place write"}[inodeOf(t, p) != ino])
	h.converge("vim save")
	if promptsEqual(before, readPrompts(t, dir)) {
		t.Error("the prompt did not change after the vim save")
	}
	if n := h.renders.Load() - n0; n != 1 {
		t.Errorf("%d renders for one vim save, want 1", n)
	}
	for name, b := range readPrompts(t, dir) {
		for _, art := range []string{"4913", ".PROJECT.md.swp", "PROJECT.md~"} {
			if bytes.Contains(b, []byte(art)) {
				t.Errorf("%s mentions the vim artefact %s", name, art)
			}
		}
	}
}

func inodeOf(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	ino, ok := inodeNumber(fi)
	if !ok {
		t.Skip("no inode numbers on this system")
	}
	return ino
}

// gitRepo runs git in dir with a private HOME and a fixed identity.
type gitRepo struct {
	t   *testing.T
	dir string
	env []string
}

func newGitRepo(t *testing.T, dir string) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git CLI not installed")
	}
	home := t.TempDir()
	r := &gitRepo{t: t, dir: dir, env: append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=user", "GIT_AUTHOR_EMAIL=user@example.com",
		"GIT_COMMITTER_NAME=user", "GIT_COMMITTER_EMAIL=user@example.com")}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestWatchGitCheckout switches 500 files under .planning at once with a real
// `git checkout`, both ways (pattern 10 of
// docs/architecture.md#editor-save-patterns: every file is unlinked and
// re-created).
func TestWatchGitCheckout(t *testing.T) {
	dir := gsdProject(t, "")
	r := newGitRepo(t, dir)
	notes := filepath.Join(dir, ".planning", "research")
	for i := range 500 {
		mustWrite(t, filepath.Join(notes, fmt.Sprintf("note-%03d.md", i)), fmt.Sprintf("# Note %d\n\nmain branch\n", i))
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "main")
	r.git("checkout", "-q", "-b", "other")
	for i := range 500 {
		mustWrite(t, filepath.Join(notes, fmt.Sprintf("note-%03d.md", i)), fmt.Sprintf("# Note %d\n\nother branch\n", i))
	}
	p := filepath.Join(dir, ".planning", "PROJECT.md")
	mustWrite(t, p, mustRead(t, p)+projectLine(6))
	r.git("commit", "-q", "-a", "-m", "other")
	r.git("checkout", "-q", "main")

	h := startWatch(t, dir, WatchOptions{})
	h.settle("start")
	onMain := readPrompts(t, dir)
	r.git("checkout", "-q", "other")
	h.converge("checkout other")
	if promptsEqual(onMain, readPrompts(t, dir)) {
		t.Error("the prompt did not change with the checkout")
	}
	r.git("checkout", "-q", "main")
	h.converge("checkout main")
	if got := readPrompts(t, dir); !promptsEqual(got, onMain) {
		t.Errorf("back on main, the prompt differs from before:\n%s", promptsDiff(got, onMain))
	}
}

// TestWatchRandomEdits is the seeded property test: random sequences of
// edits, creates, deletes and renames inside .planning/, then settle →
// the prompt files equal a fresh build's, and renders stop (recite's own
// writes trigger none). Re-run a failure with -watch.seed=N.
func TestWatchRandomEdits(t *testing.T) {
	base := *watchSeed
	if base == 0 {
		base = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (re-run with -watch.seed=%d)", base, base)
	const sequences, steps = 4, 30
	for s := range uint64(sequences) {
		seed := base + s
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
			dir := gsdProject(t, "")
			h := startWatch(t, dir, WatchOptions{})
			h.settle("start")
			pl := filepath.Join(dir, ".planning")
			for i := range steps {
				randomEdit(t, rng, pl, i)
				if rng.IntN(3) == 0 {
					time.Sleep(time.Duration(rng.IntN(80)) * time.Millisecond)
				}
			}
			h.converge("random edits")
			// Settled: no render for another quiet window.
			n := h.renders.Load()
			h.settle("after convergence")
			if d := h.renders.Load() - n; d != 0 {
				t.Errorf("%d renders after the project settled, want 0", d)
			}
		})
	}
}

// inputFiles lists the markdown files under pl that are recite's inputs.
func inputFiles(t *testing.T, pl string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(pl, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(pl, p)
		if d.IsDir() && (rel == "prompts" || rel == ".recite") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// randomEdit applies one random operation under pl. Existing files are only
// appended to, so their front matter stays valid and no last-good render
// makes the result depend on history.
func randomEdit(t *testing.T, rng *rand.Rand, pl string, step int) {
	t.Helper()
	files := inputFiles(t, pl)
	pick := func() string { return files[rng.IntN(len(files))] }
	line := func() string {
		switch rng.IntN(3) {
		case 0:
			return fmt.Sprintf("- [ ] random task %d\n", step)
		case 1:
			return fmt.Sprintf("- [x] random done %d\n", step)
		}
		return fmt.Sprintf("random text %d\n", step)
	}
	dirs := []string{"", "phases/02-http-api", "todos/pending", "debug", fmt.Sprintf("phases/9%d-new", rng.IntN(3))}
	switch op := rng.IntN(10); {
	case op < 4 && len(files) > 0: // edit in place or by rename
		p := pick()
		content := mustRead(t, p) + "\n" + line()
		if rng.IntN(2) == 0 {
			mustWrite(t, p, content)
		} else {
			mustWrite(t, p+".tmp-"+fmt.Sprint(step), content)
			mustRename(t, p+".tmp-"+fmt.Sprint(step), p)
		}
	case op < 6: // create, in a new directory sometimes
		d := filepath.Join(pl, dirs[rng.IntN(len(dirs))])
		mustWrite(t, filepath.Join(d, fmt.Sprintf("random-%d.md", step)), "# Random "+fmt.Sprint(step)+"\n\n"+line())
	case op < 8 && len(files) > 0: // delete
		if err := os.Remove(pick()); err != nil {
			t.Fatal(err)
		}
	case len(files) > 0: // rename to a new name, maybe in another folder
		d := filepath.Join(pl, dirs[rng.IntN(len(dirs))])
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		mustRename(t, pick(), filepath.Join(d, fmt.Sprintf("renamed-%d.md", step)))
	}
}

// TestWatchBrokenFile: a state file that fails to parse keeps the last
// good prompt and reports a diagnostic; fixing it renders again.
func TestWatchBrokenFile(t *testing.T) {
	dir := gsdProject(t, "")
	h := startWatch(t, dir, WatchOptions{})
	good := readPrompts(t, dir)
	state := filepath.Join(dir, ".planning", "STATE.md")
	orig := mustRead(t, state)
	mustWrite(t, state, strings.Replace(orig, "milestone: v1.0", "milestone: [v1.0", 1))
	ev := h.next("the render of the broken file")
	if len(ev.Kept) == 0 || len(ev.Diagnostics) == 0 {
		t.Fatalf("event %+v: want a kept last good render and diagnostics", ev)
	}
	if !strings.Contains(ev.Kept[0], ".planning/STATE.md") {
		t.Errorf("kept %q does not name the file", ev.Kept[0])
	}
	h.settle("broken")
	if got := readPrompts(t, dir); !promptsEqual(got, good) {
		t.Errorf("the last good prompt was not kept:\n%s", promptsDiff(got, good))
	}
	mustWrite(t, state, orig)
	h.converge("fixed")
}

// TestWatchNoPlanning: Watch refuses a project without .planning/.
func TestWatchNoPlanning(t *testing.T) {
	err := New(t.TempDir()).Watch(context.Background(), WatchOptions{}, func(WatchEvent) {})
	if err == nil || !strings.Contains(err.Error(), "no .planning folder") {
		t.Fatalf("Watch = %v, want the no-.planning error", err)
	}
}

// TestWatchReconfigure: a target added in recite.yaml with an include file
// outside .planning/ makes that file watched too.
func TestWatchReconfigure(t *testing.T) {
	dir := gsdProject(t, "")
	mustWrite(t, filepath.Join(dir, "docs", "SPEC.md"), "# Spec\n\nfirst version\n")
	h := startWatch(t, dir, WatchOptions{})
	mustWrite(t, filepath.Join(dir, ".planning", "recite.yaml"), "targets:\n  - name: agent\n    system: [AGENTS.md, docs/SPEC.md]\n")
	h.converge("recite.yaml")
	before := readPrompts(t, dir)
	mustWrite(t, filepath.Join(dir, "docs", "SPEC.md"), "# Spec\n\nsecond version\n")
	h.converge("SPEC.md")
	if promptsEqual(before, readPrompts(t, dir)) {
		t.Error("the prompt did not change with the new system file")
	}
}

// TestWatchCommit: --commit commits the conversation history, only it, on
// the interval and once more when the watch ends; the user's staged change
// stays staged.
func TestWatchCommit(t *testing.T) {
	dir := gsdProject(t, "")
	r := newGitRepo(t, dir)
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "first")
	t.Setenv("GIT_AUTHOR_NAME", "recite test")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	mustWrite(t, filepath.Join(dir, "main.go"), "package main // staged by the user\n")
	r.git("add", "main.go")
	staged := r.git("diff", "--cached")

	h := startWatch(t, dir, WatchOptions{Commit: true, CommitInterval: 100 * time.Millisecond})
	log := filepath.Join(dir, ".planning", "conversations", "c-001.jsonl")
	mustWrite(t, log, `{"id":"m1"}`+"\n")
	var commit string
	for commit == "" {
		ev := h.next("a history commit")
		if ev.Kind == EventCommit {
			if ev.Error != "" {
				t.Fatalf("commit failed: %s", ev.Error)
			}
			commit = ev.Commit
		}
	}
	if got := r.git("show", "--name-only", "--format=%an", commit); got != "recite test\n\n.planning/conversations/c-001.jsonl\n" {
		t.Errorf("commit holds %q", got)
	}
	if got := r.git("diff", "--cached"); got != staged {
		t.Errorf("the user's staged change changed:\n%s\nwant\n%s", got, staged)
	}
	// Written just before the end: the final commit takes it.
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"m2"}` + "\n")
	f.Close()
	h.settle("appended")
	h.stop()
	if got := r.git("show", "HEAD:.planning/conversations/c-001.jsonl"); !strings.Contains(got, "m2") {
		t.Errorf("the last line was not committed: %q", got)
	}
	if got := r.git("rev-list", "--count", "HEAD"); got != "3\n" {
		t.Errorf("%s commits, want 3 (first, and two history commits)", strings.TrimSpace(got))
	}
}

// TestWatchCommitNoRepository: --commit outside a git repository is an
// error at start.
func TestWatchCommitNoRepository(t *testing.T) {
	dir := gsdProject(t, "")
	err := New(dir).Watch(context.Background(), WatchOptions{Commit: true}, func(WatchEvent) {})
	if err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Fatalf("Watch = %v, want ErrNoRepository", err)
	}
}

// benchNorish copies ../shared/realdata/23492__norish to a temp dir.
func benchNorish(b *testing.B) string {
	return copyTree(b, filepath.Join(sharedtest.Dir(b), "realdata", "23492__norish"))
}

// benchMonorepo writes the synthetic monorepo of ../shared/bench/mktree.go
// (about 90,000 files) and puts examples/gsd's .planning/ into it.
func benchMonorepo(b *testing.B) string {
	shared := sharedtest.Dir(b)
	dir := filepath.Join(b.TempDir(), "mono")
	cmd := exec.Command("go", "run", filepath.Join(shared, "bench", "mktree.go"), "-o", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("mktree: %v\n%s", err, out)
	}
	if err := sharedtest.CopyTree(filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd", ".planning"), filepath.Join(dir, ".planning")); err != nil {
		b.Fatal(err)
	}
	return dir
}

// benchWatch runs Engine.Watch on dir for a benchmark; call the returned
// stop function at the end.
func benchWatch(b *testing.B, dir string, opts WatchOptions) (<-chan WatchEvent, func()) {
	b.Helper()
	events := make(chan WatchEvent, 64)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(dir).Watch(ctx, opts, func(ev WatchEvent) { events <- ev }) }()
	stop := func() {
		cancel()
		for {
			select {
			case <-events:
			case err := <-done:
				if err != nil {
					b.Error(err)
				}
				return
			}
		}
	}
	select {
	case ev := <-events:
		if ev.Error != "" {
			b.Fatalf("initial render: %s", ev.Error)
		}
	case err := <-done:
		b.Fatalf("Watch: %v", err)
	case <-time.After(time.Minute):
		b.Fatal("no initial render")
	}
	return events, stop
}

// saveAndWait writes PROJECT.md in place with marker n and returns the
// time from the save to the end of the render that wrote the prompt, and
// that render's build time.
func saveAndWait(b *testing.B, events <-chan WatchEvent, project, base string, n int) (latency, build time.Duration) {
	start := time.Now()
	if err := os.WriteFile(project, fmt.Appendf([]byte(base), "\n- save %d\n", n), 0o644); err != nil {
		b.Fatal(err)
	}
	guard := time.After(time.Minute)
	for {
		select {
		case ev := <-events:
			if ev.Error != "" {
				b.Fatalf("save %d: render failed: %s", n, ev.Error)
			}
			if ev.Kind == EventRender && len(ev.Written) > 0 {
				return ev.Time.Sub(start), ev.Duration
			}
		case <-guard:
			b.Fatalf("save %d: no render wrote the prompt within a minute", n)
		}
	}
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(float64(len(sorted))*p+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// BenchmarkWatchLatency measures save-to-prompt latency at the default
// settings (20 ms quiet, 250 ms maximum wait) over 200 in-place saves of
// PROJECT.md (which the prompt carries): from the write to the end of the
// render that wrote the prompt files. Target: p99 ≤ 100 ms. Run with
// -benchtime=1x; `make bench-watch` does.
func BenchmarkWatchLatency(b *testing.B) {
	for _, tree := range []struct {
		name  string
		setup func(*testing.B) string
	}{{"norish", benchNorish}, {"monorepo", benchMonorepo}} {
		b.Run(tree.name, func(b *testing.B) {
			dir := tree.setup(b)
			project := filepath.Join(dir, ".planning", "PROJECT.md")
			base, err := os.ReadFile(project)
			if err != nil {
				b.Fatal(err)
			}
			events, stop := benchWatch(b, dir, WatchOptions{})
			defer stop()
			const saves = 200
			var lat, builds []time.Duration
			b.ResetTimer()
			for i := range b.N {
				lat, builds = lat[:0], builds[:0]
				for s := range saves {
					l, d := saveAndWait(b, events, project, string(base), i*saves+s)
					lat, builds = append(lat, l), append(builds, d)
				}
			}
			b.StopTimer()
			slices.Sort(lat)
			slices.Sort(builds)
			p50, p99 := percentile(lat, 0.50), percentile(lat, 0.99)
			b.ReportMetric(float64(p50)/1e6, "p50-ms")
			b.ReportMetric(float64(p99)/1e6, "p99-ms")
			b.ReportMetric(float64(lat[len(lat)-1])/1e6, "max-ms")
			b.ReportMetric(float64(percentile(builds, 0.50))/1e6, "build-p50-ms")
			b.ReportMetric(float64(percentile(builds, 0.99))/1e6, "build-p99-ms")
			b.Logf("%s: %d saves: latency p50 %v, p99 %v, max %v; build p50 %v, p99 %v", tree.name, len(lat), p50, p99, lat[len(lat)-1],
				percentile(builds, 0.50), percentile(builds, 0.99))
		})
	}
}

// procStatus reads a "Vm…: N kB" line of /proc/PID/status, in bytes.
func procStatus(b *testing.B, pid int, key string) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc/PID/status: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			var kb float64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%f kB", &kb); err != nil {
				b.Fatalf("parse %q: %v", line, err)
			}
			return kb * 1024
		}
	}
	b.Fatalf("%s not in /proc/%d/status", key, pid)
	return 0
}

// BenchmarkWatchMemory runs the recite binary (`recite watch --json` with
// quiet 1 ms, so it runs in minutes) on the norish tree as a child process,
// saves $RECITE_BENCH_RENDERS times (default 10,000), waits for each render
// that wrote the prompt, and reports the child's RSS after 100 renders and
// after all of them, the growth between the two (target ≤ 10%), and its
// peak RSS (VmHWM; target ≤ 60 MB), from /proc/PID/status.
func BenchmarkWatchMemory(b *testing.B) {
	renders := 10000
	if v := os.Getenv("RECITE_BENCH_RENDERS"); v != "" {
		if _, err := fmt.Sscan(v, &renders); err != nil || renders < 200 {
			b.Fatalf("RECITE_BENCH_RENDERS=%q: want a number ≥ 200", v)
		}
	}
	dir := benchNorish(b)
	bin := filepath.Join(b.TempDir(), "recite")
	build := exec.Command("go", "build", "-o", bin, "./cmd/recite")
	build.Dir = sharedtest.ModuleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	project := filepath.Join(dir, ".planning", "PROJECT.md")
	base, err := os.ReadFile(project)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "-C", dir, "watch", "--json", "--quiet", "1ms", "--max-wait", "5ms")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		if err := cmd.Wait(); err != nil {
			b.Errorf("recite watch: %v", err)
		}
	}()
	events := make(chan WatchEvent, 64)
	go func() {
		defer close(events)
		dec := json.NewDecoder(stdout)
		for {
			var ev WatchEvent
			if err := dec.Decode(&ev); err != nil {
				return
			}
			events <- ev
		}
	}()
	select {
	case _, ok := <-events:
		if !ok {
			b.Fatal("recite watch ended before its first render")
		}
	case <-time.After(time.Minute):
		b.Fatal("no initial render")
	}
	pid := cmd.Process.Pid
	var rss100, rssN float64
	b.ResetTimer()
	for range b.N {
		for i := 1; i <= renders; i++ {
			_, _ = saveAndWait(b, events, project, string(base), i)
			if i == 100 {
				rss100 = procStatus(b, pid, "VmRSS")
			}
		}
		rssN = procStatus(b, pid, "VmRSS")
	}
	b.StopTimer()
	peak := procStatus(b, pid, "VmHWM")
	const mb = 1 << 20
	b.ReportMetric(rss100/mb, "rss100-MB")
	b.ReportMetric(rssN/mb, "rssN-MB")
	b.ReportMetric((rssN-rss100)*100/rss100, "growth-%")
	b.ReportMetric(peak/mb, "peak-MB")
	b.Logf("%d renders: RSS %.1f MB after 100, %.1f MB after %d (%+.1f%%), peak %.1f MB",
		renders, rss100/mb, rssN/mb, renders, (rssN-rss100)*100/rss100, peak/mb)
}
