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
	errorWord *regexp.Regexp
	exitCode  *regexp.Regexp
	toolTag   *regexp.Regexp
	severity  *regexp.Regexp
	userSaid  *regexp.Regexp
	bracket   *regexp.Regexp
	marker    *regexp.Regexp
}

func newVerifier() *verifier {
	return &verifier{
		errorWord: regexp.MustCompile(`(?i)\b(errors?|fail(ed|ure|s)?|fatal|exception|panic|denied|refused|cannot|can't|unable|unknown|not found|invalid|does not exist|no such|traceback)\b`),
		exitCode:  regexp.MustCompile(`^Exit code -?\d+$`),
		toolTag:   regexp.MustCompile(`</?tool_use_error>`),
		severity:  regexp.MustCompile(`(?i)^(error|fatal|panic|fail)(\[[^\]]*\])?:\s*`),
		userSaid:  regexp.MustCompile(`(?is)the user said:\s*\n(.*)$`),
		marker:    newMatchers().errorLine,
		bracket:   regexp.MustCompile(`^\[[^\]]*\]\s*`),
	}
}

// Verify returns the signals of sigs that summary lost, in the order of
// sigs. Matching happens after collapsing every whitespace run to one
// space and folding typographic quotes (‘ ’ “ ” → ' "), on both sides:
//
//   - error: the key line must appear verbatim. The key line is the first
//     line of the error (after dropping `<tool_use_error>` tags, blank
//     lines and `Exit code N` lines) that starts with an error marker (as
//     in extraction: `error:`, `Error:`, `fatal:`, `panic:`, `FAIL:`,
//     `Traceback …`), else the first that contains an error word (error,
//     failed, fatal, exception, panic, denied, refused, cannot, unknown,
//     not found, invalid, does not exist, no such, traceback), else the
//     first remaining line; one leading severity tag (`error:`, `fatal:`,
//     `panic:`, `fail:`, with an optional `[code]`), everything after its
//     first sentence (". " then a capital, when the first sentence has at
//     least 12 characters) and trailing punctuation and symbols are dropped
//     from it. So a summary may wrap
//     the error in backticks or quotes and drop a final period, but must
//     keep every other character: `Cannot find module '@x/core'` does not
//     keep `error: Cannot find module '@x/core' from '/a/b.ts'`, and a
//     paraphrase ("some issues were encountered") keeps nothing.
//   - blocked: the ID (BLOCKER-005) as a whole word, else the text.
//   - failed_approach: the key phrase, case-insensitively: the text
//     without a leading `[…]` tag (`[Iteration 1-3]`) and trailing
//     punctuation.
//   - circuit_breaker: the text, or the phrase "circuit breaker" together
//     with the state word in ID (TRIPPED), case-insensitively.
//   - stop: the text (for a Claude Code tool rejection, what the user said
//     after "the user said:"), trailing punctuation and symbols dropped.
//
// A signal whose key is empty after this is never reported lost.
func Verify(summary string, sigs []Signal) (lost []Signal) {
	v := newVerifier()
	sum := fold(summary)
	lower := strings.ToLower(sum)
	for _, s := range sigs {
		if !v.kept(s, sum, lower) {
			lost = append(lost, s)
		}
	}
	return lost
}

// LostIndexes is Verify for signals known in several forms: forms[k][i]
// is the k-th form of signal i (all forms have the same length, at least
// one form is given), for example the signals as extracted and as redacted
// (a summary written from redacted context holds the placeholder, one
// written from the raw conversation the secret). It returns, in order, the
// indexes i for which the summary keeps no form of signal i. Forms of
// differing lengths are checked up to the shortest.
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
// whitespace-folded; "" when s has nothing to look for.
func Key(s Signal) string {
	return newVerifier().key(s)
}

func (v *verifier) key(s Signal) string {
	switch s.Kind {
	case KindError:
		return v.errorKey(s.Text)
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

func (v *verifier) errorKey(text string) string {
	var cand []string
	for _, l := range strings.Split(v.toolTag.ReplaceAllString(text, ""), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || v.exitCode.MatchString(l) {
			continue
		}
		cand = append(cand, l)
	}
	if len(cand) == 0 {
		return ""
	}
	k := ""
	for _, l := range cand {
		if v.marker.MatchString(l) {
			k = l
			break
		}
	}
	if k == "" {
		k = cand[0]
		for _, l := range cand {
			if v.errorWord.MatchString(l) {
				k = l
				break
			}
		}
	}
	k = fold(k)
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

func (v *verifier) kept(s Signal, sum, lower string) bool {
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
	return key == "" || strings.Contains(sum, key)
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
