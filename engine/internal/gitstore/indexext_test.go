package gitstore

import (
	"context"
	"slices"
	"testing"
)

// TestIndexExtensionsOfRealIndexes reads the extension list of indexes
// real git wrote in each format version and with each extension recite
// meets: the cache tree (TREE) of every commit, a split index (link), a
// sparse index (sdir), the untracked cache (UNTR), entries with extended
// flags (`git add -N`, version 3) and prefix-compressed paths (version 4).
func TestIndexExtensionsOfRealIndexes(t *testing.T) {
	tests := []struct {
		name  string
		setup [][]string
		want  []string // extensions that must be listed
	}{
		{"version 2 with a cache tree", nil, []string{"TREE"}},
		{"version 3 (intent to add)", [][]string{{"add", "-N", "new.txt"}}, nil},
		{"version 4", [][]string{{"update-index", "--index-version", "4"}}, nil},
		{"split index", [][]string{{"update-index", "--split-index"}}, []string{"link"}},
		{"sparse index", [][]string{{"sparse-checkout", "set", "--sparse-index", "src"}}, []string{"sdir"}},
		{"untracked cache", [][]string{{"update-index", "--untracked-cache"}, {"status", "--porcelain"}}, []string{"UNTR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			r.base()
			r.write("new.txt", "new\n")
			for _, args := range tt.setup {
				r.git(args...)
			}
			exts, err := indexExtensions(r.read(".git/index"))
			if err != nil {
				t.Fatalf("indexExtensions: %v", err)
			}
			for _, w := range tt.want {
				if !slices.Contains(exts, w) {
					t.Errorf("extensions %q, want %q among them", exts, w)
				}
			}
			if tt.name == "version 3 (intent to add)" || tt.name == "version 4" {
				// go-git reads these: a commit works and keeps the entries.
				r.write(".planning/conversations/c-001.jsonl", "{\"id\":\"1\"}\n{\"id\":\"2\"}\n")
				if _, err := (Committer{}).Commit(context.Background(), r.dir, recitePrefixes, "m", author); err != nil {
					t.Fatalf("Commit: %v", err)
				}
				if st := r.git("status", "--porcelain", "--", ".planning"); st != "" {
					t.Errorf("status after the commit:\n%s", st)
				}
			}
		})
	}
}

// FuzzIndexExtensions: no input makes indexExtensions panic, and what it
// lists for an input it accepts fits in the input.
func FuzzIndexExtensions(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00" + "TREE\x00\x00\x00\x00" + string(make([]byte, 20))))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + string(make([]byte, 62)) + "\x00a\x00" + string(make([]byte, 20))))
	f.Add([]byte("DIRC\x00\x00\x00\x03\x00\x00\x00\x01" + string(make([]byte, 60)) + "\x40\x01\x00\x00b\x00" + string(make([]byte, 20))))
	f.Add([]byte("DIRC"))
	f.Fuzz(func(t *testing.T, b []byte) {
		exts, err := indexExtensions(b)
		if err == nil && 8*len(exts) > len(b) {
			t.Fatalf("%d extensions in %d bytes", len(exts), len(b))
		}
	})
}
