package signals

import (
	"regexp"
	"strings"
	"unicode"
)

// minSentence is the shortest first sentence Verify accepts as an error's
// key; shorter ones ("e.g. …") keep the whole key line.
const minSentence = 12

// verifier holds the compiled patterns of Verify.
type verifier struct {
	severity *regexp.Regexp
	userSaid *regexp.Regexp
	bracket  *regexp.Regexp
	toolTag  *regexp.Regexp
	exitNum  *regexp.Regexp
	m        *matchers
	names    *names
}

func newVerifier() *verifier {
	return &verifier{
		severity: regexp.MustCompile(`(?i)^(error|fatal|panic|fail)(\[[^\]]*\])?:\s*`),
		userSaid: regexp.MustCompile(`(?is)the user said:\s*\n(.*)$`),
		bracket:  regexp.MustCompile(`^\[[^\]]*\]\s*`),
		toolTag:  regexp.MustCompile(`</?tool_use_error>`),
		exitNum:  regexp.MustCompile(`(?i)\bexit(?:ed)?(?: with)?(?: code| status)?:?\s*(-?\d+)\b`),
		m:        newMatchers(),
		names:    newNames(),
	}
}

// Verify returns the signals of sigs that summary lost, in the order of
// sigs. Matching happens after collapsing every whitespace run to one
// space and folding typographic quotes (‘ ’ “ ” → ' "), on both sides:
//
//   - error: its key line must appear verbatim: Signal.KeyLine, else the
//     key line of its text (KeyLine: the failure-line table, else the
//     first line naming an error that is not a passing test, a warning
//     or a usage banner), never simply the first line of the output. One
//     leading severity tag (`error:`, `fatal:`, `panic:`, `fail:`, with
//     an optional `[code]`), `<tool_use_error>` tags, everything after
//     its first sentence (". " then a capital, when the first sentence
//     has at least 12 characters) and trailing punctuation and symbols
//     are dropped from it. So a summary may wrap the error in backticks
//     or quotes and drop a final period, but must keep every other
//     character: `Cannot find module '@x/core'` does not keep `error:
//     Cannot find module '@x/core' from '/a/b.ts'`, and a paraphrase
//     ("some issues were encountered") keeps nothing. A bare exit code
//     (key line "Exit code N") is kept when the summary names its command
//     (verbatim, or without its output filters: commandIdentity) and the
//     exit code ("exit code 1", "exited with 1", "exit status 1"); one
//     without a command is never reported lost.
//   - blocked: the ID (BLOCKER-005) as a whole word, else the text.
//   - failed_approach: the key phrase, case-insensitively: the text
//     without a leading `[…]` tag (`[Iteration 1-3]`) and trailing
//     punctuation.
//   - circuit_breaker: the text, or the phrase "circuit breaker" together
//     with the state word in ID (TRIPPED), case-insensitively.
//   - stop: the text (for a Claude Code tool rejection, what the user said
//     after "the user said:"), trailing punctuation and symbols dropped.
//
// An error is also kept when the summary names it by what identifies it
// (keptByName: its failing test, its error code, its file and line, or its
// message without the location after it), for a summary that writes "the
// TestParse failure" has not lost `--- FAIL: TestParse`. A signal whose
// key is empty after this is never reported lost, nor is a harmless probe
// (Probe). A resolved signal (ResolvedBy) is checked as any other: a
// summary that drops an approach that failed before it was fixed has lost
// it (docs/signals.md#verification).
func Verify(summary string, sigs []Signal) (lost []Signal) {
	for _, i := range LostIndexes(summary, sigs) {
		lost = append(lost, sigs[i])
	}
	return lost
}

// LostIndexes is Verify for signals known in several forms: forms[k][i]
// is the k-th form of signal i (all forms have the same length, at least
// one form is given), for example the signals as extracted and as redacted
// (a summary written from redacted context holds the placeholder, one
// written from the raw conversation the secret). It returns, in order, the
// indexes i for which the summary keeps no form of signal i, leaving out
// harmless probes (as Verify). Forms of differing lengths are checked up
// to the shortest.
func LostIndexes(summary string, forms ...[]Signal) []int {
	if len(forms) == 0 {
		return nil
	}
	n := len(forms[0])
	for _, f := range forms[1:] {
		n = min(n, len(f))
	}
	v := newVerifier()
	sum := fold(summary)
	lower := strings.ToLower(sum)
	var lost []int
	for i := range n {
		if forms[0][i].Probe {
			continue
		}
		kept := false
		for _, f := range forms {
			if v.kept(f[i], sum, lower) {
				kept = true
				break
			}
		}
		if !kept {
			lost = append(lost, i)
		}
	}
	return lost
}

// fold collapses whitespace runs and folds typographic quotes.
func fold(s string) string {
	s = strings.NewReplacer("‘", "'", "’", "'", "“", `"`, "”", `"`).Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// trimTail drops trailing punctuation, symbols and spaces.
func trimTail(s string) string {
	return strings.TrimRightFunc(s, func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r) || r == '\ufe0f'
	})
}

