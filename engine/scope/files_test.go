package scope

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/internal/ignore"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

func TestExtractPaths(t *testing.T) {
	tests := []struct {
		in   string
		want []PathRef
	}{
		{"internal/api/handler.go:42: undefined: Foo", []PathRef{{"internal/api/handler.go", 42}}},
		{"    at src/x.ts:10:5", []PathRef{{"src/x.ts", 10}}},
		{"at Object.<anonymous> (/home/u/p/src/x.ts:10:5)", []PathRef{{"/home/u/p/src/x.ts", 10}}},
		{"src/x.ts(10,5): error TS2322: Type 'string'", []PathRef{{"src/x.ts", 0}}},
		{`File "app/main.py", line 12, in <module>`, []PathRef{{"app/main.py", 12}}},
		{"error[E0308]: mismatched types\n --> src/main.rs:3:1", []PathRef{{"src/main.rs", 3}}},
		{"FAIL: see pkg/util/strings.go.", []PathRef{{"pkg/util/strings.go", 0}}},
		{"./cmd/x/main.go:7:2: missing return", []PathRef{{"cmd/x/main.go", 7}}},
		{"fetch https://example.com/a/b.js failed", nil},
		{"flag -o/--out.txt invalid", nil},
		{"../outside/secret.txt:1: no", nil},
		{"read a/b.go, then a/b.go:3 again", []PathRef{{"a/b.go", 0}}},
		{"panic: runtime error\n\t/abs/x.go:42 +0x1d", []PathRef{{"/abs/x.go", 42}}},
		{"took 1.5s; version 2.0", []PathRef{{"1.5s", 0}}}, // the existence check drops it
		{"dir/with space.go", []PathRef{{"dir/with", 0}, {"space.go", 0}}},
	}
	for _, tt := range tests {
		got := ExtractPaths(tt.in)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ExtractPaths(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzExtractPaths(f *testing.F) {
	f.Add("internal/api/handler.go:42: x")
	f.Add(`File "/a/b.py", line 3`)
	f.Add("at (/x/y.ts:1:2) ::: ..:1 a/../../b.go:0:")
	f.Add("\x00\xff/é/ü.go:99999999999999999999:")
	f.Fuzz(func(t *testing.T, s string) {
		got := ExtractPaths(s)
		if len(got) > maxErrorPaths {
			t.Fatalf("%d paths", len(got))
		}
		seen := map[string]bool{}
		for _, p := range got {
			if p.Path == "" || strings.HasPrefix(p.Path, "../") || p.Path == ".." || strings.Contains(p.Path, "//") || p.Line < 0 {
				t.Fatalf("bad path %+v from %q", p, s)
			}
			if seen[p.Path] {
				t.Fatalf("duplicate %q", p.Path)
			}
			seen[p.Path] = true
		}
		if !reflect.DeepEqual(got, ExtractPaths(s)) {
			t.Fatal("not deterministic")
		}
	})
}

// filesProject writes a git-free project: files plus .planning with a
// plan whose front matter is fm (may be "") and whose one task is task.
func filesProject(t *testing.T, yaml, fm, task string, files map[string]string) string {
	t.Helper()
	plan := "# Plan 01-01\n\n- [ ] " + task + "\n"
	if fm != "" {
		plan = "---\n" + fm + "---\n" + plan
	}
	all := map[string]string{
		".planning/ROADMAP.md":                    "# Roadmap\n\n- [ ] **Phase 1: Setup** - s\n",
		".planning/STATE.md":                      "# State\n\n## Current Position\n\nPhase: 1 of 1 (Setup)\n",
		".planning/phases/01-setup/01-01-PLAN.md": plan,
	}
	for k, v := range files {
		all[k] = v
	}
	return enginetest.Project(t, yaml, all)
}

func listed(t *testing.T, dir string, include ...string) []string {
	t.Helper()
	fs, err := newTestEngine(t, dir).Files(context.Background(), include)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		if !strings.HasPrefix(f.Path, ".planning/") {
			out = append(out, f.Path)
		}
	}
	return out
}

func TestErrorNamedPaths(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filesProject(t, "targets:\n  - name: agent\n    conversation: main\n", "", "wire it", map[string]string{
		".powerignore":            "internal/\nsrc/\ngen/\nlink.go\n",
		"internal/api/handler.go": "package api\n",
		"internal/api/other.go":   "package api\n",
		"src/x.ts":                "x\n",
		"src/y.ts":                "y\n",
		"gen/loop.go":             "package gen\n",
		"main.go":                 "package main\n",
		".planning/context-preserved.md": "## Context Preservation Block (auto-generated)\n\n" +
			"### Errors (verbatim, do NOT paraphrase)\n\nError 1 (source: conv.jsonl:3):\n```\nTypeError: x is undefined\n    at src/x.ts:10:5\n```\n",
	})
	if err := os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	s, err := newTestEngine(t, dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Create(ctx, "main", conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(filepath.Join(dir, "internal/api/other.go"))
	if err := s.Append(ctx, "main",
		conversation.Record{ID: "m1", Role: "tool", ToolName: "go_build", IsError: true,
			Content: "internal/api/handler.go:42:7: undefined: Foo\n" + filepath.Join(outside, "secret.go") + ":1: x\n../escape.go:1: y\nmissing/file.go:3: z\nlink.go:1: w"},
		conversation.Record{ID: "m2", Role: "tool", ToolName: "bash", Content: "ok\nerror: " + abs + ":9: bad"},
		conversation.Record{ID: "m3", Role: "assistant", Content: "I will look at gen/loop.go later"},
	); err != nil {
		t.Fatal(err)
	}
	e := newTestEngine(t, dir)
	cfg, _, _ := config.Load(dir)
	proj, err := planning.Load(os.DirFS(filepath.Join(dir, ".planning")))
	if err != nil {
		t.Fatal(err)
	}
	got := e.ErrorPaths(ctx, proj, []string{"main"})
	want := []ErrorPath{
		{Path: "internal/api/handler.go", Line: 42, Source: ".planning/conversations/main.jsonl#m1"},
		{Path: "internal/api/other.go", Line: 9, Source: ".planning/conversations/main.jsonl#m2"},
		{Path: "src/x.ts", Line: 10, Source: ".planning/context-preserved.md:1 (recorded at conv.jsonl:3)"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errorPaths =\n%+v\nwant\n%+v", got, want)
	}
	_ = cfg

	if got, want := listed(t, dir), []string{".powerignore", "internal/api/handler.go", "internal/api/other.go", "main.go", "src/x.ts"}; !slices.Equal(got, want) {
		t.Errorf("Files = %q, want %q", got, want)
	}
	ex, err := e.Why(ctx, "internal/api/handler.go", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s := ex.String(); !strings.HasPrefix(s, "never-exclude: named by error at .planning/conversations/main.jsonl#m1 (overrides .powerignore:1:internal/)") {
		t.Errorf("Why = %q", s)
	}
	ex, _ = e.Why(ctx, "src/x.ts", nil)
	if s := ex.String(); !strings.HasPrefix(s, "never-exclude: named by error at .planning/context-preserved.md:1 (recorded at conv.jsonl:3)") {
		t.Errorf("Why = %q", s)
	}
	ex, _ = e.Why(ctx, "link.go", nil)
	if ex.InContext {
		t.Errorf("a symlink leaving the project entered context: %v", ex)
	}
}

func TestTaskTypeExclusion(t *testing.T) {
	files := map[string]string{
		"src/api/users.go":       "package api\n",
		"src/components/Nav.tsx": "x\n",
		"src/models/user.go":     "package models\n",
		"public/logo.txt":        "x\n",
		"prisma/schema.prisma":   "x\n",
		"README.md":              "x\n",
	}
	all := []string{"README.md", "prisma/schema.prisma", "public/logo.txt", "src/api/users.go", "src/components/Nav.tsx", "src/models/user.go"}
	// fire-flow's table, as `recite init` writes it.
	const ff = "files:\n  task_types:\n    frontend: [src/api/**, prisma/**, src/models/**]\n    backend: [src/components/**, src/app/**, public/**]\n    testing: []\n"
	tests := []struct {
		name, yaml, fm, task string
		include              []string
		want                 []string
		typ                  string
	}{
		{"front matter frontend", ff, "task_type: frontend\n", "do it", nil,
			[]string{"README.md", "public/logo.txt", "src/components/Nav.tsx"}, "frontend"},
		{"type backend", ff, "type: backend\n", "do it", nil,
			[]string{"README.md", "prisma/schema.prisma", "src/api/users.go", "src/models/user.go"}, "backend"},
		{"gsd execute is no task type", ff, "type: execute\n", "do it", nil, all, ""},
		{"tdd is testing", ff, "type: tdd\n", "build the api", nil, all, "testing"},
		{"keyword frontend", ff, "", "Build the login page component", nil,
			[]string{"README.md", "public/logo.txt", "src/components/Nav.tsx"}, "frontend"},
		{"keyword testing wins", ff, "", "Add tests for the API endpoint", nil, all, "testing"},
		{"ambiguous keywords", ff, "", "Wire the UI to the API", nil, all, ""},
		{"never-exclude wins", ff, "task_type: frontend\nfiles_modified: [src/models/user.go]\n", "do it", []string{"src/api/users.go"},
			[]string{"README.md", "public/logo.txt", "src/api/users.go", "src/components/Nav.tsx", "src/models/user.go"}, "frontend"},
		{"configured type", "files:\n  task_types:\n    docs: [\"src/*\", \"!src/api/\"]\n", "task_type: docs\n", "x", nil,
			[]string{"README.md", "prisma/schema.prisma", "public/logo.txt", "src/api/users.go"}, "docs"},
		{"turned off", "files:\n  task_types: {}\n", "task_type: frontend\n", "x", nil, all, ""},
		{"no built-in table", "", "task_type: frontend\n", "Build the page component", nil, all, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filesProject(t, tt.yaml, tt.fm, tt.task, files)
			if got := listed(t, dir, tt.include...); !slices.Equal(got, tt.want) {
				t.Errorf("Files = %q, want %q", got, tt.want)
			}
			cfg, _, err := config.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			proj, err := planning.Load(os.DirFS(filepath.Join(dir, ".planning")))
			if err != nil {
				t.Fatal(err)
			}
			if typ, _ := taskType(&cfg.Files, proj); typ != tt.typ {
				t.Errorf("taskType = %q, want %q", typ, tt.typ)
			}
		})
	}
}

func TestWhyOutput(t *testing.T) {
	dir := filesProject(t, "files:\n  task_types:\n    frontend:\n      - src/api/**\n", "task_type: frontend\nfiles_modified:\n  - dist/keep.js\n", "x", map[string]string{
		".powerignore":     "dist/\n",
		".gitignore":       "*.log\n",
		"dist/keep.js":     "x",
		"dist/other.js":    "x",
		"src/api/users.go": "x",
		"debug.log":        "x",
		"main.go":          "x",
		"extra.txt":        "x",
	})
	tests := []struct{ path, want string }{
		{"dist/other.js", ".powerignore:1:dist/\tdist/other.js (inside excluded directory dist)"},
		{"dist/keep.js", "never-exclude: named by the current plan (.planning/phases/01-setup/01-01-PLAN.md files_modified) (overrides .powerignore:1:dist/)\tdist/keep.js"},
		{"debug.log", ".gitignore:1:*.log\tdebug.log"},
		{"main.go", "::\tmain.go"},
		{"src/api/users.go", ".planning/recite.yaml:4:src/api/**\tsrc/api/users.go (task type frontend, front matter task_type of .planning/phases/01-setup/01-01-PLAN.md)"},
		{"extra.txt", "never-exclude: named by --include\textra.txt"},
	}
	for _, tt := range tests {
		ex, err := newTestEngine(t, dir).Why(context.Background(), tt.path, []string{"extra.txt"})
		if err != nil {
			t.Fatal(err)
		}
		if got := ex.String(); got != tt.want {
			t.Errorf("Why(%s) =\n%q\nwant\n%q", tt.path, got, tt.want)
		}
	}
	// A path that is not in the project, missing or outside the root, is
	// ErrNotInProject, even when --include names it.
	for _, p := range []string{"missing.go", "extra-missing.txt", "../outside.go", "/etc/passwd"} {
		if _, err := newTestEngine(t, dir).Why(context.Background(), p, []string{"extra-missing.txt"}); !errors.Is(err, ErrNotInProject) {
			t.Errorf("Why(%s) error %v, want ErrNotInProject", p, err)
		}
	}
}

func TestCutLines(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		b.WriteString("line " + strings.Repeat("x", i%3) + "\n")
	}
	text := b.String()
	got := cutLines("a.go", text, 10, 1<<20)
	lines := strings.Split(got, "\n")
	if len(lines) != 10 || lines[6] != "⟨a.go: lines 7–27 omitted⟩" || lines[0] != "line x" || lines[9] != "line " {
		t.Errorf("cutLines =\n%s", got)
	}
	if cutLines("a.go", text, 30, 1<<20) != text {
		t.Error("a file within the limit changed")
	}
	long := strings.Repeat("a", 100) + "\n" + strings.Repeat("b", 100) + "\n" + strings.Repeat("c", 100) + "\n"
	if got := cutLines("m.js", long, 400, 160); got != strings.Repeat("a", 100)+"\n⟨m.js: lines 2–3 omitted⟩" {
		t.Errorf("byte cut = %q", got)
	}
}

func TestFileTreeLimits(t *testing.T) {
	files := map[string]string{".gitignore": "ignored/\n", "ignored/x": "x", "a/b/c/d.go": "x", "a/b/e.go": "x", "z.go": "x"}
	for i := 0; i < 30; i++ {
		files[filepath.Join("many", "f"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".go")] = "x"
	}
	dir := enginetest.Project(t, "", files)
	tests := []struct {
		depth, max int
		want       string
	}{
		{1, 100, ".gitignore\na/ (1 entry)\nmany/ (30 entries)\nz.go"},
		{3, 100, ".gitignore\na/\n  b/\n    c/ (1 entry)\n    e.go\nmany/\n" + manyLines(30) + "z.go"},
		{3, 8, ".gitignore\na/\n  b/ (2 entries)\nmany/\n  fa.go\n  fax.go\n  fb.go\n  … 27 more entries\nz.go"},
		{2, 3, ".gitignore\na/ (1 entry)\nmany/ (30 entries)\n… 1 more entry"},
	}
	for _, tt := range tests {
		m, err := loadMatcher(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fileTree(context.Background(), m, tt.depth, tt.max, nil)
		if err != nil {
			t.Fatal(err)
		}
		got = got[strings.IndexByte(got, '\n')+1:]
		if got != tt.want {
			t.Errorf("depth %d max %d:\n%s\nwant\n%s", tt.depth, tt.max, got, tt.want)
		}
	}
}

func manyLines(n int) string {
	var names []string
	for i := 0; i < n; i++ {
		names = append(names, "f"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".go")
	}
	slices.Sort(names)
	return "  " + strings.Join(names, "\n  ") + "\n"
}

// TestFilesEqualsGit compares `recite files` on a project with no planning
// with git's own list.
func TestFilesEqualsGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := enginetest.Project(t, "", map[string]string{
		".powerignore": "*.min.js\nvendor/**\n!vendor/keep.txt\n",
		".gitignore":   "dist/\n",
		"a/x.min.js":   "x", "a/x.js": "x", "dist/o.js": "x", "vendor/keep.txt": "x", "vendor/lib/x.go": "x",
	})
	cmd := exec.Command("git", "init", "-q", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	cmd = exec.Command("git", "ls-files", "--others", "--exclude-standard", "--exclude-from=.powerignore")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(string(out))
	slices.Sort(want)
	fs, err := newTestEngine(t, dir).Files(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Path)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Files = %q\ngit   = %q", got, want)
	}
}

func loadMatcher(dir string) (*ignore.Matcher, error) { return ignore.Load(dir) }

// TestTreeCache checks that the cached tree is reused only while the
// directories and ignore files it was built from are unchanged.
func TestTreeCache(t *testing.T) {
	dir := enginetest.Project(t, "", map[string]string{"a/x.go": "x", "b/y.go": "y", ".gitignore": "*.log\n"})
	old := time.Now().Add(-time.Hour)
	age := func() {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil {
				os.Chtimes(p, old, old)
			}
			return err
		})
	}
	age()
	e := newTestEngine(t, dir)
	tree := func() string {
		m, err := loadMatcher(dir)
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.cachedTree(context.Background(), m, nil, 3, 100)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	t1 := tree()
	if e.tree == nil {
		t.Fatal("an old tree was not cached")
	}
	if t2 := tree(); t2 != t1 {
		t.Fatalf("cached tree differs:\n%s\n%s", t1, t2)
	}
	steps := []struct {
		name   string
		change func()
		want   string
	}{
		{"new file", func() { os.WriteFile(filepath.Join(dir, "a", "new.go"), nil, 0o644) }, "  new.go\n"},
		{"gitignore edit", func() { os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\nb/\n"), 0o644) }, ""},
		{"powerignore", func() { os.WriteFile(filepath.Join(dir, ".powerignore"), []byte("a/new.go\n"), 0o644) }, ""},
	}
	for _, st := range steps {
		st.change()
		got := tree()
		switch st.name {
		case "new file":
			if !strings.Contains(got, st.want) {
				t.Errorf("%s: tree not rebuilt:\n%s", st.name, got)
			}
		case "gitignore edit":
			if strings.Contains(got, "b/") {
				t.Errorf("%s: tree not rebuilt:\n%s", st.name, got)
			}
		case "powerignore":
			if strings.Contains(got, "new.go") {
				t.Errorf("%s: tree not rebuilt:\n%s", st.name, got)
			}
		}
		if e.tree != nil {
			t.Errorf("%s: a tree read from files changed just now was cached", st.name)
		}
		age()
	}
}

// TestErrorPathsFromLoop: the active loop's preserved ERRORS name a file.
func TestErrorPathsFromLoop(t *testing.T) {
	dir := enginetest.CopyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "fire"))
	snap := filepath.Join(dir, ".planning", "loops", "sabbath-20260123-143052-iter6.md")
	b, err := os.ReadFile(snap)
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), `- ERRORS: "Error: connect ECONNREFUSED 127.0.0.1:5432"`, `- ERRORS: "Error: connect ECONNREFUSED at src/db.ts:12:3"`, 1))
	if err := os.WriteFile(snap, b, 0o644); err != nil {
		t.Fatal(err)
	}
	e := newTestEngine(t, dir)
	_, _, proj, err := e.load()
	if err != nil {
		t.Fatal(err)
	}
	got := e.ErrorPaths(context.Background(), proj, nil)
	found := false
	for _, p := range got {
		if p.Path == "src/db.ts" && p.Line == 12 && strings.HasPrefix(p.Source, ".planning/loops/") {
			found = true
		}
		if !strings.HasPrefix(p.Source, ".planning/loops/") {
			t.Errorf("error path %+v does not come from the loop files", p)
		}
	}
	if !found {
		t.Errorf("errorPaths = %+v, want src/db.ts:12 from the loop's preserved ERRORS", got)
	}
}

