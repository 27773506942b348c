package signals

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Kind is the kind of a stop signal (docs/architecture.md#words).
type Kind string

// The stop-signal kinds, in the order Extract and RenderBlock list them.
const (
	KindError          Kind = "error"
	KindBlocked        Kind = "blocked"
	KindFailedApproach Kind = "failed_approach"
	KindCircuitBreaker Kind = "circuit_breaker"
	KindStop           Kind = "stop"
)

// kindRank orders kinds for output.
func kindRank(k Kind) int {
	switch k {
	case KindError:
		return 0
	case KindBlocked:
		return 1
	case KindFailedApproach:
		return 2
	case KindCircuitBreaker:
		return 3
	case KindStop:
		return 4
	}
	return 5
}

// Signal is one stop signal.
type Signal struct {
	// Kind is what the signal is.
	Kind Kind `json:"kind"`
	// Text is the signal verbatim, as it first appeared (line endings
	// normalised to LF, leading and trailing blank lines removed).
	Text string `json:"text"`
	// Detail is why a failed approach failed (the "why" of `approach —
	// why`, or a hypothesis' evidence); "" for other kinds.
	Detail string `json:"detail,omitempty"`
	// ID is a stable identifier when the source has one: a blocker id
	// (BLOCKER-005), or the breaker state (TRIPPED) of a circuit_breaker
	// signal; "" otherwise.
	ID string `json:"id,omitempty"`
	// Source is where the signal first appeared: "path:line" for planning
	// files, or a message's Source (else its ID).
	Source string `json:"source"`
	// FirstSeen and LastSeen are the earliest and latest timestamps of the
	// occurrences that had one; zero when none had.
	FirstSeen time.Time `json:"first_seen,omitzero"`
	LastSeen  time.Time `json:"last_seen,omitzero"`
	// Count is how many times the signal occurred (≥ 1).
	Count int `json:"count"`
	// Hash identifies the signal (16 hex digits); Extract deduplicates by
	// (Kind, Hash). It hashes the normalised key line (with the command
	// when the key line is a bare exit code), else the normalised text:
	// what varies from run to run (timestamps, temporary paths, durations,
	// process ids, addresses, line numbers) is normalised away, what names
	// the thing (quoted values, project paths, identifiers) is kept.
	Hash string `json:"hash"`
	// KeyLine is, for an error, the line of Text a person would quote:
	// the exception line that ends a Python traceback, the first error
	// line of tsc, cargo or go, a failing test's assertion (KeyLine
	// documents the rules); "Exit code N" for a failed command that
	// printed nothing else. Verify looks for it. "" for other kinds, and
	// for errors read from planning files, whose key Verify finds in Text.
	KeyLine string `json:"key_line,omitempty"`
	// Command is what produced an error from a tool call: the Bash command
	// verbatim, or the tool's name and its main argument ("Read
	// /app/.golangci.yml"), as Message.Command gave it; "" when unknown.
	Command string `json:"command,omitempty"`
	// Probe marks an error that is a harmless probe (a glob or grep with
	// no match, ls or test on a missing path, diff or cmp finding a
	// difference, gh pr checks while checks are pending, which not
	// finding a program): kept in preservation blocks, never reported
	// lost (Verify) nor re-injected (Fit).
	Probe bool `json:"probe,omitempty"`
	// ResolvedBy says what resolved an error ("`npx tsc` passed at
	// 14:02"; see Resolve), "" while it is open. A resolved signal stays in
	// preservation blocks, marked, and is re-injected as one line (Fit).
	ResolvedBy string `json:"resolved_by,omitempty"`
}

// Message is one conversation message, as the caller adapts it from a
// conversation log or an agent transcript.
type Message struct {
	// ID is the message's unique id.
	ID string
	// Role is system, user, assistant or tool.
	Role string
	// Content is the message text (for a tool message, the tool result).
	Content string
	// ToolName names the tool whose result this is, or "".
	ToolName string
	// Command is what the tool call ran, for a tool result: the Bash
	// command verbatim, or the tool's name and its main argument
	// (conversation.CallCommand); "" when unknown. Errors carry it, probes
	// and resolution read it.
	Command string
	// IsError reports a tool result flagged as an error.
	IsError bool
	// Timestamp is when the message was written; zero if unknown.
	Timestamp time.Time
	// Source says where the message came from ("conv.jsonl:12"); "" falls
	// back to ID.
	Source string
}

// IterationRecord is one iteration of a loop or a conversation, as health
// evaluation sees it.
type IterationRecord struct {
	// N is the iteration number (1-based).
	N int
	// FilesChanged counts the files the iteration changed; negative means
	// unknown (Evaluate's stall count skips it).
	FilesChanged int
	// ErrorText is the iteration's error, verbatim; "" when none.
	ErrorText string
	// ErrorHash is a precomputed error hash (a loop file's Error Hash
	// column); when set it is used as is instead of Hash(ErrorText).
	ErrorHash string
	// OutputLines counts the lines of output the iteration produced;
	// negative means unknown (the output decline ignores it).
	OutputLines int
	// Timestamp is when the iteration ended; zero if unknown.
	Timestamp time.Time
	// ErrorUnknown reports that the source does not say whether the
	// iteration failed (a loop's resume table has no Error Hash column):
	// the spin counter neither counts nor resets on it. ErrorText and
	// ErrorHash are then "".
	ErrorUnknown bool
	// Outcome is what the iteration reported besides an error (a loop
	// row's Result cell), or ""; Evaluate checks the latest iteration's for
	// a BLOCKED mark or pattern. It is never hashed.
	Outcome string
	// Health is the health state the writer recorded for the iteration (a
	// loop row's Health cell, e.g. BLOCKED), or "".
	Health string
}

// collector deduplicates signals by (kind, hash) in first-seen order.
type collector struct {
	norm  *normalizer
	index map[string]int
	out   []Signal
}

func newCollector(n *normalizer) *collector {
	if n == nil {
		n = newNormalizer()
	}
	return &collector{norm: n, index: map[string]int{}}
}

// add records one occurrence and returns the index of its signal in
// c.out; -1 when it has no text.
func (c *collector) add(s Signal) int {
	s.Text = cleanText(s.Text)
	if strings.TrimSpace(s.Text) == "" {
		return -1
	}
	if s.Hash == "" {
		s.Hash = c.norm.signalHash(s)
	}
	if s.Count <= 0 {
		s.Count = 1
	}
	if s.LastSeen.IsZero() {
		s.LastSeen = s.FirstSeen
	}
	key := string(s.Kind) + "\x00" + s.Hash
	i, ok := c.index[key]
	if !ok {
		c.index[key] = len(c.out)
		c.out = append(c.out, s)
		return len(c.out) - 1
	}
	m := &c.out[i]
	m.Count += s.Count
	if !s.FirstSeen.IsZero() && (m.FirstSeen.IsZero() || s.FirstSeen.Before(m.FirstSeen)) {
		m.FirstSeen = s.FirstSeen
	}
	if s.LastSeen.After(m.LastSeen) {
		m.LastSeen = s.LastSeen
	}
	if m.Detail == "" {
		m.Detail = s.Detail
	}
	if m.ID == "" {
		m.ID = s.ID
	}
	m.Probe = m.Probe && s.Probe
	return i
}

// result returns the signals ordered by kind, then first appearance.
func (c *collector) result() []Signal {
	out := slices.Clone(c.out)
	slices.SortStableFunc(out, func(a, b Signal) int { return cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)) })
	return out
}