// Key returns the text Verify looks for in a summary for s (see Verify),
// whitespace-folded; for a bare exit code, its command and "exit code N";
// "" when s has nothing to look for.
func Key(s Signal) string {
	v := newVerifier()
	if cmd, code, ok := v.bareExit(s); ok {
		return fold(cmd) + " exit code " + code
	}
	return v.key(s)
}

// KeyLine returns the line of an error's text a person would quote: the
// key of the first error the failure-line table finds in it (the
// exception line ending a Python traceback, tsc's or cargo's first error
// line, a failing test's assertion or `--- FAIL` line; see the package
// documentation), else the first line naming an error that is not a
// passing test, a warning or a usage banner, else "Exit code N", else the
// first line. Extract sets Signal.KeyLine this way from tool output;
// Verify uses KeyLine for signals without one (older blocks, planning
// files).
func KeyLine(text string) string {
	return newMatchers().keyLine(text)
}

func (m *matchers) keyLine(text string) string {
	rules, heur := m.output()
	sc := rules.scan(text, m.normalizer())
	if len(sc.findings) > 0 {
		return sc.findings[0].key
	}
	return heur.heuristicKey(sc.stripped)
}

func (v *verifier) key(s Signal) string {
	switch s.Kind {
	case KindError:
		return v.errorKey(s)
	case KindStop:
		t := s.Text
		if m := v.userSaid.FindStringSubmatch(t); m != nil {
			t = m[1]
		}
		return trimTail(fold(t))
	case KindFailedApproach:
		return trimTail(fold(v.bracket.ReplaceAllString(strings.TrimSpace(s.Text), "")))
	default:
		return trimTail(fold(s.Text))
	}
}

// keyLineOf is s.KeyLine, else the key line of its text.
func (v *verifier) keyLineOf(s Signal) string {
	if s.KeyLine != "" {
		return s.KeyLine
	}
	return v.m.keyLine(s.Text)
}

// bareExit reports an error whose key line is a bare exit code, with its
// command and the code; ok is false otherwise or without a command.
func (v *verifier) bareExit(s Signal) (cmd, code string, ok bool) {
	if s.Kind != KindError || strings.TrimSpace(s.Command) == "" {
		return "", "", false
	}
	kl := v.keyLineOf(s)
	if !isBareExit(kl) {
		return "", "", false
	}
	return s.Command, strings.TrimPrefix(kl, "Exit code "), true
}

func (v *verifier) errorKey(s Signal) string {
	k := fold(strings.TrimSpace(v.toolTag.ReplaceAllString(v.keyLineOf(s), "")))
	if k == "" || isBareExit(k) {
		return ""
	}
	if stripped := v.severity.ReplaceAllString(k, ""); strings.TrimSpace(stripped) != "" {
		k = stripped
	}
	// Only the first sentence must survive: "File has not been read yet.
	// Read it first before writing to it." is kept by a summary that says
	// "File has not been read yet".
	if i := strings.Index(k, ". "); i >= minSentence && i+2 < len(k) && unicode.IsUpper(rune(k[i+2])) {
		k = k[:i]
	}
	return trimTail(k)
}

// keptExit reports a bare exit code the summary names with its command.
func (v *verifier) keptExit(cmd, code, sum string) bool {
	if !strings.Contains(sum, fold(cmd)) && !strings.Contains(sum, fold(commandIdentity(cmd))) {
		return false
	}
	for _, m := range v.exitNum.FindAllStringSubmatch(sum, -1) {
		if m[1] == code {
			return true
		}
	}
	return false
}

func (v *verifier) kept(s Signal, sum, lower string) bool {
	if cmd, code, ok := v.bareExit(s); ok {
		return v.keptExit(cmd, code, sum) || v.names.keptByName(v, s, "", sum)
	}
	key := v.key(s)
	switch s.Kind {
	case KindBlocked:
		if s.ID != "" && containsWord(sum, s.ID) {
			return true
		}
	case KindFailedApproach:
		return key == "" || strings.Contains(lower, strings.ToLower(key))
	case KindCircuitBreaker:
		if s.ID != "" && strings.Contains(lower, "circuit breaker") && containsWord(lower, strings.ToLower(s.ID)) {
			return true
		}
		return key == "" || strings.Contains(lower, strings.ToLower(key))
	}
	if key == "" || strings.Contains(sum, key) {
		return true
	}
	return s.Kind == KindError && v.names.keptByName(v, s, key, sum)
}

// containsWord reports whether w occurs in s not adjacent to a letter,
// digit, '-' or '_'.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(w)
		if (a == 0 || !wordByte(s[a-1])) && (b == len(s) || !wordByte(s[b])) {
			return true
		}
		i = a + 1
	}
}

func wordByte(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ReinjectBlock renders the block to re-inject after a summary that lost
// signals: the canonical block (RenderBlock) with trigger "compaction" and
// no timestamp, so the same lost signals always give the same bytes. It
// returns "" when lost is empty.
func ReinjectBlock(lost []Signal) string {
	if len(lost) == 0 {
		return ""
	}
	return RenderBlock(Block{Trigger: TriggerCompaction, Signals: lost})
}
