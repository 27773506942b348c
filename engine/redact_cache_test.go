package engine

import (
	"fmt"
	"testing"
)

// TestRedactCacheBounded: the redaction cache keeps at most two generations
// of maxRedactEntries, and an entry still in use survives a turnover.
func TestRedactCacheBounded(t *testing.T) {
	e := New(t.TempDir())
	if err := e.initRedactor(); err != nil {
		t.Fatal(err)
	}
	c := e.redactor
	const kept = "token = ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	want, _ := c.redact("a.md", kept)
	for i := 0; i < 3*maxRedactEntries; i++ {
		c.redact("a.md", fmt.Sprintf("line %d", i))
		if i%1000 == 0 {
			c.redact("a.md", kept) // in use: promoted into each new generation
		}
	}
	if n := len(c.done) + len(c.previous); n > 2*maxRedactEntries {
		t.Fatalf("cache holds %d entries, want at most %d", n, 2*maxRedactEntries)
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
