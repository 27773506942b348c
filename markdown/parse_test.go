package markdown

import (
	"reflect"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestEncodingAndLines(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		bom, crlf bool
		body      string
		bodyLine  int
		headLine  int // line of the first heading
		diag      string
	}{
		{name: "plain", src: "# H\ntext\n", body: "# H\ntext\n", bodyLine: 1, headLine: 1},
		{name: "bom", src: "\uFEFF# H\n", bom: true, body: "# H\n", bodyLine: 1, headLine: 1},
		{name: "crlf", src: "x\r\n\r\n# H\r\n", crlf: true, body: "x\n\n# H\n", bodyLine: 1, headLine: 3},
		{name: "lone cr", src: "x\r\r# H\r", body: "x\n\n# H\n", bodyLine: 1, headLine: 3},
		{name: "bom front matter crlf", src: "\uFEFF---\r\na: 1\r\n---\r\n# H\r\n", bom: true, crlf: true, body: "# H\n", bodyLine: 4, headLine: 4},
		{name: "invalid utf8", src: "a\n\xff\xfe\n# H\n", body: "a\n\uFFFD\n# H\n", bodyLine: 1, headLine: 3, diag: "2:not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Parse("f.md", []byte(tc.src))
			if d.BOM != tc.bom || d.CRLF != tc.crlf {
				t.Errorf("BOM, CRLF = %v, %v; want %v, %v", d.BOM, d.CRLF, tc.bom, tc.crlf)
			}
			if d.Body != tc.body || d.BodyLine != tc.bodyLine {
				t.Errorf("Body, BodyLine = %q, %d; want %q, %d", d.Body, d.BodyLine, tc.body, tc.bodyLine)
			}
			if len(d.Sections) == 0 || d.Sections[0].Line != tc.headLine {
				t.Errorf("Sections = %+v; want first at line %d", d.Sections, tc.headLine)
			}
			got := ""
			for _, dg := range d.Diagnostics {
				got += itoa(dg.Line) + ":" + dg.Message
			}
			if tc.diag == "" && got != "" || !strings.HasPrefix(got, tc.diag) {
				t.Errorf("diagnostics %q; want prefix %q", got, tc.diag)
			}
		})
	}
}

// TestCRLFTaskLines reads task lines that end in CRLF
// (docs/formats.md#checkboxes).
func TestCRLFTaskLines(t *testing.T) {
	d := Parse("t.md", []byte("- [ ] a\r\n- [x] b\r\n"))
	want := []Checkbox{
		{State: ' ', Text: "a", Line: 1, Depth: 1, Section: -1},
		{State: 'x', Text: "b", Line: 2, Depth: 1, Section: -1},
	}
	if !reflect.DeepEqual(d.Checkboxes, want) {
		t.Errorf("Checkboxes = %+v\nwant %+v", d.Checkboxes, want)
	}
	if !d.CRLF {
		t.Error("CRLF not detected")
	}
}

// TestFrontMatterLiteral checks that front matter values stay the literal text
// (docs/formats.md#front-matter-values).
func TestFrontMatterLiteral(t *testing.T) {
	d := Parse("t.md", []byte("---\nphase: 010\nversion: 1.10\ndate: 2024-01-02\nstatus: no\n---\n"))
	if len(d.FrontMatter) != 1 || !d.FrontMatter[0].Valid {
		t.Fatalf("FrontMatter = %+v, diags %v", d.FrontMatter, d.Diagnostics)
	}
	want := map[string]string{"phase": "010", "version": "1.10", "date": "2024-01-02", "status": "no"}
	if !reflect.DeepEqual(d.FrontMatter[0].Values, want) {
		t.Errorf("Values = %v; want %v", d.FrontMatter[0].Values, want)
	}
	if got := d.FrontMatter[0].Keys; !reflect.DeepEqual(got, []string{"phase", "version", "date", "status"}) {
		t.Errorf("Keys = %v", got)
	}
	if d.BodyLine != 7 || d.Body != "" {
		t.Errorf("Body %q at %d; want empty at 7", d.Body, d.BodyLine)
	}
}

