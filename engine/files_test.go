package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning"
)

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
	return convProject(t, yaml, all)
}

// TestFileSectionsGolden golden-tests the file-tree and files sections on
// examples/gsd (with a task naming files and a recorded error), and checks
// that the tree is byte-identical between builds and when only planning
// files change.
func TestFileSectionsGolden(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	if _, err := Init(dir, "gsd"); err != nil {
		t.Fatal(err)
	}
	block := "## Context Preservation Block (auto-generated)\n\n### Errors (verbatim, do NOT paraphrase)\n\n" +
		"Error 1:\n```\n--- FAIL: TestGet\n    internal/store/memory.go:20: slug not found\n```\n"
	if err := os.WriteFile(filepath.Join(dir, PreservedFile), []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func() (*prompt.Input, []Diagnostic) {
		e := New(dir)
		cfg, _, proj, err := e.load()
		if err != nil {
			t.Fatal(err)
		}
		var in prompt.Input
		diags := e.fileSections(context.Background(), cfg, &cfg.Targets[0], proj, &in)
		return &in, diags
	}
	in, diags := build()
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	golden(t, filepath.Join("files", "gsd-tree.md"), []byte(in.FileTree+"\n"))
	var b strings.Builder
	for _, f := range in.Files {
		b.WriteString("### " + f.Path + "\n\n" + f.Text + "\n\n")
	}
	golden(t, filepath.Join("files", "gsd-files.md"), []byte(b.String()))
	if len(in.Files) == 0 {
		t.Error("no files section on examples/gsd")
	}

	// Planning edits leave the tree alone.
	if err := os.WriteFile(filepath.Join(dir, ".planning", "STATE.md"), []byte("# State\n\nchanged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".planning", "loops"), 0o755); err != nil {
		t.Fatal(err)
	}
	in2, _ := build()
	if in2.FileTree != in.FileTree {
		t.Errorf("tree changed after a planning edit:\n%s\n---\n%s", in.FileTree, in2.FileTree)
	}
}

// TestFilesSectionOnce: a file named twice (plan and error) or already in
// the system prompt appears once; a symlink out of the project is not
// read and is said (a diagnostic naming the link and its target); a binary
// file is not shown.
func TestFilesSectionOnce(t *testing.T) {
	dir := filesProject(t, "", "files_modified: [AGENTS.md, a.go, a.go, bin.dat, link.go]\n", "x", map[string]string{
		"AGENTS.md": "rules\n", "a.go": "package a\n", "bin.dat": "\x00\x01",
		".planning/context-preserved.md": "## Context Preservation Block (auto-generated)\n\n### Errors (verbatim, do NOT paraphrase)\n\nError 1:\n```\na.go:3: boom\n```\n",
	})
	outside := filepath.Join(t.TempDir(), "secret.go")
	os.WriteFile(outside, []byte("secret"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link.go"))
	e := New(dir)
	cfg, _, proj, err := e.load()
	if err != nil {
		t.Fatal(err)
	}
	in := prompt.Input{System: []prompt.File{{Path: "AGENTS.md", Text: "rules"}}}
	d := e.fileSections(context.Background(), cfg, &cfg.Targets[0], proj, &in)
	if want := "link.go: files section: link.go is a symbolic link to " + outside + ", outside the project; not read"; len(d) != 1 || d[0].String() != want {
		t.Fatalf("diagnostics %v, want only %q", d, want)
	}
	var got []string
	for _, f := range in.Files {
		got = append(got, f.Path+"="+f.Text)
	}
	want := []string{"a.go=package a\n", "bin.dat=⟨bin.dat: binary file, 2 bytes, not shown⟩"}
	if !slices.Equal(got, want) {
		t.Errorf("files = %q, want %q", got, want)
	}
}

// TestFilesSectionRedacted: a .env file named by the plan enters the files
// section with its values redacted by the .env rule, and the report says
// where.
func TestFilesSectionRedacted(t *testing.T) {
	dir := filesProject(t, "targets: [{name: agent, providers: [markdown]}]\n", "files_modified: [.env]\n", "x", map[string]string{
		".env": "DB_PASSWORD_PLAIN=plainvalue42\n",
	})
	rep, err := New(dir).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join(dir, PromptsDir, "agent.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), "plainvalue42") || !strings.Contains(string(body), "### .env") {
		t.Errorf("prompt:\n%s", body)
	}
	if r := rep.Targets[0].Redactions; !slices.Contains(r, "files (.env) line 1: env-value") {
		t.Errorf("redactions = %q", r)
	}
}

// TestFilesSectionSkipsPlanningSources: planning files whose content another
// section carries (state, roadmap, the current plan itself, blockers, the
// preservation file) are not repeated in the files section when the plan names
// them (real plans list .planning/STATE.md in files_modified); other files
// under .planning/ and project files still enter it, once.
func TestFilesSectionSkipsPlanningSources(t *testing.T) {
	plan := ".planning/phases/01-setup/01-01-PLAN.md"
	dir := filesProject(t, "targets: [{name: agent, providers: [markdown]}]\n",
		"files_modified:\n  - .planning/STATE.md\n  - .planning/STATE.md\n  - .planning/ROADMAP.md\n  - "+plan+"\n  - .planning/BLOCKERS.md\n  - .planning/context-preserved.md\n  - .planning/notes/api.md\n  - src/a.go\n", "x",
		map[string]string{
			"src/a.go":                       "package a\n",
			".planning/notes/api.md":         "# API notes\n",
			".planning/BLOCKERS.md":          "# Blockers\n\n## Open Blockers\n\n### BLOCKER-001 [P1] db down\n\n- **Status:** OPEN\n",
			".planning/context-preserved.md": "## Context Preservation Block (auto-generated)\n\n### Errors (verbatim, do NOT paraphrase)\n\nError 1:\n```\nboom\n```\n",
		})
	if _, err := New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(filepath.Join(dir, PromptsDir, "agent.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{".planning/STATE.md", ".planning/ROADMAP.md", plan, ".planning/BLOCKERS.md", ".planning/context-preserved.md"} {
		if strings.Contains(string(body), "\n### "+rel+"\n") {
			t.Errorf("%s repeated in the files section", rel)
		}
	}
	for _, rel := range []string{"src/a.go", ".planning/notes/api.md"} {
		if n := strings.Count(string(body), "\n### "+rel+"\n"); n != 1 {
			t.Errorf("%s in the files section %d times, want once", rel, n)
		}
	}
	if !strings.Contains(string(body), "## State") || !strings.Contains(string(body), "Plan file: "+plan) {
		t.Errorf("state or plan section missing:\n%s", body)
	}
}

// BenchmarkBuildMonorepo measures Build on a large tree: set
// RECITE_BENCH_MONO to a tree written by ../shared/bench/mktree.go with
// examples/gsd/.planning copied in (make bench-files builds the tree in
// /tmp/recite-bench-mono). "sections" builds with the file tree and files
// sections, "none" with both turned off (tree_depth and max_files -1).
func BenchmarkBuildMonorepo(b *testing.B) {
	dir := os.Getenv("RECITE_BENCH_MONO")
	if dir == "" {
		b.Skip("RECITE_BENCH_MONO not set")
	}
	if _, err := os.Stat(filepath.Join(dir, ".planning", "ROADMAP.md")); err != nil {
		b.Skipf("%s has no .planning copied from examples/gsd: %v", dir, err)
	}
	cfgPath := filepath.Join(dir, ".planning", "recite.yaml")
	old, oldErr := os.ReadFile(cfgPath)
	b.Cleanup(func() {
		if oldErr == nil {
			os.WriteFile(cfgPath, old, 0o644)
		} else {
			os.Remove(cfgPath)
		}
	})
	for _, bc := range []struct{ name, yaml string }{
		{"sections", "targets: [{name: agent, providers: [markdown, anthropic]}]\n"},
		{"none", "targets: [{name: agent, providers: [markdown, anthropic]}]\nfiles: {tree_depth: -1, max_files: -1}\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if err := os.WriteFile(cfgPath, []byte(bc.yaml), 0o644); err != nil {
				b.Fatal(err)
			}
			e := New(dir)
			if _, err := e.Build(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Build(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fileSections fills the file tree and files section of in for tg as
// assemble does: through the engine's scope, files redacted with the
// engine's redactor.
func (e *Engine) fileSections(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project, in *prompt.Input) []Diagnostic {
	var found []string
	return e.scope.Sections(ctx, cfg, tg, proj, in, e.redactor.FileRedactor(&found))
}