// TestErrorPathsFromDebug: an open debug file's recorded errors name a
// file (examples/gsd: the redirect handler's test failure).
func TestErrorPathsFromDebug(t *testing.T) {
	dir := enginetest.CopyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	e := newTestEngine(t, dir)
	_, _, proj, err := e.load()
	if err != nil {
		t.Fatal(err)
	}
	got := e.ErrorPaths(context.Background(), proj, nil)
	for _, p := range got {
		if strings.HasPrefix(p.Source, ".planning/debug/") {
			return
		}
	}
	t.Errorf("errorPaths = %+v, want a path named by .planning/debug/redirect-returns-404.md", got)
}

// TestFilesNotBeyondSymlinkOrGit: a never-exclude entry beyond a symbolic link
// that leaves the project, or under .git/, is not listed (git lists the link
// itself and nothing below it), and --why says why. Before, with src/dirlink →
// /tmp/x, src/dirlink/outside.txt was listed, and --why .git/config printed
// git's "::" although .git/ is always excluded.
func TestFilesNotBeyondSymlinkOrGit(t *testing.T) {
	dir := filesProject(t, "", "files_modified:\n  - src/dirlink/outside.txt\n  - src/inlink/a.go\n  - .git/config\n  - src/main.go\n", "x", map[string]string{
		".gitignore":    "src/real/\n", // never-exclude must bring src/real/a.go back only by its own name
		"src/main.go":   "package main\n",
		"src/real/a.go": "package real\n",
	})
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "outside.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "src", "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "src", "inlink")); err != nil {
		t.Fatal(err)
	}
	got := listed(t, dir)
	want := []string{".gitignore", "src/dirlink", "src/inlink", "src/inlink/a.go", "src/main.go"}
	if !slices.Equal(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
	// git lists the links themselves, never what is below the outside one.
	out, err := exec.Command("git", "-C", dir, "ls-files", "--others", "--exclude-standard", "src").Output()
	if err != nil {
		t.Fatal(err)
	}
	if g := string(out); strings.Contains(g, "outside.txt") || !strings.Contains(g, "src/dirlink\n") {
		t.Errorf("git ls-files: %q", g)
	}
	tests := []struct{ path, want string }{
		{"src/dirlink/outside.txt", "excluded: beyond a symbolic link that leaves the project\tsrc/dirlink/outside.txt"},
		{".git/config", "excluded: .git/ is never part of context\t.git/config"},
		{"vendor/x/.git/HEAD", "excluded: .git/ is never part of context\tvendor/x/.git/HEAD"},
		{".gitignore", "::\t.gitignore"},
	}
	for _, tt := range tests {
		ex, err := newTestEngine(t, dir).Why(context.Background(), tt.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := ex.String(); got != tt.want || (ex.Excluded != "" && ex.InContext) {
			t.Errorf("Why(%s) = %q (in context %v), want %q", tt.path, got, ex.InContext, tt.want)
		}
	}
}

// TestBareFile: a name printed without its directory resolves only when
// the error text or the plan points at exactly one existing file.
func TestBareFile(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"internal/api/handler_test.go", "cmd/a/main.go", "cmd/b/main.go", "web/util.ts"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := newTestEngine(t, dir)
	tests := []struct {
		name, text string
		plan       []string
		want       string
	}{
		{"handler_test.go", "handler_test.go:29: got 404\nFAIL\texample.com/shortlink/internal/api\t0.004s", nil, "internal/api/handler_test.go"},
		{"main.go", "main.go:3: boom in cmd/a/x.go and cmd/b/y.go", nil, ""}, // two candidates: not guessed
		{"main.go", "main.go:3: boom", nil, ""},                              // nothing points anywhere
		{"util.ts", "util.ts(4,2): error TS2322", []string{"web"}, "web/util.ts"},
		{"util.ts", "util.ts(4,2): see https://example.com/web/", nil, ""}, // URLs are not directories
	}
	for _, tt := range tests {
		got, ok := e.bareFile(tt.name, tt.text, tt.plan)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("bareFile(%q, %q) = %q, %v; want %q", tt.name, tt.text, got, ok, tt.want)
		}
	}
}

