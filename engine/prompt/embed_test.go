package prompt

import (
	"fmt"
	"github.com/recite-dev/recite/planning"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDemote(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		base     int
		want     string
	}{
		{"atx", "# Title\n\ntext\n\n## Sub\n\n###### Deep\n", 3, "### Title\n\ntext\n\n#### Sub\n\n###### Deep\n"},
		{"already deep", "### A\n\n#### B\n", 3, "### A\n\n#### B\n"},
		{"setext", "Title\n=====\n\nPart\n----\n\nbody\n", 4, "#### Title\n\n##### Part\n\nbody\n"},
		{"code fence kept", "# Real\n\n```sh\n# a comment, not a heading\n```\n", 3, "### Real\n\n```sh\n# a comment, not a heading\n```\n"},
		{"indented code kept", "# Real\n\n    # code\n", 3, "### Real\n\n    # code\n"},
		{"html block kept", "<div>\n# not a heading\n</div>\n\n# H\n", 3, "<div>\n# not a heading\n</div>\n\n### H\n"},
		{"closing hashes", "## Title ##\n", 3, "### Title ##\n"},
		{"in a quote", "> # Quoted\n", 4, "> #### Quoted\n"},
		{"no heading", "just text\n- a list\n", 3, "just text\n- a list\n"},
		{"thematic break is no heading", "a\n\n---\n\nb\n", 3, "a\n\n---\n\nb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := demote(tc.in, tc.base); got != tc.want {
				t.Errorf("demote(%q, %d)\n got %q\nwant %q", tc.in, tc.base, got, tc.want)
			}
		})
	}
}

// TestAssembleDemotesEmbeddedHeadings: every heading of an embedded
// document sits below recite's own: "## Section", "### PATH" for files.
func TestAssembleDemotesEmbeddedHeadings(t *testing.T) {
	in := fixtureInput()
	in.System = []File{{Path: "AGENTS.md", Text: "# Agent notes\n\n## Build\n\n```md\n# kept in the fence\n```"}}
	in.Skills = []File{{Path: "skills/go.md", Text: "# Go skill"}}
	p := Assemble(in)
	md := string(renderMarkdown(p))
	for _, want := range []string{"### AGENTS.md\n\n#### Agent notes\n\n##### Build", "# kept in the fence", "### skills/go.md\n\n#### Go skill", "## Project brief\n\n### shortlink", "### Plan 02-02: Redirects", "### Context Preservation Block"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "# ") && !strings.Contains(line, "kept in the fence") {
			t.Errorf("level-1 heading left in the prompt: %q", line)
		}
	}
}

func TestCutText(t *testing.T) {
	long := "The store is keyed by slug. The handler reads the wrong key, so every redirect returns 404 and the browser check fails."
	got := cutText(long, 60)
	if utf8.RuneCountInString(got) > 60 {
		t.Fatalf("%q is over 60 runes", got)
	}
	if !strings.HasPrefix(got, "The store is keyed by slug. ⟨+") || !strings.HasSuffix(got, " chars⟩") {
		t.Errorf("cut %q: want the first sentence and a marker", got)
	}
	cut := len([]rune(long)) - len([]rune("The store is keyed by slug."))
	if !strings.Contains(got, "⟨+"+strconv.Itoa(cut)+" chars⟩") {
		t.Errorf("marker of %q does not say %d chars were cut", got, cut)
	}
	// No sentence end in reach: a word boundary.
	words := strings.Repeat("word ", 40)
	got = cutText(words, 50)
	if strings.Contains(got, "wor ⟨") || !strings.Contains(got, "word ⟨+") {
		t.Errorf("cut %q mid-word", got)
	}
	if s := cutText("short", 10); s != "short" {
		t.Errorf("short text changed: %q", s)
	}
	if s := cutText("a\nb  c", 10); s != "a b c" {
		t.Errorf("line breaks kept: %q", s)
	}
}

// TestBlockedSignalIsAnOpenBlocker: with no blocker in the planning tree,
// a BLOCKED stop signal of the conversation and one of the preserved block
// are the open blockers of the state section and of the recitation, which
// never says "none open" next to them; a signal naming a planned blocker is
// not listed twice.
func TestBlockedSignalIsAnOpenBlocker(t *testing.T) {
	in := fixtureInput()
	in.Project.Blockers = nil
	in.Stops = []string{"BLOCKED: the staging database refuses connections"}
	in.Health = []string{"State: BLOCKED (external error: BLOCKED: no Docker socket)"}
	in.Preserved = &File{Path: ".planning/context-preserved.md", Text: "## Block\n\n### Blocked\n\n- BLOCKED: Docker daemon not running\n- a note without the mark\n\n### Errors\n\n- BLOCKED: not in the Blocked part"}
	p := Assemble(in)
	rec := p.Section(IDRecitation).Body
	if strings.Contains(rec, "none open") {
		t.Errorf("recitation says none open:\n%s", rec)
	}
	// The recitation has room for 2 lines of blockers; the state section
	// lists them all.
	for _, want := range []string{"- BLOCKED: the staging database refuses connections\n", "- … and 2 more"} {
		if !strings.Contains(rec, want) {
			t.Errorf("recitation lacks %q:\n%s", want, rec)
		}
	}
	for _, want := range []string{"BLOCKED: the staging database refuses connections (stop signal)", "BLOCKED: Docker daemon not running (stop signal)", "BLOCKED: no Docker socket (stop signal)"} {
		if !strings.Contains(p.Section(IDState).Body, want) {
			t.Errorf("state section lacks %q:\n%s", want, p.Section(IDState).Body)
		}
	}
	st := p.Section(IDState).Body
	if strings.Contains(st, "not in the Blocked part") || strings.Contains(st, "without the mark") {
		t.Errorf("recitation took a line outside the Blocked items:\n%s", rec)
	}

	in = fixtureInput() // BLOCKER-001 is open in the plan
	in.Stops = []string{"BLOCKED: waiting on BLOCKER-001"}
	rec = Assemble(in).Section(IDRecitation).Body
	if strings.Count(rec, "BLOCKER-001") != 1 {
		t.Errorf("BLOCKER-001 listed %d times:\n%s", strings.Count(rec, "BLOCKER-001"), rec)
	}
}

