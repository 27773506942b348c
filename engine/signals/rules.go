package signals

import (
	"regexp"
	"strings"
)

// keyMode says how a rule's key line is taken from the line it matched.
type keyMode int

const (
	// keyLine: the matched line itself (its `key` group when the pattern
	// has one), trimmed.
	keyLine keyMode = iota
	// keyNext: the next non-blank line (Gradle's "* What went wrong:").
	keyNext
	// keyColonNext: the next non-blank line when the matched line ends
	// with ":" (Rust 1.73+ prints a panic's message below "panicked at
	// src/lib.rs:12:9:"), else the line.
	keyColonNext
	// keyGoTest: the first indented message line under a `--- FAIL:` line
	// (t.Errorf's "parse_test.go:42: got 3, want 4"), else the FAIL line
	// without its duration.
	keyGoTest
)

// rule is one row of the failure-line table (failureRules): a line of a
// tool's output that says something failed.
type rule struct {
	// name is the row's stable name, toolchain the tools it covers (the
	// README's table and the report count rows per toolchain).
	name, toolchain string
	// hint lists literals ("|"-separated) one of which every matching
	// line contains; lines without any skip the pattern, so the scan of a
	// long output costs a few substring searches a line.
	hint string
	// pattern matches the line, with a CI log prefix and ANSI colours
	// removed (scanLines); unless, when set, vetoes a match.
	pattern, unless string
	// next, when set, must match the next non-blank line (a JavaScript
	// stack head is an error only when an "at …" frame follows); prev,
	// when set, the previous non-blank line (jest's thrown error below its
	// "● test" header).
	next, prev string
	// summary marks a line that says a run failed without saying why
	// (`FAIL\tpkg`, `npm ERR! code ELIFECYCLE`, `** BUILD FAILED **`): it
	// is a key line only when the output has no cause line.
	summary bool
	// family and rank: within one output, only the lowest rank found in a
	// family yields signals (pytest's `FAILED tests/x.py::t` beats its
	// `E   assert …` lines, which beat `x.py:5: AssertionError`).
	family string
	rank   int
	// group: consecutive lines of this rule are one error (git's
	// "error: cannot rebase: …" / "error: Please commit or stash them.").
	group bool
	key   keyMode
	// example is real output of the tool: the table test runs it and
	// expects this rule to give the key line exampleKey (the first line
	// of example when exampleKey is empty). nearMiss is a line of the
	// same shape that is no failure of this row (a passing test, a
	// warning, a healthy status): the table test expects the row not to
	// match it (docs/signals.md#the-failure-line-table).
	example, exampleKey, nearMiss string
}

// compiledRule is a rule with its patterns compiled.
type compiledRule struct {
	*rule
	re, unless, next, prev *regexp.Regexp
	hints                  []string
	keyGroup               int
}

// compile compiles the rule's patterns.
func (c *compiledRule) compile() {
	c.re = regexp.MustCompile(c.pattern)
	if c.rule.unless != "" {
		c.unless = regexp.MustCompile(c.rule.unless)
	}
	if c.rule.next != "" {
		c.next = regexp.MustCompile(c.rule.next)
	}
	if c.rule.prev != "" {
		c.prev = regexp.MustCompile(c.rule.prev)
	}
	c.keyGroup = c.re.SubexpIndex("key")
}

// failureRules is the table of failure lines, most specific first: the
// first row that matches a line decides. Sources: each tool's own output
// (the examples are copied from real runs).
func failureRules() []rule {
	var rows []rule
	for _, part := range [][]rule{goRules(), typeScriptRules(), jsRules(), pythonRules(), rustRules(),
		serviceRules(), containerRules(), databaseRules(), packageRules(), networkRules(),
		swiftRules(), javaRules(), lintMakeRules(), shellRules(), cliRules(), genericRules()} {
		rows = append(rows, part...)
	}
	return rows
}

// genericHeader matches a key line that names no cause, only that one
// follows (docs/signals.md#key-lines): it ends with ":" and, after an
// optional severity tag (`error:`, `ERROR:`, `fatal:`) or exception class
// (`ParamValidationError:`), says only that something failed —
// "Parameter validation failed:", "The following errors occurred:",
// "error: No solution found when resolving dependencies:", "Caused by:".
// The key line is then the next non-blank line (causeLine).
const genericHeader = `(?i)^(?:(?:[\w.]*(?:error|exception)|fatal|panic|e)(?:\[[^\]]*\])?:\s*)?` +
	`(?:errors?|exception|caused by|problems?|the following (?:errors?|problems?)(?: (?:were|was) (?:found|encountered|reported)| occurred)?|` +
	`(?:an )?(?:errors?|exception) (?:has )?occurred|something went wrong|(?:\w+ ){0,2}(?:validation|compilation|build|request|operation|` +
	`command|execution|deployment|installation|resolution|check|parse|parsing) failed|failed|failure|` +
	`received exception from server(?: \(version [^)]*\))?|no solution found when resolving dependencies|unable to select packages)\s*:$`

