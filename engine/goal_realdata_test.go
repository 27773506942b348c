package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/layers"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// norishGoal is the goal of norish's current phase, 27.2, as its
// ROADMAP.md writes it over two lines (lines 844 and 845 of
// 23492__norish/.planning/ROADMAP.md), joined by a space, code spans'
// backticks removed.
const norishGoal = `A recipe page that has no JSON-LD and no <p>/<li> markup — the classic Blogger shape — imports through AI extraction instead of failing with "AI response did not match expected format."`

// TestNorishGoalWhole: a phase goal that the roadmap wraps onto a second
// line is whole in every prompt file of every provider and in the epic
// layer of a conversation target (docs/formats.md#fields).
func TestNorishGoalWhole(t *testing.T) {
	src := filepath.Join(sharedtest.Realdata(t), "23492__norish")
	dir := copyTree(t, src)
	cfg := "targets:\n  - name: agent\n    providers: [markdown, anthropic, openai, gemini, ollama, text]\n"
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(config.FileName)), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := New(dir).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Targets[0].Files {
		b, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.HasSuffix(f.Path, ".json") {
			text = jsonStrings(t, b)
		}
		if !strings.Contains(text, "Goal: "+norishGoal) {
			t.Errorf("%s does not hold the whole goal of phase 27.2", f.Path)
		}
	}
	proj, err := New(dir).loadPlanning(filepath.Join(dir, PlanningDir))
	if err != nil {
		t.Fatal(err)
	}
	epic := layers.Epic(&conversation.Conversation{}, proj)
	if !strings.Contains(epic.Body+"\n", "Goal: "+norishGoal+"\n") {
		t.Errorf("the epic layer does not hold the whole goal:\n%s", epic.Body)
	}
}

// jsonStrings is every string of a JSON document, one per line.
func jsonStrings(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			sb.WriteString(v + "\n")
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return sb.String()
}
