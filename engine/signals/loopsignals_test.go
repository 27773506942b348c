package signals

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning"
)

// lastErrorLoop is a loop whose file quotes its last error verbatim
// (`### Last Error (verbatim)`, planning.Loop.Errors), with a hash column, a
// resume table without one, and a Sabbath snapshot repeating the error's
// first line and a FAILED ATTEMPTS counter line.
func lastErrorLoop() *planning.Loop {
	p := "loops/fire-loop-1.md"
	s := "loops/sabbath-1-iter4.md"
	return &planning.Loop{
		Path: p, ID: "1",
		Iterations: []planning.Iteration{
			{N: 1, Timestamp: "2026-01-23T14:31:40Z", FilesChanged: 3, ErrorHash: "-", OutputLines: 150, Health: "PROGRESS", Action: "wrote sync", Line: 10},
			{N: 2, Timestamp: "2026-01-23T14:35:12Z", FilesChanged: 2, ErrorHash: "a41c9e07", OutputLines: 138, Health: "PROGRESS", Action: "ran npm test", Line: 11},
			{N: 3, Timestamp: "2026-01-23T14:39:55Z", FilesChanged: 1, ErrorHash: "a41c9e07", OutputLines: 139, Health: "PROGRESS", Action: "retry", Line: 12},
			{N: 4, Timestamp: "2026-01-23T14:44:03Z", FilesChanged: 0, ErrorHash: "a41c9e07", OutputLines: 61, Health: "SPINNING", Action: "re-ran", Line: 13},
			{N: 5, Timestamp: "2026-01-23T15:09:52Z", FilesChanged: -1, OutputLines: -1, Action: "npm run db:up", Result: "BLOCKED: Cannot connect to the Docker daemon at unix:///var/run/docker.sock", Line: 20, NoErrorColumn: true},
		},
		Errors: []planning.Signal{{
			Label:  "Last Error (verbatim)",
			Text:   "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)",
			Source: p + ":31",
		}},
		Snapshots: []*planning.Snapshot{{
			Path: s, Iteration: 4,
			Signals: []planning.Signal{
				{Label: "ERRORS", Text: `"Error: connect ECONNREFUSED 127.0.0.1:5432"`, Source: s + ":40"},
				{Label: "FAILED ATTEMPTS", Text: "2 — retry pool connect with backoff; host localhost instead of 127.0.0.1", Source: s + ":42"},
			},
		}},
	}
}

// TestFromLoopVerbatimError: the loop's quoted error is one error signal,
// verbatim with its stack, sourced path:line, counted once per iteration
// carrying the latest error hash; the hash cells themselves are not error
// texts, and the snapshot's copy of the error's first line folds into it.
func TestFromLoopVerbatimError(t *testing.T) {
	sigs := Extract(&planning.Project{Loops: []*planning.Loop{lastErrorLoop()}}, nil, nil)
	var errs []Signal
	for _, s := range sigs {
		if s.Kind == KindError {
			errs = append(errs, s)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("error signals = %+v, want exactly the verbatim one", errs)
	}
	e := errs[0]
	if e.Text != lastErrorLoop().Errors[0].Text || e.Source != "loops/fire-loop-1.md:31" || e.Count != 3 {
		t.Errorf("error = %+v, want the verbatim block from :31 seen 3 times", e)
	}
	if e.FirstSeen.IsZero() || !e.LastSeen.After(e.FirstSeen) {
		t.Errorf("first/last seen = %v / %v, want the rows' timestamps", e.FirstSeen, e.LastSeen)
	}
	// The resume row's BLOCKED result is a blocked signal.
	found := false
	for _, s := range sigs {
		if s.Kind == KindBlocked && strings.HasPrefix(s.Text, "BLOCKED: Cannot connect to the Docker daemon") && s.Source == "loops/fire-loop-1.md:20" {
			found = true
		}
	}
	if !found {
		t.Errorf("no blocked signal for the resume row's result in %+v", sigs)
	}
}

// TestFromLoopHashColumn: a hash-looking cell is not an error text; a cell
// holding words (an "Error" column used for the message) is.
func TestFromLoopHashColumn(t *testing.T) {
	l := &planning.Loop{Path: "loops/fire-loop-2.md", Iterations: []planning.Iteration{
		{N: 1, FilesChanged: 1, ErrorHash: "a41c9e07", OutputLines: 10, Line: 5},
		{N: 2, FilesChanged: 1, ErrorHash: "15d382f86a30ae13", OutputLines: 10, Line: 6},
		{N: 3, FilesChanged: 0, ErrorHash: "ECONNREFUSED 127.0.0.1:5432", OutputLines: 10, Line: 7},
	}}
	var errs []string
	for _, s := range FromLoop(l) {
		if s.Kind == KindError {
			errs = append(errs, s.Source+" "+s.Text)
		}
	}
	if len(errs) != 1 || errs[0] != "loops/fire-loop-2.md:7 ECONNREFUSED 127.0.0.1:5432" {
		t.Errorf("errors = %q, want only the row 3 text", errs)
	}
}

// TestFailedAttemptsCounter: `FAILED ATTEMPTS: {count} — {list}` is a
// counter and a list; each listed approach is a failed_approach, the
// counter line is none.
func TestFailedAttemptsCounter(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"2 — retry pool connect with backoff; host localhost instead of 127.0.0.1", []string{"retry pool connect with backoff", "host localhost instead of 127.0.0.1"}},
		{"3 — approaches: a, b, c", []string{"a", "b", "c"}},
		{"2", nil},
		{"[count] — [list]", nil},
		{"direct fix in auth.ts", []string{"direct fix in auth.ts"}},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range fromLabel("FAILED ATTEMPTS", tt.text, "x.md:1") {
			if s.Kind != KindFailedApproach {
				t.Errorf("%q: kind %s", tt.text, s.Kind)
			}
			got = append(got, s.Text)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("FAILED ATTEMPTS %q → %q, want %q", tt.text, got, tt.want)
		}
	}
}

