package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/internal/enginetest"
)

// TestHugeRecordNoted: a single-line record longer than the whole horizon
// a build reads (history.HorizonBytes; a tool's 100 MB output on one line
// takes the same path) is replaced in the prompt by a note that gives its
// size and id, and the messages around it are still there.
func TestHugeRecordNoted(t *testing.T) {
	ctx := context.Background()
	dir := enginetest.Project(t, "targets:\n  - name: dev\n    conversation: c\n    providers: [markdown]\n", map[string]string{".planning/STATE.md": "# State\n\nPhase: 1 of 1\n"})
	e := New(dir)
	cs, err := e.Conversations()
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Create(ctx, "c", ConversationMeta{}); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"before the huge output", strings.Repeat("y", history.HorizonBytes+1<<20), "after the huge output"} {
		if _, err := cs.Say(ctx, SayOptions{ID: "c", Role: RoleUser, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	c, _, err := cs.Read("c")
	if err != nil {
		t.Fatal(err)
	}
	hugeID := c.Messages[1].ID
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".planning", "prompts", "dev.md"))
	if err != nil {
		t.Fatal(err)
	}
	prompt := string(b)
	log, _ := os.Stat(filepath.Join(dir, filepath.FromSlash(ConversationLog("c"))))
	if !strings.Contains(prompt, "[record "+hugeID+" of ") || !strings.Contains(prompt, "bytes left out: too large to carry") {
		t.Errorf("the prompt has no note for %s (log of %d bytes):\n%.3000s", hugeID, log.Size(), prompt)
	}
	if !strings.Contains(prompt, "before the huge output") || !strings.Contains(prompt, "after the huge output") {
		t.Errorf("the prompt lost the messages around the huge one:\n%.3000s", prompt)
	}
	if strings.Contains(prompt, strings.Repeat("y", 1000)) {
		t.Error("the prompt carries the huge record")
	}
}
