package markdown

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.json from the current parser output")

// goldenDoc is the JSON form of a Document in golden files: everything but
// the yaml.Node (its shape is yaml.v3's business) and the Body (its length
// and first line stand in for it).
type goldenDoc struct {
	Path        string
	BOM, CRLF   bool
	LineCount   int
	FrontMatter []goldenFM
	BodyLine    int
	BodyBytes   int
	Title       string
	Sections    []Section
	Checkboxes  []goldenCheckbox
	Fields      []Field
	Tables      []Table
	Tasks       []TaskBlock
	Diagnostics []Diagnostic
}

type goldenFM struct {
	Line, EndLine int
	Valid         bool
	Keys          []string
	Values        map[string]string
}

type goldenCheckbox struct {
	State   string
	Text    string
	Line    int
	Depth   int
	Ordered bool
	Section int
}

func toGolden(d *Document) goldenDoc {
	g := goldenDoc{
		Path: d.Path, BOM: d.BOM, CRLF: d.CRLF, LineCount: d.LineCount(),
		BodyLine: d.BodyLine, BodyBytes: len(d.Body), Title: d.Title(),
		Sections: d.Sections, Fields: d.Fields, Tables: d.Tables, Tasks: d.Tasks,
		Diagnostics: d.Diagnostics,
	}
	for _, fm := range d.FrontMatter {
		g.FrontMatter = append(g.FrontMatter, goldenFM{fm.Line, fm.EndLine, fm.Valid, fm.Keys, fm.Values})
	}
	for _, c := range d.Checkboxes {
		g.Checkboxes = append(g.Checkboxes, goldenCheckbox{string(c.State), c.Text, c.Line, c.Depth, c.Ordered, c.Section})
	}
	return g
}

// goldenFiles are the bundled examples' planning files, whose parsed form
// is tracked in full (testdata/golden/NAME.json, diffable): GSD state,
// roadmap, a plan with <task> blocks and a debug file with a YAML block;
// fire-flow conscience, blueprint, blockers and loop file with its tables.
// The real trees in ../shared/realdata are never copied, not even as
// digests: TestGoldenSpotChecks reads them there and checks values against
// their lines.
var goldenFiles = []struct{ name, path string }{
	{"gsd-state", "gsd/.planning/STATE.md"},
	{"gsd-roadmap", "gsd/.planning/ROADMAP.md"},
	{"gsd-02-02-plan", "gsd/.planning/phases/02-http-api/02-02-PLAN.md"},
	{"gsd-debug", "gsd/.planning/debug/redirect-returns-404.md"},
	{"fire-conscience", "fire/.planning/CONSCIENCE.md"},
	{"fire-blueprint", "fire/.planning/phases/2-stripe-sync/2-01-BLUEPRINT.md"},
	{"fire-blockers", "fire/.planning/BLOCKERS.md"},
	{"fire-loop", "fire/.planning/loops/fire-loop-20260123-143052.md"},
}

func TestGolden(t *testing.T) {
	examples := filepath.Join(sharedtest.ModuleRoot(), "examples")
	r := NewReader()
	for _, gf := range goldenFiles {
		t.Run(gf.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(examples, filepath.FromSlash(gf.path)))
			if err != nil {
				t.Fatal(err)
			}
			d := r.Parse(gf.path, src)
			got, err := json.MarshalIndent(toGolden(d), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := filepath.Join("testdata", "golden", gf.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the parser output; run go test -run TestGolden -update and review the diff", golden)
			}
		})
	}
}

