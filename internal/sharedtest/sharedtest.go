// Package sharedtest locates ../shared, the design sources and real data
// that ship beside the repository in CI but not in a user's fresh clone.
//
// Tests that read it call Dir (or Realdata) and are skipped with a message
// saying what is missing when it is absent, so `go test ./...` passes on a
// fresh clone and exercises the real inputs in CI.
package sharedtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
)

// ModuleRoot returns the directory holding go.mod, found from this source
// file's location (stable whatever the test's working directory).
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// Dir returns the absolute path of ../shared beside the module root, or
// skips tb when it (or its realdata folder) is absent.
func Dir(tb testing.TB) string {
	tb.Helper()
	d := filepath.Join(filepath.Dir(ModuleRoot()), "shared")
	if _, err := os.Stat(filepath.Join(d, "realdata")); err != nil {
		tb.Skipf("../shared is absent (it ships beside the repository in CI, not in a fresh clone): %v", err)
	}
	return d
}

// File returns the path of name inside ../shared, or skips tb when that
// file is absent.
func File(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(Dir(tb), filepath.FromSlash(name))
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("../shared/%s is absent: %v", name, err)
	}
	return p
}

// Trees returns the real projects under ../shared/realdata that hold a
// .planning folder, as name → project root, sorted by name; it skips tb
// when there are none.
func Trees(tb testing.TB) []Tree {
	tb.Helper()
	root := filepath.Join(Dir(tb), "realdata")
	entries, err := os.ReadDir(root)
	if err != nil {
		tb.Fatal(err)
	}
	var out []Tree
	for _, e := range entries {
		if st, err := os.Stat(filepath.Join(root, e.Name(), ".planning")); err == nil && st.IsDir() {
			out = append(out, Tree{Name: e.Name(), Root: filepath.Join(root, e.Name())})
		}
	}
	if len(out) == 0 {
		tb.Skip("no .planning trees under " + root)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Tree is one real project: its name (the folder under realdata) and root.
type Tree struct {
	Name string
	Root string
}

// Realdata returns ../shared/realdata, or skips tb when it is absent.
func Realdata(tb testing.TB) string {
	tb.Helper()
	return filepath.Join(Dir(tb), "realdata")
}

// CopyTree copies the directory tree src into dst (created as needed):
// folders 0755, regular files 0644, leaving out recite's own outputs
// (.planning/prompts and .planning/.recite directly under src), so a copied
// example or real tree starts with no generated prompt and no cache.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() && (rel == filepath.Join(".planning", "prompts") || rel == filepath.Join(".planning", ".recite")) {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
