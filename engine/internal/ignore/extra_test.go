package ignore

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSetExtra(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		PowerignoreFile:    "dist/\n",
		".gitignore":       "!src/api/keep.go\n",
		"src/api/users.go": "x",
		"src/api/keep.go":  "x",
		"src/app/page.tsx": "x",
		"src/models/m.go":  "x",
		"dist/x.js":        "x",
	})
	m, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	m.SetExtra([]ExtraPattern{
		{Pattern: "src/api/**", File: ".planning/recite.yaml", Line: 7, Note: "task type frontend"},
		{Pattern: "src/models/", File: ".planning/recite.yaml", Line: 8},
		{Pattern: "!dist/", File: ".planning/recite.yaml", Line: 9},
	})
	got, err := m.Walk(context.Background(), WalkOptions{Include: []Include{{Path: "src/api/users.go", Reason: "the plan"}}})
	if err != nil {
		t.Fatal(err)
	}
	// A "!" among the extra patterns does not re-include dist/, and a
	// .gitignore "!" does not re-include what an extra pattern excludes.
	want := []string{".gitignore", PowerignoreFile, "src/api/users.go", "src/app/page.tsx"}
	if !slices.Equal(got, want) {
		t.Errorf("Walk = %q, want %q", got, want)
	}
	ex := m.Explain("src/api/keep.go", false, nil)
	if s := ex.String(); s != ".planning/recite.yaml:7:src/api/**\tsrc/api/keep.go (task type frontend)" {
		t.Errorf("Explain = %q", s)
	}
	if v := m.Match("src/models/m.go", false); !v.Ignored || v.Via != "src/models" {
		t.Errorf("Match = %+v", v)
	}
	m.SetExtra(nil)
	if v := m.Match("src/api/users.go", false); v.Ignored {
		t.Errorf("SetExtra(nil) kept the patterns: %+v", v)
	}
}

func TestReadDir(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		PowerignoreFile: "*.min.js\n",
		".gitignore":    "build/\n",
		"a/.gitignore":  "*.tmp\n!keep.tmp\n",
		"a/x.tmp":       "x",
		"a/keep.tmp":    "x",
		"a/b/y.tmp":     "x",
		"a/b/z.go":      "x",
		"a/app.min.js":  "x",
		"build/out":     "x",
		"z.go":          "x",
	})
	m, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dir  string
		want []Entry
	}{
		{"", []Entry{{".gitignore", false}, {PowerignoreFile, false}, {"a", true}, {"z.go", false}}},
		{"a", []Entry{{".gitignore", false}, {"b", true}, {"keep.tmp", false}}},
		{"a/b", []Entry{{"z.go", false}}},
	} {
		got, err := m.ReadDir(tt.dir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ReadDir(%q) = %v, want %v", tt.dir, got, tt.want)
		}
	}
	if _, err := m.ReadDir("../x"); err == nil {
		t.Error("ReadDir(../x) did not fail")
	}
}

func TestCheckPattern(t *testing.T) {
	for _, ok := range []string{"src/api/**", "!src/api/types.ts", "*.min.js", "[!0-9].dat", "a[[:alpha:]]b", `\#lit`, "dir/", "/root.txt", "trail\\ "} {
		if err := CheckPattern(ok); err != nil {
			t.Errorf("CheckPattern(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "   ", "#c", "!", "/", "../x", "a/../b", `a\`, "src/[ab", "[[:alpha:]"} {
		if err := CheckPattern(bad); err == nil {
			t.Errorf("CheckPattern(%q) accepted", bad)
		}
	}
}

func FuzzCheckPattern(f *testing.F) {
	for _, s := range []string{"src/**", "[!a-", "!\\", "a/../b", "[[:x:]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\n\r") {
			return
		}
		if CheckPattern(s) == nil {
			// An accepted pattern parses and can be used without panic.
			m := Parse(t.TempDir(), nil, nil, nil)
			m.SetExtra([]ExtraPattern{{Pattern: s, File: "x", Line: 1}})
			m.Match("a/b/c", false)
		}
	})
}