// TestFromDebugErrors: an open debug file's Symptoms errors are one error
// signal, verbatim, sourced path:line; "none" and resolved files give none.
func TestFromDebugErrors(t *testing.T) {
	text := "--- FAIL: TestCreateAndRedirect (0.00s)\n    handler_test.go:29: GET /k3Fq9aZ: got status 404, want 302\nFAIL"
	open := &planning.DebugFile{Path: "debug/x.md", Status: "investigating", Errors: text, ErrorsLine: 22}
	sigs := FromDebug(open)
	if len(sigs) != 1 || sigs[0].Kind != KindError || sigs[0].Text != text || sigs[0].Source != "debug/x.md:22" {
		t.Errorf("FromDebug = %+v", sigs)
	}
	for _, d := range []*planning.DebugFile{
		{Path: "debug/y.md", Errors: "none (silent double-loop)", ErrorsLine: 19},
		{Path: "debug/z.md", Errors: "none", ErrorsLine: 19},
		{Path: "debug/resolved/w.md", Resolved: true, Errors: "panic: boom", ErrorsLine: 3},
	} {
		for _, s := range FromDebug(d) {
			if s.Kind == KindError {
				t.Errorf("%s: unexpected error signal %q", d.Path, s.Text)
			}
		}
	}
}

// loadExample loads examples/NAME/.planning through planning.Load, skipping
// when the example is absent.
func loadExample(t *testing.T, name string) *planning.Project {
	t.Helper()
	root := filepath.Join(sharedtest.ModuleRoot(), "examples", name, ".planning")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("examples/%s/.planning absent: %v", name, err)
	}
	p, err := planning.Load(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExampleSignals checks the bundled examples by reading their files:
// fire's loop quotes ECONNREFUSED with its stack under `### Last Error
// (verbatim)` (line 66) and repeats hash a41c9e07 in iterations 2-6;
// gsd's open debug file quotes the failing test under `errors: |` (line
// 22). Neither the hash cell nor the "FAILED ATTEMPTS: 2 — …" counter is a
// signal text.
func TestExampleSignals(t *testing.T) {
	t.Run("fire", func(t *testing.T) {
		sigs := Extract(loadExample(t, "fire"), nil, nil)
		var ok bool
		for _, s := range sigs {
			if s.Kind == KindError && strings.HasPrefix(s.Text, "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap") &&
				s.Source == "loops/fire-loop-20260123-143052.md:66" && s.Count == 5 {
				ok = true
			}
			if strings.Contains(s.Text, "a41c9e07") || strings.HasPrefix(s.Text, "2 —") {
				t.Errorf("%s signal with a hash or counter as text: %q (%s)", s.Kind, s.Text, s.Source)
			}
		}
		if !ok {
			t.Errorf("no verbatim ECONNREFUSED error from loop line 66 seen 5 times in %+v", sigs)
		}
	})
	t.Run("gsd", func(t *testing.T) {
		sigs := Extract(loadExample(t, "gsd"), nil, nil)
		var ok bool
		for _, s := range sigs {
			if s.Kind == KindError && strings.HasPrefix(s.Text, "--- FAIL: TestCreateAndRedirect (0.00s)\n    handler_test.go:29:") &&
				strings.HasSuffix(s.Text, "FAIL\texample.com/shortlink/internal/api\t0.004s") && s.Source == "debug/redirect-returns-404.md:22" {
				ok = true
			}
			if strings.Contains(s.Text, "panic: test timed out") {
				t.Errorf("error of a resolved debug file extracted: %q", s.Text)
			}
		}
		if !ok {
			t.Errorf("no verbatim errors block from debug/redirect-returns-404.md:22 in %+v", sigs)
		}
	})
}

// TestExampleFireHealth: the loop file itself records SPINNING then
// BLOCKED. Spin counts hash a41c9e07 over iterations 2-6 (the resume rows
// record no error column, so they neither count nor reset it), and
// iteration 8's "BLOCKED: Cannot connect to the Docker daemon" makes the
// state BLOCKED.
func TestExampleFireHealth(t *testing.T) {
	// The example ships with the repository: no skip when it or its loop
	// is missing, which is a loader regression.
	p, err := planning.Load(os.DirFS(filepath.Join(sharedtest.ModuleRoot(), "examples", "fire", ".planning")))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Loops) != 1 || len(p.Loops[0].Iterations) == 0 {
		t.Fatalf("loops %+v in examples/fire; want one loop with its iterations", p.Loops)
	}
	h := Evaluate(IterationsFromLoop(p.Loops[0]), DefaultThresholds())
	if h.State != HealthBlocked || h.SpinCount != 5 || h.Breaker != BreakerTripped {
		t.Errorf("health = %s spin %d breaker %s (%q), want BLOCKED spin 5 TRIPPED", h.State, h.SpinCount, h.Breaker, h.Reasons)
	}
}

