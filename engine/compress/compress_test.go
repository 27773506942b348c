package compress

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/recite-dev/recite/engine/budget"
)

var update = flag.Bool("update", false, "rewrite golden files")

func counter(t testing.TB) Counter {
	c, err := budget.NewCounter(budget.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c.Count
}

func TestRoute(t *testing.T) {
	tests := []struct {
		name string
		task Task
		want Difficulty
		why  string
	}{
		{"one file", Task{Text: "Fix the typo in the README", Files: []string{"README.md"}}, Simple, "1 file"},
		{"three files", Task{Text: "Add paging to the invoice list", Files: []string{"src/a.ts", "src/b.ts", "src/c.ts"}}, Moderate, "3 files"},
		{"five files", Task{Text: "Add paging", Files: []string{"src/a", "src/b", "src/c", "src/d", "src/e"}}, Moderate, "5 files"},
		{"six files", Task{Text: "Add paging", Files: []string{"src/a", "src/b", "src/c", "src/d", "src/e", "src/f"}}, Complex, "6 files"},
		{"no files", Task{Text: "Think about paging"}, Moderate, "no files named"},
		{"security word", Task{Text: "Check the JWT signature on webhooks", Files: []string{"src/hook.ts"}}, Complex, "security: jwt"},
		{"security prefix", Task{Text: "Add authentication to the API", Files: []string{"src/api.ts"}}, Complex, "security: auth"},
		{"architecture", Task{Text: "Database schema for invoices", Files: []string{"db/schema.sql"}}, Complex, "architecture: schema"},
		{"cross-cutting word", Task{Text: "Structured logging in every handler", Files: []string{"src/log.ts"}}, Complex, "cross-cutting: logging"},
		{"cross-cutting dirs", Task{Text: "Rename the invoice type", Files: []string{"src/a.ts", "test/a.ts", "docs/a.md"}}, Complex, "cross-cutting: 3 top-level directories"},
		{"exact skill", Task{Text: "Use stripe pagination for invoices", Files: []string{"src/stripe.ts"}, Skills: []string{"skills/stripe-pagination.md"}}, Simple, "exact skill match"},
		{"partial skill", Task{Text: "Stripe invoices sync", Files: []string{"src/stripe.ts"}, Skills: []string{"skills/stripe-pagination.md"}}, Moderate, "partial skill match"},
		{"no skill match", Task{Text: "Render the report", Files: []string{"src/report.ts"}, Skills: []string{"skills/stripe-pagination.md"}}, Complex, "no skill match"},
		{"SKILL.md named by folder", Task{Text: "Use pagination", Files: []string{"src/x.ts"}, Skills: []string{"skills/pagination/SKILL.md"}}, Simple, "exact skill match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Route(tt.task)
			if r.Level != tt.want {
				t.Errorf("Route = %s, want %s", r, tt.want)
			}
			if !strings.Contains(strings.Join(r.Reasons, "; "), tt.why) {
				t.Errorf("reasons %q lack %q", r.Reasons, tt.why)
			}
		})
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		name   string
		seg    Segment
		pass   int
		want   Relevance
		forget string
	}{
		{"task", Segment{Kind: KindTask}, 9, Critical, ""},
		{"recitation", Segment{Kind: KindRecitation}, 9, High, ""},
		{"signal", Segment{Kind: KindSignal, Iteration: 1}, 30, High, ""},
		{"editing", Segment{Kind: KindEditing, Iteration: 1}, 30, High, ""},
		{"error this iteration", Segment{Kind: KindError, Iteration: 9}, 9, High, ""},
		{"error last iteration", Segment{Kind: KindError, Iteration: 8}, 9, High, ""},
		{"error resolved but recent", Segment{Kind: KindError, Iteration: 8, Resolved: true}, 9, High, ""},
		{"old error", Segment{Kind: KindError, Iteration: 5}, 9, Medium, ""},
		{"old resolved error", Segment{Kind: KindError, Iteration: 5, Resolved: true}, 9, Low, "resolved error"},
		{"skill for the task", Segment{Kind: KindSkill, ForTask: true}, 9, Medium, ""},
		{"unused skill", Segment{Kind: KindSkill}, 9, Low, "unused skill"},
		{"recent read", Segment{Kind: KindFileRead, Iteration: 6}, 9, Neutral, ""},
		{"read at age 4", Segment{Kind: KindFileRead, Iteration: 5}, 9, Low, ""},
		{"read at age 5, unreferenced", Segment{Kind: KindFileRead, Iteration: 4, Unreferenced: true}, 9, Low, "unreferenced read"},
		{"read at age 6", Segment{Kind: KindFileRead, Iteration: 3}, 9, Low, "old iteration"},
		{"read before the first pass", Segment{Kind: KindFileRead, Iteration: 1}, 0, Neutral, ""},
		{"history at age 5", Segment{Kind: KindHistory, Iteration: 4}, 9, Neutral, ""},
		{"history at age 6", Segment{Kind: KindHistory, Iteration: 3}, 9, Low, "old iteration"},
		{"committed approach at age 3", Segment{Kind: KindApproach, Iteration: 6, Commit: "abc1234"}, 9, Neutral, ""},
		{"committed approach at age 4", Segment{Kind: KindApproach, Iteration: 5, Commit: "abc1234"}, 9, Low, "committed in abc1234"},
		{"committed approach past age 5 keeps its hash", Segment{Kind: KindApproach, Iteration: 1, Commit: "abc1234"}, 9, Low, "committed in abc1234"},
		{"approach without a commit at age 6", Segment{Kind: KindApproach, Iteration: 3}, 9, Low, "old iteration"},
		{"other", Segment{Kind: KindOther}, 9, Neutral, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, forget := Score(tt.seg, tt.pass)
			if got != tt.want || forget != tt.forget {
				t.Errorf("Score = %s %q, want %s %q", got, forget, tt.want, tt.forget)
			}
		})
	}
}

