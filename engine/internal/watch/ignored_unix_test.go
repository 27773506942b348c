//go:build !windows

package watch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/renameio/v2"

	"github.com/recite-dev/recite/internal/fsutil"
)

// TestIgnored writes a temp file through renameio's PendingFile, which
// renameio provides on Unix only.
func TestIgnored(t *testing.T) {
	h := newHarness(t, func(project string) {
		mkdir(t, filepath.Join(project, ".planning", "prompts"))
		mkdir(t, filepath.Join(project, ".planning", ".recite"))
		write(t, filepath.Join(project, ".planning", "STATE.md"), "s")
	})
	h.start()
	if err := fsutil.WriteFile(filepath.Join(h.root, "prompts", "coder.md"), []byte("p"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(h.root, ".recite", "cache.json"), "{}")
	mkdir(t, filepath.Join(h.root, "prompts", "sub"))
	write(t, filepath.Join(h.root, "prompts", "sub", "x.md"), "x")
	write(t, filepath.Join(h.root, "STATE.md.lock"), "")
	write(t, filepath.Join(h.root, ".lock"), "")
	write(t, filepath.Join(h.project, "unrelated.go"), "package x")
	now := time.Now()
	if err := os.Chtimes(filepath.Join(h.root, "STATE.md"), now, now); err != nil { // touch: CHMOD only (save pattern 14)
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(h.root, "STATE.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	// renameio writes its temp file next to the destination when asked to.
	pf, err := renameio.NewPendingFile(filepath.Join(h.root, "prompts", "y.md"), renameio.WithTempDir(h.root))
	if err != nil {
		t.Fatal(err)
	}
	tmpName := pf.Name()
	_, _ = pf.WriteString("y")
	if err := pf.CloseAtomicallyReplace(); err != nil {
		t.Fatal(err)
	}
	h.probe("probe.md")
	if got := h.seen(); !slices.Equal(got, []string{".planning/probe.md"}) {
		t.Errorf("batches saw %v, want only the probe (renameio temp was %s)", got, filepath.Base(tmpName))
	}
}
