package scope

import (
	"maps"
	"slices"
	"testing"
)

// TestAffected: which targets a change feeds, and when every target must
// be rebuilt.
func TestAffected(t *testing.T) {
	w := Watched{Feeds: map[string][]string{
		"a": {"AGENTS.md", "docs/A.md"},
		"b": {"AGENTS.md", "src/x.go"},
	}}
	for _, tc := range []struct {
		name    string
		changed []string
		fresh   bool
		want    []string // nil with all
		all     bool
	}{
		{"one target's file", []string{"docs/A.md"}, true, []string{"a"}, false},
		{"a shared file", []string{"AGENTS.md"}, true, []string{"a", "b"}, false},
		{"two files", []string{"docs/A.md", "src/x.go"}, true, []string{"a", "b"}, false},
		{"a file no target reads", []string{"src/y.go"}, true, []string{}, false},
		{"the planning tree", []string{"docs/A.md", ".planning/STATE.md"}, true, nil, true},
		{"the planning folder", []string{".planning"}, true, nil, true},
		{"an ignore file", []string{".powerignore"}, true, nil, true},
		{"the root .gitignore", []string{".gitignore"}, true, nil, true},
		{"the exclude file", []string{".git/info/exclude"}, true, nil, true},
		{"the root", []string{"."}, true, nil, true},
		{"the tree changed", []string{"docs/A.md"}, false, nil, true},
		{"nothing named", nil, true, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, all := w.Affected(tc.changed, tc.fresh)
			if all != tc.all {
				t.Fatalf("all = %v, want %v", all, tc.all)
			}
			if !tc.all && !slices.Equal(slices.Sorted(maps.Keys(got)), tc.want) {
				t.Errorf("targets %v, want %v", slices.Sorted(maps.Keys(got)), tc.want)
			}
		})
	}
}
