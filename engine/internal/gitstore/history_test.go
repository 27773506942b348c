package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/recite-dev/recite/engine/internal/gitstore/gittest"
)

// TestCommitsTouching builds a real git repository: an error naming
// src/x.go:12:3 is fixed by a later commit changing src/x.go, not by a
// commit made before it nor by a later commit changing another file; an
// approach is landed by the newest commit inside its time window that
// changes one of its files.
func TestCommitsTouching(t *testing.T) {
	dir := t.TempDir()
	commit := gittest.Committer(t, dir)
	when := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	commits := []string{
		commit("src/x.go", "package x\n", when),
		commit("src/y.go", "package y\n", when.Add(time.Hour)),
		commit("src/x.go", "package x // fixed\n", when.Add(3*time.Hour)),
	}
	items := []Item{
		{ID: "fixed", Text: "panic: nil map\n\tat src/x.go:12:3 (Foo)", After: when.Add(2 * time.Hour)},
		{ID: "other file", Text: "Error: bad value in `src/y.go`", After: when.Add(2 * time.Hour)},
		{ID: "after the fix", Text: "panic again at src/x.go:14", After: when.Add(4 * time.Hour)},
		{ID: "no file", Text: "Error: connect ECONNREFUSED 127.0.0.1:5432", After: when.Add(2 * time.Hour)},
		// Approaches: files named, and a window the commit must fall in.
		{ID: "approach landed", Files: []string{"src/x.go"}, After: when.Add(2 * time.Hour), Before: when.Add(3*time.Hour + time.Second)},
		{ID: "approach window closed at the commit", Files: []string{"src/x.go"}, After: when.Add(2 * time.Hour), Before: when.Add(3 * time.Hour)},
		{ID: "approach committed in its first second", Files: []string{"src/x.go"}, After: when.Add(3*time.Hour + 300*time.Millisecond)},
		{ID: "approach landed late", Files: []string{"src/x.go"}, After: when.Add(2 * time.Hour), Before: when.Add(150 * time.Minute)},
		{ID: "approach unbounded", Files: []string{"src/y.go", "src/x.go"}, After: when.Add(30 * time.Minute)},
		{ID: "approach never committed", Files: []string{"src/z.go"}, After: when},
	}
	got := new(History).CommitsTouching(dir, items)
	fix := commits[2]
	want := map[string]string{"fixed": fix, "approach landed": fix, "approach unbounded": fix, "approach committed in its first second": fix}
	for _, it := range items {
		if got[it.ID] != want[it.ID] {
			t.Errorf("%s: commit = %q, want %q", it.ID, got[it.ID], want[it.ID])
		}
	}
	// The answer is cached by HEAD: a new commit is seen by the next
	// question.
	e := new(History)
	z := Item{ID: "z", Files: []string{"src/z.go"}, After: when}
	if got := e.CommitsTouching(dir, []Item{z}); got["z"] != "" {
		t.Fatalf("src/z.go landed before it was committed: %v", got)
	}
	commit("src/z.go", "package z\n", when.Add(5*time.Hour))
	if got := e.CommitsTouching(dir, []Item{z}); got["z"] == "" {
		t.Errorf("a commit after the first question was not seen: %v", got)
	}
	// A merged branch's commit, dated inside the window, is not this
	// project's line of work: it lands nothing.
	repo, first := gittest.HeadCommit(t, dir)
	tip := first.Hash
	for first.NumParents() > 0 {
		var err error
		if first, err = first.Parent(0); err != nil {
			t.Fatal(err)
		}
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "mate.go"), []byte("package mate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("src/mate.go"); err != nil {
		t.Fatal(err)
	}
	mateAt := &object.Signature{Name: "mate", Email: "mate@example.com", When: when.Add(6 * time.Hour)}
	mate, err := wt.Commit("teammate", &git.CommitOptions{Author: mateAt, Committer: mateAt, Parents: []plumbing.Hash{first.Hash}})
	if err != nil {
		t.Fatal(err)
	}
	mergeAt := &object.Signature{Name: "t", Email: "t@example.com", When: when.Add(9 * time.Hour)}
	if _, err := wt.Commit("merge", &git.CommitOptions{Author: mergeAt, Committer: mergeAt, Parents: []plumbing.Hash{tip, mate}}); err != nil {
		t.Fatal(err)
	}
	m := Item{ID: "mate", Files: []string{"src/mate.go"}, After: when.Add(5 * time.Hour), Before: when.Add(7 * time.Hour)}
	if got := e.CommitsTouching(dir, []Item{m}); got["mate"] != "" {
		t.Errorf("a merged branch's commit landed an approach: %v", got)
	}
	// No repository: nothing is settled.
	if got := new(History).CommitsTouching(t.TempDir(), items); len(got) != 0 {
		t.Errorf("without a repository: %v", got)
	}
}

// TestCommitsTouchingMissingParent: when a commit's parent cannot be read
// (a shallow clone's boundary; here its object is deleted), the commit
// settles nothing, instead of every file looking changed by it.
func TestCommitsTouchingMissingParent(t *testing.T) {
	dir := t.TempDir()
	commit := gittest.Committer(t, dir)
	when := time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)
	commit("src/app.go", "package app\n", when)
	commit("README.md", "# r\n", when.Add(time.Hour))
	_, c := gittest.HeadCommit(t, dir)
	root := c.ParentHashes[0].String()
	if err := os.Remove(filepath.Join(dir, ".git", "objects", root[:2], root[2:])); err != nil {
		t.Fatal(err)
	}
	items := []Item{{ID: "app", Files: []string{"src/app.go"}, After: when.Add(30 * time.Minute)}}
	if got := new(History).CommitsTouching(dir, items); len(got) != 0 {
		t.Errorf("a commit with an unreadable parent settled %v", got)
	}
}

// BenchmarkCommitsTouching walks 300 loose-object commits for 30 approach
// windows and 5 errors (walk), and answers the same question again from
// the cache (hit, what a build between passes pays).
func BenchmarkCommitsTouching(b *testing.B) {
	dir := b.TempDir()
	commit := gittest.Committer(b, dir)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 300 {
		commit(fmt.Sprintf("src/pkg%d/f%d.go", i%20, i%60), fmt.Sprint(i), t0.Add(time.Duration(i)*time.Minute))
	}
	var items []Item
	for i := range 30 {
		items = append(items, Item{ID: fmt.Sprint("approach:", i), Files: []string{fmt.Sprintf("src/pkg%d/f%d.go", i%20, (i*7)%60)},
			After: t0.Add(time.Duration(100+i*5) * time.Minute), Before: t0.Add(time.Duration(120+i*5) * time.Minute)})
	}
	for i := range 5 {
		items = append(items, Item{ID: fmt.Sprint("error:", i), Text: "panic at src/pkg1/f1.go:12", After: t0.Add(time.Duration(100+i*5) * time.Minute)})
	}
	e := new(History)
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			e.Reset()
			e.CommitsTouching(dir, items)
		}
	})
	b.Run("hit", func(b *testing.B) {
		for b.Loop() {
			e.CommitsTouching(dir, items)
		}
	})
}
