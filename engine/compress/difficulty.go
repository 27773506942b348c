// Package compress shrinks what matters least in a prompt first, keeps what
// the plan needs next, gives simple tasks lean prompts and keeps the stable
// prefix stable (seeds/002 §5 and §6, FORMATS.md §2.9).
//
// Everything here is deterministic and pure: no clock, no map iteration in
// output order, no model. The engine (engine/compress.go) turns a prompt
// into Segments, calls Compress and ApplyLevel, and writes the results
// back. The optional summarizer command is a callback the engine supplies.
package compress

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode"
)

// Difficulty is a task's routing tier (seeds/002 §5).
type Difficulty int

// The difficulty tiers, from leanest to fullest prompt.
const (
	Simple Difficulty = iota
	Moderate
	Complex
)

// String returns SIMPLE, MODERATE or COMPLEX.
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

// securityWords and architectureWords make a task COMPLEX (seeds/002 §5
// "Security/architecture implications → always COMPLEX"). A word matches a
// task word equal to it or starting with it (auth matches authentication).
var securityWords = []string{"auth", "security", "secure", "crypto", "encrypt", "decrypt", "password", "secret", "credential", "permission", "oauth", "jwt", "csrf", "xss", "injection", "vulnerab", "signature", "sanitiz"}

var architectureWords = []string{"architecture", "architectural", "redesign", "schema", "migration", "migrate", "protocol", "framework", "infrastructure"}

// crossCuttingWords mark cross-cutting concerns (always COMPLEX).
var crossCuttingWords = []string{"cross-cutting", "crosscutting", "codebase-wide", "everywhere", "logging", "telemetry", "observability", "i18n", "internationaliz", "localiz"}

// crossCuttingDirs: a task touching files under this many top-level
// directories is cross-cutting.
const crossCuttingDirs = 3

// Route classifies a task (seeds/002 §5): file count 1 → SIMPLE, 2–5 →
// MODERATE, 6+ → COMPLEX; skill match exact → SIMPLE, partial → MODERATE,
// none → COMPLEX (only when skills are configured); security or
// architecture words, and cross-cutting concerns (keywords, or files under
// 3 or more top-level directories) → always COMPLEX. The level is the
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
	words := Keywords(t.Text + " " + strings.Join(t.Files, " "))
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
	if w := matchAny(words, securityWords); w != "" {
		raise(Complex, "security: "+w)
	}
	if w := matchAny(words, architectureWords); w != "" {
		raise(Complex, "architecture: "+w)
	}
	if w := matchAny(words, crossCuttingWords); w != "" {
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

// matchAny returns the first of list that some word equals or starts with,
// or "".
func matchAny(words []string, list []string) string {
	for _, k := range list {
		for _, w := range words {
			if strings.HasPrefix(w, k) {
				return k
			}
		}
	}
	return ""
}
