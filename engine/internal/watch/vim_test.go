package watch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRealVim is the real vim save of docs/architecture.md#watcher-checks,
// with the real editor. vim's backupskip defaults to
// "/tmp/*,$TMPDIR/*,$TMP/*,$TEMP/*", so in t.TempDir() (under /tmp) vim skips
// the write backup and overwrites notes.md in place (same inode); with
// `set backupskip=`, or in a project outside the temp directories such as
// /var/tmp, backupcopy=auto renames notes.md to notes.md~ and writes a new
// file (new inode), with the 4913 probe and swap files around it. Either way
// the watcher must deliver exactly one batch with the final content and no
// artefact names.
func TestRealVim(t *testing.T) {
	vim, err := exec.LookPath("vim")
	if err != nil {
		t.Skip("vim not installed (apt-get install -y vim); the real vim save is not checked against the real editor")
	}
	outsideTmp := func(t *testing.T) string {
		dir, err := os.MkdirTemp("/var/tmp", "recite-vim-")
		if err != nil {
			t.Skipf("no writable /var/tmp: %v", err)
		}
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		for _, env := range []string{"TMPDIR", "TMP", "TEMP"} {
			if v := os.Getenv(env); v != "" && strings.HasPrefix(dir, filepath.Clean(v)+"/") {
				t.Skipf("$%s=%s puts /var/tmp in vim's backupskip", env, v)
			}
		}
		return dir
	}
	underTmp := func(t *testing.T) string { return t.TempDir() }
	tests := []struct {
		name       string
		project    func(t *testing.T) string
		args       []string
		wantRename bool
	}{
		{"defaults under /tmp: in place", underTmp, nil, false},
		{"backupskip= under /tmp: rename", underTmp, []string{"-c", "set backupskip="}, true},
		{"defaults in /var/tmp: rename", outsideTmp, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			project := tt.project(t)
			notes := filepath.Join(project, ".planning", "notes.md")
			h := newHarnessIn(t, project, func(string) { write(t, notes, "line1\n") })
			before := inode(t, notes)
			h.start()

			args := append([]string{"-u", "NONE", "-N", "-i", "NONE", "-es"}, tt.args...)
			args = append(args, "-c", `call append(line("$"), "added")`, "-c", "wq", notes)
			ctx, cancel := context.WithTimeout(context.Background(), pollDeadline)
			defer cancel()
			cmd := exec.CommandContext(ctx, vim, args...)
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("vim: %v\n%s", err, out)
			}
			renamed := inode(t, notes) != before
			t.Logf("project %s: vim saved by %s", project, map[bool]string{true: "rename (new inode)", false: "in-place write (same inode)"}[renamed])
			if renamed != tt.wantRename {
				t.Errorf("vim saved by rename = %v, want %v", renamed, tt.wantRename)
			}

			h.waitContent(".planning/notes.md", "line1\nadded\n")
			if n := h.batchCount(); n != 1 {
				t.Errorf("%d batches for one vim save, want 1", n)
			}
			h.probe("probe.md")
			if n := h.batchCount(); n != 2 {
				t.Errorf("%d batches after the probe, want 2 (still watched)", n)
			}
			for _, p := range h.seen() {
				base := filepath.Base(p)
				if base == "4913" || strings.HasSuffix(base, "~") || strings.HasSuffix(base, ".swp") {
					t.Errorf("vim artefact %s reached a batch", p)
				}
			}
			if got := h.seen(); !slices.Contains(got, ".planning/notes.md") {
				t.Errorf("notes.md not in any batch: %v", got)
			}
		})
	}
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ino, ok := inodeNumber(fi)
	if !ok {
		t.Skip("no inode numbers on this system")
	}
	return ino
}
