package signals

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestVerifySmoothedAndFaithful(t *testing.T) {
	sigs := Extract(sampleProject(), sampleMessages(), nil)
	smoothed := "We worked on the login flow. Some issues were encountered and a few approaches were tried; the team is waiting on external input."
	lost := Verify(smoothed, sigs)
	if len(lost) != len(sigs) {
		t.Errorf("smoothed summary: %d of %d lost, want all", len(lost), len(sigs))
	}
	block := ReinjectBlock(lost)
	for _, s := range sigs {
		if s.Kind == KindError && !strings.Contains(block, cleanText(s.Text)) {
			t.Errorf("reinject block lacks error %q", s.Text)
		}
	}
	// A faithful summary built from each signal's key, reworded around it:
	// wrapped in backticks or quotes, final punctuation dropped, quotes made
	// typographic, whitespace re-flowed.
	var sb strings.Builder
	for i, s := range sigs {
		k := Key(s)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&sb, "- The agent hit `%s`.\n", k)
		case 1:
			fmt.Fprintf(&sb, "- Noted: \"%s\"\n", strings.ReplaceAll(k, " ", "\n   "))
		default:
			fmt.Fprintf(&sb, "* %s!\n", strings.NewReplacer("'", "’").Replace(k))
		}
	}
	sb.WriteString("The circuit breaker is in WARNING.\n")
	if lost := Verify(sb.String(), sigs); len(lost) != 0 {
		t.Errorf("faithful summary lost %d: %+v", len(lost), lost)
	}
	if ReinjectBlock(nil) != "" {
		t.Error("ReinjectBlock(nil) not empty")
	}
}

func TestVerifyRules(t *testing.T) {
	tests := []struct {
		name    string
		sig     Signal
		summary string
		lost    bool
	}{
		{"error key line kept in backticks", Signal{Kind: KindError, Text: "Exit code 2\nsrc/a.ts(1,2): error TS2322: Type 'x' is wrong."}, "fixed `src/a.ts(1,2): error TS2322: Type 'x' is wrong`", false},
		{"error paraphrased", Signal{Kind: KindError, Text: "Exit code 2\nsrc/a.ts(1,2): error TS2322: Type 'x' is wrong."}, "a type error in a.ts", true},
		{"error prefix stripped", Signal{Kind: KindError, Text: "Error: unknown flag: --disable-all"}, "the unknown flag: --disable-all failed", false},
		{"error location dropped is kept", Signal{Kind: KindError, Text: "error: Cannot find module '@x/core' from '/a/b.ts'"}, "`Cannot find module '@x/core'`", false},
		{"error message cut short is lost", Signal{Kind: KindError, Text: "error: Cannot find module '@x/core' from '/a/b.ts'"}, "`Cannot find module`", true},
		{"tool_use_error tags", Signal{Kind: KindError, Text: "<tool_use_error>File does not exist.</tool_use_error>"}, "File does not exist", false},
		{"blocked by id", Signal{Kind: KindBlocked, Text: "Stripe fails", ID: "BLOCKER-005"}, "still blocked by BLOCKER-005.", false},
		{"blocked id not a prefix", Signal{Kind: KindBlocked, Text: "Stripe fails", ID: "BLOCKER-005"}, "BLOCKER-0051", true},
		{"approach key phrase", Signal{Kind: KindFailedApproach, Text: "[Iteration 1-3] Direct fix in auth.ts", Detail: "x"}, "Tried a direct fix in auth.ts already", false},
		{"approach lost", Signal{Kind: KindFailedApproach, Text: "Mock the token service"}, "tried mocks", true},
		{"breaker by state", Signal{Kind: KindCircuitBreaker, Text: "WARNING (same error 3x)", ID: "WARNING"}, "Circuit breaker: warning", false},
		{"breaker lost", Signal{Kind: KindCircuitBreaker, Text: "TRIPPED (spin 5/5)", ID: "TRIPPED"}, "circuit breaker healthy", true},
		{"stop by user words", Signal{Kind: KindStop, Text: "The user doesn't want to proceed with this tool use. The user said:\nshould we dry-run? 🤔"}, `"should we dry-run?"`, false},
		{"stop lost", Signal{Kind: KindStop, Text: "STOP: no migrations"}, "continue", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lost := Verify(tt.summary, []Signal{tt.sig})
			if (len(lost) == 1) != tt.lost {
				t.Errorf("Verify lost=%v, want %v (key %q)", len(lost) == 1, tt.lost, Key(tt.sig))
			}
		})
	}
}

