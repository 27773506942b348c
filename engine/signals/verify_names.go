package signals

import (
	"regexp"
	"strings"
)

// names are the patterns of what a summary may name instead of quoting an
// error's key line (docs/signals.md#verification): its failing test, its
// error code, its file and line, or its message without the location
// after it.
type names struct {
	code, location, tail *regexp.Regexp
}

func newNames() *names {
	return &names{
		// TS2322, E0308, SA5011, F401, ERR_PNPM_NO_SCRIPT, and the errno
		// names node, Python and Go print (ENOENT, ECONNREFUSED).
		code: regexp.MustCompile(`\b(?:TS\d{4,5}|[A-Z]{1,3}\d{3,5}|ERR_[A-Z0-9_]{3,}|E(?:NOENT|ACCES|PERM|EXIST|NOTDIR|ISDIR|MFILE|NOSPC|PIPE|ADDRINUSE|ADDRNOTAVAIL|CONNREFUSED|CONNRESET|CONNABORTED|HOSTUNREACH|NETUNREACH|TIMEDOUT|AI_AGAIN|NOTFOUND))\b`),
		// file.ext:line or file.ext(line, of a path.
		location: regexp.MustCompile(`([\w.@+-]+\.[A-Za-z]\w{0,5})(?::|\()(\d+)`),
		// A trailing " from '/path'", " in "/path"", " at /path:3": where
		// the error happened, not what it is.
		tail: regexp.MustCompile(`\s+(?:from|in|at)\s+(?:'[^']*'|"[^"]*"|\S*[/\\]\S*)\s*$`),
	}
}

// keptByName reports an error the summary names by what identifies it,
// though not by its key line word for word (sum is whitespace-folded):
//
//   - a test failing in it (`--- FAIL: TestParse` → "TestParse", its
//     parent for a subtest; pytest's `tests/x.py::test_add` →
//     "test_add"), as a whole word;
//   - an error code of its key line (TS2322, E0308, SA5011,
//     ERR_PNPM_NO_SCRIPT, ECONNREFUSED), as a whole word;
//   - the file and line its key line points at ("parse_test.go:42");
//   - its key line without the location after the message (`Cannot find
//     module '@x/core'` for `error: Cannot find module '@x/core' from
//     '/a/b.ts'`), at least minSentence characters of it.
func (n *names) keptByName(v *verifier, s Signal, key, sum string) bool {
	_, failing := v.m.testNames().find(s.Text)
	for _, t := range failing {
		if t = testWord(t); len(t) > 3 && containsWord(sum, t) {
			return true
		}
	}
	kl := v.keyLineOf(s)
	for _, c := range n.code.FindAllString(kl, -1) {
		if containsWord(sum, c) {
			return true
		}
	}
	for _, m := range n.location.FindAllStringSubmatch(kl, -1) {
		if strings.Contains(sum, m[1]+":"+m[2]) || strings.Contains(sum, m[1]+"("+m[2]) {
			return true
		}
	}
	if loc := n.tail.FindStringIndex(key); loc != nil && loc[0] >= minSentence && strings.Contains(sum, trimTail(key[:loc[0]])) {
		return true
	}
	return false
}

// testWord is the name a summary uses for a test: a go test's top-level
// name (TestParse of TestParse/empty), pytest's function (test_add of
// tests/x.py::test_add), else the name as reported.
func testWord(t string) string {
	if i := strings.LastIndex(t, "::"); i >= 0 {
		t = t[i+2:]
	}
	if strings.HasPrefix(t, "Test") {
		t, _, _ = strings.Cut(t, "/")
	}
	return strings.TrimSpace(t)
}
