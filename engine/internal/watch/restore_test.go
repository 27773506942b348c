package watch

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/recite-dev/recite/internal/fsutil"
)

// TestRestoreOwnedFile: a prompt file recite owns (Options.Restore) that the
// user deletes or renames away is reported although prompts/ is ignored, so
// the consumer writes it again (docs/architecture.md#watch-rules); recite's
// own atomic writes over it, and other files in prompts/, are not.
func TestRestoreOwnedFile(t *testing.T) {
	h := newHarness(t, func(project string) {
		mkdir(t, filepath.Join(project, ".planning", "prompts"))
		write(t, filepath.Join(project, ".planning", "prompts", "agent.md"), "v1")
		write(t, filepath.Join(project, ".planning", "prompts", "other.md"), "x")
	}, func(o *Options) { o.Restore = []string{".planning/prompts/agent.md"} })
	h.start()
	prompts := filepath.Join(h.root, "prompts")
	agent := filepath.Join(prompts, "agent.md")
	count := func() int {
		n := 0
		for _, b := range h.batches {
			if slices.Contains(b.Paths, agent) {
				n++
			}
		}
		return n
	}
	writeOwn := func(content string) {
		t.Helper()
		if err := fsutil.WriteFile(agent, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// recite's own writes (temp file renamed over) and another file's
	// removal: nothing reported.
	writeOwn("v2")
	writeOwn("v3")
	remove(t, filepath.Join(prompts, "other.md"))
	h.probe("probe1.md")
	if got := h.seen(); slices.ContainsFunc(got, func(p string) bool { return filepath.Dir(p) == ".planning/prompts" }) {
		t.Fatalf("recite's own writes were reported: %v", got)
	}

	// The user deletes the file: reported once.
	remove(t, agent)
	h.waitFor("agent.md's removal", func() bool { return count() == 1 })
	writeOwn("v4") // the consumer's rebuild
	h.probe("probe2.md")

	// Renamed away: reported.
	rename(t, agent, agent+".bak")
	h.waitFor("agent.md renamed away", func() bool { return count() == 2 })
	writeOwn("v5")

	// The whole prompts/ folder deleted, then re-created by a rebuild: the
	// folder is watched again, and a later deletion is reported.
	remove(t, prompts)
	h.waitFor("agent.md's removal with prompts/", func() bool { return count() == 3 })
	mkdir(t, prompts)
	writeOwn("v6")
	h.probe("probe3.md")
	remove(t, agent)
	h.waitFor("agent.md's removal in the re-created prompts/", func() bool { return count() == 4 })

	// SetRestore replaces the set: the new file counts, the old one not.
	json := filepath.Join(prompts, "agent.anthropic.json")
	write(t, json, "{}")
	writeOwn("v7")
	h.w.SetRestore([]string{json})
	remove(t, agent)
	remove(t, json)
	h.waitFor("agent.anthropic.json's removal", func() bool {
		for _, b := range h.batches {
			if slices.Contains(b.Paths, json) {
				return true
			}
		}
		return false
	})
	h.probe("probe4.md")
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := count(); n != 4 {
		t.Errorf("agent.md reported in %d batches after leaving the restore set, want 4", n)
	}
}
