package prompt

import (
	"testing"

	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
)

// TestStableBrief: the brief's checkbox markers are removed where goldmark
// found checkboxes (front matter shifts the lines), and only there: a
// bracket in prose or in a code block stays.
func TestStableBrief(t *testing.T) {
	src := "---\ntitle: x\n---\n# Shortlink\n\n- [ ] Create a link\n- [x] Redirect with 302\n  - [X] nested item\n\nProse with [ ] brackets.\n\n```\n- [ ] in code\n```\n"
	doc := markdown.Parse("PROJECT.md", []byte(src))
	got := stableBrief(doc)
	want := "# Shortlink\n\n- Create a link\n- Redirect with 302\n  - nested item\n\nProse with [ ] brackets.\n\n```\n- [ ] in code\n```\n"
	if got != want {
		t.Errorf("stableBrief:\n%q\nwant\n%q", got, want)
	}
	proj := &planning.Project{Brief: &planning.Doc{Path: "PROJECT.md", Markdown: doc}}
	if got, want := briefStates(proj), "PROJECT.md: 2 of 3 checked (Redirect with 302; nested item)"; got != want {
		t.Errorf("briefStates = %q, want %q", got, want)
	}
}

// TestRoadmapPlanTicks counts the roadmap's checkboxes that name a known
// plan, not phases or other items.
func TestRoadmapPlanTicks(t *testing.T) {
	doc := markdown.Parse("ROADMAP.md", []byte("# Roadmap\n\n- [x] **Phase 1: Storage**\n- [ ] **Phase 2: API**\n\nPlans:\n- [x] 01-01: Store interface\n- [x] 01-02: Slugs\n- [ ] 02-01: POST /links\n- [ ] 09-09: not a plan on disk\n- [x] buy milk\n"))
	proj := &planning.Project{Roadmap: &planning.Doc{Path: "ROADMAP.md", Markdown: doc}}
	ids := map[string]bool{"01-01": true, "01-02": true, "02-01": true}
	if ticked, listed := roadmapPlanTicks(proj, ids); ticked != 2 || listed != 3 {
		t.Errorf("roadmapPlanTicks = %d of %d, want 2 of 3", ticked, listed)
	}
}

// TestChunkedDecisions: the snapshot lists whole chunks, and what it leaves
// out is always among the 3 newest the recitation recites.
func TestChunkedDecisions(t *testing.T) {
	for n := range 20 {
		k := chunkedDecisions(n)
		if k%decisionChunk != 0 || k > n || n-k > 3 {
			t.Errorf("chunkedDecisions(%d) = %d", n, k)
		}
	}
}
