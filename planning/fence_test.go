package planning

import (
	"testing"

	"github.com/recite-dev/recite/markdown"
)

func TestFencedCodeSkipped(t *testing.T) {
	t.Run("roadmap details", func(t *testing.T) {
		src := "# Roadmap\n\n````\n```\n<details>\n```\n- [x] **Phase 9: Fake**\n````\n\n- [ ] **Phase 1: Real**\n"
		got := parseRoadmap("ROADMAP.md", markdown.Parse("ROADMAP.md", []byte(src)))
		if len(got) != 1 || got[0].number != "1" || got[0].archived {
			t.Errorf("phases = %+v, want only phase 1, not archived", got)
		}
	})
	t.Run("state decisions", func(t *testing.T) {
		src := "# State\n\n### Decisions\n\n" +
			"````\n```\n- [Phase 1]: inside\n```\n- [Phase 2]: inside too\n````\n" +
			"- [Phase 3]: real\n"
		doc := markdown.Parse("STATE.md", []byte(src))
		_, decisions, _ := parseState("STATE.md", doc)
		if len(decisions) != 1 || decisions[0].Text != "real" || decisions[0].Source != "STATE.md:11" {
			t.Errorf("decisions = %+v, want only [Phase 3]: real at line 11", decisions)
		}
	})
	t.Run("blockers", func(t *testing.T) {
		src := "# Blockers\n\n## Open Blockers\n\n" +
			"~~~~\n~~~\n- fake one\n~~~\n- fake two\n~~~~\n" +
			"- real one\n"
		got := parseBlockers("BLOCKERS.md", markdown.Parse("BLOCKERS.md", []byte(src)))
		if len(got) != 1 || got[0].Title != "real one" {
			t.Errorf("blockers = %+v, want only %q", got, "real one")
		}
	})
	t.Run("loop verbatim error", func(t *testing.T) {
		src := "---\nid: 1\n---\n# Loop\n\n## Last Error (verbatim)\n\n" +
			"````\nError: build failed\n```\nstep 2\n```\n````\n\n```\nsecond\n"
		l, _ := parseLoop("loops/fire-loop-1.md", markdown.Parse("loops/fire-loop-1.md", []byte(src)))
		want := []Signal{
			{Label: "Last Error (verbatim)", Text: "Error: build failed\n```\nstep 2\n```", Source: "loops/fire-loop-1.md:9"},
			{Label: "Last Error (verbatim)", Text: "second", Source: "loops/fire-loop-1.md:16"},
		}
		if len(l.Errors) != len(want) {
			t.Fatalf("errors = %+v, want %+v", l.Errors, want)
		}
		for i := range want {
			if l.Errors[i] != want[i] {
				t.Errorf("error %d = %+v, want %+v", i, l.Errors[i], want[i])
			}
		}
	})
}
