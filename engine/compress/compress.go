package compress

import (
	"fmt"
	"strings"
)

// Relevance is a segment's score against the current task
// (docs/formats.md#compression).
type Relevance int

// The relevance scores, from least to most relevant. Neutral is for
// segments no rule scores (the system prompt, the state snapshot): a
// compression pass leaves them alone; only budget levels act on them.
const (
	Low Relevance = iota
	Medium
	Neutral
	High
	Critical
)

// String returns LOW, MEDIUM, NEUTRAL, HIGH or CRITICAL.
func (r Relevance) String() string {
	return [...]string{"LOW", "MEDIUM", "NEUTRAL", "HIGH", "CRITICAL"}[r]
}

// MarshalText makes a Relevance read as its name in JSON.
func (r Relevance) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Keep is the fraction of a segment's tokens a pass keeps at each score
// (docs/formats.md#compression: CRITICAL 100%, HIGH 100%, MEDIUM ~50%, LOW
// ~15%).
func (r Relevance) Keep() float64 {
	switch r {
	case Low:
		return 0.15
	case Medium:
		return 0.5
	default:
		return 1
	}
}

// Kind is what a segment holds; it decides the scoring rule.
type Kind int

// Segment kinds.
const (
	// KindOther is any segment no rule covers (Neutral).
	KindOther Kind = iota
	// KindTask is the current task (the plan): CRITICAL.
	KindTask
	// KindRecitation is the recitation block: HIGH.
	KindRecitation
	// KindSignal is a stop signal (preserved block, breaker state, failed
	// approaches, the errors section): HIGH and never forgotten.
	KindSignal
	// KindError is an error message of the conversation: HIGH in the last
	// 2 iterations, else MEDIUM, one line once resolved.
	KindError
	// KindSkill is a skill file: MEDIUM when it matches the task, else
	// forgotten as unused.
	KindSkill
	// KindFileRead is a file's content read in the conversation: LOW when
	// read more than 3 iterations before the pass, one line past 5.
	KindFileRead
	// KindHistory is any other conversation message: one line when older
	// than 5 iterations.
	KindHistory
	// KindApproach is an assistant's account of an approach a commit landed:
	// LOW once older than 3 iterations, compressed to the commit hash and its
	// first line (docs/formats.md#what-a-pass-forgets).
	KindApproach
	// KindEditing is a file being edited in the current iteration: never
	// forgotten.
	KindEditing
	// KindFailedApproach is what an iteration that failed tried (its assistant
	// messages): HIGH and never forgotten, since what not to do is worth more
	// than what succeeded (docs/formats.md#compression); its heat is HOT
	// (docs/formats.md#budget-levels).
	KindFailedApproach
)

// Segment is one scorable piece of a prompt: a section, one file of the
// skills section, or one conversation message.
type Segment struct {
	// Key identifies the segment: "section:plan", "skill:PATH", "msg:ID".
	Key  string
	Kind Kind
	// Text is the segment's current text.
	Text string
	// Iteration is the loop iteration the segment belongs to (1-based), 0
	// when none.
	Iteration int
	// Path is the file a file read or a skill is about, "" otherwise.
	Path string
	// Code marks text that is source code (extract signatures, not
	// markdown structure).
	Code bool
	// ForTask marks a skill that matches the current task.
	ForTask bool
	// Resolved marks an error with a fix: a later commit changing a file it
	// names, or the next iteration running without it.
	Resolved bool
	// Unreferenced marks a file read that no message of the 3 iterations after
	// it mentions (docs/formats.md#what-a-pass-forgets). It depends only on
	// those iterations, so it never changes once the read is old enough to be
	// LOW.
	Unreferenced bool
	// Commit is the abbreviated hash of the commit that landed a
	// KindApproach segment's approach.
	Commit string
	// Tier is the prompt tier: 0 stable, 1 semi, 2 dynamic.
	Tier int
	// Pinned marks a segment no budget level may touch (README "The stable
	// prefix, the recitation and the preserved signals are never cut"):
	// the engine sets it for pinned sections (prompt.Section.Pinned). Stable
	// segments (Tier 0), the recitation and stop signals are pinned
	// whatever this says (see LevelPinned).
	Pinned bool
}

// LevelPinned reports whether budget levels must leave s alone: it is
// marked Pinned, it belongs to the stable tier (system prompt, tools,
// brief, skills, learnings, file tree, plan), or it is the recitation or a
// stop signal (KindRecitation, KindSignal). When pinned segments alone
// exceed the budget the prompt stays over it, and the caller reports that
// instead of cutting them.
func LevelPinned(s Segment) bool {
	return s.Pinned || s.Tier == 0 || s.Kind == KindRecitation || s.Kind == KindSignal
}

