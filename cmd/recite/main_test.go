package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/recite-dev/recite/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite testscript files' golden sections")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"recite": func() {
			os.Exit(run(context.Background(), os.Args[1:], scriptStreams(os.Getenv)))
		},
	})
}

func TestScripts(t *testing.T) {
	root := sharedtest.ModuleRoot()
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
			// The recite the scripts run, for a script that takes it off
			// PATH (testscript puts its commands first on PATH).
			for _, kv := range env.Vars {
				if p, ok := strings.CutPrefix(kv, "PATH="); ok {
					env.Setenv("RECITE_BIN", filepath.Join(filepath.SplitList(p)[0], "recite"))
				}
			}
			shared := filepath.Join(root, "..", "shared")
			if _, err := os.Stat(shared); err == nil {
				env.Setenv("SHARED", shared)
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"snapshot":  cmdSnapshot,
			"unchanged": cmdUnchanged,
			"cptree":    cmdCopyTree,
		},
	})
}

// fakeTerminalEnv makes a script's recite see a terminal: set to a width
// in columns, stdout and stderr are reported as terminals of that width
// (the real streams stay files the script reads).
const fakeTerminalEnv = "RECITE_TEST_TERMINAL"

// scriptStreams are the process's streams, as main passes them, with the
// terminal faked when fakeTerminalEnv is set.
func scriptStreams(getenv func(string) string) IOStreams {
	s := systemStreams(getenv)
	if v := getenv(fakeTerminalEnv); v != "" {
		w, err := strconv.Atoi(v)
		if err != nil || w <= 0 {
			fmt.Fprintf(os.Stderr, "%s=%q: want a width in columns\n", fakeTerminalEnv, v)
			os.Exit(2)
		}
		s.OutTerminal, s.ErrTerminal, s.Width = true, true, w
	}
	return s
}

// listing returns "path size mtime-ns" lines for every file under dir.
func listing(ts *testscript.TestScript, dir string) string {
	var b strings.Builder
	root := ts.MkAbs(dir)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(&b, "%s %d %d\n", filepath.ToSlash(rel), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	ts.Check(err)
	return b.String()
}

// snapshot DIR NAME records the size and mtime of every file under DIR.
func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: snapshot DIR NAME")
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(listing(ts, args[0])), 0o644))
}

// unchanged DIR NAME fails when a file under DIR was created, removed or
// rewritten (size or mtime) since snapshot DIR NAME.
func cmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: unchanged DIR NAME")
	}
	want, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	same := listing(ts, args[0]) == string(want)
	if same == neg {
		ts.Fatalf("files under %s changed=%v since the snapshot", args[0], !same)
	}
}

// cptree SRC DST copies a directory tree (for examples outside $WORK).
func cmdCopyTree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cptree SRC DST")
	}
	ts.Check(sharedtest.CopyTree(ts.MkAbs(args[0]), ts.MkAbs(args[1])))
}
