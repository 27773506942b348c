package ignore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// Pieces of the generated trees: names that stress matching, and patterns
// that mix anchoring, negation, "**", classes and directory-only forms.
var (
	treeDirs  = []string{"src", "build", "node_modules", "vendor", "lib", "docs", "a", "b", "logs", "gen", "c++", "x y", "café", "dist", ".cache", "keep"}
	treeFiles = []string{"main.go", "a.log", "keep.log", "x.min.js", "x.js", "yarn.lock", "README.md", "7.dat", "x.dat", "notes(1).md", "a+b.md", ".env", ".env.example", "file[1].txt", "trail ", "日本語.txt", "out.o", "b.txt", "data.json", "#hash.txt", "!bang.txt"}
	treePats  = []string{"*.log", "!keep.log", "build/", "/dist", "node_modules", "vendor/**", "!vendor/keep.txt", "*.min.js", "[!0-9].dat", "**/gen/", "a/**/b", "src/*.md", "!src/README.md", "docs/*", "!docs/", "*.lock", "!lib/yarn.lock", ".env*", "!.env.example", "c++/out.o", "x\\ y/", "café/*.txt", "logs", "!logs/", "b/", "*.o", "\\#hash.txt", "\\!bang.txt", "keep/*", "!keep/**/x.js", "*/data.json", "/lib/", "**/a/**", "trail\\ "}
)

// genTree writes a deterministic random tree of about n files with nested
// .gitignore files, a root .powerignore and .git/info/exclude content
// (returned), and returns the .powerignore lines.
func genTree(t testing.TB, root string, seed uint64, n int) (power []string, exclude []string) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	pick := func(list []string, k int) []string {
		out := make([]string, 0, k)
		for range k {
			out = append(out, list[r.IntN(len(list))])
		}
		return out
	}
	files := map[string]string{}
	var dirs []string
	for len(files) < n {
		depth := r.IntN(4)
		dir := strings.Join(pick(treeDirs, depth), "/")
		name := treeFiles[r.IntN(len(treeFiles))]
		if dir != "" {
			dirs = append(dirs, dir)
			name = dir + "/" + name
		}
		files[name] = "x\n"
	}
	for _, d := range dirs[:min(len(dirs), 30)] {
		files[d+"/.gitignore"] = strings.Join(pick(treePats, 1+r.IntN(4)), "\n") + "\n"
	}
	files[".gitignore"] = strings.Join(pick(treePats, 6), "\r\n") + "\r\n"
	power = pick(treePats, 5)
	files[PowerignoreFile] = "\uFEFF" + strings.Join(power, "\n") + "\n"
	exclude = pick(treePats, 3)
	writeFiles(t, root, files)
	return power, exclude
}

// TestWalkAgainstGit builds random trees of a few hundred files and compares
// Walk with real git: `git ls-files --others --exclude-standard -x P…`,
// where -x puts each .powerignore line on git's command-line list, the one
// git ranks above .gitignore files, which is recite's precedence.
func TestWalkAgainstGit(t *testing.T) {
	needGit(t)
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			root := t.TempDir()
			gitInit(t, root)
			power, exclude := genTree(t, root, seed, 300)
			writeFiles(t, root, map[string]string{ExcludeFile: strings.Join(exclude, "\n") + "\n"})
			var args []string
			for _, p := range power {
				args = append(args, "-x", p)
			}
			// git reads the -x lines without the BOM; .powerignore is
			// itself a listed file.
			want := gitOthers(t, root, args...)
			t.Logf("git lists %d of ~300 files", len(want))
			for _, workers := range []int{1, 4} {
				got, err := List(context.Background(), root, WalkOptions{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				if d := diffLists(got, want); d != "" {
					t.Errorf("workers=%d: Walk differs from git ls-files (%d vs %d files):\n%s", workers, len(got), len(want), d)
				}
			}
		})
	}
}