func TestLevelOf(t *testing.T) {
	tests := []struct {
		tokens, budget int
		want           Level
	}{
		{0, 1000, Green}, {499, 1000, Green}, {500, 1000, Yellow}, {699, 1000, Yellow},
		{700, 1000, Orange}, {849, 1000, Orange}, {850, 1000, Red}, {950, 1000, Red}, {1200, 1000, Red},
		{500, 0, Green},
	}
	for _, tt := range tests {
		if got := LevelOf(tt.tokens, tt.budget); got != tt.want {
			t.Errorf("LevelOf(%d, %d) = %s, want %s", tt.tokens, tt.budget, got, tt.want)
		}
	}
}

// levelSegments are three stable, semi and dynamic segments of known heat.
func levelSegments(t *testing.T) ([]Segment, []Outcome) {
	long := strings.Repeat("The sync pages through paid invoices. It keeps the cursor in Postgres.\n\n- first item of a list\n- second item\n\n", 30)
	segs := []Segment{
		{Key: "section:system", Kind: KindOther, Text: long, Tier: 0},
		{Key: "section:plan", Kind: KindTask, Text: long, Tier: 0},
		{Key: "section:state", Kind: KindOther, Text: long, Tier: 1},
		{Key: "msg:old", Kind: KindHistory, Text: long, Iteration: 1, Tier: 2},
		{Key: "msg:new", Kind: KindHistory, Text: long, Iteration: 9, Tier: 2},
		{Key: "section:recitation", Kind: KindRecitation, Text: long, Tier: 2},
		// A pinned dynamic section of no special kind (the preserved
		// block): visited first, and never touched.
		{Key: "section:preserved", Kind: KindOther, Text: long, Tier: 2, Pinned: true},
	}
	count := counter(t)
	var outs []Outcome
	for _, s := range segs {
		score, _ := Score(s, 9)
		n := count(s.Text)
		outs = append(outs, Outcome{Key: s.Key, Score: score, Text: s.Text, Before: n, After: n, Heat: HeatOf(s, score, 9, 0)})
	}
	return segs, outs
}