// TestEvaluateUnknownErrors: rows without an error column (ErrorUnknown)
// neither count nor reset the spin counter; the latest known error hash is
// counted across iterations.
func TestEvaluateUnknownErrors(t *testing.T) {
	its := []IterationRecord{
		{N: 1, FilesChanged: 1, ErrorHash: "a41c9e07", OutputLines: 100},
		{N: 2, FilesChanged: 1, ErrorHash: "a41c9e07", OutputLines: 100},
		{N: 3, FilesChanged: 1, ErrorHash: "a41c9e07", OutputLines: 100},
		{N: 4, FilesChanged: -1, OutputLines: -1, ErrorUnknown: true},
	}
	h := Evaluate(its, DefaultThresholds())
	if h.SpinCount != 3 || h.State != HealthSpinning || h.Breaker != BreakerWarning {
		t.Errorf("health = %s spin %d breaker %s, want SPINNING spin 3 WARNING", h.State, h.SpinCount, h.Breaker)
	}
	// A known iteration without an error does reset it.
	its = append(its, IterationRecord{N: 5, FilesChanged: 1, OutputLines: 100})
	if h := Evaluate(its, DefaultThresholds()); h.SpinCount != 0 {
		t.Errorf("spin after a clean iteration = %d, want 0", h.SpinCount)
	}
}

// TestEvaluateBlockedIteration: a BLOCKED mark or pattern in the latest
// iteration's outcome, or its Health recorded as BLOCKED, is BLOCKED, which
// outranks SPINNING; an older blocked iteration is not.
func TestEvaluateBlockedIteration(t *testing.T) {
	spin := func() []IterationRecord {
		return []IterationRecord{
			{N: 1, FilesChanged: 1, ErrorHash: "a41c9e07", OutputLines: 100},
			{N: 2, FilesChanged: 1, ErrorHash: "a41c9e07", OutputLines: 100},
			{N: 3, FilesChanged: 1, ErrorHash: "a41c9e07", OutputLines: 100},
		}
	}
	tests := []struct {
		name string
		last IterationRecord
		want string
	}{
		{"BLOCKED mark", IterationRecord{N: 4, FilesChanged: -1, OutputLines: -1, ErrorUnknown: true, Outcome: "BLOCKED: waiting for the API key"}, HealthBlocked},
		{"cannot connect", IterationRecord{N: 4, FilesChanged: -1, OutputLines: -1, ErrorUnknown: true, Outcome: "Cannot connect to the Docker daemon at unix:///var/run/docker.sock"}, HealthBlocked},
		{"quota", IterationRecord{N: 4, FilesChanged: 1, ErrorText: "429: Quota exceeded for model", OutputLines: 100}, HealthBlocked},
		{"EPERM", IterationRecord{N: 4, FilesChanged: 1, ErrorText: "Error: EPERM: operation not permitted, open '/etc/x'", OutputLines: 100}, HealthBlocked},
		{"health column", IterationRecord{N: 4, FilesChanged: 0, ErrorHash: "a41c9e07", OutputLines: 100, Health: "BLOCKED"}, HealthBlocked},
		{"lower-case blocked prose", IterationRecord{N: 4, FilesChanged: -1, OutputLines: -1, ErrorUnknown: true, Outcome: "reverted; not blocked anymore"}, HealthSpinning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Evaluate(append(spin(), tt.last), DefaultThresholds())
			if h.State != tt.want {
				t.Errorf("state = %s (%q), want %s", h.State, h.Reasons, tt.want)
			}
		})
	}
	// Blocked earlier, progress now: not BLOCKED.
	its := append(spin()[:1], IterationRecord{N: 2, FilesChanged: 0, OutputLines: 100, Outcome: "BLOCKED: no key"}, IterationRecord{N: 3, FilesChanged: 2, OutputLines: 100})
	if h := Evaluate(its, DefaultThresholds()); h.State == HealthBlocked {
		t.Errorf("an older BLOCKED iteration still blocks: %+v", h)
	}
}

