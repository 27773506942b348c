package secrets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/prompt"
)

// TestRedactCacheBounded: the redaction cache keeps at most two generations
// of maxEntries, and an entry still in use survives a turnover.
func TestRedactCacheBounded(t *testing.T) {
	r := New(t.TempDir())
	if err := r.Init(); err != nil {
		t.Fatal(err)
	}
	c := r.cache
	const kept = "token = ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	want, _ := c.redact("a.md", kept)
	for i := 0; i < 3*maxEntries; i++ {
		c.redact("a.md", fmt.Sprintf("line %d", i))
		if i%1000 == 0 {
			c.redact("a.md", kept) // in use: promoted into each new generation
		}
	}
	if n := len(c.done) + len(c.previous); n > 2*maxEntries {
		t.Fatalf("cache holds %d entries, want at most %d", n, 2*maxEntries)
	}
	k := keyOf("a.md", kept)
	_, inDone := c.done[k]
	_, inPrevious := c.previous[k]
	if !inDone && !inPrevious {
		t.Fatal("an entry in use was dropped at a turnover")
	}
	if got, _ := c.redact("a.md", kept); got != want {
		t.Fatalf("redaction changed: %q, want %q", got, want)
	}
}

// TestRedactKey: placeholders are keyed with a per-project key made on first
// use (mode 0600, ignored by git), stable across Engines of one project,
// different in another project, and not the unkeyed sha256 of the secret
// (`printf 'Summer2024!' | sha256sum` must not confirm a guess). A broken key
// file still gets the text redacted.
func TestRedactKey(t *testing.T) {
	const secret = "Summer2024!"
	text := "password: " + secret + "\n"
	placeholder := func(dir string) (string, error) {
		t.Helper()
		p := &prompt.Prompt{Sections: []prompt.Section{{ID: "state", Sources: []string{"notes.md"}, Body: text}}}
		where, err := New(dir).Prompt(p, nil)
		body := p.Sections[0].Body
		if strings.Contains(body, secret) || len(where) != 1 {
			t.Fatalf("not redacted (%v): %q", where, body)
		}
		return strings.TrimSuffix(strings.TrimPrefix(body, "password: "), "\n"), err
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	first, err := placeholder(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, filepath.FromSlash(KeyFile))
	st, err := os.Stat(key)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v, want 0600", KeyFile, st.Mode().Perm())
	}
	if out, err := exec.Command("git", "-C", dir, "check-ignore", "-q", KeyFile).CombinedOutput(); err != nil {
		t.Errorf("git does not ignore %s: %v %s", KeyFile, err, out)
	}
	sum := sha256.Sum256([]byte(secret))
	if strings.Contains(first, hex.EncodeToString(sum[:4])) {
		t.Errorf("placeholder %s is the unkeyed sha256 of the secret", first)
	}
	again, err := placeholder(dir)
	if err != nil || again != first {
		t.Errorf("second Engine: %s (%v), want %s", again, err, first)
	}
	if other, _ := placeholder(t.TempDir()); other == first {
		t.Errorf("two projects share placeholder %s", first)
	}
	if err := os.WriteFile(key, []byte("not hex\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := placeholder(dir); err == nil || !strings.Contains(err.Error(), KeyFile) {
		t.Errorf("broken key file: err = %v, want one naming %s", err, KeyFile)
	}
}
