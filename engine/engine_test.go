package engine

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// copyTree copies src into a new temp dir and returns it. Generated prompt
// files and caches are left out.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	return enginetest.CopyTree(t, src) // fixed placeholders
}

type fileState struct {
	mtime time.Time
	data  []byte
}

func snapshot(t *testing.T, dir string) map[string]fileState {
	m := map[string]fileState{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, _ := d.Info()
		b, _ := os.ReadFile(p)
		m[p] = fileState{fi.ModTime(), b}
		return nil
	})
	return m
}

func TestBuildExamplesGolden(t *testing.T) {
	for _, ex := range []string{"gsd", "fire"} {
		t.Run(ex, func(t *testing.T) {
			dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", ex))
			if _, err := Init(dir, ex); err != nil {
				t.Fatal(err)
			}
			// Every provider, to golden-test each renderer on real input.
			cfg := filepath.Join(dir, ".planning", "recite.yaml")
			b, _ := os.ReadFile(cfg)
			b = bytes.Replace(b, []byte("providers: [markdown, anthropic, openai]"), []byte("providers: [markdown, anthropic, openai, gemini, ollama, text]"), 1)
			if err := os.WriteFile(cfg, b, 0o644); err != nil {
				t.Fatal(err)
			}
			e := New(dir)
			rep, err := e.Build(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Targets) != 1 || len(rep.Targets[0].Files) != 6 {
				t.Fatalf("report %+v", rep)
			}
			for _, f := range rep.Targets[0].Files {
				if !f.Written {
					t.Errorf("%s not written on the first build", f.Path)
				}
				got, err := os.ReadFile(filepath.Join(dir, f.Path))
				if err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join(ex, filepath.Base(f.Path)), got)
			}
			before := snapshot(t, filepath.Join(dir, ".planning"))
			time.Sleep(10 * time.Millisecond) // let a rewrite show in mtimes
			rep2, err := New(dir).Build(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep2.Targets[0].Files {
				if f.Written || f.PrefixBytes != f.Bytes {
					t.Errorf("second build rewrote %s (prefix %d of %d)", f.Path, f.PrefixBytes, f.Bytes)
				}
			}
			after := snapshot(t, filepath.Join(dir, ".planning"))
			for p, s := range before {
				if a := after[p]; !a.mtime.Equal(s.mtime) || !bytes.Equal(a.data, s.data) {
					t.Errorf("second build touched %s", p)
				}
			}
			if len(after) != len(before) {
				t.Errorf("second build created files: %d -> %d", len(before), len(after))
			}
		})
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./engine -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file; run go test ./engine -update and review the diff", name)
	}
}

func TestBuildRealdata(t *testing.T) {
	shared := sharedtest.Dir(t)
	trees, _ := filepath.Glob(filepath.Join(shared, "realdata", "*", ".planning"))
	if len(trees) == 0 {
		t.Fatal("no realdata trees")
	}
	e := (*Engine)(nil)
	for _, tree := range trees {
		name := filepath.Base(filepath.Dir(tree))
		t.Run(name, func(t *testing.T) {
			dir := copyTree(t, filepath.Dir(tree))
			e = reuse(e, dir)
			rep, tbs, err := e.build(context.Background(), true, nil)
			if err != nil {
				t.Fatal(err)
			}
			tr, trB := rep.Targets[0], tbs[0]
			if tr.Tokens == 0 || tr.Tokens > tr.Budget {
				t.Errorf("tokens %d of %d", tr.Tokens, tr.Budget)
			}
			for _, f := range tr.Files {
				b, err := os.ReadFile(filepath.Join(dir, f.Path))
				if err != nil || len(b) == 0 {
					t.Errorf("%s: %v", f.Path, err)
				}
			}
			if trB.prompt.Section("recitation") == nil {
				t.Error("no recitation section")
			}
			rep2, err := e.Build(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep2.Targets[0].Files {
				if f.Written {
					t.Errorf("second build rewrote %s", f.Path)
				}
			}
		})
	}
}

// reuse points an engine at a new directory but keeps its token counter,
// as one process would.
func reuse(e *Engine, dir string) *Engine {
	n := New(dir)
	if e != nil {
		n.counter = e.counter
	}
	return n
}

func TestMalformedStateKeepsLastGood(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	if _, err := New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(dir, ".planning", "prompts", "agent.md")
	good, _ := os.ReadFile(md)
	state := filepath.Join(dir, ".planning", "STATE.md")
	b, _ := os.ReadFile(state)
	if !bytes.HasPrefix(b, []byte("---\n")) {
		t.Fatal("example STATE.md has no front matter to break")
	}
	broken := append([]byte("---\ntitle: Fix: the bug\n"), b[4:]...)
	os.WriteFile(state, broken, 0o644)
	rep, err := New(dir).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Targets[0].Kept == "" || !strings.Contains(rep.Targets[0].Kept, ".planning/STATE.md:2") {
		t.Fatalf("kept = %q, want the reason with file and line", rep.Targets[0].Kept)
	}
	if now, _ := os.ReadFile(md); !bytes.Equal(now, good) {
		t.Fatal("the last good prompt was replaced")
	}
	os.Remove(md)
	if _, err := New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if now, _ := os.ReadFile(md); !bytes.Equal(now, good) {
		t.Fatal("the last good prompt was not restored from .recite/last")
	}
	st, err := New(dir).Status(context.Background())
	if err != nil || st.Targets[0].Kept == "" {
		t.Fatalf("status does not say why: %v %+v", err, st.Targets[0])
	}
	os.WriteFile(state, b, 0o644)
	rep, _ = New(dir).Build(context.Background())
	if rep.Targets[0].Kept != "" {
		t.Fatal("still keeping after the fix")
	}
}

func TestInputErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := New(dir).Build(context.Background())
	var ie *InputError
	if !errors.As(err, &ie) || !errors.Is(err, ErrNoPlanning) {
		t.Fatalf("missing .planning: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, ".planning"), 0o755)
	os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte("targets:\n  - name: a\n    providr: [x]\n"), 0o644)
	_, err = New(dir).Build(context.Background())
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), ".planning/recite.yaml:3:") {
		t.Fatalf("bad config: %v", err)
	}
}