func TestApplyLevel(t *testing.T) {
	count := counter(t)
	segs, outs := levelSegments(t)
	total := outs[0].After * len(outs)
	tests := []struct {
		name     string
		budget   int
		level    Level
		changed  []string // keys changed, in visit order
		handoff  bool
		unchange []string
	}{
		{"green", total * 3, Green, nil, false, nil},
		// YELLOW: WARM to 50% from the dynamic end: msg:new first; one
		// step brings the total under 50%.
		{"yellow", total * 100 / 55, Yellow, []string{"msg:new"}, false, []string{"section:system", "section:plan", "section:recitation"}},
		// ORANGE: COLD (msg:old) evicted first, then WARM to 30%.
		{"orange", total * 100 / 75, Orange, []string{"msg:old"}, false, []string{"section:plan", "section:recitation"}},
		// RED: everything not HOT goes, the plan and the recitation stay.
		// RED at 90%: evicting the COLD segment is enough to get under 85%.
		{"red", total * 100 / 90, Red, []string{"msg:old"}, true, []string{"section:system", "section:plan", "section:recitation"}},
		// RED far over budget: everything not HOT goes, from the dynamic
		// end back to the semi tier; the stable tier (the system prompt, a
		// NEUTRAL and so WARM segment, and the plan) and the recitation
		// are pinned and stay, though the prompt stays over budget.
		{"red over budget", total / 2, Red, []string{"msg:old", "msg:new", "section:state"}, true, []string{"section:system", "section:plan", "section:recitation", "section:preserved"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := append([]Outcome(nil), outs...)
			a := ApplyLevel(segs, o, total, tt.budget, count)
			if a.Level != tt.level || a.Handoff != tt.handoff {
				t.Fatalf("level %s handoff %v, want %s %v", a.Level, a.Handoff, tt.level, tt.handoff)
			}
			if len(a.Actions) < len(tt.changed) {
				t.Fatalf("actions %q, want at least %q", a.Actions, tt.changed)
			}
			for i, k := range tt.changed {
				if !strings.HasPrefix(a.Actions[i], k+":") {
					t.Errorf("action %d = %q, want %s first", i, a.Actions[i], k)
				}
			}
			for _, k := range tt.unchange {
				for i := range o {
					if o[i].Key == k && o[i].Text != segs[i].Text {
						t.Errorf("%s changed at %s", k, tt.level)
					}
				}
			}
			if tt.name == "red over budget" && len(a.Actions) != len(tt.changed) {
				t.Errorf("actions %q, want only %q (the rest is pinned)", a.Actions, tt.changed)
			}
			if tt.level != Green && a.After >= a.Before {
				t.Errorf("nothing saved: %d → %d", a.Before, a.After)
			}
		})
	}
}