// signalHash is a signal's Hash: of the stop-signal normalisation
// (normalizer.dedup) of its key line, with its command when the key line
// is a bare exit code ("Exit code 1" of `npm test` and of `go vet` are two
// errors); without a key line, of its text, a failed approach's leading
// "[Iteration 1-3]" style tag dropped (so the loop table's "[Iteration
// 1-3] Direct fix" and the snapshot's "Direct fix" merge).
func (n *normalizer) signalHash(s Signal) string {
	if s.Kind == KindError && s.KeyLine != "" {
		if isBareExit(s.KeyLine) && s.Command != "" {
			return hashNormalized(n.dedup(s.Command) + "\x00" + s.KeyLine)
		}
		return hashNormalized(n.dedup(s.KeyLine))
	}
	text := s.Text
	if s.Kind == KindFailedApproach {
		text = strings.TrimSpace(text)
		if strings.HasPrefix(text, "[") {
			if i := strings.IndexByte(text, ']'); i > 0 {
				text = text[i+1:]
			}
		}
	}
	return hashNormalized(n.dedup(text))
}

// cleanText normalises line endings to LF, drops trailing whitespace at the
// end and leading and trailing blank lines; everything else is verbatim.
func cleanText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimRight(s, " \t\n")
	for strings.HasPrefix(s, "\n") {
		s = s[1:]
	}
	// Drop a leading blank line that holds only spaces.
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			break
		}
		s = s[i+1:]
	}
	return s
}
