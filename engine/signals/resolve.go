package signals

import (
	"regexp"
	"strings"
	"time"
)

// Resolution says that an error signal is resolved, and by what.
type Resolution struct {
	// Hash is the resolved signal's Hash.
	Hash string
	// By names what resolved it: "`npx tsc` passed at 14:02", "TestParse
	// passed at 14:05", or with the run's source when it has no time
	// ("`npx tsc` passed (conv.jsonl#41)").
	By string
}

// Resolve returns which error signals of sigs the conversation msgs
// resolves, in the order of sigs (a pure function of its arguments), by
// the rules of docs/signals.md#resolution. An error, wherever it occurred
// in msgs (each tool result that yields a signal with its Hash), is
// resolved when every occurrence is followed by one of:
//
//   - a later successful run of the same steps: a tool result not flagged
//     as an error whose output holds no error (probes aside) that ran
//     every step of the failed run that the error names (runSteps: the
//     same program and subcommand once `cd`, redirections, output filters
//     and wrappers such as timeout, sudo, ssh HOST, bash -c and
//     environment assignments are taken off, with the same target
//     arguments; namedSteps: the steps the key line names, else all of
//     them); a Write of the file a Write failed on counts the same way;
//   - later runs that show every test failing in the occurrence passing
//     (`--- PASS: TestX`, `tests/x.py::t PASSED`, `✓ name`, `(pass)
//     name`, `test m::t ... ok`).
//
// What the agent says ("fixed", "that did it") resolves nothing: only a
// run does. An error with no occurrence in msgs (one read from a
// preservation block, whose run lies before the messages at hand) is
// resolved by a later successful run of its steps: a tool result after
// its LastSeen, as above. Errors without either (planning files,
// iterations) and signals of other kinds are never resolved here.
func Resolve(msgs []Message, sigs []Signal) []Resolution {
	m := newMatchers()
	rv := newResolver()
	var runs []Run
	for _, msg := range msgs {
		sc := m.scanMessage(msg)
		if sc.Run != nil {
			rv.run(*sc.Run)
			runs = append(runs, *sc.Run)
		}
		for _, s := range sc.Signals {
			if s.Kind == KindError {
				rv.occur(s)
			}
		}
	}
	out := rv.resolve(sigs)
	done := map[string]bool{}
	for _, r := range out {
		done[r.Hash] = true
	}
	for _, s := range sigs {
		if s.Kind != KindError || done[s.Hash] || rv.byHash[s.Hash] != nil {
			continue
		}
		if by := laterRun(s, runs); by != "" {
			out = append(out, Resolution{Hash: s.Hash, By: by})
			done[s.Hash] = true
		}
	}
	return out
}

// laterRun resolves an error with no occurrence among the runs by a
// successful run of its steps after it was last seen, or "".
func laterRun(s Signal, runs []Run) string {
	want := namedSteps(runSteps(s.Command), s.KeyLine)
	if len(want) == 0 || s.LastSeen.IsZero() {
		return ""
	}
	for _, r := range runs {
		if r.OK && r.At.After(s.LastSeen) && coversSteps(r.Steps, want) {
			return passedBy(r)
		}
	}
	return ""
}

// MarkResolved returns a copy of sigs with ResolvedBy set from res.
func MarkResolved(sigs []Signal, res []Resolution) []Signal {
	by := map[string]string{}
	for _, r := range res {
		by[r.Hash] = r.By
	}
	out := make([]Signal, len(sigs))
	copy(out, sigs)
	for i := range out {
		if b, ok := by[out[i].Hash]; ok && out[i].Kind == KindError && out[i].ResolvedBy == "" {
			out[i].ResolvedBy = b
		}
	}
	return out
}

// resolver follows the occurrences of each error hash through the runs
// after them, in one pass: run and occur are called in message order.
type resolver struct {
	byHash map[string]*occurrences
	// open are the hashes with an occurrence not resolved yet, in first
	// order, so a run only visits those.
	open []string
}

// occurrences are the appearances of one error, in order.
type occurrences struct {
	occ  []occurrence
	open int // how many are not resolved
}

// occurrence is one appearance of an error: the steps its run must
// repeat successfully, the tests still to pass, and once resolved by
// what.
type occurrence struct {
	steps []string
	tests []string
	// passed are the failing tests seen passing so far, last where.
	passed map[string]bool
	lastAt Run
	by     string
}

func newResolver() *resolver { return &resolver{byHash: map[string]*occurrences{}} }

// occur records an error's appearance.
func (rv *resolver) occur(s ScannedSignal) {
	o := rv.byHash[s.Hash]
	if o == nil {
		o = &occurrences{}
		rv.byHash[s.Hash] = o
	}
	if o.open == 0 {
		rv.open = append(rv.open, s.Hash)
	}
	o.occ = append(o.occ, occurrence{steps: s.Steps, tests: s.Tests})
	o.open++
}

