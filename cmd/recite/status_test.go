package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/internal/sharedtest"
)

// builtExample is a copy of a bundled example after recite init and one
// build, with a fixed redaction key.
func builtExample(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := sharedtest.CopyTree(filepath.Join(sharedtest.ModuleRoot(), "examples", name), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Init(dir, name); err != nil {
		t.Fatal(err)
	}
	// A fixed placeholder key: the fire example redacts a credential, and
	// a random key would change its placeholder's tokens from run to run.
	key := filepath.Join(dir, filepath.FromSlash(engine.RedactKeyFile))
	if err := os.MkdirAll(filepath.Dir(key), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte(strings.Repeat("5e", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestStatusGolden pins the status picture of the bundled examples right
// after a build: piped (plain text, no ANSI code, bars for 80 columns) and
// on a fake terminal 100 columns wide (coloured with ANSI codes, lines cut
// to the width), and that NO_COLOR and --json turn the colour off. Run
// with -update to rewrite testdata/status/*.golden.
func TestStatusGolden(t *testing.T) {
	for _, example := range []string{"gsd", "fire"} {
		dir := builtExample(t, example)
		for _, tt := range []struct {
			form     string
			terminal bool
			noColor  bool
			ansi     bool
		}{
			{"piped", false, false, false},
			{"color", true, false, true},
			{"nocolor", true, true, false},
		} {
			t.Run(example+"/"+tt.form, func(t *testing.T) {
				// A fresh diagnostics record each time: every form prints
				// the diagnostics as a first command would.
				_ = os.Remove(filepath.Join(dir, filepath.FromSlash(engine.ShownDiagnosticsFile)))
				streams, out, _ := testStreams("")
				streams.OutTerminal, streams.Width, streams.NoColor = tt.terminal, 100, tt.noColor
				if err := statusRun(context.Background(), &statusOptions{io: streams, dir: dir}); err != nil {
					t.Fatal(err)
				}
				got := out.Bytes()
				if hasANSI := bytes.Contains(got, []byte("\x1b[")); hasANSI != tt.ansi {
					t.Errorf("ANSI codes %v, want %v", hasANSI, tt.ansi)
				}
				for i, l := range strings.Split(string(got), "\n") {
					if w := ansi.StringWidth(l); tt.terminal && w > 100 {
						t.Errorf("line %d is %d columns on a terminal of 100: %q", i+1, w, l)
					}
				}
				if tt.form == "nocolor" {
					return // the colour form without its codes, checked above
				}
				checkGolden(t, filepath.Join("testdata", "status", example+"."+tt.form+".golden"), got)
			})
		}
		t.Run(example+"/json", func(t *testing.T) {
			streams, out, _ := testStreams("")
			streams.OutTerminal, streams.Width = true, 100
			opts := &statusOptions{io: streams, dir: dir, json: jsonFlag{on: true}}
			if err := statusRun(context.Background(), opts); err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(out.Bytes(), []byte("\x1b[")) || !bytes.HasPrefix(out.Bytes(), []byte("{")) {
				t.Errorf("--json on a terminal printed %.200q", out)
			}
		})
	}
}

// checkGolden compares got with the golden file, or rewrites it with
// -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
