package ignore

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitEnv isolates git from the machine: no global or system config, so no
// core.excludesFile, which recite does not read either.
func gitEnv(t testing.TB) []string {
	home := t.TempDir()
	return append(os.Environ(),
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, "gitconfig"),
		"LC_ALL=C")
}

func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: the comparison with real git cannot run")
	}
}

// runGit runs git in dir and returns stdout; a non-zero exit fails the test
// unless okCodes lists it. It returns the exit code as well.
func runGit(t testing.TB, dir string, okCodes []int, args ...string) ([]byte, int) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	if code != 0 && !slices.Contains(okCodes, code) {
		t.Fatalf("git %v: exit %d: %s", args, code, stderr.String())
	}
	return out, code
}

// gitInit makes dir a fresh repository.
func gitInit(t testing.TB, dir string) {
	t.Helper()
	runGit(t, dir, nil, "init", "-q", ".")
}

// gitOthers lists untracked, not ignored files as git does, split on NUL.
func gitOthers(t testing.TB, dir string, extra ...string) []string {
	t.Helper()
	args := append([]string{"ls-files", "-z", "--others", "--exclude-standard"}, extra...)
	out, _ := runGit(t, dir, nil, args...)
	list := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(list) == 1 && list[0] == "" {
		return nil
	}
	slices.Sort(list)
	return list
}

// writeFiles writes name → content under root, creating directories.
func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// diffLists describes how got differs from want, or "" when equal.
func diffLists(got, want []string) string {
	var b strings.Builder
	g := map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	w := map[string]bool{}
	for _, s := range want {
		w[s] = true
	}
	n := 0
	for _, s := range want {
		if !g[s] && n < 20 {
			b.WriteString("  missing " + s + "\n")
			n++
		}
	}
	for _, s := range got {
		if !w[s] && n < 40 {
			b.WriteString("  extra   " + s + "\n")
			n++
		}
	}
	if b.Len() == 0 && !slices.Equal(got, want) {
		return "  same set, different order or duplicates\n"
	}
	return b.String()
}