// TestVerifyNames: a summary that names the failing test, the error code
// or the file and line keeps the error (the shapes of the false alarms
// read on real compactions: `--- FAIL: TestX` named only as the test,
// staticcheck's SA5011 named by its code); a name the error does not
// carry, or a bare file name, keeps nothing.
func TestVerifyNames(t *testing.T) {
	goFail := Signal{Kind: KindError, Text: "--- FAIL: TestRedirect (0.00s)\n    handler_test.go:29: got 404, want 302\nFAIL\nFAIL\tgithub.com/acme/links\t0.004s", KeyLine: "handler_test.go:29: got 404, want 302"}
	sub := Signal{Kind: KindError, Text: "--- FAIL: TestParse (0.00s)\n    --- FAIL: TestParse/empty (0.00s)\n        parse_test.go:18: got [EOF EOF]", KeyLine: "parse_test.go:18: got [EOF EOF]"}
	lint := Signal{Kind: KindError, Text: "cmd/x/checkpoint_test.go:901:17: SA5011: possible nil pointer dereference (staticcheck)", KeyLine: "cmd/x/checkpoint_test.go:901:17: SA5011: possible nil pointer dereference (staticcheck)"}
	tsc := Signal{Kind: KindError, Text: "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.", KeyLine: "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."}
	pytest := Signal{Kind: KindError, Text: "FAILED tests/test_calc.py::test_add - assert 3 == 4", KeyLine: "FAILED tests/test_calc.py::test_add - assert 3 == 4"}
	econn := Signal{Kind: KindError, Text: "Error: connect ECONNREFUSED 127.0.0.1:5432", KeyLine: "Error: connect ECONNREFUSED 127.0.0.1:5432"}
	tests := []struct {
		name    string
		sig     Signal
		summary string
		lost    bool
	}{
		{"go test named by the test", goFail, "TestRedirect still fails: the handler answers 404.", false},
		{"go test named by another test", goFail, "TestRedirects was renamed.", true},
		{"go subtest named by its parent", sub, "TestParse fails on empty input", false},
		{"lint named by its code", lint, `staticcheck SA5011 - "possible nil pointer dereference" in the test`, false},
		{"code as part of a word", lint, "see SA50110 and SA501", true},
		{"tsc named by its code", tsc, "fixed the TS2322 in a.ts", false},
		{"tsc named by file and line", tsc, "a.ts(3 had the wrong type", false},
		{"a file name alone keeps nothing", tsc, "edited src/a.ts", true},
		{"pytest named by its function", pytest, "test_add fails with 3 == 4", false},
		{"errno named", econn, "postgres was down (ECONNREFUSED)", false},
		{"paraphrase", econn, "the database refused connections", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if lost := Verify(tt.summary, []Signal{tt.sig}); (len(lost) == 1) != tt.lost {
				t.Errorf("Verify lost=%v, want %v", len(lost) == 1, tt.lost)
			}
		})
	}
}

func FuzzVerify(f *testing.F) {
	f.Add("summary with `boom`", "Exit code 1\nboom", "BLOCKER-1")
	f.Add("", "", "")
	f.Add("“quoted”", "<tool_use_error></tool_use_error>", "-")
	f.Fuzz(func(t *testing.T, summary, text, id string) {
		sigs := []Signal{
			{Kind: KindError, Text: text}, {Kind: KindBlocked, Text: text, ID: id},
			{Kind: KindFailedApproach, Text: text}, {Kind: KindCircuitBreaker, Text: text, ID: id}, {Kind: KindStop, Text: text},
		}
		lost := Verify(summary, sigs)
		if len(lost) > len(sigs) {
			t.Fatal("more lost than given")
		}
		// A summary that is the signal's own key keeps it.
		for _, s := range sigs {
			if l := Verify(Key(s), []Signal{s}); len(l) != 0 {
				t.Errorf("%s signal %q lost from its own key %q", s.Kind, s.Text, Key(s))
			}
		}
	})
}

