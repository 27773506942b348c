package signals

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/recite-dev/recite/planning"
)

// Thresholds configures the circuit breaker (docs/formats.md#circuit-breaker). It is the
// `circuit_breaker` block of recite.yaml; a zero field means "use the
// default" (see Normalized).
type Thresholds struct {
	// StallWarning and StallBreak are the NO_FILE_CHANGES thresholds, in
	// consecutive iterations without a changed file (default 3 and 5).
	StallWarning int `yaml:"stall_warning" json:"stall_warning"`
	StallBreak   int `yaml:"stall_break" json:"stall_break"`
	// SpinWarning and SpinBreak are the SAME_ERROR_HASH thresholds, in
	// occurrences of the latest error's normalised hash (default 3 and 5).
	SpinWarning int `yaml:"spin_warning" json:"spin_warning"`
	SpinBreak   int `yaml:"spin_break" json:"spin_break"`
	// DeclineWarningPct and DeclineBreakPct are the OUTPUT_DECLINE
	// thresholds, in percent below the baseline (default 50 and 70).
	DeclineWarningPct int `yaml:"decline_warning_pct" json:"decline_warning_pct"`
	DeclineBreakPct   int `yaml:"decline_break_pct" json:"decline_break_pct"`
	// BaselineIterations is how many first iterations make the output
	// baseline (their mean output lines; default 3).
	BaselineIterations int `yaml:"baseline_iterations" json:"baseline_iterations"`
}

// DefaultThresholds returns fire-flow's defaults (docs/formats.md#circuit-breaker): stall
// 3/5, spin 3/5, decline 50%/70%, baseline 3 iterations.
func DefaultThresholds() Thresholds {
	return Thresholds{StallWarning: 3, StallBreak: 5, SpinWarning: 3, SpinBreak: 5, DeclineWarningPct: 50, DeclineBreakPct: 70, BaselineIterations: 3}
}

// Preset returns the named threshold preset and whether the name is known:
//
//   - "default": DefaultThresholds.
//   - "aggressive" (fire-loop --aggressive: "stall=2, spin=3, decline=40%"):
//     recite reads the three numbers as the points where the breaker trips,
//     so StallBreak 2, SpinBreak 3, DeclineBreakPct 40, and lowers each
//     WARNING threshold to its BREAK threshold where the default would sit
//     above it: stall 2/2, spin 3/3, decline 40%/40%, baseline 3. Since BREAK
//     is evaluated first, reaching any of them trips at once.
//   - "debug" (/fire-debug relaxes no_file_changes to 5/8): stall 5/8,
//     everything else default.
func Preset(name string) (Thresholds, bool) {
	th := DefaultThresholds()
	switch name {
	case "", "default":
	case "aggressive":
		th.StallWarning, th.StallBreak = 2, 2
		th.SpinWarning, th.SpinBreak = 3, 3
		th.DeclineWarningPct, th.DeclineBreakPct = 40, 40
	case "debug":
		th.StallWarning, th.StallBreak = 5, 8
	default:
		return th, false
	}
	return th, true
}

// Normalized returns th with zero or negative fields replaced by the
// defaults and each WARNING threshold capped at its BREAK threshold.
func (th Thresholds) Normalized() Thresholds {
	th = DefaultThresholds().Overlay(th)
	th.StallWarning = min(th.StallWarning, th.StallBreak)
	th.SpinWarning = min(th.SpinWarning, th.SpinBreak)
	th.DeclineWarningPct = min(th.DeclineWarningPct, th.DeclineBreakPct)
	return th
}

// Overlay returns th with every positive field of o in its place: the
// thresholds a recite.yaml block sets over a preset or the defaults. Zero
// and negative fields of o keep th's value.
func (th Thresholds) Overlay(o Thresholds) Thresholds {
	dst, src := th.fields(), o.fields()
	for i, v := range src {
		if *v > 0 {
			*dst[i] = *v
		}
	}
	return th
}

// fields points at every threshold of th, in declaration order.
func (th *Thresholds) fields() [7]*int {
	return [7]*int{&th.StallWarning, &th.StallBreak, &th.SpinWarning, &th.SpinBreak,
		&th.DeclineWarningPct, &th.DeclineBreakPct, &th.BaselineIterations}
}