func TestMissingSystemFileIsDiagnostic(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte("targets:\n  - name: dev\n    system: [NOPE.md]\n"), 0o644)
	rep, err := New(dir).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range rep.Diagnostics {
		if d.Path == "NOPE.md" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no diagnostic for the missing system file: %+v", rep.Diagnostics)
	}
}

func TestInitIdempotentAndConfigValid(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.png binary\r\n"), 0o644)
	r1, err := Init(dir, "fire")
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Created) != 3 || len(r1.Updated) != 1 {
		t.Fatalf("first init %+v", r1)
	}
	ga, _ := os.ReadFile(filepath.Join(dir, ".gitattributes"))
	if !strings.HasPrefix(string(ga), "*.png binary\r\n") || !strings.Contains(string(ga), ".planning/conversations/*.jsonl merge=union\r\n") {
		t.Fatalf(".gitattributes %q", ga)
	}
	before := snapshot(t, dir)
	r2, err := Init(dir, "fire")
	if err != nil || len(r2.Created)+len(r2.Updated) != 0 {
		t.Fatalf("second init changed things: %+v %v", r2, err)
	}
	for p, s := range snapshot(t, dir) {
		if !bytes.Equal(s.data, before[p].data) {
			t.Errorf("%s changed", p)
		}
	}
	// The written recite.yaml is accepted by the strict parser.
	if _, err := New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := Init(dir, "other"); err == nil {
		t.Fatal("unknown flavor accepted")
	}
}

// TestSecretsNeverReachPrompts plants secrets in every input that feeds a
// prompt and checks that no prompt file holds one.
func TestSecretsNeverReachPrompts(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	secrets := []string{
		"AKIAIOSFODNN7EXAMPLQ",
		"ghp_0123456789abcdefghijABCDEFGHIJklmnop",
		"sk_live_51HqLy2KZvKYlo2C0abcdefghijklmnop",
		"xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
	}
	plant := "\n\nCredentials found while debugging: " + strings.Join(secrets, " , ") + "\npassword = \"hunter2-correct-horse\"\n"
	for _, rel := range []string{"AGENTS.md", ".planning/PROJECT.md", ".planning/STATE.md"} {
		if err := appendTo(dir, rel, plant); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := New(dir).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Targets[0].Redactions) == 0 {
		t.Fatal("no redactions reported")
	}
	for _, f := range rep.Targets[0].Files {
		b, _ := os.ReadFile(filepath.Join(dir, f.Path))
		for _, s := range append(secrets, "hunter2-correct-horse") {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s leaks %s", f.Path, s)
			}
		}
		if !bytes.Contains(b, []byte("⟨secret:")) {
			t.Errorf("%s has no placeholder", f.Path)
		}
	}
}
