package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine"
)

// TestProgress: a build reports reading the tree, then each target; an
// import reports the transcript's bytes up to its size; without
// WithProgress nothing is called.
func TestProgress(t *testing.T) {
	ctx := context.Background()
	dir := newProject(t, nil)
	var got []engine.Progress
	e := engine.New(dir, engine.WithProgress(func(p engine.Progress) { got = append(got, p) }))
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 || got[0].Stage != "reading the planning tree" || !strings.HasPrefix(got[1].Stage, "building target ") || got[1].Unit != "targets" || got[1].Total == 0 {
		t.Errorf("build progress %+v", got)
	}
	got = nil
	path := writeFile(t, filepath.Join(t.TempDir(), "s.jsonl"), strings.Repeat(ccTranscript, 50))
	if _, err := e.Import(ctx, engine.ImportOptions{Format: engine.ImportClaudeCode, Path: path}); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("import reported no progress")
	}
	last := got[len(got)-1]
	if last.Stage != "reading s.jsonl" || last.Unit != "bytes" || last.Done != last.Total || last.Total != int64(50*len(ccTranscript)) {
		t.Errorf("last import progress %+v, want all %d bytes of s.jsonl", last, 50*len(ccTranscript))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Done < got[i-1].Done {
			t.Errorf("progress went back: %+v after %+v", got[i], got[i-1])
		}
	}
}
