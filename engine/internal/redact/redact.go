// Package redact replaces secrets in text headed into a prompt with stable
// placeholders.
//
// A secret becomes ⟨secret:KIND:HASH8⟩, where KIND is the id of the rule
// that found it (gitleaks ids where the rule is gitleaks', see rules.go) and
// HASH8 the first 8 hex digits of HMAC-SHA256(key, secret) with the
// project's key (recite keeps it in .planning/.recite/redact.key, 32 random
// bytes made on first use, mode 0600, ignored by git). The same secret
// always gives the same bytes in one project, so prompt caching stays
// stable, and two different secrets stay distinguishable; without the key
// a placeholder cannot be checked against a guess offline (an unkeyed
// hash of "Summer2024!" would confirm a weak password with one sha256sum).
// Only the secret itself is replaced: "password = hunter22" becomes
// "password = ⟨secret:password:…⟩".
//
// Detection is gitleaks' (regular expression, then Shannon-entropy floor,
// then the rule's allowlists, stopwords and line allowlist, then gitleaks'
// global allowlist and stopwords) with a keyword prefilter; recite adds password
// assignments (also with the value on the next line), URL credentials
// (also with an empty user, redis://:pw@host), Authorization headers,
// bearer tokens and Basic credentials outside curl commands, Azure
// connection-string keys, the AWS secret key and every value of a .env
// file. A token ends at any character that cannot continue it, not only
// at gitleaks' quote, space or ";" (see tokenEnd in rules.go).
package redact

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Finding is one redacted secret.
type Finding struct {
	Kind        string // rule id, e.g. "github-pat", "private-key"
	Line        int    // 1-based line of the secret's first byte in the input
	Placeholder string // what replaced it: ⟨secret:KIND:HASH8⟩
}

type rule struct {
	id        string
	group     int
	entropy   float64
	keywords  []string
	stopwords []string
	paths     *regexp.Regexp
	whole     bool
	nextLine  bool
	check     func(string) bool
	global    func() []*regexp.Regexp // globalAllow, compiled once per Redactor

	// The rule's regular expressions are compiled on its first use (a
	// keyword of it in the text): most texts name no rule's keyword, and
	// compiling all of them cost a short-lived process (a build, a hook
	// event) more than the scan itself.
	spec       *ruleSpec
	once       sync.Once
	re         *regexp.Regexp
	allow      []*regexp.Regexp
	allowMatch []*regexp.Regexp
	allowLine  []*regexp.Regexp
}

// compile compiles the rule's expressions once. They are this package's
// constants: TestRulesCompile compiles every one, so MustCompile cannot
// fail outside a broken build.
func (ru *rule) compile() {
	ru.once.Do(func() {
		ru.re = regexp.MustCompile(ru.spec.regex)
		ru.allow = mustCompileAll(ru.spec.allow)
		ru.allowMatch = mustCompileAll(ru.spec.allowMatch)
		ru.allowLine = mustCompileAll(ru.spec.allowLine)
	})
}

func mustCompileAll(srcs []string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, src := range srcs {
		out = append(out, regexp.MustCompile(src))
	}
	return out
}

// Redactor holds the rules and the placeholder key; it is safe for
// concurrent use.
type Redactor struct {
	rules []*rule
	key   []byte
}

// KeySize is the size in bytes of a key made by NewKey.
const KeySize = 32

// MinKeySize is the smallest key New accepts, in bytes.
const MinKeySize = 16

// NewKey returns KeySize random bytes from crypto/rand, a fresh
// placeholder key.
func NewKey() ([]byte, error) {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("redact: new key: %w", err)
	}
	return k, nil
}

// New returns the rule set; placeholders are keyed with key (at least
// MinKeySize bytes, see Placeholder). The rules' path expressions are
// compiled here, the others on a rule's first use. It returns an error for
// a short key, or if a path expression does not compile, which is a bug in
// this package.
func New(key []byte) (*Redactor, error) {
	return newWith(key, ruleSpecs())
}

// newWith is New with the rules specs (the tests try one rule alone).
func newWith(key []byte, specs []ruleSpec) (*Redactor, error) {
	if len(key) < MinKeySize {
		return nil, errors.New("redact: key shorter than 16 bytes")
	}
	r := &Redactor{rules: make([]*rule, 0, len(specs)), key: append([]byte(nil), key...)}
	global := sync.OnceValue(func() []*regexp.Regexp { return mustCompileAll(globalAllow) })
	for i := range specs {
		s := &specs[i]
		ru := &rule{id: s.id, group: s.group, entropy: s.entropy, keywords: s.keywords, whole: s.whole, nextLine: s.nextLine, check: s.check, global: global,
			stopwords: append(append([]string(nil), s.stopwords...), globalStopwords...), spec: s}
		if s.paths != "" {
			re, err := regexp.Compile(s.paths)
			if err != nil {
				return nil, fmt.Errorf("redact: rule %s: %w", s.id, err)
			}
			ru.paths = re
		}
		r.rules = append(r.rules, ru)
	}
	return r, nil
}