// TestWalkExcludeFromGit compares Walk with git's own listing of the files
// .powerignore leaves in,
// `git ls-files --others --exclude-standard --exclude-from=.powerignore`, on a
// tree where no .gitignore line contradicts a .powerignore line (git ranks
// --exclude-from below .gitignore, recite above: see Matcher).
func TestWalkExcludeFromGit(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	gitInit(t, root)
	files := map[string]string{
		".gitignore":                        "node_modules/\ndist/\n*.log\n!keep.log\n",
		PowerignoreFile:                     "*.min.js\n**/fixtures/large-*\ndocs/api/\n*.lock\n!packages/p1/yarn.lock\n.planning/loops/\n",
		"README.md":                         "x",
		"app.log":                           "x",
		"keep.log":                          "x",
		"dist/a.js":                         "x",
		"docs/api/x.md":                     "x",
		"docs/guide.md":                     "x",
		".planning/STATE.md":                "x",
		".planning/loops/l.md":              "x",
		"packages/p1/yarn.lock":             "x",
		"packages/p2/yarn.lock":             "x",
		"packages/p2/.gitignore":            "generated/\n*.tmp\n!src/keep.tmp\n",
		"packages/p2/src/keep.tmp":          "x",
		"packages/p2/src/drop.tmp":          "x",
		"packages/p2/generated/g.go":        "x",
		"packages/p2/fixtures/large-1.json": "x",
		"packages/p2/fixtures/small.json":   "x",
		"packages/p2/node_modules/m.js":     "x",
		"packages/p2/a.min.js":              "x",
	}
	writeFiles(t, root, files)
	want := gitOthers(t, root, "--exclude-from="+PowerignoreFile)
	got, err := List(context.Background(), root, WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := diffLists(got, want); d != "" {
		t.Errorf("Walk differs from git:\n%s", d)
	}
	if len(want) != 10 {
		t.Errorf("git listed %d files, the fixture expects 10: %q", len(want), want)
	}
}

// TestPowerignoreOutranksGitignore pins the one documented difference from
// `--exclude-from`: a .gitignore "!" cannot bring back what .powerignore
// excludes. Real git, given the file with --exclude-from, keeps it.
func TestPowerignoreOutranksGitignore(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	gitInit(t, root)
	writeFiles(t, root, map[string]string{
		".gitignore":    "*.log\n!keep.log\n",
		PowerignoreFile: "keep.log\n",
		"keep.log":      "x",
		"a.txt":         "x",
	})
	got, err := List(context.Background(), root, WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".gitignore", PowerignoreFile, "a.txt"}; !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
	if git := gitOthers(t, root, "--exclude-from="+PowerignoreFile); !slices.Contains(git, "keep.log") {
		t.Errorf("git --exclude-from now excludes keep.log (%q): the documented precedence note is stale", git)
	}
	if git := gitOthers(t, root, "-x", "keep.log"); slices.Contains(git, "keep.log") {
		t.Errorf("git -x keeps keep.log (%q): TestWalkAgainstGit's model is wrong", git)
	}
}

// TestWalkBenchTree compares Walk with git on the 90,716-file tree of
// ../shared/bench/mktree.go: the tree RECITE_BENCH_TREE names (a git
// repository with nothing tracked, as scripts/bench-files.sh prepares), or one
// written into a temp dir (about 7 s and 480 MB); skipped with -short or
// without ../shared.
func TestWalkBenchTree(t *testing.T) {
	needGit(t)
	dir := os.Getenv("RECITE_BENCH_TREE")
	if dir == "" {
		if testing.Short() {
			t.Skip("-short: the 90,716-file tree is not written")
		}
		mktree := sharedtest.File(t, "bench/mktree.go")
		dir = filepath.Join(t.TempDir(), "mono")
		cmd := exec.Command("go", "run", mktree, "-o", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mktree: %v\n%s", err, out)
		}
		runGit(t, dir, nil, "init", "-q", ".")
	}
	want := gitOthers(t, dir, "--exclude-from="+PowerignoreFile)
	got, err := List(context.Background(), dir, WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := diffLists(got, want); d != "" {
		t.Errorf("Walk differs from git on %s (%d vs %d):\n%s", dir, len(got), len(want), d)
	}
	t.Logf("%d files, equal to git ls-files", len(got))
}

func TestWalkSkipsGitAndSpecialFiles(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".git/config":     "x",
		"sub/.git":        "gitdir: elsewhere\n",
		"sub/a.txt":       "x",
		"target/file.txt": "x",
	})
	if err := os.Symlink("target", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	got, err := List(context.Background(), root, WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"link", "sub/a.txt", "target/file.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
}

func TestWalkInclude(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		PowerignoreFile:   "dist/\n*.lock\n",
		"dist/bundle.js":  "x",
		"dist/sub/map.js": "x",
		"yarn.lock":       "x",
		"src/a.go":        "x",
		"dist/.git/HEAD":  "x",
	})
	incs := []Include{
		{Path: "yarn.lock", Reason: "error message in .planning/STATE.md:12"},
		{Path: "dist/", Reason: "user request"},
		{Path: "missing.go", Reason: "current plan"},
	}
	got, err := List(context.Background(), root, WalkOptions{Include: incs})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{PowerignoreFile, "dist/bundle.js", "dist/sub/map.js", "src/a.go", "yarn.lock"}
	if !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
	for _, bad := range []string{"../etc/passwd", "/etc/passwd", "."} {
		if _, err := List(context.Background(), root, WalkOptions{Include: []Include{{Path: bad, Reason: "r"}}}); err == nil {
			t.Errorf("Include %q: no error", bad)
		}
	}
}