// TestGoldenSpotChecks parses diverse real files in ../shared/realdata (a
// 340 KB STATE.md, invalid YAML front matter, CRLF, a numbered-checkbox
// product spec, a roadmap with checkboxes before the first heading, a
// fire-flow fixture plan, a GSD plan with XML task blocks) and checks the
// values against the source lines read independently.
func TestGoldenSpotChecks(t *testing.T) {
	rd := sharedtest.Realdata(t)
	read := func(rel string) (*Document, []string) {
		src, err := os.ReadFile(filepath.Join(rd, filepath.FromSlash(rel)))
		if err != nil {
			t.Skipf("real file missing: %v", err)
		}
		return Parse(rel, src), strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	}
	line := func(lines []string, n int) string { return lines[n-1] }

	// norish STATE.md: front matter keys, `## Current Position` and its Phase
	// field, session log sections before it
	// (docs/formats.md#state-structure-drift).
	d, lines := read("23492__norish/.planning/STATE.md")
	if v, _ := d.Meta("gsd_state_version"); v != "1.0" {
		t.Errorf("norish gsd_state_version = %q", v)
	}
	cp := d.FindSection("Current Position")
	if cp < 0 || line(lines, d.Sections[cp].Line) != "## Current Position" {
		t.Fatalf("norish Current Position = %d", cp)
	}
	if d.FindSectionPrefix("Session log") >= cp {
		t.Error("norish session logs should come before Current Position")
	}
	if f, ok := d.FieldIn(cp, "Phase"); !ok || !strings.Contains(line(lines, f.Line), f.Value) {
		t.Errorf("norish Phase field %+v not on its line", f)
	}

	// kubectl-fields: invalid YAML reported on line 11 (`… f: and . prefix`),
	// key-line fallback still reads phase and plan, body kept.
	d, lines = read("ahmetb__kubectl-fields/.planning/phases/02-annotation-engine/02-02-SUMMARY.md")
	if len(d.Diagnostics) != 1 || d.Diagnostics[0].Line != 11 || !strings.Contains(line(lines, 11), "f: and") {
		t.Errorf("kubectl diagnostics %v", d.Diagnostics)
	}
	if v, _ := d.Meta("plan"); v != "02" {
		t.Errorf("kubectl plan = %q", v)
	}
	if d.Title() != "Phase 2 Plan 2: List Item Matching, CLI Wiring, and Golden File Tests Summary" || d.BodyLine != 59 {
		t.Errorf("kubectl title %q body line %d", d.Title(), d.BodyLine)
	}

	// echo-wallet debug file: CRLF, sections on the right lines.
	d, lines = read("0x1nfra__echo-wallet-tracking/.planning/debug/wallet-monitor-stop-noop.md")
	if !d.CRLF {
		t.Error("echo-wallet CRLF not detected")
	}
	for _, s := range d.Sections {
		if got := strings.TrimSpace(strings.TrimLeft(line(lines, s.Line), "#")); got != s.Title {
			t.Errorf("echo-wallet section %q on line %d which reads %q", s.Title, s.Line, got)
		}
	}

	// faturamento: numbered checkboxes `1. [ ] Auth completo …`.
	d, lines = read("robsonsduarte__faturamento-unimed/.planning/BLUEPRINT.md")
	if len(d.Checkboxes) == 0 || !d.Checkboxes[0].Ordered || !strings.HasPrefix(line(lines, d.Checkboxes[0].Line), "1. [ ] "+d.Checkboxes[0].Text[:10]) {
		t.Errorf("faturamento first checkbox %+v", d.Checkboxes)
	}

	// sovereign: checkboxes under the H1 before the first `##` (`## Mission`),
	// and every `- [` line at
	// any indentation that is a real checkbox is found (one line is a list
	// of reference links, `- [ptcDocs1], …`, not a checkbox).
	d, lines = read("tomkyser__sovereign/.planning/ROADMAP.md")
	if m := d.FindSection("Mission"); d.Checkboxes[0].Line != 2 || d.Checkboxes[0].Section != 0 || m < 0 || d.Sections[m].Line < 3 {
		t.Errorf("sovereign first checkbox %+v", d.Checkboxes[0])
	}
	n, nested := 0, 0
	for _, l := range lines {
		tl := strings.TrimLeft(l, " ")
		if len(tl) > 6 && strings.HasPrefix(tl, "- [") && tl[4] == ']' {
			n++
			if tl != l {
				nested++
			}
		}
	}
	gotNested := 0
	for _, c := range d.Checkboxes {
		if c.Depth > 1 {
			gotNested++
		}
	}
	if len(d.Checkboxes) != n || gotNested != nested || n < 100 {
		t.Errorf("sovereign checkboxes %d (nested %d); source has %d (nested %d)", len(d.Checkboxes), gotNested, n, nested)
	}

	// AutoFiller: three XML tasks, each on its `<task id=…>` line.
	d, lines = read("01MASTERS__AutoFiller/.planning/phases/03-llm-gateway-ollama-gemini/03-01-PLAN.md")
	if len(d.Tasks) != 3 {
		t.Fatalf("autofiller tasks %d", len(d.Tasks))
	}
	for _, tb := range d.Tasks {
		if line(lines, tb.Line) != `<task id="`+tb.Attrs["id"]+`">` || line(lines, tb.EndLine) != "</task>" || tb.Children["action"] == "" {
			t.Errorf("autofiller task %+v", tb)
		}
	}
	// fire-flow fixture plan: the title is the first heading, and every
	// "- [ ]" line (none inside its fences) is an open checkbox at its line.
	d, lines = read("_toolfixture__ThierryN__fire-flow/.planning/phases/01-test-phase/01-01-PLAN.md")
	if d.Title() != strings.TrimPrefix(line(lines, 1), "# ") {
		t.Errorf("fire-flow fixture title %q, line 1 %q", d.Title(), line(lines, 1))
	}
	var want []int
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(l, "- [ ] ") {
			want = append(want, i+1)
		}
	}
	var got []int
	for _, c := range d.Checkboxes {
		if c.State == ' ' && strings.HasPrefix(line(lines, c.Line), "- [ ] "+c.Text) {
			got = append(got, c.Line)
		}
	}
	if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fire-flow fixture open checkboxes at lines %v, want %v", got, want)
	}
}
