package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/internal/gitstore/gittest"
	"github.com/recite-dev/recite/internal/fsutil/fsutiltest"
	"github.com/recite-dev/recite/planning/conversation"
)

// TestDiskFullHistory runs a project on a small tmpfs (when the test may
// mount one) in a real git repository: messages are said and committed,
// the disk fills, an append fails and a commit fails for lack of space;
// then space returns, more is said and committed. The log never holds a
// torn line, `git log -p` holds no added log line that fails to parse,
// `git fsck` is clean and .git/objects holds no temporary file.
func TestDiskFullHistory(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed: the check reads the history with the real git")
	}
	ctx := context.Background()
	dir := fsutiltest.SmallFilesystem(t, 3<<20)
	src := enginetest.Project(t, "", map[string]string{".planning/STATE.md": "# State\n\nPhase: 1 of 1\n"})
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	gittest.CommitAll(t, dir)
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	e := New(dir)
	cs, err := e.Conversations()
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Create(ctx, "c", ConversationMeta{Title: "disk"}); err != nil {
		t.Fatal(err)
	}
	say := func(text string) error {
		_, err := cs.Say(ctx, SayOptions{ID: "c", Role: RoleUser, Text: text})
		return err
	}
	for _, m := range []string{"one", "two"} {
		if err := say(m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := say("three, not yet committed"); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, filepath.FromSlash(ConversationLog("c")))
	before, _ := os.ReadFile(log)

	// Fill the disk to its last byte.
	fill := filepath.Join(dir, "fill")
	f, err := os.Create(fill)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			for len(chunk) > 1 {
				chunk = chunk[:len(chunk)/2]
				_, _ = f.Write(chunk)
			}
			break
		}
	}
	f.Close()
	if err := say(strings.Repeat("a reply that does not fit ", 4000)); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("say on a full disk = %v, want ENOSPC", err)
	}
	if after, _ := os.ReadFile(log); !bytes.Equal(after, before) {
		t.Fatalf("the failed append changed the log (%d → %d bytes)", len(before), len(after))
	}
	if _, err := e.Commit(ctx, CommitOptions{}); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("commit on a full disk = %v, want ENOSPC", err)
	}
	noTmpObjects(t, dir)

	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	if err := say("four, after space returned"); err != nil {
		t.Fatal(err)
	}
	if res, err := e.Commit(ctx, CommitOptions{}); err != nil || res.Hash == "" {
		t.Fatalf("commit after space returned = %+v, %v", res, err)
	}
	c, diags, err := cs.Read("c")
	if err != nil || len(diags) > 0 || len(c.Messages) != 4 {
		t.Fatalf("read: %d messages, %v, %v", len(c.Messages), diags, err)
	}
	out, err := exec.Command(gitBin, "-C", dir, "log", "-p", "--format=commit %H", "--", ConversationsDir).Output()
	if err != nil {
		t.Fatalf("git log -p: %v", err)
	}
	added := 0
	for i, line := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(line, "+") || strings.HasPrefix(line, "+++") {
			continue
		}
		added++
		if recs, diags := conversation.ParseLog("git log -p", []byte(line[1:])); len(recs) != 1 || len(diags) > 0 {
			t.Errorf("git log -p line %d does not parse: %q %v", i+1, line, diags)
		}
	}
	if added != 5 { // the meta record and four messages
		t.Errorf("%d log lines added in the history, want 5:\n%s", added, out)
	}
	if out, err := exec.Command(gitBin, "-C", dir, "fsck", "--strict").CombinedOutput(); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
	noTmpObjects(t, dir)
}

// TestCommitLeavesTornTailOut: a log ending in a torn line (a crash in
// the middle of an append) is committed up to its last whole record; a
// torn line before whole records refuses the commit and names it.
func TestCommitLeavesTornTailOut(t *testing.T) {
	ctx := context.Background()
	dir := enginetest.Project(t, "", nil)
	gittest.CommitAll(t, dir)
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	rec := func(id string) string {
		return `{"id":"` + id + `","conversation":"c","kind":"message","ts":"2026-01-01T00:00:0` + id + `Z","role":"user","content":"m"}` + "\n"
	}
	logRel := ConversationLog("c")
	p := filepath.Join(dir, filepath.FromSlash(logRel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(rec("1")+rec("2")+`{"id":"3","conv`), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New(dir)
	if res, err := e.Commit(ctx, CommitOptions{}); err != nil || res.Hash == "" {
		t.Fatalf("Commit = %+v, %v", res, err)
	}
	repo, _ := gittest.HeadCommit(t, dir)
	_, head := gittest.HeadCommit(t, dir)
	file, err := head.File(logRel)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := file.Contents(); got != rec("1")+rec("2") {
		t.Errorf("committed %q", got)
	}
	_ = repo
	if err := os.WriteFile(p, []byte(rec("1")+rec("2")+`{"id":"3","conv`+"\n"+rec("4")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = e.Commit(ctx, CommitOptions{})
	var te *conversation.TornError
	if !errors.As(err, &te) || !errors.Is(err, ErrTornRecord) || te.Line != 3 || !strings.Contains(err.Error(), logRel+":3:") {
		t.Fatalf("Commit = %v, want a torn record at %s:3", err, logRel)
	}
}

// noTmpObjects fails when the git directory of dir holds a temporary
// object file (go-git's objects/pack/tmp_obj_*, git's tmp_*).
func noTmpObjects(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(filepath.Join(dir, ".git", "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "tmp_") {
			t.Errorf("temporary object left: %s", p)
		}
		return nil
	})
}
