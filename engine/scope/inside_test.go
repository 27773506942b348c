package scope

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInsideProject checks paths a client names against a real tree with
// links inside and outside the project: a path inside (existing or not,
// through a link that stays inside) passes; one through a link to a
// folder or file outside, or a dangling link pointing outside, is an error
// naming the path.
func TestInsideProject(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{"src/real", filepath.Join(outside, "dir")} {
		if !filepath.IsAbs(d) {
			d = filepath.Join(root, d)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"src/inlink":     "real",
		"src/dangle-in":  "real/gone",
		"out":            filepath.Join(outside, "dir"),
		"outfile":        filepath.Join(outside, "secret.txt"),
		"dangling":       filepath.Join(outside, "gone"),
		"src/dangle-rel": "../../" + filepath.Base(outside) + "/gone",
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	tests := []struct {
		rel     string
		outside bool
	}{
		{"src/real", false},
		{"src/real/new.go", false},
		{"not/yet/there.go", false},
		{"src/inlink/a.go", false},
		{"src/dangle-in", false},
		{"out", true},
		{"out/file.txt", true},
		{"outfile", true},
		{"dangling", true},
		{"src/dangle-rel", true},
	}
	for _, tt := range tests {
		err := InsideProject(root, tt.rel)
		if !tt.outside {
			if err != nil {
				t.Errorf("InsideProject(%q) = %v, want nil", tt.rel, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), `"`+tt.rel+`" resolves outside the project`) {
			t.Errorf("InsideProject(%q) = %v, want an error naming it as outside", tt.rel, err)
		}
	}
}
