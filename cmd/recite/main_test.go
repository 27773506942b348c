package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite testscript files' golden sections")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"recite": func() {
			os.Exit(run(context.Background(), os.Args[1:], IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
		},
	})
}

// moduleRoot is the directory holding go.mod.
func moduleRoot(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

func TestScripts(t *testing.T) {
	root := moduleRoot(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", filepath.Join(root, "examples"))
			env.Setenv("GIT_AUTHOR_NAME", "recite test")
			env.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "recite test")
			env.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
			shared := filepath.Join(root, "..", "shared")
			if _, err := os.Stat(shared); err == nil {
				env.Setenv("SHARED", shared)
			}
			return nil
		},
	})
}