// Breaker states (docs/formats.md#circuit-breaker).
const (
	BreakerHealthy  = "HEALTHY"
	BreakerWarning  = "WARNING"
	BreakerTripped  = "TRIPPED"
	BreakerRecovery = "RECOVERY"
)

// Health states (docs/formats.md#health-states).
const (
	HealthProgress = "PROGRESS"
	HealthStalled  = "STALLED"
	HealthSpinning = "SPINNING"
	HealthDegraded = "DEGRADED"
	HealthBlocked  = "BLOCKED"
)

// Health is the result of Evaluate.
type Health struct {
	// State is the health classification: PROGRESS, STALLED, SPINNING,
	// DEGRADED or BLOCKED.
	State string `json:"state"`
	// Breaker is the circuit-breaker state: HEALTHY, WARNING, TRIPPED or
	// RECOVERY.
	Breaker string `json:"breaker"`
	// StallCount is the number of consecutive latest iterations without a
	// changed file.
	StallCount int `json:"stall_count"`
	// SpinCount is how many iterations carry the latest iteration's error
	// hash (0 when the latest iteration has no error).
	SpinCount int `json:"spin_count"`
	// DeclinePct is the latest iteration's output decline against the
	// baseline, in whole percent (0 when not below it or too few
	// iterations).
	DeclinePct int `json:"decline_pct"`
	// Thresholds are the (normalised) thresholds used.
	Thresholds Thresholds `json:"thresholds"`
	// Reasons explain State and Breaker, one short sentence each.
	Reasons []string `json:"reasons,omitempty"`
}

// BreakerLine formats the preservation block's circuit-breaker line:
// "stall: N/T | spin: N/T | decline: N%" (T are the BREAK thresholds).
func (h Health) BreakerLine() string {
	return fmt.Sprintf("stall: %d/%d | spin: %d/%d | decline: %d%%", h.StallCount, h.Thresholds.StallBreak, h.SpinCount, h.Thresholds.SpinBreak, h.DeclinePct)
}

// blockedPattern matches the BLOCKED error codes and phrases of
// error-classification.md (docs/formats.md#health-states). ENOENT "on an external
// resource" cannot be told from a missing local file and is left out.
// "Cannot connect" (and "could not connect", "unable to connect",
// "connection refused") is the wording of a refused connection without its
// code, e.g. Docker's "Cannot connect to the Docker daemon".
func blockedPattern() *regexp.Regexp {
	return regexp.MustCompile(`\b(EACCES|EPERM|ECONNREFUSED|MODULE_NOT_FOUND|rate_limit_exceeded)\b|(?i:permission denied|not authorized|service unavailable|rate limit|quota exceeded|(?:cannot|can't|could not|couldn't|unable to) connect|connection refused)`)
}

// blockedMark matches an explicit BLOCKED mark: the word in capitals.
func blockedMark() *regexp.Regexp { return regexp.MustCompile(`\bBLOCKED\b`) }

// counters holds the measures of one prefix of the iterations.
type counters struct {
	stall, spin, decline int
	hash                 string
}

func measure(iters []IterationRecord, th Thresholds, norm *normalizer) counters {
	var c counters
	// A negative count is unknown (a loop's resume table has no Files
	// Changed or Output Lines column): it neither counts nor resets.
	for i := len(iters) - 1; i >= 0 && iters[i].FilesChanged <= 0; i-- {
		if iters[i].FilesChanged == 0 {
			c.stall++
		}
	}
	if n := len(iters); n > 0 {
		// The latest iteration whose error is known: an iteration that
		// does not record errors neither counts nor resets the spin.
		if k := lastKnownError(iters, n); k >= 0 {
			c.hash = iterHash(iters[k], norm)
		}
		if c.hash != "" {
			for _, it := range iters {
				if !it.ErrorUnknown && iterHash(it, norm) == c.hash {
					c.spin++
				}
			}
		}
		var known []int
		for _, it := range iters {
			if it.OutputLines >= 0 {
				known = append(known, it.OutputLines)
			}
		}
		if len(known) > th.BaselineIterations {
			sum := 0
			for _, v := range known[:th.BaselineIterations] {
				sum += v
			}
			base := float64(sum) / float64(th.BaselineIterations)
			if base > 0 {
				pct := (base - float64(known[len(known)-1])) / base * 100
				if pct > 0 {
					c.decline = int(pct)
				}
			}
		}
	}
	return c
}