// TestIterationsFromLoopColumns: a resume row (no error column) has an
// unknown error, its Result is the outcome, and the Health cell is kept.
func TestIterationsFromLoopColumns(t *testing.T) {
	got := IterationsFromLoop(lastErrorLoop())
	if len(got) != 5 {
		t.Fatalf("got %d records", len(got))
	}
	if got[1].ErrorUnknown || got[1].ErrorHash != "a41c9e07" || got[3].Health != "SPINNING" {
		t.Errorf("row 2/4 = %+v / %+v", got[1], got[3])
	}
	if !got[4].ErrorUnknown || !strings.HasPrefix(got[4].Outcome, "BLOCKED: Cannot connect") {
		t.Errorf("resume row = %+v", got[4])
	}
}

// TestRealdataDebugErrors reads the real debug files under
// ../shared/realdata (no real tree has a loop file): an `errors:` value
// that names an error is one verbatim error signal at its line, and
// "none" / "none (silent double-loop)" (echo-wallet-tracking) give none.
// Checked by reading the files: faturamento-unimed's
// debug/tofixed-null-error.md line 19 is the only real error.
func TestRealdataDebugErrors(t *testing.T) {
	var got []string
	for _, tr := range sharedtest.Trees(t) {
		p, err := planning.Load(os.DirFS(filepath.Join(tr.Root, ".planning")))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Debug {
			for _, s := range FromDebug(d) {
				if s.Kind == KindError {
					got = append(got, tr.Name+"/"+s.Source+" "+s.Text)
				}
			}
		}
		for _, l := range p.Loops {
			for _, s := range FromLoop(l) {
				if s.Kind == KindError && looksLikeHash(s.Text) {
					t.Errorf("%s: hash %q as an error text", tr.Name, s.Text)
				}
			}
		}
	}
	want := "robsonsduarte__faturamento-unimed/debug/tofixed-null-error.md:19 Cannot read properties of null (reading 'toFixed')"
	if len(got) != 1 || got[0] != want {
		t.Errorf("real debug errors = %q, want [%q]", got, want)
	}
}

// FuzzFromLoop: any loop file and debug file bytes, read by planning.Load,
// give signals and a health evaluation without panicking, and every error
// signal has a text that is not a bare hash cell.
func FuzzFromLoop(f *testing.F) {
	root := filepath.Join(sharedtest.ModuleRoot(), "examples", "fire", ".planning", "loops", "fire-loop-20260123-143052.md")
	if src, err := os.ReadFile(root); err == nil {
		f.Add(src)
	}
	f.Add([]byte("## Loop Progress\n| Iter | Error Hash | Result |\n|---|---|---|\n| 1 | a41c9e07 | BLOCKED: x |\n### Last Error (verbatim)\n```\nboom\n"))
	f.Add([]byte("## Symptoms\nerrors: |\n  panic: x\n## Eliminated\n- hypothesis: y\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		fsys := fstest.MapFS{
			"loops/fire-loop-1.md":     {Data: src},
			"debug/x.md":               {Data: src},
			"loops/sabbath-1-iter1.md": {Data: src},
		}
		p, err := planning.Load(fsys)
		if err != nil {
			return
		}
		for _, s := range Extract(p, nil, nil) {
			if s.Kind == KindError && looksLikeHash(strings.TrimSpace(s.Text)) && !strings.Contains(string(src), "```") && !strings.Contains(string(src), "errors:") {
				t.Errorf("hash cell %q as an error text", s.Text)
			}
		}
		for _, l := range p.Loops {
			Evaluate(IterationsFromLoop(l), DefaultThresholds())
		}
	})
}