// causeLine is line as a key line below a generic header: trimmed, and
// without the tree and box marks tools draw before a cause ("╰─▶ ",
// "│ ", "- ", "* ", "> ").
func causeLine(line string) string {
	t := strings.TrimSpace(line)
	for {
		u := strings.TrimSpace(strings.TrimLeft(t, "╰─▶│├└×*->• "))
		if u == t {
			return t
		}
		t = u
	}
}

// ruleSet is the compiled failure-line table and the patterns of the
// output scan.
type ruleSet struct {
	rules    []compiledRule
	gate     *gate
	ansi     *regexp.Regexp
	duration *regexp.Regexp
	// header matches a key line that only announces its cause on the
	// next line (genericHeader).
	header *regexp.Regexp
}

func newRuleSet() *ruleSet {
	rows := failureRules()
	rs := &ruleSet{
		ansi:     regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`),
		duration: regexp.MustCompile(`\s*\(\d+(?:\.\d+)?m?s\)\s*$`),
		header:   regexp.MustCompile(genericHeader),
	}
	for i := range rows {
		r := &rows[i]
		c := compiledRule{rule: r, hints: strings.Split(r.hint, "|")}
		c.compile()
		rs.rules = append(rs.rules, c)
	}
	rs.gate = newGate()
	return rs
}

// gateTokens are literals, lower case, one of which every failure line
// of the table holds once folded to lower case: a line with none is
// skipped before any hint or pattern is tried. TestRuleTable proves each
// row's example passes the gate.
func gateTokens() []string {
	return []string{"err", "fail", "fatal", "panic", "xception", "denied", "not found", "no such file", "segmentation",
		"***", "expect(", "assert", "●", "×", "✕", "✗", "✖", "arg(s)", "args", "flag", "unknown command", "conflict (",
		"rejected]", "what went wrong", "data race", ".go:", ".py", ".kt", "go: ", "emerg]", "alert]", "crit]",
		"backoff", "oomkilled", "invalid", "refused", "cannot connect", "unable to connect", "didn't complete",
		"unhealthy", "exited with code", "ssh: ", "curl: ("}
}

// gatePrefixes are literals, case-sensitive, that open a failure line
// holding no gate token (apt's "E: Unable to locate package x").
func gatePrefixes() []string { return []string{"E: "} }

// gate finds the gate tokens in a line in one pass: by the line's bytes,
// ASCII letters folded to lower case, the tokens that start with each.
type gate struct {
	first    [256][]string
	prefixes []string
}

func newGate() *gate {
	g := &gate{prefixes: gatePrefixes()}
	for _, t := range gateTokens() {
		g.first[t[0]] = append(g.first[t[0]], t)
	}
	return g
}

// hit reports whether line holds a gate token (ASCII case folded) or
// starts with a gate prefix.
func (g *gate) hit(line string) bool {
	for _, p := range g.prefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	for i := 0; i < len(line); i++ {
		for _, t := range g.first[lowerASCII(line[i])] {
			if len(line)-i >= len(t) && lowerASCII(line[i+1]) == t[1] && strings.EqualFold(line[i:i+len(t)], t) {
				return true
			}
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// candidates returns the rules (indexes, in table order) whose hint line
// holds; none for a line the gate stops.
func (rs *ruleSet) candidates(line string) []int {
	if !rs.gate.hit(line) {
		return nil
	}
	var out []int
	for i := range rs.rules {
		for _, h := range rs.rules[i].hints {
			if strings.Contains(line, h) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// match returns the first of the rules cands (indexes, in table order)
// matching line (already stripped of its CI prefix and colours), given
// the previous and the next non-blank lines; nil when none does.
func (rs *ruleSet) match(line, prev, next string, cands []int) *compiledRule {
	for _, i := range cands {
		r := &rs.rules[i]
		if !r.re.MatchString(line) {
			continue
		}
		if r.unless != nil && r.unless.MatchString(line) {
			continue
		}
		if r.next != nil && !r.next.MatchString(next) || r.prev != nil && !r.prev.MatchString(prev) {
			continue
		}
		return r
	}
	return nil
}