// lastKnownError returns the index of the last of iters[:n] whose error is
// known (not ErrorUnknown), or -1.
func lastKnownError(iters []IterationRecord, n int) int {
	for k := n - 1; k >= 0; k-- {
		if !iters[k].ErrorUnknown {
			return k
		}
	}
	return -1
}

func iterHash(it IterationRecord, norm *normalizer) string {
	if !emptyCell(it.ErrorHash) {
		return hashNormalized(strings.TrimSpace(it.ErrorHash))
	}
	if strings.TrimSpace(it.ErrorText) == "" {
		return ""
	}
	return hashNormalized(norm.apply(it.ErrorText))
}

// breakerState applies the thresholds highest-first: every BREAK threshold
// is checked before any WARNING threshold. The published pseudo-code checks
// `>= 3 → WARNING` before `>= 5 → BREAK`, which makes BREAK unreachable
// (docs/formats.md#decisions-on-the-published-rules).
func breakerState(c counters, th Thresholds) (string, []string) {
	measures := []struct {
		v, warn, brk int
		format       string // the reason, from the value, the level and the threshold
	}{
		{c.stall, th.StallWarning, th.StallBreak, "no file changes for %d iterations (%s at %d)"},
		{c.spin, th.SpinWarning, th.SpinBreak, "same error %d times (%s at %d)"},
		{c.decline, th.DeclineWarningPct, th.DeclineBreakPct, "output down %d%% from baseline (%s at %d%%)"},
	}
	var br, w []string
	for _, m := range measures {
		if m.v >= m.brk {
			br = append(br, fmt.Sprintf(m.format, m.v, "break", m.brk))
		}
		if m.v >= m.warn {
			w = append(w, fmt.Sprintf(m.format, m.v, "warning", m.warn))
		}
	}
	switch {
	case len(br) > 0:
		return BreakerTripped, br
	case len(w) > 0:
		return BreakerWarning, w
	}
	return BreakerHealthy, nil
}