func TestCompressForgettingAndPlanAwareKeep(t *testing.T) {
	count := counter(t)
	body := strings.Repeat("export function upsertInvoice(pool, inv) {\n  return pool.query(sql, [inv.id]);\n}\n\n", 20)
	segs := []Segment{
		{Key: "section:plan", Kind: KindTask, Text: "Task 2: upsert paid invoices"},
		{Key: "msg:err-now", Kind: KindError, Iteration: 9, Text: "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap"},
		{Key: "msg:err-fixed", Kind: KindError, Iteration: 2, Resolved: true, Text: "Error: relation \"invoices\" does not exist\n    at Parser.parseErrorMessage"},
		{Key: "msg:read-stale", Kind: KindFileRead, Path: "src/db.ts", Code: true, Iteration: 5, Unreferenced: true, Text: body},
		{Key: "msg:read-edit", Kind: KindEditing, Path: "src/sync.ts", Iteration: 1, Text: body},
		{Key: "msg:read-upcoming", Kind: KindFileRead, Path: "src/scheduler.ts", Code: true, Iteration: 2, Text: "// scheduler with retry\n" + body},
		{Key: "skill:unused", Kind: KindSkill, Path: "skills/react-forms.md", Text: "# React forms\n\nUse controlled inputs.\n\n" + strings.Repeat("Long explanation of forms. ", 40)},
		{Key: "msg:old", Kind: KindHistory, Iteration: 1, Text: "Iteration 1 changed src/db.ts. " + strings.Repeat("More words about it. ", 30)},
		{Key: "msg:empty", Kind: KindHistory, Iteration: 1, Text: ""},
	}
	r := Compress(segs, Options{Pass: 9, Count: count, Upcoming: []string{"Add the sync scheduler with retry", "Reconciliation report"}})
	byKey := map[string]Outcome{}
	for _, o := range r.Outcomes {
		byKey[o.Key] = o
	}
	for _, k := range []string{"section:plan", "msg:err-now", "msg:read-edit", "msg:empty"} {
		if o := byKey[k]; o.Text != segOf(segs, k).Text || o.Action != "kept" {
			t.Errorf("%s: %q %q, want kept verbatim", k, o.Action, o.Text)
		}
	}
	for k, why := range map[string]string{"msg:err-fixed": "resolved error", "msg:read-stale": "unreferenced read", "skill:unused": "unused skill", "msg:old": "old iteration"} {
		o := byKey[k]
		if o.Action != "forgotten: "+why || strings.Count(o.Text, "\n") != 0 || !strings.HasPrefix(o.Text, "["+why+"]") {
			t.Errorf("%s: %q %q, want forgotten to one line (%s)", k, o.Action, o.Text, why)
		}
	}
	if o := byKey["msg:read-upcoming"]; o.Score != Medium || o.Tag != "kept for upcoming task 1" || o.Action != "compressed" {
		t.Errorf("upcoming read: %+v, want MEDIUM kept for upcoming task 1, compressed", o)
	}
	if r.Saved() <= 0 || r.After != sumAfter(r.Outcomes) {
		t.Errorf("saved %d, after %d vs %d", r.Saved(), r.After, sumAfter(r.Outcomes))
	}
	if s := r.Summary(); !strings.Contains(s, "pass at iteration 9") || !strings.Contains(s, "1 kept for upcoming tasks, 4 forgotten") {
		t.Errorf("Summary = %q", s)
	}
	// The same input gives the same output.
	if r2 := Compress(segs, Options{Pass: 9, Count: count, Upcoming: []string{"Add the sync scheduler with retry", "Reconciliation report"}}); fmt.Sprint(r2) != fmt.Sprint(r) {
		t.Error("Compress is not deterministic")
	}
}

func TestCompressSummarizer(t *testing.T) {
	count := counter(t)
	seg := Segment{Key: "msg:x", Kind: KindFileRead, Iteration: 1, Text: strings.Repeat("Tried a direct fix in auth.ts and committed it. ", 20)}
	called := 0
	r := Compress([]Segment{seg}, Options{Pass: 6, Count: count, Summarize: func(text string, keep float64) (string, bool) {
		called++
		if keep != 0.15 {
			t.Errorf("keep = %v, want 0.15", keep)
		}
		return "Committed a direct fix in auth.ts.", true
	}})
	if called != 1 || r.Outcomes[0].Text != "Committed a direct fix in auth.ts." {
		t.Errorf("summarizer not used: %d %q", called, r.Outcomes[0].Text)
	}
	r = Compress([]Segment{seg}, Options{Pass: 6, Count: count, Summarize: func(string, float64) (string, bool) { return "", false }})
	if !strings.Contains(r.Outcomes[0].Text, "(compressed:") {
		t.Errorf("no extractive fallback: %q", r.Outcomes[0].Text)
	}
}

func segOf(segs []Segment, key string) Segment {
	for _, s := range segs {
		if s.Key == key {
			return s
		}
	}
	return Segment{}
}

func sumAfter(outs []Outcome) int {
	n := 0
	for _, o := range outs {
		n += o.After
	}
	return n
}

// extractInput is a text TestExtractGolden compresses: the file and the
// name of its goldens under testdata/extract.
type extractInput struct{ path, name string }

// extractInputs are the files of testdata/extract (a Go file, a skill) and
// two files of the fire-flow example read in place (a TypeScript source and
// a CLAUDE.md), so the example is not copied into testdata.
func extractInputs() []extractInput {
	files, _ := filepath.Glob("testdata/extract/*")
	var in []extractInput
	for _, f := range files {
		if !strings.HasSuffix(f, ".golden") {
			in = append(in, extractInput{f, filepath.Base(f)})
		}
	}
	fire := filepath.Join("..", "..", "examples", "fire")
	return append(in,
		extractInput{filepath.Join(fire, "src", "stripe.ts"), "stripe.ts"},
		extractInput{filepath.Join(fire, "CLAUDE.md"), "claude.md"})
}

