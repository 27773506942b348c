// Package compress shrinks what matters least in a prompt first, keeps what
// the plan needs next, gives simple tasks lean prompts and keeps the stable
// prefix stable (docs/formats.md#difficulty-routing,
// docs/formats.md#compression, docs/formats.md#budget-levels).
//
// Everything here is deterministic: no clock, no map iteration in output
// order, no model. Segments turns an assembled prompt into scorable
// segments (with what is known of the conversation: Iterations,
// IterationFactsOf, the commits the engine found), Compress and ApplyLevel
// score and shrink them, and Segmented.Apply writes the results back. The
// optional summarizer command (CommandSummarizer) is a callback the engine
// passes in Options. Run.Apply does all of it for one target, with the
// services the engine passes in Run (the tokenizer, redaction, the git
// history's answers).
//
// It may import engine/prompt, engine/signals, engine/internal/gitstore
// (for the commit questions' Item type), internal/fsutil, planning,
// planning/conversation and goldmark; never engine or its other
// subpackages.
package compress

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode"
)

// Difficulty is a task's routing tier (docs/formats.md#difficulty-routing).
type Difficulty int

// The difficulty tiers, from leanest to fullest prompt.
const (
	Simple Difficulty = iota
	Moderate
	Complex
)

// String returns SIMPLE, MODERATE or COMPLEX (any other value reads as
// COMPLEX).
func (d Difficulty) String() string {
	switch d {
	case Simple:
		return "SIMPLE"
	case Moderate:
		return "MODERATE"
	default:
		return "COMPLEX"
	}
}

// MarshalText makes a Difficulty read as its name in JSON ("SIMPLE",
// "MODERATE" or "COMPLEX"), like Relevance, Heat and Level, so `recite
// status --json` names every level the same way. A value outside the
// three tiers is an error rather than a silent COMPLEX.
func (d Difficulty) MarshalText() ([]byte, error) {
	if d < Simple || d > Complex {
		return nil, fmt.Errorf("compress: difficulty %d out of range", int(d))
	}
	return []byte(d.String()), nil
}

// Task is what difficulty routing looks at.
type Task struct {
	// Text is the task's name, action and done criteria, joined.
	Text string
	// Files are the files the task (or, when it names none, its plan's
	// files_modified) will touch, slash-separated.
	Files []string
	// Skills are the skill files loaded for the target (paths); none
	// configured means skill match is not a signal.
	Skills []string
}

// Routing is a difficulty decision and the signals behind it.
type Routing struct {
	Level Difficulty `json:"level"`
	// Reasons are the signals that decided the level, e.g. "7 files",
	// "security: auth".
	Reasons []string `json:"reasons"`
}

// String is "COMPLEX (7 files; security: auth)".
func (r Routing) String() string {
	if len(r.Reasons) == 0 {
		return r.Level.String()
	}
	return r.Level.String() + " (" + strings.Join(r.Reasons, "; ") + ")"
}

// keyword is one routing keyword (docs/formats.md#difficulty-routing). A task
// word matches it when the word, or the first part of a compound word
// ("authKit", "security-critical"; see headPart), is word or one of forms, as
// it is or with a plain inflection (see inflects). Words with an everyday
// sense besides the one routing means ("signature" of a function, "schema"
// link, a "logging" line, dependency "injection") also need one of near within
// nearWindow task words either side; keywords without near need no context.
type keyword struct {
	// word is the keyword itself and the name shown in the reason
	// ("security: auth").
	word string
	// forms are the derived words the keyword stands for, spelled out
	// (authentication, authorize, …); matching never uses prefixes.
	forms []string
	// near are context words, one of which must be close by; nil means
	// none is needed.
	near []string
}

// nearWindow is how many task words either side of a keyword are looked
// at for its context words.
const nearWindow = 4

// securityWords make a task COMPLEX whatever its file count
// (docs/formats.md#difficulty-routing). The first that matches names the
// reason.
var securityWords = []keyword{
	{word: "auth", forms: []string{"authn", "authz", "authenticate", "authentication", "authenticator", "authorize", "authorise", "authorization", "authorisation",
		"unauthorized", "unauthorised", "unauthenticated"}},
	{word: "security", forms: []string{"content-security-policy", "csp"}},
	{word: "secure", forms: []string{"securely", "insecure", "insecurely"}},
	{word: "crypto", forms: []string{"cryptography", "cryptographic"}},
	{word: "encrypt", forms: []string{"encryption"}},
	{word: "decrypt", forms: []string{"decryption"}},
	{word: "password", forms: []string{"passwordless", "passphrase"}},
	{word: "secret"},
	{word: "credential"},
	{word: "permission"},
	{word: "oauth", forms: []string{"oauth2"}},
	{word: "jwt"},
	{word: "csrf"},
	{word: "xss"},
	// Dependency, constructor or comment "injection" is not a security
	// concern; SQL, command or prompt injection is.
	{word: "injection", near: []string{"sql", "nosql", "prompt", "command", "shell", "code", "html", "script", "ldap", "header", "attack", "exploit", "malicious", "untrusted", "xss", "sanitize", "escape"}},
	{word: "vulnerable", forms: []string{"vulnerability"}},
	// A function's or a transaction's "signature" is not a security
	// concern; a webhook's or a signed payload's is.
	{word: "signature", near: []string{"webhook", "hmac", "sign", "signer", "verify", "verification", "cryptographic", "digital", "certificate", "jws", "jwt", "pgp", "gpg", "ed25519", "ecdsa", "rsa", "key", "secret", "tamper"}},
	{word: "sanitize", forms: []string{"sanitise", "sanitizer", "sanitiser", "sanitization", "sanitisation"}},
}