func TestFrontMatter(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		blocks   []FrontMatter // Line, EndLine, Valid, Values, Keys compared
		bodyLine int
		diags    []string // "line:message prefix"
	}{
		{
			name:     "invalid yaml falls back to key lines",
			src:      "---\ntitle: Fix: the bug\nphase: 03\n---\n# Body\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 4, Values: map[string]string{"title": "Fix: the bug", "phase": "03"}, Keys: []string{"title", "phase"}}},
			bodyLine: 5,
			diags:    []string{"2:invalid YAML front matter (read by key lines instead): mapping values are not allowed"},
		},
		{
			name:     "invalid yaml error on a later line",
			src:      "---\na: 1\nb: [x\n  - y\nc: \"q\"\n---\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 6, Values: map[string]string{"a": "1", "b": "[x", "c": "q"}, Keys: []string{"a", "b", "c"}}},
			bodyLine: 7,
			// a parser error: yaml.v3 names where the flow sequence began
			diags: []string{"3:invalid YAML front matter (read by key lines instead): did not find expected ',' or ']'"},
		},
		{
			name: "stacked blocks",
			src:  "---\na: 1\n---\n---\nb: 2\n---\n\n---\n# c\nc: 3\n---\nbody\n",
			blocks: []FrontMatter{
				{Line: 1, EndLine: 3, Valid: true, Values: map[string]string{"a": "1"}, Keys: []string{"a"}},
				{Line: 4, EndLine: 6, Valid: true, Values: map[string]string{"b": "2"}, Keys: []string{"b"}},
				{Line: 8, EndLine: 11, Valid: true, Values: map[string]string{"c": "3"}, Keys: []string{"c"}},
			},
			bodyLine: 12,
		},
		{
			name:     "horizontal rule after front matter stays in the body",
			src:      "---\na: 1\n---\n\n---\nSome prose.\n\n---\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 3, Valid: true, Values: map[string]string{"a": "1"}, Keys: []string{"a"}}},
			bodyLine: 4,
		},
		{
			name:     "unclosed block is not front matter, and is diagnosed",
			src:      "---\na: 1\n# H\n",
			bodyLine: 1,
			diags:    []string{"1:unterminated front matter: no `---` line closes the block opened here; read as body"},
		},
		{
			name:     "unclosed block after a BOM and blank lines",
			src:      "\uFEFF---\n\n# comment\nstatus: x\n",
			bodyLine: 1,
			diags:    []string{"1:unterminated front matter"},
		},
		{
			name:     "unclosed block with indented keys is diagnosed too",
			src:      "---\n  phase: 3\n  status: executing\n# State\n",
			bodyLine: 1,
			diags:    []string{"1:unterminated front matter"},
		},
		{
			name:     "unclosed block with tab-indented keys",
			src:      "---\n\tphase: 3\n",
			bodyLine: 1,
			diags:    []string{"1:unterminated front matter"},
		},
		{
			name:     "a leading thematic break over an indented list is not front matter",
			src:      "---\n  - item\n",
			bodyLine: 1,
		},
		{
			name:     "a leading thematic break is not unterminated front matter",
			src:      "---\n# Heading\ntext\n",
			bodyLine: 1,
		},
		{
			name:     "an unclosed rule after front matter is body",
			src:      "---\na: 1\n---\n---\nb: 2\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 3, Valid: true, Values: map[string]string{"a": "1"}, Keys: []string{"a"}}},
			bodyLine: 4,
		},
		{
			name:     "duplicate key: the first value is kept",
			src:      "---\nstatus: a\nphase: 2\nstatus: b\n---\nbody\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 5, Values: map[string]string{"status": "a", "phase": "2"}, Keys: []string{"status", "phase"}}},
			bodyLine: 6,
			diags:    []string{`4:invalid YAML front matter (read by key lines instead): mapping key "status" already defined at line 2`},
		},
		{
			name: "duplicate nested key in a stacked block",
			src:  "---\nx: 1\n---\n---\nm:\n  a: 1\n  b: [1, 2]\n  a: 2\n---\n",
			blocks: []FrontMatter{
				{Line: 1, EndLine: 3, Valid: true, Values: map[string]string{"x": "1"}, Keys: []string{"x"}},
				{Line: 4, EndLine: 9, Values: map[string]string{"m": "a: 1\nb: [1, 2]\na: 2"}, Keys: []string{"m"}},
			},
			bodyLine: 10,
			diags:    []string{`8:invalid YAML front matter (read by key lines instead): mapping key "a" already defined at line 6`},
		},
		{
			name:     "the earliest duplicate is reported",
			src:      "---\nm:\n  k: 1\n  k: 2\nm: 3\n---\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 6, Values: map[string]string{"m": "k: 1\nk: 2"}, Keys: []string{"m"}}},
			bodyLine: 7,
			diags:    []string{`4:invalid YAML front matter (read by key lines instead): mapping key "k" already defined at line 3`},
		},
		{
			name:     "same key in two mappings is no duplicate",
			src:      "---\na:\n  k: 1\nb:\n  k: 2\nl:\n  - k: 1\n  - k: 2\n---\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 9, Valid: true, Values: map[string]string{"a": "k: 1", "b": "k: 2", "l": "- k: 1\n- k: 2"}, Keys: []string{"a", "b", "l"}}},
			bodyLine: 10,
		},
		{
			name:     "control character at its line",
			src:      "---\na: 1\nb: x\x01y\n---\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 4, Values: map[string]string{"a": "1", "b": "x\x01y"}, Keys: []string{"a", "b"}}},
			bodyLine: 5,
			diags:    []string{"3:invalid YAML front matter (read by key lines instead): control characters are not allowed"},
		},
		{
			name:     "tab in a continuation line at the tab's line",
			src:      "---\na: \"q\"\nb: 1\n\tc: 2\n---\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 5, Values: map[string]string{"a": "q", "b": "1"}, Keys: []string{"a", "b"}}},
			bodyLine: 6,
			diags:    []string{"4:invalid YAML front matter (read by key lines instead): found a tab character that violates indentation"},
		},
		{
			name:     "empty block",
			src:      "---\n---\nx\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 2, Valid: true, Values: map[string]string{}}},
			bodyLine: 3,
		},
		{
			name:     "collections in compact flow form, null and comment",
			src:      "---\n# comment\ndepends_on: [\"03-01\", 03-02]\nmust_haves:\n  truths:\n    - a b   # note\n  n: 1\nnote: #1 priority\nempty:\n---\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 10, Valid: true, Values: map[string]string{"depends_on": `["03-01", 03-02]`, "must_haves": "truths:\n  - a b   # note\nn: 1", "note": "", "empty": ""}, Keys: []string{"depends_on", "must_haves", "note", "empty"}}},
			bodyLine: 11,
		},
		{
			name:     "top-level sequence is not a mapping",
			src:      "---\n- a\n- b\n---\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 4, Values: map[string]string{}}},
			bodyLine: 5,
			diags:    []string{"2:invalid YAML front matter (read by key lines instead): front matter is a YAML sequence"},
		},
		{
			name:     "tab indentation",
			src:      "---\na:\n\tb: 1\n---\n",
			blocks:   []FrontMatter{{Line: 1, EndLine: 4, Values: map[string]string{"a": "b: 1"}, Keys: []string{"a"}}},
			bodyLine: 5,
			diags:    []string{"3:invalid YAML front matter"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Parse("f.md", []byte(tc.src))
			var got []FrontMatter
			for _, fm := range d.FrontMatter {
				got = append(got, FrontMatter{Line: fm.Line, EndLine: fm.EndLine, Valid: fm.Valid, Values: fm.Values, Keys: fm.Keys})
				if fm.Valid != (fm.Node != nil) {
					t.Errorf("Valid %v but Node %v", fm.Valid, fm.Node)
				}
			}
			if !reflect.DeepEqual(got, tc.blocks) {
				t.Errorf("front matter\n got %+v\nwant %+v", got, tc.blocks)
			}
			if d.BodyLine != tc.bodyLine {
				t.Errorf("BodyLine = %d; want %d", d.BodyLine, tc.bodyLine)
			}
			if len(d.Diagnostics) != len(tc.diags) {
				t.Fatalf("diagnostics %v; want %v", d.Diagnostics, tc.diags)
			}
			for i, dg := range d.Diagnostics {
				if s := itoa(dg.Line) + ":" + dg.Message; !strings.HasPrefix(s, tc.diags[i]) || dg.Path != "f.md" {
					t.Errorf("diagnostic %q (path %q); want prefix %q", s, dg.Path, tc.diags[i])
				}
			}
		})
	}
}