// TestLostIndexes: a signal known in several forms (raw and redacted) is
// kept when the summary keeps any form, lost only when it keeps none.
func TestLostIndexes(t *testing.T) {
	raw := []Signal{
		{Kind: KindError, Text: "Error: auth failed for key sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
		{Kind: KindError, Text: "Error: listen tcp :8080: bind: address already in use"},
		{Kind: KindBlocked, Text: "waiting for the key sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
	}
	red := []Signal{
		{Kind: KindError, Text: "Error: auth failed for key ⟨secret:stripe-access-token:a97adb35⟩"},
		raw[1],
		{Kind: KindBlocked, Text: "waiting for the key ⟨secret:stripe-access-token:a97adb35⟩"},
	}
	tests := []struct {
		summary string
		want    []int
	}{
		{"Some issues were encountered.", []int{0, 1, 2}},
		{"We saw `auth failed for key sk_live_4eC39HqLyjWDarjtT1zdp7dc`.", []int{1, 2}},
		{"We saw `auth failed for key ⟨secret:stripe-access-token:a97adb35⟩` and are waiting for the key ⟨secret:stripe-access-token:a97adb35⟩.", []int{1}},
		{"listen tcp :8080: bind: address already in use; waiting for the key sk_live_4eC39HqLyjWDarjtT1zdp7dc", []int{0}},
	}
	for _, tt := range tests {
		if got := LostIndexes(tt.summary, raw, red); !slices.Equal(got, tt.want) {
			t.Errorf("%q: lost %v, want %v", tt.summary, got, tt.want)
		}
		// One form alone is Verify.
		if got, want := len(LostIndexes(tt.summary, raw)), len(Verify(tt.summary, raw)); got != want {
			t.Errorf("%q: one form lost %d, Verify %d", tt.summary, got, want)
		}
	}
	if LostIndexes("x") != nil {
		t.Error("no forms: want nil")
	}
}

// TestVerifyKeyLine: Verify checks an error's key line, not its first
// line, and a bare exit code as its command with the exit code.
func TestVerifyKeyLine(t *testing.T) {
	tb := Signal{Kind: KindError, Text: "Exit code 1\nTraceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    cfg[\"token\"]\nKeyError: 'token'"}
	bare := Signal{Kind: KindError, Text: "Exit code 1", KeyLine: "Exit code 1", Command: "bun run verify 2>&1"}
	tests := []struct {
		name    string
		sig     Signal
		summary string
		lost    bool
	}{
		{"traceback header is not the key", tb, "We hit a `Traceback (most recent call last):` in app.py.", true},
		{"exception line kept", tb, "app.py raised `KeyError: 'token'`.", false},
		{"warning first", Signal{Kind: KindError, Text: "Exit code 1\nwarning: x is deprecated\nerror: linker `cc` not found"}, "a warning: x is deprecated", true},
		{"stored key line", Signal{Kind: KindError, Text: "Usage: lint [flags]\nError: unknown flag: --format", KeyLine: "Error: unknown flag: --format"}, "lint rejected unknown flag: --format", false},
		{"bare exit with command and code", bare, "`bun run verify` failed with exit code 1.", false},
		{"bare exit, exited with", bare, "bun run verify exited with 1", false},
		{"bare exit without the code", bare, "`bun run verify` failed.", true},
		{"bare exit, another code", bare, "`bun run verify` failed with exit code 2.", true},
		{"bare exit without the command", bare, "something failed with exit code 1", true},
		{"bare exit without a command is never lost", Signal{Kind: KindError, Text: "Exit code 1"}, "nothing", false},
		{"resolved is lost when the summary drops it", Signal{Kind: KindError, Text: "boom", KeyLine: "boom", ResolvedBy: "`make` passed (m2)"}, "nothing", true},
		{"resolved and kept", Signal{Kind: KindError, Text: "boom", KeyLine: "boom", ResolvedBy: "`make` passed (m2)"}, "make said boom, then passed", false},
		{"a probe is never lost", Signal{Kind: KindError, Text: "Exit code 1", KeyLine: "Exit code 1", Command: "grep -q foo x", Probe: true}, "nothing", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lost := Verify(tt.summary, []Signal{tt.sig})
			if (len(lost) == 1) != tt.lost {
				t.Errorf("lost = %v, want %v (key %q)", len(lost) == 1, tt.lost, Key(tt.sig))
			}
		})
	}
	if k := Key(bare); k != "bun run verify 2>&1 exit code 1" {
		t.Errorf("Key(bare) = %q", k)
	}
}
