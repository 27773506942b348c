// Package gittest holds test helpers that build real git repositories with
// go-git: a committer that writes and commits one file at a given time,
// HEAD's commit, and a repository with everything committed. It is for
// tests only; it imports go-git and the standard library, no package of
// this module.
package gittest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Committer makes dir a git repository and returns a function that writes
// path (slash-separated) with text and commits it, authored and committed
// at when; it returns the commit's abbreviated hash (7 hex digits). Any
// failure fails tb.
func Committer(tb testing.TB, dir string) func(path, text string, when time.Time) string {
	tb.Helper()
	wt := initRepo(tb, dir)
	return func(path, text string, when time.Time) string {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
		if _, err := wt.Add(path); err != nil {
			tb.Fatal(err)
		}
		sig := &object.Signature{Name: "t", Email: "t@example.com", When: when}
		h, err := wt.Commit("change "+path, &git.CommitOptions{Author: sig, Committer: sig})
		if err != nil {
			tb.Fatal(err)
		}
		return h.String()[:7]
	}
}

// HeadCommit opens the git repository at dir and returns it with HEAD's
// commit. Any failure fails tb.
func HeadCommit(tb testing.TB, dir string) (*git.Repository, *object.Commit) {
	tb.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		tb.Fatal(err)
	}
	head, err := repo.Head()
	if err != nil {
		tb.Fatal(err)
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		tb.Fatal(err)
	}
	return repo, c
}

// CommitAll makes dir a git repository and commits every file in it as
// "fixture", authored on 2026-01-01 by test <test@example.com>. Any
// failure fails tb.
func CommitAll(tb testing.TB, dir string) {
	tb.Helper()
	wt := initRepo(tb, dir)
	if err := wt.AddGlob("."); err != nil {
		tb.Fatal(err)
	}
	sig := &object.Signature{Name: "test", Email: "test@example.com", When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := wt.Commit("fixture", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		tb.Fatal(err)
	}
}

// initRepo makes dir a git repository and returns its work tree.
func initRepo(tb testing.TB, dir string) *git.Worktree {
	tb.Helper()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		tb.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		tb.Fatal(err)
	}
	return wt
}