// architectureWords make a task COMPLEX, as securityWords do.
var architectureWords = []keyword{
	{word: "architecture"},
	{word: "architectural"},
	{word: "redesign"},
	// A database schema is architecture; a "schema link" in the docs or a
	// validation schema alone is not.
	{word: "schema", near: []string{"database", "db", "sql", "table", "column", "migration", "migrate", "ddl", "sqlite", "postgres", "postgresql", "mysql", "prisma", "drizzle", "orm", "graphql"}},
	{word: "migration"},
	{word: "migrate"},
	{word: "protocol"},
	{word: "framework"},
	{word: "infrastructure"},
}

// crossCuttingWords mark cross-cutting concerns, which make a task COMPLEX
// (docs/formats.md#difficulty-routing).
var crossCuttingWords = []keyword{
	{word: "cross-cutting"},
	{word: "crosscutting"},
	{word: "codebase-wide"},
	{word: "everywhere"},
	// Logging is cross-cutting when it spans the code ("logging in every
	// handler", "a logging system across the app"), not for one log line.
	{word: "logging", near: []string{"every", "all", "each", "across", "throughout", "everywhere", "entire", "whole", "global", "globally", "central", "centralize", "centralise", "wide", "system", "structured"}},
	{word: "telemetry"},
	{word: "observability"},
	{word: "i18n"},
	{word: "internationalize", forms: []string{"internationalise", "internationalization", "internationalisation"}},
	{word: "localize", forms: []string{"localise", "localization", "localisation"}},
}

// crossCuttingDirs: a task touching files under this many top-level
// directories is cross-cutting.
const crossCuttingDirs = 3

// Route classifies a task (docs/formats.md#difficulty-routing): file count 1 →
// SIMPLE, 2–5 → MODERATE, 6+ → COMPLEX; skill match exact → SIMPLE, partial →
// MODERATE, none → COMPLEX (only when skills are configured); security or
// architecture words, and cross-cutting concerns (keywords, or files under 3
// or more top-level directories) → always COMPLEX. Keywords match whole words
// of the task text and file paths, with plain inflections and, for words with
// an everyday sense, a context word nearby (see keyword). The level is the
// highest signal. A task with no files and no other signal is MODERATE.
func Route(t Task) Routing {
	var r Routing
	level := Simple
	raise := func(d Difficulty, why string) {
		if d > level {
			level = d
		}
		r.Reasons = append(r.Reasons, why)
	}
	switch n := len(t.Files); {
	case n == 0:
		raise(Moderate, "no files named")
	case n == 1:
		raise(Simple, "1 file")
	case n <= 5:
		raise(Moderate, fmt.Sprintf("%d files", n))
	default:
		raise(Complex, fmt.Sprintf("%d files", n))
	}
	all := t.Text + " " + strings.Join(t.Files, " ")
	words := Keywords(all)
	if len(t.Skills) > 0 {
		switch m := skillMatch(words, t.Skills); m {
		case 2:
			raise(Simple, "exact skill match")
		case 1:
			raise(Moderate, "partial skill match")
		default:
			raise(Complex, "no skill match")
		}
	}
	units := taskWords(all)
	if w := matchAny(units, securityWords); w != "" {
		raise(Complex, "security: "+w)
	}
	if w := matchAny(units, architectureWords); w != "" {
		raise(Complex, "architecture: "+w)
	}
	if w := matchAny(units, crossCuttingWords); w != "" {
		raise(Complex, "cross-cutting: "+w)
	} else if d := topDirs(t.Files); d >= crossCuttingDirs {
		raise(Complex, fmt.Sprintf("cross-cutting: %d top-level directories", d))
	}
	r.Level = level
	return r
}

// skillMatch is 2 when every word of some skill's name is in words, 1 when
// some word is, 0 otherwise (names by SkillWords).
func skillMatch(words []string, skills []string) int {
	best := 0
	for _, s := range skills {
		name := SkillWords(s)
		hit := 0
		for _, w := range name {
			if contains(words, w) {
				hit++
			}
		}
		switch {
		case len(name) > 0 && hit == len(name):
			return 2
		case hit > 0:
			best = 1
		}
	}
	return best
}

// SkillWords are the keywords of a skill file's name: the file name
// without extension (or its folder's for SKILL.md), split at '-', '_' and
// '.' ("skills/stripe-webhooks.md" → stripe, webhooks).
func SkillWords(p string) []string {
	base := strings.TrimSuffix(path.Base(p), path.Ext(p))
	if strings.EqualFold(base, "SKILL") {
		base = path.Base(path.Dir(p))
	}
	return Keywords(strings.NewReplacer("-", " ", "_", " ", ".", " ").Replace(base))
}