// TestExtractGolden compresses each extractInputs text to 50% and 15% and
// compares with testdata/extract/NAME.KEEP.golden (-update rewrites them).
func TestExtractGolden(t *testing.T) {
	count := counter(t)
	n := 0
	for _, in := range extractInputs() {
		f := in.path
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code := !strings.HasSuffix(f, ".md")
		for _, keep := range []float64{0.5, 0.15} {
			got := Extract(string(src), keep, code, count)
			if count(got) >= count(string(src)) {
				t.Errorf("%s at %.2f: not shorter", f, keep)
			}
			if limit := int(float64(count(string(src)))*keep) + 40; count(got) > limit {
				t.Errorf("%s at %.2f: %d tokens, want at most %d", f, keep, count(got), limit)
			}
			gold := fmt.Sprintf("testdata/extract/%s.%02d.golden", in.name, int(keep*100))
			if *update {
				if err := os.WriteFile(gold, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(gold)
			if err != nil {
				t.Fatalf("%v (run go test ./engine/compress -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from its golden file; run go test ./engine/compress -update and review the diff\ngot:\n%s", gold, got)
			}
			n++
		}
	}
	if n == 0 && !*update {
		t.Fatal("no golden files checked")
	}
}

func TestExtractKeepsStructure(t *testing.T) {
	count := counter(t)
	src := "# Title\n\nFirst sentence here. Second sentence is long and goes on and on about details nobody needs.\n\n" +
		strings.Repeat("Filler paragraph text that is not needed at all here. More of it follows.\n\n", 20) +
		"## Part\n\n- item one\n- item two\n\n```go\nfunc Foo(x int) error {\n\treturn nil\n}\n```\n"
	got := Extract(src, 0.3, false, count)
	for _, want := range []string{"# Title", "## Part", "First sentence here."} {
		if !strings.Contains(got, want) {
			t.Errorf("extract lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Second sentence") {
		t.Errorf("extract kept a second sentence:\n%s", got)
	}
	if Extract(src, 1, false, count) != src {
		t.Error("keep 1 changed the text")
	}
	if Extract("short", 0.5, false, count) != "short" {
		t.Error("a text whose extract is not shorter changed")
	}
}

func TestOneLine(t *testing.T) {
	tests := []struct{ label, src, want string }{
		{"[old]", "\n\n## Heading\nbody", "[old]: Heading"},
		{"[old]", "", "[old]"},
		{"[old]", "```\n---\n", "[old]"},
		{"[x]", strings.Repeat("é", 200), "[x]: " + strings.Repeat("é", 159) + "…"},
	}
	for _, tt := range tests {
		if got := OneLine(tt.label, tt.src); got != tt.want {
			t.Errorf("OneLine(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// FuzzExtract checks that the extractive parser never panics, is
// deterministic, keeps valid UTF-8 valid and never lengthens a text.
func FuzzExtract(f *testing.F) {
	for _, in := range extractInputs() {
		if b, err := os.ReadFile(in.path); err == nil {
			f.Add(string(b), uint8(50), false)
		}
	}
	f.Add("# a\n\n- b\n  - c\n\n```\nfunc x() {}\n```\n> q. r", uint8(15), false)
	f.Add("<div>\n*a*\n</div>\n\n1. x\n2. y", uint8(15), true)
	count := counter(f)
	f.Fuzz(func(t *testing.T, src string, pct uint8, code bool) {
		keep := float64(pct%100+1) / 100
		a := Extract(src, keep, code, count)
		if b := Extract(src, keep, code, count); a != b {
			t.Fatal("not deterministic")
		}
		if utf8.ValidString(src) && !utf8.ValidString(a) {
			t.Fatalf("invalid UTF-8 from valid input: %q", a)
		}
		if a != src && count(a) >= count(src) {
			t.Fatalf("extract %d tokens, source %d", count(a), count(src))
		}
		_ = OneLine("[x]", src)
	})
}