// Evaluate classifies the health of a run of iterations (oldest first) and
// derives the circuit-breaker state (docs/formats.md#loop-health-and-the-circuit-breaker).
//
// Measures: StallCount counts the trailing iterations with FilesChanged 0
// (iterations with an unknown, negative count are skipped, neither counted
// nor resetting); SpinCount counts the iterations whose error hash
// (ErrorHash, else Hash(ErrorText)) equals that of the latest iteration
// whose error is known (iterations with ErrorUnknown, such as a loop's
// resume rows, neither count nor reset it; a known iteration without an
// error makes it 0);
// DeclinePct compares the latest known OutputLines with the mean of the
// first BaselineIterations known ones and needs at least
// BaselineIterations+1 known values (negative is unknown). The caller
// decides the window: pass the iterations since the last approach rotation
// or Sabbath Rest to model fire-flow's counter resets.
//
// Breaker: TRIPPED when any BREAK threshold is reached, checked before the
// WARNING thresholds (the published pseudo-code has them the other way
// round, which makes BREAK unreachable); WARNING when any WARNING threshold
// is reached; RECOVERY when the previous iteration's evaluation was TRIPPED
// and no threshold is reached now; HEALTHY otherwise.
//
// State, by priority BLOCKED > SPINNING > DEGRADED > STALLED > PROGRESS:
//   - BLOCKED: the latest iteration's error or Outcome matches EACCES,
//     EPERM, ECONNREFUSED, MODULE_NOT_FOUND, rate_limit_exceeded or
//     contains "permission denied", "not authorized", "service
//     unavailable", "rate limit", "quota exceeded", "cannot connect" (or
//     could not / unable to connect, "connection refused"; case-insensitive
//     for the phrases), or its Outcome carries the BLOCKED mark in
//     capitals, or its Health was recorded as BLOCKED. ECONNREFUSED is
//     both a BLOCKED code and a spin-hash example in fire-flow (docs/formats.md#decisions-on-the-published-rules):
//     recite classifies it BLOCKED and still counts it in SpinCount, so a
//     refused connection that repeats also moves the breaker.
//   - SPINNING: SpinCount ≥ SpinWarning and a file changed in the last
//     SpinWarning iterations (with nothing changed it is STALLED).
//   - DEGRADED: DeclinePct ≥ DeclineWarningPct.
//   - STALLED: StallCount ≥ StallWarning and the latest known error is
//     not new (none, or the same hash as the previous known iteration's).
//     error-classification.md says STALLED at 2 idle iterations while the
//     breaker warns at 3 (docs/formats.md#decisions-on-the-published-rules); recite uses the breaker's StallWarning for
//     both so the health state and the breaker never disagree, and the
//     presets move them together.
//   - PROGRESS otherwise (and for no iterations).
func Evaluate(iters []IterationRecord, th Thresholds) Health {
	th = th.Normalized()
	norm := newNormalizer()
	c := measure(iters, th, norm)
	h := Health{StallCount: c.stall, SpinCount: c.spin, DeclinePct: c.decline, Thresholds: th, State: HealthProgress}
	var reasons []string
	h.Breaker, reasons = breakerState(c, th)
	if h.Breaker == BreakerHealthy && len(iters) > 1 {
		if prev, _ := breakerState(measure(iters[:len(iters)-1], th, norm), th); prev == BreakerTripped {
			h.Breaker = BreakerRecovery
			reasons = append(reasons, "counters below every threshold after a trip")
		}
	}
	if n := len(iters); n > 0 {
		last := iters[n-1]
		recentChange := false
		for i := n - 1; i >= 0 && i >= n-th.SpinWarning; i-- {
			if iters[i].FilesChanged > 0 {
				recentChange = true
			}
		}
		errText := last.ErrorText
		if strings.TrimSpace(errText) == "" && !emptyCell(last.ErrorHash) {
			errText = last.ErrorHash
		}
		newError := false
		if k := lastKnownError(iters, n); k >= 0 && c.hash != "" {
			prev := lastKnownError(iters, k)
			newError = prev < 0 || iterHash(iters[prev], norm) != c.hash
		}
		bp := blockedPattern()
		outcome := strings.TrimSpace(last.Outcome)
		switch {
		case errText != "" && bp.MatchString(errText):
			h.State = HealthBlocked
			reasons = append(reasons, "external error: "+firstLine(errText))
		case outcome != "" && bp.MatchString(outcome):
			h.State = HealthBlocked
			reasons = append(reasons, "external error: "+firstLine(outcome))
		case outcome != "" && blockedMark().MatchString(outcome):
			h.State = HealthBlocked
			reasons = append(reasons, "blocked: "+firstLine(outcome))
		case strings.EqualFold(strings.TrimSpace(last.Health), HealthBlocked):
			h.State = HealthBlocked
			reasons = append(reasons, fmt.Sprintf("iteration %d recorded BLOCKED", last.N))
		case c.spin >= th.SpinWarning && recentChange:
			h.State = HealthSpinning
		case c.decline >= th.DeclineWarningPct:
			h.State = HealthDegraded
		case c.stall >= th.StallWarning && !newError:
			h.State = HealthStalled
		}
	}
	h.Reasons = reasons
	return h
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// IterationsFromLoop turns a loop's Loop Progress rows into iteration
// records: N, FilesChanged, OutputLines, the Error Hash cell (a hash as
// ErrorHash, words as ErrorText; empty-looking cells such as "-" or
// "none" give neither), ErrorUnknown for a row of a table without an
// error column (the resume table), the Result cell as Outcome and the
// Health cell, with the timestamp parsed as RFC 3339 or a date when
// possible. l may be nil.
func IterationsFromLoop(l *planning.Loop) []IterationRecord {
	if l == nil {
		return nil
	}
	out := make([]IterationRecord, 0, len(l.Iterations))
	for _, it := range l.Iterations {
		r := IterationRecord{N: it.N, FilesChanged: it.FilesChanged, OutputLines: it.OutputLines, Timestamp: parseTime(it.Timestamp),
			ErrorUnknown: it.NoErrorColumn, Outcome: strings.TrimSpace(it.Result), Health: strings.TrimSpace(it.Health)}
		switch cell := strings.TrimSpace(it.ErrorHash); {
		case emptyCell(cell):
		case looksLikeHash(cell):
			r.ErrorHash = cell
		default:
			r.ErrorText = cell // an Error column holding the message
		}
		out = append(out, r)
	}
	return out
}