// run offers a tool result to every open occurrence before it.
func (rv *resolver) run(r Run) {
	kept := rv.open[:0]
	for _, h := range rv.open {
		o := rv.byHash[h]
		for i := range o.occ {
			oc := &o.occ[i]
			if oc.by != "" {
				continue
			}
			if r.OK && coversSteps(r.Steps, oc.steps) {
				oc.by = passedBy(r)
			} else if len(oc.tests) > 0 && len(r.Passed) > 0 {
				oc.by = oc.testsPassed(r)
			}
			if oc.by != "" {
				o.open--
			}
		}
		if o.open > 0 {
			kept = append(kept, h)
		}
	}
	rv.open = kept
}

// testsPassed notes the tests r shows passing, and says what resolved the
// occurrence once all its failing tests passed; "" before.
func (oc *occurrence) testsPassed(r Run) string {
	for _, t := range oc.tests {
		for _, p := range r.Passed {
			if p == t {
				if oc.passed == nil {
					oc.passed = map[string]bool{}
				}
				oc.passed[t] = true
				oc.lastAt = r
			}
		}
	}
	if len(oc.passed) < len(oc.tests) {
		return ""
	}
	return strings.Join(oc.tests, ", ") + " passed" + when(oc.lastAt)
}

// resolve says which of sigs are resolved: every occurrence resolved, by
// what resolved the last.
func (rv *resolver) resolve(sigs []Signal) []Resolution {
	var out []Resolution
	for _, s := range sigs {
		if s.Kind != KindError {
			continue
		}
		o := rv.byHash[s.Hash]
		if o == nil || o.open > 0 || len(o.occ) == 0 {
			continue
		}
		out = append(out, Resolution{Hash: s.Hash, By: o.occ[len(o.occ)-1].by})
	}
	return out
}

// passedBy says that run r passed: "`cmd` passed at 14:02".
func passedBy(r Run) string {
	return "`" + shortCommand(r.Command) + "` passed" + when(r)
}

// when is " at 15:04" (UTC) for a run with a time, else " (source)".
func when(r Run) string {
	if !r.At.IsZero() {
		return " at " + r.At.UTC().Format(time.TimeOnly[:5])
	}
	if r.Source != "" {
		return " (" + r.Source + ")"
	}
	return ""
}

// testNames finds the tests a run reports passing and failing.
type testNames struct {
	pass, fail []*regexp.Regexp
}

func newTestNames() *testNames {
	c := regexp.MustCompile
	return &testNames{
		pass: []*regexp.Regexp{
			c(`^\s*--- PASS: (\S+)`),                                // go test
			c(`^(\S+\.py::\S+) PASSED\b`),                           // pytest -v
			c(`^PASSED (\S+\.py::\S+)`),                             // pytest -rA
			c(`^\(pass\) (.+?)(?: \[[\d.]+m?s\])?$`),                // bun test
			c(`^\s*(?:✓|✔|√) (.+?)(?: \(?\d+(?:\.\d+)? ?m?s\)?)?$`), // jest, vitest
			c(`^test (\S+) \.\.\. ok$`),                             // cargo test
		},
		fail: []*regexp.Regexp{
			c(`^\s*--- FAIL: (\S+)`),
			c(`^(\S+\.py::\S+) FAILED\b`),
			c(`^FAILED (\S+\.py::\S+)`),
			c(`^\(fail\) (.+?)(?: \[[\d.]+m?s\])?$`),
			c(`^\s*(?:✕|×|✗) (.+?)(?: \(?\d+(?:\.\d+)? ?m?s\)?)?$`),
			c(`^test (\S+) \.\.\. FAILED$`),
		},
	}
}

// find returns the tests text reports passed and failed, in order.
func (tn *testNames) find(text string) (passed, failed []string) {
	if !strings.Contains(text, "PASS") && !strings.Contains(text, "FAIL") && !strings.Contains(text, "pass") &&
		!strings.Contains(text, "fail") && !strings.ContainsAny(text, "✓✔√✕×✗") && !strings.Contains(text, " ok") {
		return nil, nil
	}
	for _, l := range strings.Split(text, "\n") {
		for _, re := range tn.pass {
			if m := re.FindStringSubmatch(l); m != nil {
				passed = append(passed, strings.TrimSpace(m[1]))
			}
		}
		for _, re := range tn.fail {
			if m := re.FindStringSubmatch(l); m != nil {
				failed = append(failed, strings.TrimSpace(m[1]))
			}
		}
	}
	return passed, failed
}
