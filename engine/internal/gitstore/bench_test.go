package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// setupBench: 200 tracked files, 10,000 ignored files (where go-git's
// Worktree.Status is slow: docs/architecture.md#committing), a changed and an
// untracked file.
func setupBench(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git CLI not installed")
	}
	dir := b.TempDir()
	home := b.TempDir()
	env := append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@example.com", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@example.com")
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, s string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run("init", "-q", "-b", "main")
	write(".gitignore", "node_modules/\n*.log\n")
	for i := range 200 {
		write(fmt.Sprintf("src/f%03d.go", i), "package src\n")
	}
	run("add", ".")
	run("commit", "-q", "-m", "base")
	for i := range 10000 {
		write(fmt.Sprintf("node_modules/p%02d/f%04d.js", i%100, i), "x")
	}
	write("src/f001.go", "changed\n")
	write("new.txt", "untracked\n")
	return dir
}

func BenchmarkModifiedFilesGoGit(b *testing.B) {
	dir := setupBench(b)
	b.Setenv("HOME", b.TempDir())
	for b.Loop() {
		if _, err := ModifiedFiles(dir, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkModifiedFilesGitCLI(b *testing.B) {
	dir := setupBench(b)
	for b.Loop() {
		cmd := exec.Command("git", "status", "--porcelain")
		cmd.Dir = dir
		if _, err := cmd.Output(); err != nil {
			b.Fatal(err)
		}
	}
}
