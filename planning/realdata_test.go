package planning

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// realdataTrees lists the .planning folders under shared/realdata by tree
// name.
func realdataTrees(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tr := range sharedtest.Trees(t) {
		out[tr.Name] = filepath.Join(tr.Root, ".planning")
	}
	return out
}

// realdataFacts is what the golden file keeps per tree: the values checked
// by reading the tree's files by hand. FrontMatter are the diagnostics of
// invalid or unclosed front matter; the files they name are exactly those
// whose front matter PyYAML (yaml.safe_load) rejects, checked once by
// hand, at the lines of the rejected bytes.
type realdataFacts struct {
	Flavor       Flavor   `json:"flavor"`
	CurrentPhase *string  `json:"current_phase"`
	Phases       int      `json:"phases"`
	CurrentPlan  *string  `json:"current_plan"`
	NextTask     *string  `json:"next_task"`
	Milestone    string   `json:"milestone"`
	NextAction   *string  `json:"next_action"`
	FrontMatter  []string `json:"front_matter"`
}

func TestLoadRealdata(t *testing.T) {
	trees := realdataTrees(t)
	names := make([]string, 0, len(trees))
	for n := range trees {
		names = append(names, n)
	}
	sort.Strings(names)
	got := map[string]realdataFacts{}
	for _, name := range names {
		p, err := Load(os.DirFS(trees[name]))
		if err != nil {
			t.Errorf("%s: Load: %v", name, err)
			continue
		}
		f := realdataFacts{Flavor: p.Flavor, Phases: len(p.Phases)}
		if p.CurrentPhase != nil {
			s := p.CurrentPhase.Number + " " + p.CurrentPhase.Name
			f.CurrentPhase = &s
		}
		if p.CurrentPlan != nil {
			s := p.CurrentPlan.Path
			f.CurrentPlan = &s
		}
		if p.NextTask != nil {
			s := p.NextTask.Text
			f.NextTask = &s
		}
		f.Milestone = p.Milestone.Status
		if p.NextAction != nil {
			s := p.NextAction.Text + " (" + p.NextAction.Source + ")"
			f.NextAction = &s
		}
		f.FrontMatter = []string{}
		for _, d := range p.Diagnostics {
			if strings.Contains(d.Message, "front matter") {
				f.FrontMatter = append(f.FrontMatter, d.String())
			}
		}
		got[name] = f
		if testing.Verbose() {
			b, _ := json.MarshalIndent(p.Summary(), "", "  ")
			t.Logf("%s:\n%s", name, strings.Join(strings.Split(string(b), "\n")[:min(60, strings.Count(string(b), "\n"))], "\n"))
		}
	}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	golden := filepath.Join("testdata", "realdata.golden.json")
	if *update {
		if err := os.WriteFile(golden, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if string(want) != string(b) {
		t.Errorf("realdata facts differ from %s (run with -update after checking by hand):\n%s", golden, b)
	}
}