func TestFrontMatterBodyStillParsed(t *testing.T) {
	d := Parse("f.md", []byte("---\ntitle: Fix: the bug\n---\n# Heading\n- [ ] task\n**Status:** open\n"))
	if d.Title() != "Heading" || len(d.Checkboxes) != 1 || d.Checkboxes[0].Line != 5 {
		t.Errorf("body not parsed: sections %+v checkboxes %+v", d.Sections, d.Checkboxes)
	}
	if f, ok := d.Field("status"); !ok || f.Value != "open" || f.Line != 6 {
		t.Errorf("Field(status) = %+v, %v", f, ok)
	}
	if v, ok := d.Meta("title"); !ok || v != "Fix: the bug" {
		t.Errorf("Meta(title) = %q, %v", v, ok)
	}
}

func TestFrontMatterNodeLines(t *testing.T) {
	d := Parse("f.md", []byte("\n---\nphase: 1\nplan:\n  - a\n---\n"))
	// a leading blank line means no front matter at all
	if len(d.FrontMatter) != 0 {
		t.Fatalf("front matter after a blank first line: %+v", d.FrontMatter)
	}
	d = Parse("f.md", []byte("---\nphase: 1\nplan:\n  - a\n---\n"))
	n, ok := d.FrontMatter[0].Node.(*yaml.Node)
	if !ok || n.Kind != yaml.MappingNode {
		t.Fatalf("Node = %#v", d.FrontMatter[0].Node)
	}
	if got := []int{n.Content[0].Line, n.Content[2].Line, n.Content[3].Content[0].Line}; !reflect.DeepEqual(got, []int{2, 3, 4}) {
		t.Errorf("node lines %v; want original-file lines [2 3 4]", got)
	}
}