func TestExplain(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		".gitignore":     "# c\n*.log\n!keep.log\nbuild/\n",
		PowerignoreFile:  "*.lock\n",
		"sub/.gitignore": "!*.log\n",
		"build/out.o":    "x",
		"yarn.lock":      "x",
	})
	incs := []Include{{Path: "yarn.lock", Reason: "plan 01-01"}}
	tests := []struct {
		rel       string
		inContext bool
		want      string
	}{
		{"a.log", false, ".gitignore:2:*.log\ta.log"},
		{"keep.log", true, ".gitignore:3:!keep.log\tkeep.log"},
		{"sub/x.log", true, "sub/.gitignore:1:!*.log\tsub/x.log"},
		{"build/out.o", false, ".gitignore:4:build/\tbuild/out.o (inside excluded directory build)"},
		{"build", false, ".gitignore:4:build/\tbuild"},
		{"yarn.lock", true, "never-exclude: named by plan 01-01 (overrides .powerignore:1:*.lock)\tyarn.lock"},
		{"src/a.go", true, "::\tsrc/a.go"},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			e, err := Explain(root, tt.rel, incs)
			if err != nil {
				t.Fatal(err)
			}
			if e.InContext != tt.inContext || e.String() != tt.want {
				t.Errorf("Explain(%q) = %v %q, want %v %q", tt.rel, e.InContext, e.String(), tt.inContext, tt.want)
			}
		})
	}
	if _, err := Explain(root, "../x", nil); err == nil {
		t.Error("Explain(../x): no error")
	}
}

// TestExplainMatchesCheckIgnore compares Source with `git check-ignore -v`.
func TestExplainMatchesCheckIgnore(t *testing.T) {
	needGit(t)
	root := t.TempDir()
	gitInit(t, root)
	writeFiles(t, root, map[string]string{
		".gitignore":     "# c\n*.log\n!keep.log\nbuild/\n",
		"sub/.gitignore": "!*.log\n/x.tmp\n",
		ExcludeFile:      "*.tmp\n",
	})
	m, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.log", "keep.log", "sub/x.log", "build/out.o", "sub/x.tmp", "y.tmp", "sub/deep/x.tmp"} {
		out, _ := runGit(t, root, []int{1}, "check-ignore", "-v", "-n", "--no-index", p)
		want := strings.TrimSuffix(string(out), "\n")
		got := m.Explain(p, false, nil)
		line := "::\t" + p
		if got.Verdict.Source != nil {
			line = got.Verdict.Source.String() + "\t" + p
		}
		if line != want {
			t.Errorf("%s: ours %q, git check-ignore -v %q", p, line, want)
		}
	}
}

func TestWalkErrors(t *testing.T) {
	if _, err := List(context.Background(), filepath.Join(t.TempDir(), "nope"), WalkOptions{}); err == nil {
		t.Error("missing root: no error")
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"a/b/c.txt": "x"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := List(ctx, root, WalkOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled walk: err = %v, want context.Canceled", err)
	}
	if os.Geteuid() != 0 { // root reads anything
		locked := filepath.Join(root, "a", "b")
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(locked, 0o755)
		if _, err := List(context.Background(), root, WalkOptions{}); err == nil || !strings.Contains(err.Error(), "a/b") {
			t.Errorf("unreadable dir: err = %v, want one naming a/b", err)
		}
	}
}

// BenchmarkWalk walks RECITE_BENCH_TREE (the mktree monorepo), or a
// generated 3,000-file tree when it is unset.
func BenchmarkWalk(b *testing.B) {
	dir := os.Getenv("RECITE_BENCH_TREE")
	if dir == "" {
		dir = b.TempDir()
		genTree(b, dir, 7, 3000)
	}
	for _, workers := range []int{1, 0, 4, 8, 16} {
		b.Run(fmt.Sprint("workers=", workers), func(b *testing.B) {
			for b.Loop() {
				if _, err := List(context.Background(), dir, WalkOptions{Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWalkOrderAndRoot: the list is in bytewise order across directories
// whose names are prefixes of others ("a" sorts as "a/", after "a.txt"
// and "a-b", before "a0"), and a root reached through a symbolic link is
// walked (only links below the root are not followed).
func TestWalkOrderAndRoot(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"a/x": "", "a.txt": "", "a-b/y": "", "a0": "", "a/b/c": "", "a/b.txt": "", "ab/z": "", "B": "", "é": "", "a/a": "",
	})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, link} {
		for _, workers := range []int{1, 0} {
			got, err := List(context.Background(), dir, WalkOptions{Workers: workers})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.IsSorted(got) || len(got) != 10 {
				t.Errorf("List(%s, %d workers) = %q: not the 10 files in bytewise order", dir, workers, got)
			}
		}
	}
}