func topDirs(files []string) int {
	seen := map[string]bool{}
	for _, f := range files {
		f = strings.TrimPrefix(f, "./")
		if i := strings.IndexByte(f, '/'); i > 0 {
			seen[f[:i]] = true
		}
	}
	return len(seen)
}

// stopWords are left out of Keywords.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "from": true, "into": true, "that": true, "this": true,
	"when": true, "then": true, "add": true, "use": true, "make": true, "file": true, "files": true, "task": true,
	"each": true, "all": true, "not": true, "are": true, "was": true, "will": true, "should": true, "must": true,
	"new": true, "update": true, "test": true, "tests": true, "run": true, "have": true, "has": true, "its": true,
}

// Keywords returns the distinct lower-case words of s of 3 runes or more
// (letters, digits, '-' inside a word), without stop words, sorted.
func Keywords(s string) []string {
	seen := map[string]bool{}
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
	var out []string
	for _, w := range f {
		w = strings.Trim(w, "-")
		if len([]rune(w)) < 3 || stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

func contains(sorted []string, w string) bool {
	i := sort.SearchStrings(sorted, w)
	return i < len(sorted) && sorted[i] == w
}

// taskWords splits s into its words, in order, for keyword matching:
// runs of letters, digits and inner '-', each given as the lower-case word
// followed, for a compound, by its first part (see headPart). Later parts
// do not count: package and component names (@norish/db-schema,
// user-permissions, next-auth) would route ordinary tasks to COMPLEX.
func taskWords(s string) [][]string {
	var out [][]string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	}) {
		f = strings.Trim(f, "-")
		if f == "" {
			continue
		}
		unit := []string{strings.ToLower(f)}
		if h := headPart(f); h != unit[0] {
			unit = append(unit, h)
		}
		out = append(out, unit)
	}
	return out
}

// headPart is the first part of a compound word, lower-cased: up to the
// first '-' or camelCase boundary (a lower-case letter or digit before an
// upper-case one, or the last of a run of upper-case letters before a
// lower-case one). "security-critical" → security, "authKit" → auth,
// "HTTPServer" → http; letters and digits stay together (i18n, oauth2).
// Only the first part counts, as with the prefix matching this replaced,
// so "non-secret" and "getRecipePermissionPolicy" are not keywords.
func headPart(w string) string {
	w, _, _ = strings.Cut(w, "-")
	r := []rune(w)
	for i := 1; i < len(r); i++ {
		if unicode.IsUpper(r[i]) && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]) ||
			unicode.IsUpper(r[i-1]) && i+1 < len(r) && unicode.IsLower(r[i+1])) {
			return strings.ToLower(string(r[:i]))
		}
	}
	return strings.ToLower(w)
}

// inflects reports whether w is stem or a plain inflection of it: plural or
// third person -s/-es, past -ed, -ing, and for a stem ending in 'e' -d and
// -ing without the 'e' (migrate → migrated, migrating), for one ending in
// a consonant and 'y' -ies and -ied (verify → verifies, verified). Nothing
// else: "author" is not a form of "auth".
func inflects(w, stem string) bool {
	if rest, ok := strings.CutPrefix(w, stem); ok {
		switch rest {
		case "", "s", "es", "ed", "ing":
			return true
		}
	}
	n := len(stem)
	switch {
	case n < 2:
		return false
	case stem[n-1] == 'e':
		return w == stem+"d" || w == stem[:n-1]+"ing"
	case stem[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(stem[n-2])):
		return w == stem[:n-1]+"ies" || w == stem[:n-1]+"ied"
	}
	return false
}

// matches reports whether word (a whole word or a part of one) is k's word
// or one of its forms, inflected or not.
func (k keyword) matches(word string) bool {
	if inflects(word, k.word) {
		return true
	}
	for _, f := range k.forms {
		if inflects(word, f) {
			return true
		}
	}
	return false
}

// matchAny returns the word of the first keyword of list that some task
// word matches (with one of its context words within nearWindow words
// when it has any), or "".
func matchAny(units [][]string, list []keyword) string {
	for _, k := range list {
		for i, u := range units {
			if anyWord(u, k.matches) && (k.near == nil || nearby(units, i, k.near)) {
				return k.word
			}
		}
	}
	return ""
}

// nearby reports whether one of near (inflected or not) is among the words
// within nearWindow of units[i], units[i] included.
func nearby(units [][]string, i int, near []string) bool {
	lo, hi := max(i-nearWindow, 0), min(i+nearWindow, len(units)-1)
	for _, u := range units[lo : hi+1] {
		if anyWord(u, func(w string) bool {
			for _, n := range near {
				if inflects(w, n) {
					return true
				}
			}
			return false
		}) {
			return true
		}
	}
	return false
}

// anyWord reports whether f holds for one word of a unit (the whole word
// or its first part).
func anyWord(unit []string, f func(string) bool) bool {
	for _, w := range unit {
		if f(w) {
			return true
		}
	}
	return false
}