func TestSections(t *testing.T) {
	src := "intro\n# Top\ntext\n## 🚧 1. Current Position:\nPhase: 3\n### Sub\nx\n## Next\n```\n# not a heading\n```\nSetext\n------\nbody\n> # quoted heading\n"
	d := Parse("s.md", []byte(src))
	type sec struct {
		Level         int
		Title         string
		Line, EndLine int
		Parent        int
	}
	var got []sec
	for _, s := range d.Sections {
		got = append(got, sec{s.Level, s.Title, s.Line, s.EndLine, s.Parent})
	}
	want := []sec{
		{1, "Top", 2, 15, -1},
		{2, "🚧 1. Current Position:", 4, 7, 0},
		{3, "Sub", 6, 7, 1},
		{2, "Next", 8, 11, 0},
		{2, "Setext", 12, 15, 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("sections\n got %+v\nwant %+v", got, want)
	}
	if i := d.FindSection("current position"); i != 1 {
		t.Errorf("FindSection = %d; want 1", i)
	}
	if i := d.FindSection("Current"); i != -1 {
		t.Errorf("FindSection(Current) = %d; want -1", i)
	}
	if i := d.FindSectionPrefix("curr"); i != 1 {
		t.Errorf("FindSectionPrefix = %d; want 1", i)
	}
	if got := d.SectionText(1); got != "Phase: 3\n### Sub\nx" {
		t.Errorf("SectionText(1) = %q", got)
	}
	if got := d.SectionText(4); got != "body\n> # quoted heading" {
		t.Errorf("SectionText(setext) = %q", got)
	}
	if got := d.SectionText(9); got != "" {
		t.Errorf("SectionText(out of range) = %q", got)
	}
	if f, ok := d.FieldIn(1, "PHASE"); !ok || f.Value != "3" || f.Line != 5 || f.Section != 1 {
		t.Errorf("FieldIn = %+v, %v", f, ok)
	}
	if _, ok := d.FieldIn(3, "phase"); ok {
		t.Error("FieldIn(Next, phase) found a field outside the section")
	}
	if !d.InSection(7, 1) || d.InSection(8, 1) || d.InSection(1, 0) {
		t.Error("InSection wrong")
	}
	if d.SectionAt(7) != 2 || d.SectionAt(1) != -1 || d.SectionAt(9) != 3 {
		t.Errorf("SectionAt = %d %d %d", d.SectionAt(7), d.SectionAt(1), d.SectionAt(9))
	}
	if d.Title() != "Top" {
		t.Errorf("Title = %q", d.Title())
	}
	if got := d.Lines(2, 3); got != "# Top\ntext" {
		t.Errorf("Lines(2,3) = %q", got)
	}
	if d.LineCount() != 15 {
		t.Errorf("LineCount = %d; want 15", d.LineCount())
	}
}

func TestTitleFallback(t *testing.T) {
	for src, want := range map[string]string{
		"## Two\n# One\n": "One",
		"## Two\n":        "Two",
		"no heading\n":    "",
		"":                "",
	} {
		if got := Parse("t.md", []byte(src)).Title(); got != want {
			t.Errorf("Title(%q) = %q; want %q", src, got, want)
		}
	}
}

func TestCheckboxes(t *testing.T) {
	type cb struct {
		State   string
		Text    string
		Line    int
		Depth   int
		Ordered bool
	}
	tests := []struct {
		name string
		src  string
		want []cb
	}{
		{"states", "- [ ] a\n- [x] b\n- [X] c\n- [~] d\n- [-] e\n* [x]done\n- [ ]\n", []cb{
			{" ", "a", 1, 1, false}, {"x", "b", 2, 1, false}, {"X", "c", 3, 1, false},
			{"~", "d", 4, 1, false}, {"-", "e", 5, 1, false}, {"x", "done", 6, 1, false}, {" ", "", 7, 1, false}}},
		{"not checkboxes", "- \\[ ] x\n- [?] y\n- [xx] z\n- plain\n", nil},
		{"markup removed, wrapped text whole", "- [~] **Phase 2: Auth** — code-complete\n  second line\n", []cb{
			{"~", "Phase 2: Auth — code-complete second line", 1, 1, false}}},
		{"wrapped text up to a field", "- [ ] Wire the handler\n  into the router\n  **Files:** a.go\n- [x] next\n", []cb{
			{" ", "Wire the handler into the router", 1, 1, false}, {"x", "next", 4, 1, false}}},
		{"nested two spaces", "- [ ] p\n  - [x] c\n    - [ ] g\n", []cb{{" ", "p", 1, 1, false}, {"x", "c", 2, 2, false}, {" ", "g", 3, 3, false}}},
		{"one space is a sibling", "- [ ] p\n - [x] c\n", []cb{{" ", "p", 1, 1, false}, {"x", "c", 2, 1, false}}},
		{"numbered, child with 2 spaces not nested", "1. [ ] p\n  - [x] c\n", []cb{{" ", "p", 1, 1, true}, {"x", "c", 2, 1, false}}},
		{"numbered, child with 3 spaces nested", "1. [ ] p\n   - [x] c\n2. [~] q\n", []cb{{" ", "p", 1, 1, true}, {"x", "c", 2, 2, false}, {"~", "q", 3, 1, true}}},
		{"blockquote", "> - [x] q\n> - [~] r\n", []cb{{"x", "q", 1, 1, false}, {"~", "r", 2, 1, false}}},
		{"fenced and indented code skipped", "```markdown\n- [ ] no\n```\n\n    - [ ] no\n\n~~~\n- [~] no\n~~~\n- [x] yes\n", []cb{{"x", "yes", 10, 1, false}}},
		{"tables are not checkboxes", "| a | b |\n|---|---|\n| LOCS-01 | Complete [x] |\n| - [ ] x | y |\n", nil},
		{"before first heading", "- [ ] T-GAP-7: x\n## Mission\n- [x] y\n", []cb{{" ", "T-GAP-7: x", 1, 1, false}, {"x", "y", 3, 1, false}}},
		{"crlf", "- [~] a\r\n  - [X] b\r\n", []cb{{"~", "a", 1, 1, false}, {"X", "b", 2, 2, false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Parse("c.md", []byte(tc.src))
			var got []cb
			for _, c := range d.Checkboxes {
				got = append(got, cb{string(c.State), c.Text, c.Line, c.Depth, c.Ordered})
				if c.Checked() != (c.State == 'x' || c.State == 'X') {
					t.Errorf("Checked() wrong for %q", c.State)
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("checkboxes\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
	d := Parse("c.md", []byte("- [ ] a\n## S\n- [x] b\n"))
	if d.Checkboxes[0].Section != -1 || d.Checkboxes[1].Section != 0 {
		t.Errorf("checkbox sections = %d, %d", d.Checkboxes[0].Section, d.Checkboxes[1].Section)
	}
}

func TestFields(t *testing.T) {
	type fl struct {
		Key, Value string
		Line       int
		Bold       bool
	}
	tests := []struct {
		name string
		src  string
		want []fl
	}{
		{"bold colon inside", "**Phase:** 3\n", []fl{{"Phase", "3", 1, true}}},
		{"bold colon outside", "**Core value**: ship it\n", []fl{{"Core value", "ship it", 1, true}}},
		{"list items", "- **Phase:** 3\n- Plan: 2 of 4\n* Status:  done  \n", []fl{{"Phase", "3", 1, true}, {"Plan", "2 of 4", 2, false}, {"Status", "done", 3, false}}},
		{"plain with parentheses", "Phase: 3 of 42 (Name)\nLast activity: 2026-03-31 -- shipped\n", []fl{{"Phase", "3 of 42 (Name)", 1, false}, {"Last activity", "2026-03-31 -- shipped", 2, false}}},
		{"hard break spaces and backslash", "Phase: 03 (timeline) -- READY  \nPlan: 1\\\nStatus: x\n", []fl{{"Phase", "03 (timeline) -- READY", 1, false}, {"Plan", "1", 2, false}, {"Status", "x", 3, false}}},
		{"several bold fields on a line", "**Plan:** 2 **Status:** in progress **Owner**: me\n", []fl{{"Plan", "2", 1, true}, {"Status", "in progress", 1, true}, {"Owner", "me", 1, true}}},
		{"bold value kept", "**Status:** **BLOCKED** on review\n", []fl{{"Status", "**BLOCKED** on review", 1, true}}},
		{"empty bold value", "**Blockers:**\n- none\n", []fl{{"Blockers", "", 1, true}}},
		{"not fields", "See https://x.y/z here\nAt 12:30 we met\nThis is a long sentence that goes on and on: really\nEnd of sentence. Then: no\n`code: x`\n", nil},
		{"key too long", "**" + strings.Repeat("k", 41) + ":** v\n", nil},
		{"not mid-line", "Some text **Phase:** 3\n", nil},
		{"code skipped", "```\nPhase: 3\n```\n    Plan: 2\n", nil},
		{"checkbox line is not a field", "- [x] Phase 1: Foundation\n", nil},
		{"blockquote", "> **Status:** ok\n", []fl{{"Status", "ok", 1, true}}},
		{"unicode key", "- **Нужно:** ключ\nFase: 38 — x\n", []fl{{"Нужно", "ключ", 1, true}, {"Fase", "38 — x", 2, false}}},
		{"crlf", "**Phase:** 3\r\nStatus: ok\r\n", []fl{{"Phase", "3", 1, true}, {"Status", "ok", 2, false}}},
		{"continuation lines", "Intro text\nPhase: 4\n", []fl{{"Phase", "4", 2, false}}},
		{"wrapped value read whole", "**Goal**: A recipe page that has no JSON-LD —\nimports through AI extraction.\n\nLater text\n", []fl{{"Goal", "A recipe page that has no JSON-LD — imports through AI extraction.", 1, true}}},
		{"wrapped value ends at the next field", "**Goal:** one\ntwo\n**Depends on:** Phase 3\n", []fl{{"Goal", "one two", 1, true}, {"Depends on", "Phase 3", 3, true}}},
		{"wrapped value ends at a bold label", "**Requirements**: A-01\n**Success Criteria** (what must be TRUE):\n", []fl{{"Requirements", "A-01", 1, true}}},
		{"wrapped value ends at a tag", "Goal: ship\n</objective>\nmore\n", []fl{{"Goal", "ship", 1, false}}},
		{"block indicator not extended", "errors: |\n  line one\n", []fl{{"errors", "|", 1, false}}},
		{"wrapped value ends at a list item", "Goal: one\ntwo\n- item\n", []fl{{"Goal", "one two", 1, false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Parse("f.md", []byte(tc.src))
			var got []fl
			for _, f := range d.Fields {
				got = append(got, fl{f.Key, f.Value, f.Line, f.Bold})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("fields\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestTables(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Table
	}{
		{"escapes and code", "| a | b \\| c | `x\\|y` |\n|---|---|---|\n| **b** | [l](u) | ~~s~~ |\n", []Table{
			{Line: 1, Header: []string{"a", "b | c", "x|y"}, Rows: []Row{{Line: 3, Cells: []string{"b", "l", "s"}}}, Section: -1}}},
		{"extra cells dropped, missing padded", "| a | b |\n|---|---|\n| 1 | 2 | 3 |\n| 4 |\n", []Table{
			{Line: 1, Header: []string{"a", "b"}, Rows: []Row{{Line: 3, Cells: []string{"1", "2"}}, {Line: 4, Cells: []string{"4", ""}}}, Section: -1}}},
		{"rows appended after an italic line", "## S\n| Phase | Dur | Tasks | Files |\n|---|---|---|---|\n| P0 | 1m | 1 | 1 |\n\n*Updated after each plan completion*\n| Phase 01 P01 | 15min | 2 tasks | 4 files |\n| Phase 01 P02 | 5min | 1 tasks | 2 files |\n", []Table{
			{Line: 2, Header: []string{"Phase", "Dur", "Tasks", "Files"}, Rows: []Row{
				{Line: 4, Cells: []string{"P0", "1m", "1", "1"}},
				{Line: 7, Cells: []string{"Phase 01 P01", "15min", "2 tasks", "4 files"}},
				{Line: 8, Cells: []string{"Phase 01 P02", "5min", "1 tasks", "2 files"}}}, Section: 0}}},
		{"italic line directly under the table is not a row", "| a | b |\n|---|---|\n| 1 | 2 |\n*note*\n| 3 | 4 |\n", []Table{
			{Line: 1, Header: []string{"a", "b"}, Rows: []Row{{Line: 3, Cells: []string{"1", "2"}}, {Line: 5, Cells: []string{"3", "4"}}}, Section: -1}}},
		{"headerless paragraph directly after the table", "| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | `x\\|y` |\n", []Table{
			{Line: 1, Header: []string{"a", "b"}, Rows: []Row{{Line: 3, Cells: []string{"1", "2"}}, {Line: 5, Cells: []string{"3", "x|y"}}}, Section: -1}}},
		{"rows after a heading start a new headerless table", "| a |\n|---|\n| 1 |\n## Next\n| 2 | 3 |\n", []Table{
			{Line: 1, Header: []string{"a"}, Rows: []Row{{Line: 3, Cells: []string{"1"}}}, Section: -1},
			{Line: 5, Rows: []Row{{Line: 5, Cells: []string{"2", "3"}}}, Section: 0}}},
		{"table in code skipped", "```\n| a |\n|---|\n```\n", nil},
		{"crlf", "| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n", []Table{{Line: 1, Header: []string{"a", "b"}, Rows: []Row{{Line: 3, Cells: []string{"1", "2"}}}, Section: -1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Parse("t.md", []byte(tc.src))
			if !reflect.DeepEqual(d.Tables, tc.want) {
				t.Errorf("tables\n got %+v\nwant %+v", d.Tables, tc.want)
			}
		})
	}
}

func TestTasks(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		want  []TaskBlock
		diags []string
	}{
		{
			name: "xml children, attributes, bare < and &",
			src:  "## Tasks\n<task type=\"auto\" id='03-01-T1' tdd=\"true\" gate=blocking>\n  <name>Task 1: Do it</name>\n  <files>a.go & b.go</files>\n  <action>if a < b && c > d {\n```go\nx := <-ch // </done> in code\n```\n  </action>\n  <verify>go test</verify>\n  <done>ok</done>\n  <done>second ignored</done>\n</task>\n",
			want: []TaskBlock{{
				Line: 2, EndLine: 13, Section: 0, BodyLine: 3,
				Attrs: map[string]string{"type": "auto", "id": "03-01-T1", "tdd": "true", "gate": "blocking"},
				Children: map[string]string{
					"name": "Task 1: Do it", "files": "a.go & b.go",
					"action": "if a < b && c > d {\n```go\nx := <-ch // </done> in code\n```",
					"verify": "go test", "done": "ok",
				},
				Body: "<name>Task 1: Do it</name>\n  <files>a.go & b.go</files>\n  <action>if a < b && c > d {\n```go\nx := <-ch // </done> in code\n```\n  </action>\n  <verify>go test</verify>\n  <done>ok</done>\n  <done>second ignored</done>",
			}},
		},
		{
			name: "checkpoint children and free markdown body",
			src:  "<task type=\"checkpoint:human-verify\" gate=\"blocking\">\n<what-built>UI</what-built>\n<how-to-verify>open it</how-to-verify>\n<resume-signal>Type \"approved\"</resume-signal>\n</task>\n\n<task id=\"1\" type=\"auto\">\n**Action:** Create List<T> service\n</task>\n",
			want: []TaskBlock{
				{Line: 1, EndLine: 5, Section: -1, BodyLine: 2, Attrs: map[string]string{"type": "checkpoint:human-verify", "gate": "blocking"},
					Children: map[string]string{"what-built": "UI", "how-to-verify": "open it", "resume-signal": "Type \"approved\""},
					Body:     "<what-built>UI</what-built>\n<how-to-verify>open it</how-to-verify>\n<resume-signal>Type \"approved\"</resume-signal>"},
				{Line: 7, EndLine: 9, Section: -1, BodyLine: 8, Attrs: map[string]string{"id": "1", "type": "auto"}, Children: map[string]string{},
					Body: "**Action:** Create List<T> service"},
			},
		},
		{
			name: "crlf and same-line close",
			src:  "x\r\n<task type=\"auto\"><name>n</name></task>\r\n",
			want: []TaskBlock{{Line: 2, EndLine: 2, Section: -1, BodyLine: 2, Attrs: map[string]string{"type": "auto"}, Children: map[string]string{"name": "n"}, Body: "<name>n</name>"}},
		},
		{
			name: "fenced and inline code skipped, <tasks> is not a task",
			src:  "<tasks>\n```xml\n<task type=\"auto\">x</task>\n```\nUse `<task>` blocks.\n</tasks>\n",
		},
		{
			name:  "unterminated runs to end of file",
			src:   "# P\n<task type=\"auto\">\n<name>n</name>\nrest\n",
			want:  []TaskBlock{{Line: 2, EndLine: 4, Section: 0, BodyLine: 3, Attrs: map[string]string{"type": "auto"}, Children: map[string]string{"name": "n"}, Body: "<name>n</name>\nrest"}},
			diags: []string{"2:<task> is not closed by </task>; block runs to the end of file"},
		},
		{
			name: "unterminated before the next task",
			src:  "<task id=\"1\">\na\n<task id=\"2\">\nb\n</task>\n",
			want: []TaskBlock{
				{Line: 1, EndLine: 2, Section: -1, BodyLine: 2, Attrs: map[string]string{"id": "1"}, Children: map[string]string{}, Body: "a"},
				{Line: 3, EndLine: 5, Section: -1, BodyLine: 4, Attrs: map[string]string{"id": "2"}, Children: map[string]string{}, Body: "b"},
			},
			diags: []string{"1:<task> is not closed by </task>; block runs to the next <task>"},
		},
		{
			name: "self-closing",
			src:  "<task id=\"9\"/>\n",
			want: []TaskBlock{{Line: 1, EndLine: 1, Section: -1, Attrs: map[string]string{"id": "9"}, Children: map[string]string{}}},
		},
		{
			name: "after front matter",
			src:  "---\nphase: 1\n---\n<task>\nx\n</task >\n",
			want: []TaskBlock{{Line: 4, EndLine: 6, Section: -1, BodyLine: 5, Attrs: map[string]string{}, Children: map[string]string{}, Body: "x"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Parse("p.md", []byte(tc.src))
			if !reflect.DeepEqual(d.Tasks, tc.want) {
				t.Errorf("tasks\n got %#v\nwant %#v", d.Tasks, tc.want)
			}
			var diags []string
			for _, dg := range d.Diagnostics {
				diags = append(diags, itoa(dg.Line)+":"+dg.Message)
			}
			if !reflect.DeepEqual(diags, tc.diags) {
				t.Errorf("diagnostics %q; want %q", diags, tc.diags)
			}
		})
	}
}

func TestNormTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"🚧 v2.0 Next.js 前端 (In Progress)", "v2.0 Next.js 前端 (In Progress)"},
		{"1. Overview", "Overview"},
		{"2.3) Setup:", "Setup"},
		{"✅ Done：", "Done"},
		{"2026-07-28 Session", "2026-07-28 Session"},
		{"Phase 3.5d", "Phase 3.5d"},
		{"(Optional) Notes", "(Optional) Notes"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := normTitle(tc.in); got != tc.want {
			t.Errorf("normTitle(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestLines(t *testing.T) {
	d := Parse("l.md", []byte("\uFEFFa\r\nb\r\nc"))
	tests := []struct {
		from, to int
		want     string
	}{
		{1, 1, "a"}, {1, 3, "a\nb\nc"}, {2, 9, "b\nc"}, {0, 1, "a"}, {3, 2, ""}, {4, 4, ""},
	}
	for _, tc := range tests {
		if got := d.Lines(tc.from, tc.to); got != tc.want {
			t.Errorf("Lines(%d, %d) = %q; want %q", tc.from, tc.to, got, tc.want)
		}
	}
	if d.LineCount() != 3 {
		t.Errorf("LineCount = %d", d.LineCount())
	}
}

func TestReaderReuseAndNeverNil(t *testing.T) {
	r := NewReader()
	for _, src := range []string{"", "\uFEFF", "---", "---\n", "\r", "<task", "| a |", "- [", "**:**"} {
		d := r.Parse("x.md", []byte(src))
		if d == nil {
			t.Fatalf("Parse(%q) = nil", src)
		}
		if bad := checkInvariants(d); bad != nil {
			t.Errorf("Parse(%q): %v", src, bad)
		}
	}
}

func TestDiagnosticString(t *testing.T) {
	if got := (Diagnostic{Path: "a.md", Line: 3, Message: "m"}).String(); got != "a.md:3: m" {
		t.Errorf("String = %q", got)
	}
	if got := (Diagnostic{Path: "a.md", Message: "m"}).String(); got != "a.md: m" {
		t.Errorf("String = %q", got)
	}
}

func TestTaskBodyReparse(t *testing.T) {
	src := "# Plan\n<task id=\"1\" type=\"auto\">\n**Action:** Create service\n**Done Criteria:**\n- [ ] tests pass\n</task>\n"
	d := Parse("b.md", []byte(src))
	if len(d.Checkboxes) != 0 || len(d.Fields) != 0 {
		t.Errorf("raw HTML block content leaked: %+v %+v", d.Checkboxes, d.Fields)
	}
	if len(d.Tasks) != 1 || d.Tasks[0].BodyLine != 3 {
		t.Fatalf("tasks %+v", d.Tasks)
	}
	inner := Parse("b.md", []byte(d.Tasks[0].Body))
	off := d.Tasks[0].BodyLine - 1
	if len(inner.Checkboxes) != 1 || inner.Checkboxes[0].Line+off != 5 || inner.Checkboxes[0].Text != "tests pass" {
		t.Errorf("re-parsed checkboxes %+v", inner.Checkboxes)
	}
	if f, ok := inner.Field("Action"); !ok || f.Line+off != 3 || f.Value != "Create service" {
		t.Errorf("re-parsed field %+v %v", f, ok)
	}
}

// TestReaderConcurrent backs the claim that a Reader is safe for
// concurrent use (run with -race).
func TestReaderConcurrent(t *testing.T) {
	r := NewReader()
	src := []byte("---\na: 1\n---\n# H\n- [ ] a\n| x | y |\n|---|---|\n| 1 | 2 |\n<task id=\"1\"><name>n</name></task>\n")
	want := r.Parse("c.md", src)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			for range 20 {
				got := r.Parse("c.md", src)
				if !reflect.DeepEqual(got.Checkboxes, want.Checkboxes) || !reflect.DeepEqual(got.Tables, want.Tables) || !reflect.DeepEqual(got.Tasks, want.Tasks) {
					errs <- "concurrent parse differs"
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
