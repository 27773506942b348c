package engine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/scaffold"
	"github.com/recite-dev/recite/templates"
)

// TestCheckConfig: every problem of the project's recite.yaml with its
// line and key, a role no template provides, a project without the file,
// another file named as given, and one that does not exist.
func TestCheckConfig(t *testing.T) {
	dir := t.TempDir()
	e := New(dir)
	res, err := e.CheckConfig("")
	if err != nil || res.Found || len(res.Problems) != 0 || res.File != config.FileName {
		t.Fatalf("no file: %+v, %v", res, err)
	}
	src := "contex_window: 1\ntargets:\n  - name: a\n    role: reviewr\n  - name: b\n    role: mine\n"
	writeConfigFile(t, filepath.Join(dir, config.FileName), src)
	writeConfigFile(t, filepath.Join(dir, ".planning/templates/roles/mine.md"), "# My role\n")
	res, err = e.CheckConfig("")
	if err != nil || !res.Found {
		t.Fatalf("%+v, %v", res, err)
	}
	want := []string{
		`.planning/recite.yaml:1: unknown key "contex_window": did you mean context_window?`,
		`.planning/recite.yaml:4: target "a": unknown role "reviewr" (built in: implementer, reviewer, validator; or add .planning/templates/roles/reviewr.md)`,
	}
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Problems[1].Key != "targets[0].role" {
		t.Errorf("key %q", res.Problems[1].Key)
	}

	other := filepath.Join(t.TempDir(), "other.yaml")
	writeConfigFile(t, other, "tokenizer: p50k\n")
	res, err = e.CheckConfig(other)
	if err != nil || len(res.Problems) != 1 || res.Problems[0].String() != other+`:1: tokenizer: expected o200k_base or cl100k_base, got "p50k"` {
		t.Errorf("other file: %+v, %v", res, err)
	}
	var ie *InputError
	if _, err := e.CheckConfig(filepath.Join(dir, "nowhere.yaml")); !errors.As(err, &ie) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := New(filepath.Join(dir, "nowhere")).CheckConfig(""); !errors.As(err, &ie) {
		t.Errorf("missing project: %v", err)
	}
}

// TestSchemaCopy: init writes the schema copy its recite.yaml names, with
// the .gitignore that keeps it out of git; a build leaves an equal copy
// alone and rewrites a stale one.
func TestSchemaCopy(t *testing.T) {
	dir := t.TempDir()
	if _, err := Init(dir, "gsd"); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, filepath.FromSlash(config.SchemaFile))
	b, err := os.ReadFile(copyPath)
	if err != nil || !bytes.Equal(b, templates.Schema()) {
		t.Fatalf("init: copy %d bytes, %v", len(b), err)
	}
	if gi, err := os.ReadFile(filepath.Join(dir, CacheDir, ".gitignore")); err != nil || !strings.Contains(string(gi), "*") {
		t.Fatalf(".recite/.gitignore: %q, %v", gi, err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, config.FileName))
	if err != nil {
		t.Fatal(err)
	}
	// The modeline resolves, relative to recite.yaml, to the copy.
	line, _, _ := strings.Cut(string(cfg), "\n")
	rel, ok := strings.CutPrefix(line, "# yaml-language-server: $schema=")
	if !ok || filepath.Join(filepath.Dir(filepath.Join(dir, config.FileName)), rel) != copyPath {
		t.Fatalf("first line %q does not name %s", line, config.SchemaFile)
	}

	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(copyPath, old, old); err != nil {
		t.Fatal(err)
	}
	if written, err := scaffold.WriteSchemaCopy(dir); err != nil || written {
		t.Fatalf("equal copy rewritten: %v %v", written, err)
	}
	if fi, err := os.Stat(copyPath); err != nil || !fi.ModTime().Equal(old) {
		t.Fatalf("equal copy touched: %v", err)
	}
	writeConfigFile(t, copyPath, "{}\n")
	if err := New(dir).ensureDirs(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(copyPath); !bytes.Equal(b, templates.Schema()) {
		t.Fatalf("stale copy kept: %q", b)
	}
}

func writeConfigFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
