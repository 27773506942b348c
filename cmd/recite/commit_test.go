package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommitExitCodes pins the documented exit codes of recite commit: 0
// committed or nothing to commit (also when tracked logs are missing), 1
// index locked, 2 no repository or no .planning folder.
func TestCommitExitCodes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git CLI not installed")
	}
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, kv := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(kv, "recite test")
	}
	for _, kv := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(kv, "test@example.com")
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(want int, wantOut string, extra ...string) {
		t.Helper()
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"-C", dir, "commit"}, extra...), IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		if code != want || !strings.Contains(out.String()+errOut.String(), wantOut) {
			t.Fatalf("recite commit %v = %d (%q %q), want %d and %q", extra, code, out.String(), errOut.String(), want, wantOut)
		}
	}
	write(".planning/conversations/c-001.jsonl", "{}\n")
	commit(2, "not a git repository")
	git("init", "-q", "-b", "main")
	write("README.md", "r\n")
	git("add", "README.md")
	git("commit", "-q", "-m", "first")
	commit(0, "committed ")
	commit(0, "nothing to commit")
	write(".planning/context-preserved.md", "# p\n")
	write(".git/index.lock", "")
	commit(1, "git index is locked", "--lock-wait", "100ms")
	commit(2, "--lock-wait 0s: want a positive duration", "--lock-wait", "0")
	if err := os.Remove(filepath.Join(dir, ".git", "index.lock")); err != nil {
		t.Fatal(err)
	}
	commit(0, "committed ")
	// The history is append-only: a missing log is kept and said so; a
	// missing .planning/ is exit 2.
	if err := os.Remove(filepath.Join(dir, ".planning", "conversations", "c-001.jsonl")); err != nil {
		t.Fatal(err)
	}
	commit(0, "kept 1 tracked file that is missing from the work tree")
	if err := os.Rename(filepath.Join(dir, ".planning"), filepath.Join(dir, "planning.away")); err != nil {
		t.Fatal(err)
	}
	commit(2, "no .planning folder")
}