// Placeholder returns the replacement for secret found by rule kind:
// ⟨secret:KIND:HASH8⟩ with HASH8 the first 4 bytes, in hex, of
// HMAC-SHA256(key, secret).
func Placeholder(key []byte, kind, secret string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(secret))
	return "⟨secret:" + kind + ":" + hex.EncodeToString(m.Sum(nil)[:4]) + "⟩"
}

type span struct {
	start, end int
	kind       string
}

// Redact returns text with every secret replaced by its placeholder, and
// the findings in text order. path (slash path relative to the project, may
// be "") selects path-specific rules such as .env values. Redact never
// fails: text that is not UTF-8 is scanned as bytes.
func (r *Redactor) Redact(path, text string) (string, []Finding) {
	if text == "" {
		return text, nil
	}
	lower := asciiLower(text)
	lines := lineStarts(text)
	var spans []span
	for _, ru := range r.rules {
		if ru.paths != nil && !ru.paths.MatchString(path) {
			continue
		}
		if ru.id == "env-value" && isEnvExample(path) {
			continue
		}
		if ru.whole {
			if hasKeyword(lower, ru.keywords) {
				spans = ru.find(text, 0, text, spans)
			}
			continue
		}
		for _, ln := range keywordLines(lower, lines, ru.keywords) {
			start, end := lineBounds(text, lines, ln)
			if ru.nextLine {
				// With the lines around it: the keyword may name the
				// key or be part of the value.
				if ln > 0 {
					start, _ = lineBounds(text, lines, ln-1)
				}
				if ln+1 < len(lines) {
					_, end = lineBounds(text, lines, ln+1)
				}
			}
			spans = ru.find(text, start, text[start:end], spans)
		}
	}
	if len(spans) == 0 {
		return text, nil
	}
	// Earliest first; at equal starts the longest; overlapping later spans
	// lose (rules are listed specific-first, and sort.SliceStable keeps
	// that order on full ties).
	sort.SliceStable(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var b strings.Builder
	b.Grow(len(text))
	var findings []Finding
	pos := 0
	for _, s := range spans {
		if s.start < pos {
			continue
		}
		line := sort.Search(len(lines), func(i int) bool { return lines[i] > s.start })
		ph := Placeholder(r.key, s.kind, text[s.start:s.end])
		b.WriteString(text[pos:s.start])
		b.WriteString(ph)
		pos = s.end
		findings = append(findings, Finding{Kind: s.kind, Line: line, Placeholder: ph})
	}
	b.WriteString(text[pos:])
	return b.String(), findings
}

// find appends the accepted matches of ru in sub, which starts at byte off
// of text.
func (ru *rule) find(text string, off int, sub string, spans []span) []span {
	ru.compile()
	for _, m := range ru.re.FindAllStringSubmatchIndex(sub, -1) {
		start, end := m[0], m[1]
		if g := 2 * ru.group; g > 0 {
			if g+1 >= len(m) || m[g] < 0 {
				continue
			}
			start, end = m[g], m[g+1]
		} else {
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] >= 0 && m[g+1] > m[g] {
					start, end = m[g], m[g+1]
					break
				}
			}
		}
		secret := sub[start:end]
		if secret == "" || strings.Contains(secret, "⟨secret:") || inPlaceholder(text, off+start) {
			continue
		}
		if ru.entropy > 0 && shannon(secret) < ru.entropy {
			continue
		}
		if ru.check != nil && !ru.check(secret) {
			continue
		}
		if anyMatch(ru.allow, secret) || anyMatch(ru.global(), secret) || containsStopword(secret, ru.stopwords) {
			continue
		}
		if len(ru.allowLine) > 0 {
			ls := strings.LastIndexByte(text[:off+start], '\n') + 1
			le := strings.IndexByte(text[off+end:], '\n')
			if le < 0 {
				le = len(text)
			} else {
				le += off + end
			}
			if anyMatch(ru.allowLine, text[ls:le]) {
				continue
			}
		}
		if len(ru.allowMatch) > 0 {
			// gitleaks' regex starts with [\w.-]{0,50}?: put the
			// identifier before the keyword back into the match.
			ms := off + m[0]
			for k := 0; k < 50 && ms > 0 && isIdent(text[ms-1]); k++ {
				ms--
			}
			if anyMatch(ru.allowMatch, text[ms:off+m[1]]) {
				continue
			}
		}
		spans = append(spans, span{off + start, off + end, ru.id})
	}
	return spans
}

