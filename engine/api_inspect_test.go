package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recite-dev/recite/engine"
)

// TestInspect loads the gsd example from its project folder and from its
// .planning folder, and reports missing or misplaced trees as input
// errors.
func TestInspect(t *testing.T) {
	ex := filepath.Join("..", "examples", "gsd")
	sum, err := engine.New(ex).Inspect()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Flavor != "gsd" || len(sum.Phases) == 0 {
		t.Errorf("Inspect(%s) = flavor %q, %d phases", ex, sum.Flavor, len(sum.Phases))
	}
	inner, err := engine.New(filepath.Join(ex, ".planning")).Inspect()
	if err != nil {
		t.Fatal(err)
	}
	if inner.Flavor != sum.Flavor || len(inner.Phases) != len(sum.Phases) {
		t.Errorf("the .planning folder itself inspects differently: %q %d", inner.Flavor, len(inner.Phases))
	}

	empty := t.TempDir()
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	notDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(notDir, ".planning"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, want string }{
		{empty, "no .planning folder in " + empty + " (run 'recite init' to create one, or pass -C DIR)"},
		{filepath.Join(empty, "nope"), "project directory " + filepath.Join(empty, "nope") + " does not exist or is not a directory"},
		{file, "project directory " + file + " does not exist or is not a directory"},
		{notDir, filepath.Join(notDir, ".planning") + " is not a directory"},
	} {
		_, err := engine.New(tt.dir).Inspect()
		wantInputError(t, err, tt.want)
	}
}
