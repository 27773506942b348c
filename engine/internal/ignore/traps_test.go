package ignore

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recite-dev/recite/templates"
)

// TestTraps covers the inputs that break other matchers (the table of
// docs/formats.md#powerignore and more, plus the encoding traps of real files,
// docs/formats.md#encoding-traps). The expected values were checked against
// git 2.39 and are re-checked against the installed git with
// `git -c core.excludesFile=.powerignore check-ignore`.
func TestTraps(t *testing.T) {
	tests := []struct {
		name  string
		power string // .powerignore content
		path  string
		isDir bool
		want  bool // ignored
	}{
		{"bom before first pattern", "\uFEFF*.log\n", "a.log", false, true},
		{"bom before comment", "\uFEFF#*.log\n", "a.log", false, false},
		{"bom only stripped at start", "x\n\uFEFF*.log\n", "a.log", false, false},
		{"crlf glob", "*.log\r\nbuild/\r\n", "a.log", false, true},
		{"crlf dir pattern", "*.log\r\nbuild/\r\n", "build", true, true},
		{"crlf dir content", "*.log\r\nbuild/\r\n", "build/x.o", false, true},
		{"crlf last line without newline", "*.md\r\n*.log\r", "a.log", false, true},
		{"plus literal", "a+b.md\n", "a+b.md", false, true},
		{"plus not regex", "a+b.md\n", "aab.md", false, false},
		{"parens literal", "notes(1).md\n", "notes(1).md", false, true},
		{"braces literal", "x{2}.txt\n", "x{2}.txt", false, true},
		{"braces not regex", "x{2}.txt\n", "xx.txt", false, false},
		{"c++ dir", "c++/\n", "c++/main.cpp", false, true},
		{"dir/* then !dir/: file", "dir/*\n!dir/\n", "dir/xyz", false, true},
		{"dir/* then !dir/: dir", "dir/*\n!dir/\n", "dir", true, false},
		{"vendor/** keep", "vendor/**\n!vendor/keep.txt\n", "vendor/keep.txt", false, false},
		{"vendor/** lib", "vendor/**\n!vendor/keep.txt\n", "vendor/lib/x.go", false, true},
		{"vendor/** dir itself", "vendor/**\n!vendor/keep.txt\n", "vendor", true, false},
		{"lone bang", "*.log\n!\n", "a.log", false, true},
		{"trailing spaces trimmed", "foo.txt   \n", "foo.txt", false, true},
		{"escaped trailing space kept", "trail\\ \n", "trail ", false, true},
		{"escaped trailing space not bare", "trail\\ \n", "trail", false, false},
		{"escaped then unescaped spaces", "trail\\  \n", "trail ", false, true},
		{"trailing backslash matches nothing", "foo.txt\\\n", "foo.txt", false, false},
		{"[!0-9] letter", "[!0-9].dat\n", "x.dat", false, true},
		{"[!0-9] digit", "[!0-9].dat\n", "7.dat", false, false},
		{"[^0-9] digit", "[^0-9].dat\n", "7.dat", false, false},
		{"posix class", "[[:digit:]].dat\n", "7.dat", false, true},
		{"escaped bang", "\\!bang.txt\n", "!bang.txt", false, true},
		{"escaped hash", "\\#hash.txt\n", "#hash.txt", false, true},
		{"parent excluded wins over negation", "foo/\n!foo/bar\n", "foo/bar/baz.txt", false, true},
		{"double star middle", "a/**/b\n", "a/x/y/b", false, true},
		{"tab not trimmed", "foo.txt\t\n", "foo.txt", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, map[string]string{PowerignoreFile: tt.power})
			m, err := Load(root)
			if err != nil {
				t.Fatal(err)
			}
			got := m.Match(tt.path, tt.isDir)
			if got.Ignored != tt.want {
				t.Errorf("Match(%q, dir=%v) with %q = %v (source %v), want %v", tt.path, tt.isDir, tt.power, got.Ignored, got.Source, tt.want)
			}
			if _, err := exec.LookPath("git"); err != nil {
				return
			}
			// Real git, with the same file as its excludes file.
			gitInit(t, root)
			p := tt.path
			if tt.isDir {
				if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			_, code := runGit(t, root, []int{1}, "-c", "core.excludesFile="+filepath.Join(root, PowerignoreFile), "check-ignore", "-q", "--no-index", p)
			if gitSays := code == 0; gitSays != tt.want {
				t.Errorf("installed git says ignored=%v for %q with %q; the table says %v", gitSays, tt.path, tt.power, tt.want)
			}
		})
	}
}

