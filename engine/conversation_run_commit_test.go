package engine

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recite-dev/recite/planning/conversation"
)

// runCommitGit runs the git binary in dir with a fixed identity and no
// signing, failing the test on error.
func runCommitGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	args = append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestRunConversationCommittedFiles: the iteration record of `recite
// conversation run` lists the files the agent committed during the run
// (gone from git status afterwards), from HEAD before the run against HEAD
// after it: in a subfolder project (paths relative to the project, files
// outside it left out), with recite's own outputs left out when the agent
// commits everything, from an unborn HEAD, to an unrelated branch, and for
// a failed run. A run that changes nothing lists none; a file left
// uncommitted is still listed.
func TestRunConversationCommittedFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the test commits from the agent command with the git binary")
	}
	const commit = "git -c user.name=t -c user.email=t@example.com -c commit.gpgsign=false commit -q -m agent"
	tests := []struct {
		name   string
		sub    string // the project's folder inside the repository
		setup  string // "" one commit of the project; "unborn" no commit; "other" plus an unrelated branch
		script string // the agent command, run in the project
		want   []string
		fails  bool
	}{
		{name: "commit", script: "echo 'package a' > a.go; git add a.go; " + commit,
			want: []string{"a.go"}},
		{name: "commit all, own outputs left out", script: "mkdir -p src; echo 'package b' > src/b.go; git add -A; " + commit,
			want: []string{"src/b.go"}},
		{name: "tracked file committed", script: "echo 'package y' > tracked.go; git add tracked.go; " + commit,
			want: []string{"tracked.go"}},
		{name: "nothing", script: "echo ok", want: nil},
		{name: "uncommitted", script: "echo 'package c' > c.go", want: []string{"c.go"}},
		{name: "committed and uncommitted", script: "echo 'package a' > a.go; echo 'package c' > c.go; git add a.go; " + commit,
			want: []string{"a.go", "c.go"}},
		{name: "two commits", script: "echo 1 > a.go; git add a.go; " + commit + "; echo 2 > b.go; git add b.go; " + commit,
			want: []string{"a.go", "b.go"}},
		{name: "failed run", script: "echo 'package a' > a.go; git add a.go; " + commit + "; echo boom >&2; exit 3",
			want: []string{"a.go"}, fails: true},
		{name: "subfolder project", sub: "proj", script: "echo 'package x' > x.go; echo out > ../outside.txt; git add -A; " + commit,
			want: []string{"x.go"}},
		{name: "unborn HEAD", setup: "unborn", script: "echo 'package a' > a.go; git add a.go; " + commit,
			want: []string{"a.go"}},
		{name: "unrelated branch", setup: "other", script: "git checkout -q other",
			want: []string{"only.txt"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir() // the agent script, outside the repository
			agent := filepath.Join(state, "agent.sh")
			if err := os.WriteFile(agent, []byte(tc.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			repo := t.TempDir()
			dir := filepath.Join(repo, tc.sub)
			yaml := "targets:\n  - name: dev\n    conversation: c1\nagent:\n  command: sh " + agent + "\n"
			for rel, text := range map[string]string{".planning/recite.yaml": yaml, "tracked.go": "package x\n"} {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := New(dir).OpenConversations()
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Create(context.Background(), "c1", conversation.Meta{AgentType: "dev"}); err != nil {
				t.Fatal(err)
			}
			runCommitGit(t, repo, "init", "-q", "-b", "main")
			if tc.setup != "unborn" {
				runCommitGit(t, repo, "add", "-A")
				runCommitGit(t, repo, "commit", "-q", "-m", "first")
			}
			if tc.setup == "other" {
				// A branch with no common history: the project plus only.txt.
				runCommitGit(t, repo, "checkout", "-q", "--orphan", "other")
				if err := os.WriteFile(filepath.Join(repo, "only.txt"), []byte("other\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				runCommitGit(t, repo, "add", "only.txt")
				runCommitGit(t, repo, "commit", "-q", "-m", "other root")
				runCommitGit(t, repo, "checkout", "-q", "main")
			}

			res, err := New(dir).RunConversation(context.Background(), RunOptions{ID: "c1", Text: "do it"})
			var ae *AgentError
			if tc.fails != errors.As(err, &ae) || (!tc.fails && err != nil) {
				t.Fatalf("err = %v, want failure %v", err, tc.fails)
			}
			if !slices.Equal(res.FilesModified, tc.want) {
				t.Errorf("result files = %q, want %q", res.FilesModified, tc.want)
			}
			c, _, err := s.Read("c1")
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Iterations) != 1 {
				t.Fatalf("%d iteration records, want 1", len(c.Iterations))
			}
			it := c.Iterations[0]
			if !slices.Equal(it.FilesModified, tc.want) {
				t.Errorf("iteration record files = %q, want %q", it.FilesModified, tc.want)
			}
			if it.IsError != tc.fails {
				t.Errorf("iteration record is_error = %v, want %v", it.IsError, tc.fails)
			}
		})
	}
}
