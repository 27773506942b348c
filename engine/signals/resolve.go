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
	// By names what resolved it and where: "`npx tsc` passed
	// (conv.jsonl#41)", "TestParse passed (…)", "the agent said it is
	// fixed and `go test ./...` passed (…)".
	By string
}

// Resolve returns which error signals of sigs the conversation msgs
// resolves, in the order of sigs (a pure function of its arguments). An
// error, wherever it occurred in msgs (each tool result that yields a
// signal with its Hash), is resolved when every occurrence is followed by
// one of:
//
//   - a later run of the same command that succeeded: a tool result not
//     flagged as an error whose output holds no error (probes aside),
//     with the same command once leading `cd DIR`, output redirections and
//     pipes into output filters (head, tail, grep …) are set aside, so
//     `bun run typecheck 2>&1 | head -100` is resolved by `bun run
//     typecheck 2>&1 | tail -60`; a Write of the file a Write failed on
//     counts the same way;
//   - a later run that shows every test failing in the occurrence as
//     passing (`--- PASS: TestX`, `tests/x.py::t PASSED`, `✓ name`,
//     `(pass) name`, `test m::t ... ok`);
//   - the agent's own later text saying it is fixed ("fixed", "resolved",
//     "now passes", "works now", "succeeded" …, not negated), and the next
//     run of one of the same programs ("go test", "git rebase", "npx tsc")
//     succeeding, before or right after that text.
//
// An error with no occurrence in msgs (one read from a preservation
// block, whose run lies before the messages at hand) is resolved by a
// later successful run of its Command: a tool result after its LastSeen
// with the same command, as above. Errors without either (planning files,
// iterations) and signals of other kinds are never resolved here.
func Resolve(msgs []Message, sigs []Signal) []Resolution {
	m := newMatchers()
	rv := newResolver()
	for i, msg := range msgs {
		rv.add(i, msg, m.fromMessageHashed(msg))
	}
	return rv.resolve(sigs)
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

// fromMessageHashed is fromMessage with each signal's Hash set as the
// collector sets it.
func (m *matchers) fromMessageHashed(msg Message) []Signal {
	ss := m.fromMessage(msg)
	for i := range ss {
		ss[i].Text = cleanText(ss[i].Text)
		ss[i].Hash = m.normalizer().signalHash(ss[i])
	}
	return ss
}

// run is what the resolver knows of one message.
type run struct {
	src       string
	at        time.Time
	command   string // display form
	identity  string
	programs  []string
	isRun     bool // a tool result
	shell     bool // of a shell command (Bash)
	ok        bool // a tool result without error
	passed    []string
	failed    []string
	claimsFix bool
}

// resolver collects the runs of a conversation and the occurrences of
// each error hash.
type resolver struct {
	runs  []run
	occur map[string][]occurrence
	tests *testNames
	claim *regexp.Regexp
	neg   *regexp.Regexp
}

// occurrence is one appearance of an error: the message, its key line
// and the tests failing in its text.
type occurrence struct {
	at    int
	key   string
	tests []string
}

func newResolver() *resolver {
	return &resolver{
		occur: map[string][]occurrence{},
		tests: newTestNames(),
		claim: regexp.MustCompile(`(?i)\b(?:fixed|resolved|now pass(?:es)?|pass(?:es)? now|works now|now works|is gone|succeeded|that did it|all (?:tests )?pass(?:ing)?)\b`),
		neg:   regexp.MustCompile(`(?i)\b(?:not|n't|never|no longer|still not)\s+(?:\w+\s+)?$`),
	}
}

// add records message i, the next in order, with the signals extracted
// from it.
func (rv *resolver) add(i int, msg Message, sigs []Signal) {
	src := msg.Source
	if src == "" {
		src = msg.ID
	}
	r := run{src: src, at: msg.Timestamp, command: msg.Command}
	if msg.Role == "tool" || msg.ToolName != "" {
		r.isRun = true
		r.identity = commandIdentity(msg.Command)
		r.shell = msg.Command != "" && (msg.ToolName == "Bash" || msg.ToolName == "" || msg.ToolName == "tool")
		if r.shell {
			r.programs = programs(msg.Command)
		}
		r.ok = !msg.IsError
		for _, s := range sigs {
			if s.Kind == KindError && !s.Probe {
				r.ok = false
			}
		}
		r.passed, r.failed = rv.tests.find(msg.Content)
	} else if msg.Role == "assistant" {
		r.claimsFix = rv.claimsFix(msg.Content)
	}
	for _, s := range sigs {
		if s.Kind != KindError {
			continue
		}
		_, failing := rv.tests.find(s.Text)
		rv.occur[s.Hash] = append(rv.occur[s.Hash], occurrence{at: i, key: s.KeyLine, tests: failing})
	}
	rv.runs = append(rv.runs, r)
}

// claimsFix reports text where the agent says something is fixed.
func (rv *resolver) claimsFix(text string) bool {
	for _, loc := range rv.claim.FindAllStringIndex(text, -1) {
		if !rv.neg.MatchString(text[:loc[0]]) {
			return true
		}
	}
	return false
}

func (rv *resolver) resolve(sigs []Signal) []Resolution {
	var out []Resolution
	for _, s := range sigs {
		if s.Kind != KindError {
			continue
		}
		occ := rv.occur[s.Hash]
		if len(occ) == 0 {
			if by := rv.laterRun(s); by != "" {
				out = append(out, Resolution{Hash: s.Hash, By: by})
			}
			continue
		}
		by := ""
		for _, o := range occ {
			if by = rv.resolvedBy(o); by == "" {
				break
			}
		}
		if by != "" {
			out = append(out, Resolution{Hash: s.Hash, By: by})
		}
	}
	return out
}

// laterRun resolves an error with no occurrence among the runs by a
// successful run of its command after it was last seen, or "".
func (rv *resolver) laterRun(s Signal) string {
	id := commandIdentity(s.Command)
	if id == "" || s.LastSeen.IsZero() {
		return ""
	}
	for _, r := range rv.runs {
		if r.isRun && r.ok && r.identity == id && r.at.After(s.LastSeen) {
			return "`" + oneLine(r.command) + "` passed (" + r.src + ")"
		}
	}
	return ""
}

// resolvedBy says what resolved one occurrence, or "".
func (rv *resolver) resolvedBy(o occurrence) string {
	failed := rv.runs[o.at]
	if failed.identity != "" {
		for _, r := range rv.runs[o.at+1:] {
			if r.isRun && r.ok && r.identity == failed.identity {
				return "`" + oneLine(r.command) + "` passed (" + r.src + ")"
			}
		}
	}
	if by := rv.testsPassed(o); by != "" {
		return by
	}
	return rv.claimedFix(o.at, failedPrograms(failed.programs, o.key))
}

// failedPrograms are the programs of a failed command line that the
// error names (its key line holds the program's verb or subcommand:
// "command not found: staticcheck", "cannot rebase: …" of `git rebase`),
// else its last program (where a `&&` chain stopped).
func failedPrograms(progs []string, key string) []string {
	var out []string
	low := strings.ToLower(key)
	for _, p := range progs {
		for _, w := range strings.Fields(p) {
			if len(w) > 2 && containsWord(low, strings.ToLower(w)) {
				out = append(out, p)
				break
			}
		}
	}
	if len(out) == 0 && len(progs) > 0 {
		out = progs[len(progs)-1:]
	}
	return out
}

// testsPassed resolves an occurrence whose failing tests all pass later.
func (rv *resolver) testsPassed(o occurrence) string {
	if len(o.tests) == 0 {
		return ""
	}
	last := ""
	for _, t := range o.tests {
		found := false
		for _, r := range rv.runs[o.at+1:] {
			if r.isRun && contains(r.passed, t) {
				found, last = true, r.src
				break
			}
		}
		if !found {
			return ""
		}
	}
	return strings.Join(o.tests, ", ") + " passed (" + last + ")"
}

// claimedFix resolves an occurrence when the agent says it is fixed and
// the next run of one of the failed programs succeeds (before or right
// after the claim).
func (rv *resolver) claimedFix(at int, progs []string) string {
	if len(progs) == 0 {
		return ""
	}
	for k := at + 1; k < len(rv.runs); k++ {
		if !rv.runs[k].claimsFix {
			continue
		}
		// The run just before the claim, then the next one after it.
		for j := k - 1; j > at; j-- {
			if rv.runs[j].isRun {
				if r := rv.runs[j]; overlaps(r.programs, progs) && r.ok {
					return "the agent said it is fixed and `" + oneLine(r.command) + "` passed (" + r.src + ")"
				}
				break
			}
		}
		for _, r := range rv.runs[k+1:] {
			if r.isRun && overlaps(r.programs, progs) {
				if r.ok {
					return "the agent said it is fixed and `" + oneLine(r.command) + "` passed (" + r.src + ")"
				}
				break
			}
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if contains(b, x) {
			return true
		}
	}
	return false
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
