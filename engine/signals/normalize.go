package signals

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
)

// normalizer holds the compiled rewrite rules of Normalize (rules) and of
// the stop-signal deduplication (dedupRules), each applied in order. It
// is compiled once, on first use (newNormalizer), and never changed after:
// a regexp.Regexp is safe for concurrent use, and the package keeps no
// mutable state.
type normalizer struct {
	rules, dedupRules []rewrite
}

// rewrite replaces every match of re with repl, or with fn(match) when fn
// is set. need, when set, is a literal test every string the pattern can
// match passes (it holds a digit, a quote, "/tmp"…): a string that fails
// it skips the pattern, which is where most of the time went
// (BenchmarkExtract).
type rewrite struct {
	re   *regexp.Regexp
	repl string
	fn   func(string) string
	need func(string) bool
}

// Literal prefilters of the rewrites (rewrite.need).
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }
func hasQuote(s string) bool { return strings.ContainsAny(s, "'\"`") }
func hasSpaceRun(s string) bool {
	return strings.ContainsAny(s, "\t\n\r\v\f") || strings.Contains(s, "  ") || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ")
}
func hasFold(s string, words ...string) bool {
	low := strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// newNormalizer returns the normalizer, compiled on the first call.
func newNormalizer() *normalizer { return sharedNormalizer() }

var sharedNormalizer = sync.OnceValue(buildNormalizer)

func buildNormalizer() *normalizer {
	r := func(expr, repl string, need func(string) bool) rewrite {
		return rewrite{re: regexp.MustCompile(expr), repl: repl, need: need}
	}
	digitAnd := func(lits string) func(string) bool {
		return func(s string) bool { return hasDigit(s) && strings.ContainsAny(s, lits) }
	}
	stamps := []rewrite{
		// ISO / RFC 3339 timestamps, then bare dates and clock times.
		r(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?`, "*", digitAnd("-")),
		r(`\b\d{4}-\d{2}-\d{2}\b`, "*", digitAnd("-")),
		r(`\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b`, "*", digitAnd(":")),
	}
	ids := []rewrite{
		// UUIDs, hex addresses, ULIDs.
		r(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`, "*", digitAnd("-")),
		r(`\b0x[0-9a-fA-F]+\b`, "*", func(s string) bool { return strings.Contains(s, "0x") }),
		r(`\b[0-9A-HJKMNP-TV-Z]{26}\b`, "*", func(s string) bool { return len(s) >= 26 && hasDigit(s) }),
		// Hex ids of 7+ characters with at least one digit (git shas,
		// digests, cache keys); plain words and plain numbers stay.
		{re: regexp.MustCompile(`\b[0-9a-fA-F]{7,}\b`), need: hasDigit, fn: func(m string) string {
			if strings.ContainsAny(m, "0123456789") && strings.ContainsAny(m, "abcdefABCDEF") {
				return "*"
			}
			return m
		}},
		// IPv4 addresses keep their port: "ECONNREFUSED 127.0.0.1:5432" →
		// "ECONNREFUSED *:5432" (docs/formats.md#error-normalisation).
		r(`\b\d{1,3}(\.\d{1,3}){3}\b`, "*", digitAnd(".")),
		// JS stack locations: " at …" to the end of the line when it names a
		// file:line location.
		r(`(?m)\bat [^\n]*?:\d+[^\n]*$`, "at *", func(s string) bool { return hasDigit(s) && strings.Contains(s, "at ") }),
		// file:line[:col], file(line,col), "line N".
		r(`([\w./@-]+\.[A-Za-z]\w*):\d+(:\d+)?`, "$1:*", digitAnd(":")),
		r(`([\w./@-]+\.[A-Za-z]\w*)\(\d+(,\d+)?\)`, "$1(*)", digitAnd("(")),
		r(`(?i)\bline \d+`, "line *", func(s string) bool { return hasDigit(s) && hasFold(s, "line ") }),
	}
	tail := []rewrite{
		// Whitespace runs, then runs of wildcards.
		r(`\s+`, " ", hasSpaceRun),
		r(`\*( ?\*)+`, "*", func(s string) bool { return strings.Contains(s, "*") }),
	}
	n := &normalizer{}
	n.rules = append(append(append(n.rules, stamps...), ids...),
		// Quoted dynamic values: 'x', "x", `x`.
		r(`'[^'\n]*'|"[^"\n]*"|`+"`[^`\\n]*`", "*", hasQuote))
	n.rules = append(n.rules, tail...)
	n.dedupRules = append(n.dedupRules, stamps...)
	n.dedupRules = append(n.dedupRules,
		// Temporary paths (/tmp/tmp-2101-KUbIvUViN7hm/pull.patch, macOS
		// /var/folders/…/T/…, Windows …\AppData\Local\Temp\…) up to the
		// next space or quote.
		r(`(?:/private)?/(?:tmp|var/folders)/[^\s'"`+"`"+`)]*`, "/tmp/*", func(s string) bool {
			return strings.Contains(s, "/tmp/") || strings.Contains(s, "/var/folders/")
		}),
		r(`(?i)[a-z]:\\[^\s'"]*\\Temp\\[^\s'"]*`, "/tmp/*", func(s string) bool { return hasFold(s, "\\temp\\") }),
		// Durations: 12ms, 0.53s, 1m27s, (89.75s), 3 seconds.
		r(`\b(?:\d+h)?(?:\d+m)?\d+(?:\.\d+)?(?:ns|µs|us|ms|s)\b`, "*", hasDigit),
		r(`\b\d+(?:\.\d+)? ?(?:seconds?|secs?|minutes?|mins?)\b`, "*", func(s string) bool { return hasDigit(s) && hasFold(s, "sec", "min") }),
		// Process ids: "pid 4242", "(node:2101)", "process 4242".
		r(`(?i)\b(pid|process)[ :=#]?\d+\b`, "$1 *", func(s string) bool { return hasDigit(s) && hasFold(s, "pid", "process") }),
		r(`\((node|bun|deno):\d+\)`, "($1:*)", func(s string) bool {
			return strings.Contains(s, "(node:") || strings.Contains(s, "(bun:") || strings.Contains(s, "(deno:")
		}),
	)
	n.dedupRules = append(append(n.dedupRules, ids...), tail...)
	return n
}

// apply runs the Normalize rules in order and trims the result.
func (n *normalizer) apply(s string) string { return applyRewrites(n.rules, s) }

// dedup is the normalisation two occurrences of one stop signal share:
// what varies from run to run is replaced by `*` (timestamps, dates and
// clock times, temporary paths, durations, process ids, UUIDs, ULIDs,
// hex addresses and ids, IPv4 addresses, JS stack locations, line and
// column numbers), and what names the thing stays: quoted values
// (`Cannot find module 'react'` and `… 'left-pad'` are two errors),
// paths in the project, identifiers, exit codes and ports. Whitespace
// runs become one space.
func (n *normalizer) dedup(s string) string { return applyRewrites(n.dedupRules, s) }

func applyRewrites(rules []rewrite, s string) string {
	for _, rl := range rules {
		if rl.need != nil && !rl.need(s) {
			continue
		}
		if rl.fn != nil {
			s = rl.re.ReplaceAllStringFunc(s, rl.fn)
			continue
		}
		s = rl.re.ReplaceAllString(s, rl.repl)
	}
	return strings.TrimSpace(s)
}

// Normalize returns the error text with the parts that change between two
// occurrences of the same error replaced by `*`, following fire-flow's
// normalize (docs/formats.md#error-normalisation): timestamps and dates, clock times, UUIDs,
// ULIDs, hex addresses and hex ids of 7+ characters, IPv4 addresses (the
// port is kept), JS stack locations (" at …" to the end of a line that
// names a file:line),
// line/column numbers after a file name (`a.ts:12:5`, `a.ts(22,27)`,
// "line 12"), and quoted values. Whitespace runs become one space and runs
// of `*` collapse. It is the normalisation of the circuit breaker's spin
// count (Evaluate, IterationRecord.ErrorHash); stop signals are
// deduplicated by a stricter one that keeps quoted values (see Signal.Hash).
// Examples:
//
//	TypeError: Cannot read property 'x' of undefined at f (a.js:3:9)
//	  → TypeError: Cannot read property * of undefined at *
//	connect ECONNREFUSED 127.0.0.1:5432 → connect ECONNREFUSED *:5432
func Normalize(text string) string {
	return newNormalizer().apply(text)
}

// Hash is the 16-hex-digit prefix of the SHA-256 of Normalize(text): two
// occurrences of the same error hash the same.
func Hash(text string) string {
	return hashNormalized(Normalize(text))
}

func hashNormalized(norm string) string {
	sum := sha256.Sum256([]byte(norm))
	return hex.EncodeToString(sum[:8])
}