// TestStateBlockerAlsoASignalShownOnce: a STATE.md blocker without an id
// that the preserved block repeats as a BLOCKED stop signal is one open
// blocker, with both sources, in the state section and the recitation; a
// signal that says something else stays a blocker of its own.
func TestStateBlockerAlsoASignalShownOnce(t *testing.T) {
	in := fixtureInput()
	in.Project.Blockers = []planning.Blocker{{ID: "STATE.md:64", Title: "BLOCKED — the Stripe test key expired",
		Status: planning.BlockerOpen, Source: "STATE.md:64"}}
	in.Preserved = &File{Path: ".planning/context-preserved.md", Text: "## Block\n\n### Blocked\n\n- BLOCKED: the Stripe test key expired (STATE.md:64)\n- BLOCKED: CI runners are offline\n"}
	p := Assemble(in)
	st := p.Section(IDState).Body
	if !strings.Contains(st, "Open blockers (2):") {
		t.Errorf("state section does not count 2 open blockers:\n%s", st)
	}
	if n := strings.Count(st, "Stripe test key expired"); n != 1 {
		t.Errorf("the STATE.md blocker is listed %d times:\n%s", n, st)
	}
	if !strings.Contains(st, "Stripe test key expired (.planning/STATE.md, stop signal)") {
		t.Errorf("the blocker does not name both sources:\n%s", st)
	}
	if !strings.Contains(st, "BLOCKED: CI runners are offline (stop signal)") {
		t.Errorf("the other signal is lost:\n%s", st)
	}
	rec := p.Section(IDRecitation).Body
	if n := strings.Count(rec, "Stripe test key expired"); n != 1 {
		t.Errorf("the recitation lists the blocker %d times:\n%s", n, rec)
	}
}

// TestOrphanToolResultEverywhere: a tool result with no matching call is a
// user message "Tool result (NAME): …" in every shape, the markdown (what
// `recite conversation show` prints) included.
func TestOrphanToolResultEverywhere(t *testing.T) {
	p := &Prompt{Target: "c", Messages: []Message{
		{ID: "1", Role: "user", Content: "go"},
		{ID: "2", Role: "tool", ToolName: "bash", Content: "orphan output"},
	}}
	p.Add(Section{ID: IDConversation, Heading: "Conversation"})
	for _, prov := range Providers() {
		body, err := Render(p, prov, RenderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(body), "Tool result (bash): orphan output") {
			t.Errorf("%s does not carry the orphan as a user message:\n%s", prov, body)
		}
		if err := validateBody(prov, body); err != nil {
			t.Errorf("%s: %v", prov, err)
		}
	}
}

func TestDemoteSetextInList(t *testing.T) {
	in := "- Title\n  ===\n- next\n"
	if got, want := demote(in, 3), "- ### Title\n- next\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if lv := headingLevels(demote(in, 3)); len(lv) != 1 || lv[0] != 3 {
		t.Errorf("levels %v", lv)
	}
}

// BenchmarkDemote measures the heading pass on a 100 KB document with a
// heading every 20 lines (the cost Add pays once per section that has a
// heading-like line).
func BenchmarkDemote(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 100_000 {
		sb.WriteString("# Part\n\n")
		for i := 0; i < 18; i++ {
			sb.WriteString("Some text of a planning document, with `code` and a [link](x).\n")
		}
	}
	doc := sb.String()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		demote(doc, 3)
	}
}

// TestDemoteCache: the cache gives what demote gives, parses a text once,
// keeps a text demote leaves alone as a flag (not the text), and turns
// its generations over at maxDemoted.
func TestDemoteCache(t *testing.T) {
	c := NewDemoteCache()
	texts := []string{"# Title\n\nbody\n\n## Sub\n", "no heading at all", "Setext\n======\n\ntext", "### Already deep\n"}
	for _, base := range []int{3, 4} {
		for _, s := range texts {
			if got, want := c.demote(s, base), demote(s, base); got != want {
				t.Errorf("demote(%q, %d) = %q, want %q", s, base, got, want)
			}
			if got, want := c.demote(s, base), demote(s, base); got != want {
				t.Errorf("cached demote(%q, %d) = %q, want %q", s, base, got, want)
			}
		}
	}
	if n := len(c.cur); n != 2*len(texts) {
		t.Errorf("%d entries, want %d", n, 2*len(texts))
	}
	for k, v := range c.cur {
		if v.same && v.text != "" {
			t.Errorf("%v: an unchanged text is kept by value", k)
		}
	}
	for i := range 3 * maxDemoted {
		c.demote(fmt.Sprintf("# T%d", i), 3)
	}
	if n := len(c.cur) + len(c.prev); n > 2*maxDemoted {
		t.Errorf("%d entries, want at most %d", n, 2*maxDemoted)
	}
	var nilCache *DemoteCache
	if got := nilCache.demote(texts[0], 3); got != demote(texts[0], 3) {
		t.Errorf("nil cache: %q", got)
	}
}
