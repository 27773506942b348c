package scope

import (
	"errors"
	"io/fs"
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

// TestReadFileRefusesLinksOut reads files through ReadFile and FS in a
// real tree: a file reached through links that stay inside is read; a
// file, a chain of links or a folder link that leads out is an
// *OutsideError naming the link, what it points to as written and where
// it leads, and nothing of the outside file is returned.
func TestReadFileRefusesLinksOut(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	for p, body := range map[string]string{secret: "OUTSIDE", filepath.Join(root, "README.md"): "inside\n"} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	rel := "../" + filepath.Base(outside) + "/secret.txt"
	links := map[string]string{
		"AGENTS.md":     secret,
		"CLAUDE.md":     rel,
		"docs/skill.md": "hop.md",
		"docs/hop.md":   "../" + rel,
		"docs/inner.md": "../README.md",
		"dirlink":       outside,
	}
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	realSecret, err := filepath.EvalSymlinks(secret)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel  string
		want *OutsideError // nil: read
	}{
		{"README.md", nil},
		{"docs/inner.md", nil},
		{"AGENTS.md", &OutsideError{Path: "AGENTS.md", Link: "AGENTS.md", Target: secret, Resolved: realSecret}},
		{"CLAUDE.md", &OutsideError{Path: "CLAUDE.md", Link: "CLAUDE.md", Target: rel, Resolved: realSecret}},
		{"docs/skill.md", &OutsideError{Path: "docs/skill.md", Link: "docs/skill.md", Target: "hop.md", Resolved: realSecret}},
		{"dirlink/secret.txt", &OutsideError{Path: "dirlink/secret.txt", Link: "dirlink", Target: outside, Resolved: realOf(t, outside)}},
	}
	for _, tt := range tests {
		b, err := ReadFile(root, tt.rel, 1<<20)
		if tt.want == nil {
			if err != nil || string(b) != "inside\n" {
				t.Errorf("ReadFile(%q) = %q, %v; want the file", tt.rel, b, err)
			}
			continue
		}
		var oe *OutsideError
		if !errors.As(err, &oe) || len(b) != 0 {
			t.Errorf("ReadFile(%q) = %q, %v; want an *OutsideError", tt.rel, b, err)
			continue
		}
		want := *tt.want
		want.Boundary = "the project"
		if want.Resolved == want.Target {
			want.Resolved = "" // said once
		}
		if *oe != want {
			t.Errorf("ReadFile(%q) error = %+v, want %+v", tt.rel, *oe, want)
		}
		if !strings.Contains(err.Error(), tt.want.Link+" is a symbolic link to "+tt.want.Target) {
			t.Errorf("ReadFile(%q) error %q does not name the link and its target", tt.rel, err)
		}
		fb, ferr := fs.ReadFile(FS(root, "./", "the project"), tt.rel)
		if !errors.As(ferr, &oe) || len(fb) != 0 || oe.Link != "./"+tt.want.Link {
			t.Errorf("FS read of %q = %q, %v; want an *OutsideError for ./%s", tt.rel, fb, ferr, tt.want.Link)
		}
	}
}

// realOf is p with its symbolic links resolved.
func realOf(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