// testEngine drives a Scope as package engine does: Files and Why load
// recite.yaml and the planning tree first.
type testEngine struct {
	*Scope
	t testing.TB
}

func newTestEngine(t testing.TB, dir string) *testEngine { return &testEngine{Scope: New(dir), t: t} }

// load reads recite.yaml and the planning tree of the project.
func (e *testEngine) load() (*config.Config, bool, *planning.Project, error) {
	cfg, found, err := config.Load(e.dir)
	if err != nil {
		return nil, false, nil, err
	}
	proj, err := planning.Load(os.DirFS(filepath.Join(e.dir, ".planning")))
	return cfg, found, proj, err
}

// loadScope is load as engine.Files does it: a planning tree that cannot
// be read is an empty Project.
func (e *testEngine) loadScope() (*config.Config, *planning.Project, error) {
	cfg, _, err := config.Load(e.dir)
	if err != nil {
		return nil, nil, err
	}
	proj, err := planning.Load(os.DirFS(filepath.Join(e.dir, ".planning")))
	if err != nil {
		proj = &planning.Project{}
	}
	return cfg, proj, nil
}

func (e *testEngine) Files(ctx context.Context, include []string) ([]FileEntry, error) {
	cfg, proj, err := e.loadScope()
	if err != nil {
		return nil, err
	}
	return e.Scope.Files(ctx, cfg, proj, include)
}

func (e *testEngine) Why(ctx context.Context, rel string, include []string) (Explanation, error) {
	cfg, proj, err := e.loadScope()
	if err != nil {
		return Explanation{}, err
	}
	return e.Scope.Why(ctx, cfg, proj, rel, include)
}

func (e *testEngine) OpenConversations() (*conversation.Store, error) {
	return conversation.Open(filepath.Join(e.dir, ".planning", "conversations"))
}
