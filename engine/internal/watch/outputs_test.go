package watch

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestIgnoreReciteOutputsRelativeRoot: the Watcher's paths are absolute, so
// a relative root (recite -C . watch) must be made absolute, or recite would
// render on its own writes.
func TestIgnoreReciteOutputsRelativeRoot(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	ignore := IgnoreReciteOutputs(".planning")
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	for _, tc := range []struct {
		path string
		want bool
	}{
		{abs(".planning/prompts"), true},
		{abs(".planning/prompts/agent.md"), true},
		{abs(".planning/.recite/last/agent.md"), true},
		{abs(".planning/.recite/renders.jsonl"), true},
		{abs(".planning/STATE.md"), false},
		{abs(".planning/promptsX/a.md"), false},
		{abs(".planning/.STATE.md1234567890"), true}, // renameio temp
	} {
		if got := ignore(tc.path); got != tc.want {
			t.Errorf("ignore(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// TestExtraDirs: a directory in Options.Dirs reports every entry but editor
// artefacts, without recursion.
func TestExtraDirs(t *testing.T) {
	h := newHarness(t, func(project string) { mkdir(t, filepath.Join(project, "src")) },
		func(o *Options) { o.Dirs = []string{"src", "missing", ".planning/sub"} })
	h.start()
	src := filepath.Join(h.project, "src")
	write(t, filepath.Join(src, ".a.go.swp"), "swap")
	write(t, filepath.Join(src, "a.go~"), "backup")
	write(t, filepath.Join(src, "a.go"), "package a")
	mkdir(t, filepath.Join(src, "deep"))
	write(t, filepath.Join(src, "deep", "b.go"), "package b")
	h.waitContent("src/a.go", "package a")
	h.probe("probe.md")
	got := h.seen()
	for _, want := range []string{"src/a.go", "src/deep"} {
		if !slices.Contains(got, want) {
			t.Errorf("%s not reported; batches saw %v", want, got)
		}
	}
	for _, not := range []string{"src/.a.go.swp", "src/a.go~", "src/deep/b.go"} {
		if slices.Contains(got, not) {
			t.Errorf("%s reported; batches saw %v", not, got)
		}
	}
}