// inPlaceholder reports whether byte pos of text lies inside a placeholder
// of an earlier pass ("password: ⟨secret:password:1a2b3c4d⟩" must not
// yield the secret "1a2b3c4d⟩"), so Redact is idempotent.
func inPlaceholder(text string, pos int) bool {
	lo := max(0, pos-maxPlaceholder)
	i := strings.LastIndex(text[lo:pos], "⟨secret:")
	if i < 0 {
		return false
	}
	j := strings.Index(text[lo+i:], "⟩")
	return j >= 0 && lo+i+j >= pos
}

// maxPlaceholder bounds the length of a placeholder in bytes (rule ids
// are short).
const maxPlaceholder = 96

// containsStopword reports whether the lowercased secret contains one of
// words (gitleaks Allowlist.ContainsStopWord).
func containsStopword(secret string, words []string) bool {
	if len(words) == 0 {
		return false
	}
	lower := strings.ToLower(secret)
	for _, w := range words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// asciiLower lowers A-Z only, so byte offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// lineStarts returns the byte offset of every line's first byte; line n
// (1-based) starts at starts[n-1].
func lineStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineBounds returns the byte range of line index ln (0-based), without
// its newline.
func lineBounds(s string, starts []int, ln int) (int, int) {
	end := len(s)
	if ln+1 < len(starts) {
		end = starts[ln+1] - 1
	}
	return starts[ln], end
}

// keywordLines returns, in order, the 0-based indexes of the lines of lower
// that contain one of keywords.
func keywordLines(lower string, starts []int, keywords []string) []int {
	var hits []int
	for _, k := range keywords {
		for from := 0; ; {
			i := strings.Index(lower[from:], k)
			if i < 0 {
				break
			}
			ln := sort.Search(len(starts), func(j int) bool { return starts[j] > from+i }) - 1
			hits = append(hits, ln)
			// Skip to the next line: one hit per line is enough.
			if ln+1 >= len(starts) {
				break
			}
			from = starts[ln+1]
		}
	}
	sort.Ints(hits)
	return slices.Compact(hits)
}

func isEnvExample(path string) bool {
	base := path[strings.LastIndexByte(path, '/')+1:]
	for _, suffix := range []string{".example", ".sample", ".template", ".dist", ".defaults"} {
		if strings.HasSuffix(base, suffix) {
			return true
		}
	}
	return false
}

func hasKeyword(lower string, keywords []string) bool {
	if len(keywords) == 0 {
		return true
	}
	for _, k := range keywords {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

func anyMatch(res []*regexp.Regexp, s string) bool {
	for _, re := range res {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// shannon is the Shannon entropy of s in bits per byte, as gitleaks
// computes it.
func shannon(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// rulesRevision is bumped whenever a rule's behaviour changes in a way its
// expressions and lists do not show (a check function, tokenEnd, the order
// of passes), so Fingerprint changes with it.
const rulesRevision = 1

// Fingerprint identifies the rule set's behaviour: the SHA-256 of
// rulesRevision and every rule's id, expressions, entropy floor, keywords,
// allowlists, stopwords and flags, and gitleaks' global allowlist and
// stopwords. A verdict kept across processes ("this text holds no secret")
// is valid only under the fingerprint it was made with. The key is not
// part of it: it changes placeholders, not what is found.
func Fingerprint() [sha256.Size]byte {
	h := sha256.New()
	w := func(ss ...string) {
		for _, s := range ss {
			fmt.Fprintf(h, "%d:%s;", len(s), s)
		}
	}
	w(fmt.Sprint(rulesRevision))
	for _, s := range ruleSpecs() {
		w(s.id, s.regex, s.paths, fmt.Sprint(s.entropy, s.whole, s.nextLine, s.check != nil, s.group))
		w(s.keywords...)
		w("allow")
		w(s.allow...)
		w("match")
		w(s.allowMatch...)
		w("line")
		w(s.allowLine...)
		w("stop")
		w(s.stopwords...)
	}
	w("global")
	w(globalAllow...)
	w(globalStopwords...)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