// TestWalkTraps runs the walker over the first three rows of the table of
// docs/formats.md#powerignore as real trees.
func TestWalkTraps(t *testing.T) {
	tests := []struct {
		name  string
		power string
		files []string
		want  []string
	}{
		{"row 1 dir/* !dir/", "dir/*\n!dir/\n", []string{"dir/xyz", "a.txt"}, []string{".powerignore", "a.txt"}},
		{"row 2 vendor/** !keep", "vendor/**\n!vendor/keep.txt\n", []string{"vendor/keep.txt", "vendor/lib/x.go"}, []string{".powerignore", "vendor/keep.txt"}},
		{"row 3 [!0-9].dat", "[!0-9].dat\n", []string{"x.dat", "7.dat"}, []string{".powerignore", "7.dat"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{PowerignoreFile: tt.power}
			for _, f := range tt.files {
				files[f] = "x\n"
			}
			writeFiles(t, root, files)
			got, err := List(context.Background(), root, WalkOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("List = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDefaultPowerignore checks the .powerignore `recite init` writes (its
// one source, templates/init/powerignore) with real files: what it keeps
// out and what it must keep in.
func TestDefaultPowerignore(t *testing.T) {
	def, err := templates.Init("powerignore", "")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		PowerignoreFile:                    def,
		"src/app.ts":                       "x",
		"dist/app.js":                      "x",
		"node_modules/x/index.js":          "x",
		"vendor/lib/x.go":                  "x",
		"yarn.lock":                        "x",
		"Cargo.lock":                       "x",
		"go.sum":                           "x",
		"web/app.min.js":                   "x",
		"web/app.js.map":                   "x",
		"test/fixtures/large-1.json":       "x",
		"test/__snapshots__/a.snap":        "x",
		".planning/STATE.md":               "x",
		".planning/loops/fire-loop-1.md":   "x",
		".planning/research/notes.md":      "x",
		".planning/phases/01-x/01-PLAN.md": "x",
	})
	got, err := List(context.Background(), root, WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".planning/STATE.md", ".planning/phases/01-x/01-PLAN.md", PowerignoreFile, "src/app.ts"}
	if !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("*.log\n!keep.log\n", "a/keep.log", false)
	f.Add("dir/*\n!dir/\n", "dir/xyz", false)
	f.Add("\uFEFF[!0-9].dat\r\n", "x.dat", false)
	f.Add("a/**/b\n**/\n!\n\\\n[[:alpha:]\n[a-\n", "a/x/b", true)
	f.Add("trail\\ \n", "trail ", false)
	f.Fuzz(func(t *testing.T, patterns, p string, isDir bool) {
		m := Parse(t.TempDir(), []byte(patterns), []byte(patterns), []byte(patterns))
		v1 := m.Match(p, isDir)
		v2 := m.Match(p, isDir)
		if v1.Ignored != v2.Ignored {
			t.Fatal("Match is not deterministic")
		}
		if v1.Ignored && v1.Source == nil {
			t.Fatal("ignored without a source")
		}
		// A literal pattern always matches its own name.
		if name := path.Base(p); name != "" && !strings.ContainsAny(name, "*?[\\!#/ \r\n\t") && name != "." && name != ".." {
			if !wildmatch(name, name, true) {
				t.Fatalf("literal %q does not match itself", name)
			}
		}
	})
}

// FuzzNeedle: every text a glob matches contains the glob's needle, so
// the strings.Contains before wildmatch rejects no match.
func FuzzNeedle(f *testing.F) {
	f.Add("**/fixtures/large-*", "fixtures/large-1.bin", true)
	f.Add("a\\*b*c", "a*bxc", false)
	f.Add("x[ab]yz*", "xayzw", true)
	f.Add("**/", "a/b", true)
	f.Fuzz(func(t *testing.T, glob, text string, pathname bool) {
		if wildmatch(glob, text, pathname) && !strings.Contains(text, needle(glob)) {
			t.Fatalf("%q matches %q, which lacks the needle %q", glob, text, needle(glob))
		}
	})
}
