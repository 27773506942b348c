package conversation

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(),
		"HOME="+home, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestGitUnionMerge: two clones append to the same conversation and merge with
// merge=union; reading gives the union, each record once, in time order
// (docs/architecture.md#concurrent-appends-and-merges).
func TestGitUnionMerge(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	root := t.TempDir()
	a := filepath.Join(root, "a")
	git(t, root, "init", "-q", "-b", "main", a)
	if err := os.WriteFile(filepath.Join(a, ".gitattributes"), []byte(".planning/conversations/*.jsonl merge=union\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sa, err := Open(filepath.Join(a, ".planning", "conversations"))
	if err != nil {
		t.Fatal(err)
	}
	sa.Now = fixedClock(t0)
	if err := sa.Create(ctx, "c", Meta{AgentType: "dev"}); err != nil {
		t.Fatal(err)
	}
	if err := sa.Append(ctx, "c", msg(RoleUser, "base")); err != nil {
		t.Fatal(err)
	}
	// recite init ignores .planning/.recite (caches and locks).
	if err := os.WriteFile(filepath.Join(a, ".gitignore"), []byte(".planning/.recite/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, a, "add", ".gitignore", ".gitattributes", ".planning/conversations/c.jsonl")
	git(t, a, "commit", "-q", "-m", "base")
	b := filepath.Join(root, "b")
	git(t, root, "clone", "-q", a, b)
	sb, err := Open(filepath.Join(b, ".planning", "conversations"))
	if err != nil {
		t.Fatal(err)
	}
	// Interleaved clocks: a at t0+10s, +12s, +14s; b at t0+11s, +13s, +15s.
	sa.Now = stepClock(t0.Add(10*time.Second), 2*time.Second)
	sb.Now = stepClock(t0.Add(11*time.Second), 2*time.Second)
	if err := sa.Append(ctx, "c", msg(RoleUser, "a1"), msg(RoleAssistant, "a2"), msg(RoleUser, "a3")); err != nil {
		t.Fatal(err)
	}
	if err := sb.Append(ctx, "c", msg(RoleUser, "b1"), msg(RoleAssistant, "b2"), msg(RoleUser, "b3")); err != nil {
		t.Fatal(err)
	}
	// b also carries a copy of one of a's records (as after a cherry-pick).
	ca, _, _ := sa.Read("c")
	if err := sb.Append(ctx, "c", ca.Messages[1]); err != nil {
		t.Fatal(err)
	}
	git(t, a, "commit", "-q", "-am", "a")
	git(t, b, "commit", "-q", "-am", "b")
	git(t, b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
	if st := git(t, b, "status", "--porcelain"); st != "" {
		t.Fatalf("merge left changes: %s", st)
	}
	c, diags, err := sb.Read("c")
	if err != nil || len(diags) != 0 {
		t.Fatal(err, diags)
	}
	if got := contents(c.Messages); got != "base,a1,b1,a2,b2,a3,b3" {
		t.Errorf("merged messages = %q", got)
	}
	data, _ := os.ReadFile(filepath.Join(b, ".planning", "conversations", "c.jsonl"))
	if n := strings.Count(string(data), "\n"); n != 9 {
		t.Errorf("merged file has %d lines, want 9 (one duplicate):\n%s", n, data)
	}
}

func stepClock(start time.Time, step time.Duration) func() time.Time {
	n := -1
	return func() time.Time {
		n++
		return start.Add(time.Duration(n) * step)
	}
}

// TestGitUnionMergeIndex: both clones index their log (a build or a say
// reads it), append with interleaved clocks, and merge with merge=union;
// the merged log is not sorted by time, which the next reader detects
// from the new lines alone: it rebuilds the index once, answers as Read
// does, and later appends extend the rebuilt index again.
func TestGitUnionMergeIndex(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	root := t.TempDir()
	a := filepath.Join(root, "a")
	git(t, root, "init", "-q", "-b", "main", a)
	files := map[string]string{
		".gitattributes": ".planning/conversations/*.jsonl merge=union\n",
		".gitignore":     ".planning/.recite/\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(a, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sa, err := Open(filepath.Join(a, ".planning", "conversations"))
	if err != nil {
		t.Fatal(err)
	}
	sa.Now = stepClock(t0, time.Second)
	if err := sa.Create(ctx, "c", Meta{AgentType: "dev"}); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := sa.Append(ctx, "c", msg(RoleUser, "base"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	git(t, a, "add", ".")
	git(t, a, "commit", "-q", "-m", "base")
	b := filepath.Join(root, "b")
	git(t, root, "clone", "-q", a, b)
	sb, err := Open(filepath.Join(b, ".planning", "conversations"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sb.Tail("c", 3); err != nil { // b indexes its clone's log
		t.Fatal(err)
	}
	// Interleaved clocks: a at +100s, +104s, …; b at +101s, +103s, +105s, ….
	sa.Now = stepClock(t0.Add(100*time.Second), 4*time.Second)
	sb.Now = stepClock(t0.Add(101*time.Second), 2*time.Second)
	for i := range 10 {
		if err := sa.Append(ctx, "c", msg(RoleUser, "a"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
		if err := sb.Append(ctx, "c", msg(RoleAssistant, "b"+strconv.Itoa(i)), Record{Kind: KindIteration, Iteration: i}); err != nil {
			t.Fatal(err)
		}
	}
	before := loadHeader(t, sb, "c")
	git(t, a, "commit", "-q", "-am", "a")
	git(t, b, "commit", "-q", "-am", "b")
	git(t, b, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
	data, _ := os.ReadFile(filepath.Join(b, ".planning", "conversations", "c.jsonl"))
	recs, _ := ParseLog("c.jsonl", data)
	if slices.IsSortedFunc(recs, compareRecords) {
		t.Fatal("the merged log is sorted: the test proves nothing")
	}
	checkIndexed(t, sb, "c")
	w, _, err := sb.Window(ctx, "c", WindowOptions{Messages: 4})
	if err != nil || contents(w.Records) != "a8,b8,,a9,b9," || w.FirstMessage != 37 {
		t.Errorf("window after merge = %q (first %d), %v", contents(w.Records), w.FirstMessage, err)
	}
	after := loadHeader(t, sb, "c")
	if after.Gen == before.Gen {
		t.Error("the merged log was not reindexed")
	}
	sb.Now = stepClock(t0.Add(time.Hour), time.Second)
	if err := sb.Append(ctx, "c", msg(RoleUser, "after")); err != nil {
		t.Fatal(err)
	}
	if h := loadHeader(t, sb, "c"); h.Gen != after.Gen || h.Messages != after.Messages+1 {
		t.Errorf("append after the merge rebuilt the index (gen %d→%d) or lost count (%d)", after.Gen, h.Gen, h.Messages)
	}
	checkIndexed(t, sb, "c")
	// a pulls too: its own index is rebuilt the same way.
	git(t, b, "commit", "-q", "-am", "after")
	git(t, a, "pull", "-q", "--no-rebase", "--no-edit", b, "main")
	checkIndexed(t, sa, "c")
}