// Options steer a compression pass.
type Options struct {
	// Pass is the iteration the pass is computed at: the current iteration
	// rounded down to the cadence, so builds between passes produce the same
	// bytes (a pass every 3 iterations: docs/formats.md#compression). 0
	// disables the age-based rules.
	Pass int
	// Current is the current iteration (0 when unknown): its segments and
	// the previous iteration's are HOT (HeatOf).
	Current int
	// Upcoming are the texts of the next tasks after the current one (at most
	// 3 are used: docs/formats.md#what-a-pass-forgets).
	Upcoming []string
	// Count counts tokens.
	Count Counter
	// Summarize, when set, shortens a LOW segment to about keep of its
	// tokens instead of Extract (a configured summarizer command); ok is
	// false to fall back to Extract.
	Summarize func(text string, keep float64) (out string, ok bool)
}

// Outcome is what a pass did to one segment.
type Outcome struct {
	Key   string    `json:"key"`
	Score Relevance `json:"score"`
	// Text is the segment's text after the pass.
	Text string `json:"-"`
	// Before and After are token counts.
	Before int `json:"before"`
	After  int `json:"after"`
	// Action is "kept", "compressed", "one line" or "forgotten: REASON".
	Action string `json:"action"`
	// Tag notes a plan-aware keep: "kept for upcoming task N".
	Tag string `json:"tag,omitempty"`
	// Heat is the segment's budget tier (HOT, WARM, COLD).
	Heat Heat `json:"heat"`
}

// Result is a compression pass over a prompt's segments, in input order.
type Result struct {
	Pass     int       `json:"pass"`
	Outcomes []Outcome `json:"outcomes"`
	// Before and After are the token totals of the segments.
	Before int `json:"before"`
	After  int `json:"after"`
}

// Saved is Before−After in tokens.
func (r *Result) Saved() int { return r.Before - r.After }

// SavedPercent is the saving as a percentage of Before (0 when empty).
func (r *Result) SavedPercent() float64 {
	if r.Before == 0 {
		return 0
	}
	return float64(r.Saved()) * 100 / float64(r.Before)
}

// FileReadLowAge is the age, in iterations, past which file reads (and
// committed approaches) are LOW (docs/formats.md#compression).
const FileReadLowAge = 3

// Ages, in iterations, from docs/formats.md#compression and
// docs/formats.md#budget-levels.
const (
	errorHighIterations  = 2 // errors of the last 2 iterations are HIGH
	fileReadLowAge       = FileReadLowAge
	historyOneLineAge    = 5 // iteration history older than 5 is one line each
	coldAge              = 5 // WARM → COLD after 5 idle iterations
	upcomingTasksChecked = 3
	recentTurns          = 2 // the current and previous iteration are HOT
)

// Score returns a segment's relevance at a pass, with the reason for
// forgetting it ("" when it is kept or compressed).
//
// Every rule depends on the segment's age at the pass (pass − Iteration)
// and on facts fixed soon after the segment was written (Unreferenced,
// Resolved and Commit as the engine computes them), so a segment changes
// form only while it is young: a file read or a committed approach at ages
// 4–5 (LOW, or one line when unreferenced or committed), any conversation
// segment past age 5 (one line, the iteration-history rule), an error at
// age 2. A pass therefore rewrites
// the prompt from about pass − every − 5 onwards, never deeper, which
// bounds what it costs the provider's prompt cache.
func Score(s Segment, pass int) (Relevance, string) {
	age := 0
	if s.Iteration > 0 && pass > 0 {
		age = pass - s.Iteration
	}
	switch s.Kind {
	case KindTask:
		return Critical, ""
	case KindRecitation, KindSignal, KindEditing, KindFailedApproach:
		return High, ""
	case KindError:
		if s.Iteration == 0 || age < errorHighIterations {
			return High, ""
		}
		if s.Resolved {
			return Low, "resolved error"
		}
		return Medium, ""
	case KindSkill:
		if s.ForTask {
			return Medium, ""
		}
		return Low, "unused skill"
	case KindFileRead:
		if pass == 0 || age <= fileReadLowAge {
			return Neutral, ""
		}
		if age > historyOneLineAge {
			return Low, "old iteration"
		}
		if s.Unreferenced {
			return Low, "unreferenced read"
		}
		return Low, ""
	case KindHistory:
		if pass > 0 && age > historyOneLineAge {
			return Low, "old iteration"
		}
		return Neutral, ""
	case KindApproach:
		switch {
		case pass > 0 && age > fileReadLowAge && s.Commit != "":
			return Low, "committed in " + s.Commit
		case pass > 0 && age > historyOneLineAge:
			return Low, "old iteration"
		}
		return Neutral, ""
	}
	return Neutral, ""
}

// Compress scores every segment, upgrades LOW segments that match the next
// tasks' keywords to MEDIUM ("kept for upcoming task N"), and shortens each by
// its score: CRITICAL, HIGH and NEUTRAL unchanged, MEDIUM to ~50% and LOW to
// ~15% by Extract (or Options.Summarize), and forgotten segments (a reason
// from Score) to one line. Never forgotten
// (docs/formats.md#what-a-pass-forgets): the current task, the recitation,
// stop signals, errors of the last 2 iterations, files being edited — their
// kinds score HIGH or CRITICAL and their text is returned byte for byte.
func Compress(segs []Segment, opt Options) Result {
	r := Result{Pass: opt.Pass, Outcomes: make([]Outcome, 0, len(segs))}
	upcoming := opt.Upcoming
	if len(upcoming) > upcomingTasksChecked {
		upcoming = upcoming[:upcomingTasksChecked]
	}
	upWords := make([][]string, len(upcoming))
	for i, u := range upcoming {
		upWords[i] = Keywords(u)
	}
	for _, s := range segs {
		score, forget := Score(s, opt.Pass)
		o := Outcome{Key: s.Key, Score: score, Before: opt.Count(s.Text), Text: s.Text, Action: "kept"}
		if score == Low {
			if n := upcomingMatch(s, upWords); n > 0 {
				score, forget = Medium, ""
				o.Score = Medium
				o.Tag = fmt.Sprintf("kept for upcoming task %d", n)
			}
		}
		switch {
		case s.Text == "":
		case forget != "":
			o.Text = OneLine("["+forget+"]", s.Text)
			o.Action = "forgotten: " + forget
		case score == Low || score == Medium:
			out, ok := "", false
			if score == Low && opt.Summarize != nil {
				out, ok = opt.Summarize(s.Text, score.Keep())
			}
			if !ok {
				out = Extract(s.Text, score.Keep(), s.Code, opt.Count)
			}
			o.Text = out
			if out != s.Text {
				o.Action = "compressed"
			}
		}
		if o.Text != s.Text {
			o.After = opt.Count(o.Text)
			if o.After >= o.Before {
				o.Text, o.After, o.Action = s.Text, o.Before, "kept"
			}
		} else {
			o.After = o.Before
		}
		o.Heat = HeatOf(s, o.Score, opt.Pass, opt.Current)
		r.Before += o.Before
		r.After += o.After
		r.Outcomes = append(r.Outcomes, o)
	}
	return r
}

// upcomingMatch returns N (1-based) of the first upcoming task sharing a
// keyword with the segment, or 0. Keywords of 5 runes or more count, so
// common short words do not keep everything.
func upcomingMatch(s Segment, up [][]string) int {
	if len(up) == 0 {
		return 0
	}
	words := Keywords(s.Path + " " + s.Text)
	for i, uw := range up {
		for _, w := range uw {
			if len([]rune(w)) >= 5 && contains(words, w) {
				return i + 1
			}
		}
	}
	return 0
}

// Heat is a segment's budget tier (docs/formats.md#budget-levels: HOT ≈
// current task, active errors, recitation, circuit breaker, failed approaches;
// WARM ≈ plan, skills, recent reads and decisions; COLD ≈ evictable: reads
// older than 5 iterations, completed work).
type Heat int

// The heat tiers.
const (
	Cold Heat = iota
	Warm
	Hot
)

// String returns COLD, WARM or HOT.
func (h Heat) String() string { return [...]string{"COLD", "WARM", "HOT"}[h] }

// MarshalText makes a Heat read as its name in JSON.
func (h Heat) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// HeatOf places a scored segment in a budget tier: CRITICAL and HIGH are HOT,
// and so are the conversation's segments of the current and the previous
// iteration (current, 0 when unknown): the 2 most recent turns are kept
// verbatim (docs/formats.md#budget-levels), so budget levels, which work from
// the dynamic end backwards, never shorten the turn the agent is in; LOW
// segments, and any conversation segment idle for more than 5 iterations at
// pass, are COLD; the rest is WARM.
func HeatOf(s Segment, score Relevance, pass, current int) Heat {
	switch {
	case score >= High:
		return Hot
	case s.Iteration > 0 && current > 0 && current-s.Iteration < recentTurns:
		return Hot
	case score == Low:
		return Cold
	case s.Iteration > 0 && pass-s.Iteration > coldAge:
		return Cold
	}
	return Warm
}

// Summary is a one-line account of a pass: "pass at iteration 9: 41210 →
// 23050 tokens (44.1% saved; 3 kept for upcoming tasks, 12 forgotten)".
func (r *Result) Summary() string {
	kept, forgotten := 0, 0
	for _, o := range r.Outcomes {
		if o.Tag != "" {
			kept++
		}
		if strings.HasPrefix(o.Action, "forgotten") {
			forgotten++
		}
	}
	return fmt.Sprintf("pass at iteration %d: %d → %d tokens (%.1f%% saved; %d kept for upcoming tasks, %d forgotten)",
		r.Pass, r.Before, r.After, r.SavedPercent(), kept, forgotten)
}
