package signals

import "testing"

// iters builds records from (files changed, error, output lines) triples.
func iters(rows ...any) []IterationRecord {
	var out []IterationRecord
	for i := 0; i+2 < len(rows); i += 3 {
		out = append(out, IterationRecord{N: len(out) + 1, FilesChanged: rows[i].(int), ErrorText: rows[i+1].(string), OutputLines: rows[i+2].(int)})
	}
	return out
}

func TestEvaluate(t *testing.T) {
	const e1 = "TypeError: Cannot read property 'a' of undefined at f (x.js:1:1)"
	const e1b = "TypeError: Cannot read property 'b' of undefined at g (x.js:9:9)"
	const e2 = "ReferenceError: y is not defined"
	def := DefaultThresholds()
	tests := []struct {
		name                string
		in                  []IterationRecord
		th                  Thresholds
		state, breaker      string
		stall, spin, declin int
	}{
		{"no iterations", nil, def, HealthProgress, BreakerHealthy, 0, 0, 0},
		{"progress", iters(2, "", 100, 1, "", 100, 3, "", 100), def, HealthProgress, BreakerHealthy, 0, 0, 0},
		{"stall 2 is not yet stalled", iters(1, "", 100, 0, "", 100, 0, "", 100), def, HealthProgress, BreakerHealthy, 2, 0, 0},
		{"stall 3 warns and is STALLED", iters(1, "", 100, 0, "", 100, 0, "", 100, 0, "", 100), def, HealthStalled, BreakerWarning, 3, 0, 0},
		{"stall 5 trips (BREAK before WARNING)", iters(1, "", 100, 0, "", 100, 0, "", 100, 0, "", 100, 0, "", 100, 0, "", 100), def, HealthStalled, BreakerTripped, 5, 0, 0},
		{"stall resets on a change", iters(0, "", 100, 0, "", 100, 0, "", 100, 0, "", 100, 1, "", 100), def, HealthProgress, BreakerHealthy, 0, 0, 0},
		{"spin 3 with changes is SPINNING", iters(1, e1, 100, 1, e1b, 100, 1, e1, 100), def, HealthSpinning, BreakerWarning, 0, 3, 0},
		{"spin 5 trips", iters(1, e1, 100, 1, e1, 100, 1, e1, 100, 1, e1b, 100, 1, e1, 100), def, HealthSpinning, BreakerTripped, 0, 5, 0},
		{"different last error resets spin", iters(1, e1, 100, 1, e1, 100, 1, e1, 100, 1, e2, 100), def, HealthProgress, BreakerHealthy, 0, 1, 0},
		{"decline 50% warns, DEGRADED", iters(1, "", 100, 1, "", 100, 1, "", 100, 1, "", 50), def, HealthDegraded, BreakerWarning, 0, 0, 50},
		{"decline 70% trips", iters(1, "", 100, 1, "", 100, 1, "", 100, 1, "", 30), def, HealthDegraded, BreakerTripped, 0, 0, 70},
		{"decline needs baseline+1", iters(1, "", 100, 1, "", 100, 1, "", 10), def, HealthProgress, BreakerHealthy, 0, 0, 0},
		{"output growth is no decline", iters(1, "", 100, 1, "", 100, 1, "", 100, 1, "", 300), def, HealthProgress, BreakerHealthy, 0, 0, 0},
		{"BLOCKED beats SPINNING", iters(1, "connect ECONNREFUSED 127.0.0.1:5432", 100, 1, "connect ECONNREFUSED 10.0.0.1:5432", 100, 1, "connect ECONNREFUSED 127.0.0.1:5432", 100), def, HealthBlocked, BreakerWarning, 0, 3, 0},
		{"BLOCKED phrase", iters(1, "", 100, 0, "403: Permission Denied for repo", 100), def, HealthBlocked, BreakerHealthy, 1, 1, 0},
		{"SPINNING beats DEGRADED", iters(1, "", 100, 1, "", 100, 1, "", 100, 1, e1, 40, 1, e1, 40, 1, e1, 40), def, HealthSpinning, BreakerWarning, 0, 3, 60},
		{"same error, no changes: STALLED not SPINNING", iters(0, e1, 100, 0, e1, 100, 0, e1, 100), def, HealthStalled, BreakerWarning, 3, 3, 0},
		{"new error while idle is progress", iters(0, "", 100, 0, "", 100, 0, e2, 100), def, HealthProgress, BreakerWarning, 3, 1, 0},
		{"recovery after a trip", iters(0, "", 100, 0, "", 100, 0, "", 100, 0, "", 100, 0, "", 100, 2, "", 100), def, HealthProgress, BreakerRecovery, 0, 0, 0},
		{"aggressive trips at stall 2", iters(1, "", 100, 0, "", 100, 0, "", 100), mustPreset(t, "aggressive"), HealthStalled, BreakerTripped, 2, 0, 0},
		{"aggressive trips at decline 40%", iters(1, "", 100, 1, "", 100, 1, "", 100, 1, "", 60), mustPreset(t, "aggressive"), HealthDegraded, BreakerTripped, 0, 0, 40},
		{"debug: stall 5 only warns", iters(1, "", 100, 0, "", 100, 0, "", 100, 0, "", 100, 0, "", 100, 0, "", 100), mustPreset(t, "debug"), HealthStalled, BreakerWarning, 5, 0, 0},
		{"zero thresholds mean defaults", iters(1, "", 100, 0, "", 100, 0, "", 100, 0, "", 100), Thresholds{}, HealthStalled, BreakerWarning, 3, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := Evaluate(tt.in, tt.th)
			if h.State != tt.state || h.Breaker != tt.breaker || h.StallCount != tt.stall || h.SpinCount != tt.spin || h.DeclinePct != tt.declin {
				t.Errorf("Evaluate = {%s %s stall %d spin %d decline %d} %q, want {%s %s stall %d spin %d decline %d}",
					h.State, h.Breaker, h.StallCount, h.SpinCount, h.DeclinePct, h.Reasons, tt.state, tt.breaker, tt.stall, tt.spin, tt.declin)
			}
			if h.Breaker != BreakerHealthy && len(h.Reasons) == 0 {
				t.Errorf("breaker %s without reasons", h.Breaker)
			}
		})
	}
}

func mustPreset(t *testing.T, name string) Thresholds {
	t.Helper()
	th, ok := Preset(name)
	if !ok {
		t.Fatalf("preset %q unknown", name)
	}
	return th
}

func TestPresets(t *testing.T) {
	tests := []struct {
		name string
		want Thresholds
	}{
		{"default", Thresholds{3, 5, 3, 5, 50, 70, 3}},
		{"", Thresholds{3, 5, 3, 5, 50, 70, 3}},
		{"aggressive", Thresholds{2, 2, 3, 3, 40, 40, 3}},
		{"debug", Thresholds{5, 8, 3, 5, 50, 70, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Preset(tt.name)
			if !ok || got != tt.want {
				t.Errorf("Preset(%q) = %+v, %v; want %+v", tt.name, got, ok, tt.want)
			}
			if got.Normalized() != got {
				t.Errorf("preset %q is not normalised", tt.name)
			}
		})
	}
	if _, ok := Preset("reckless"); ok {
		t.Error("unknown preset accepted")
	}
}

func TestOverlayAndNormalized(t *testing.T) {
	tests := []struct {
		name                 string
		base, o              Thresholds
		overlay, normalizedO Thresholds
	}{
		{"zero overlay keeps the base", Thresholds{2, 2, 3, 3, 40, 40, 3}, Thresholds{},
			Thresholds{2, 2, 3, 3, 40, 40, 3}, Thresholds{3, 5, 3, 5, 50, 70, 3}},
		{"every positive field wins", Thresholds{3, 5, 3, 5, 50, 70, 3}, Thresholds{1, 9, 2, 8, 10, 90, 4},
			Thresholds{1, 9, 2, 8, 10, 90, 4}, Thresholds{1, 9, 2, 8, 10, 90, 4}},
		{"negative fields keep the base", Thresholds{5, 8, 3, 5, 50, 70, 3}, Thresholds{-1, 0, 0, -4, 0, 0, -2},
			Thresholds{5, 8, 3, 5, 50, 70, 3}, Thresholds{3, 5, 3, 5, 50, 70, 3}},
		{"a warning above its break is capped by Normalized only", Thresholds{3, 5, 3, 5, 50, 70, 3}, Thresholds{StallWarning: 9, DeclineWarningPct: 80},
			Thresholds{9, 5, 3, 5, 80, 70, 3}, Thresholds{5, 5, 3, 5, 70, 70, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.base.Overlay(tt.o); got != tt.overlay {
				t.Errorf("Overlay = %+v, want %+v", got, tt.overlay)
			}
			if got := tt.o.Normalized(); got != tt.normalizedO {
				t.Errorf("Normalized = %+v, want %+v", got, tt.normalizedO)
			}
		})
	}
}

// TestBreakBeforeWarning checks every measure at exactly its BREAK
// threshold: the literal pseudo-code would return WARNING.
func TestBreakBeforeWarning(t *testing.T) {
	th := DefaultThresholds()
	for _, c := range []counters{{stall: 5}, {spin: 5}, {decline: 70}, {stall: 9, spin: 3}} {
		if got, _ := breakerState(c, th); got != BreakerTripped {
			t.Errorf("breakerState(%+v) = %s, want TRIPPED", c, got)
		}
	}
	for _, c := range []counters{{stall: 3}, {spin: 4}, {decline: 69}} {
		if got, _ := breakerState(c, th); got != BreakerWarning {
			t.Errorf("breakerState(%+v) = %s, want WARNING", c, got)
		}
	}
}

func TestIterationsFromLoop(t *testing.T) {
	got := IterationsFromLoop(sampleLoop())
	if len(got) != 5 {
		t.Fatalf("got %d records", len(got))
	}
	if got[0].ErrorHash != "" || got[1].ErrorHash != "a3f2c1d" || got[4].OutputLines != 20 || got[2].Timestamp.IsZero() {
		t.Errorf("records = %+v", got)
	}
	h := Evaluate(got, DefaultThresholds())
	// Iterations 4 and 5 changed nothing; 5's error is ECONNREFUSED (BLOCKED);
	// output 20 vs baseline (120+110+90)/3 = 106.67 → 81% decline → TRIPPED.
	if h.State != HealthBlocked || h.Breaker != BreakerTripped || h.StallCount != 2 || h.SpinCount != 1 || h.DeclinePct != 81 {
		t.Errorf("Evaluate(sample loop) = %+v", h)
	}
	if got := h.BreakerLine(); got != "stall: 2/5 | spin: 1/5 | decline: 81%" {
		t.Errorf("BreakerLine = %q", got)
	}
	if IterationsFromLoop(nil) != nil {
		t.Error("nil loop gave records")
	}
}

func BenchmarkEvaluate(b *testing.B) {
	var in []IterationRecord
	for i := range 200 {
		in = append(in, IterationRecord{N: i + 1, FilesChanged: i % 3, ErrorText: "TypeError: x at f (a.js:1:1)", OutputLines: 100 - i%50})
	}
	th := DefaultThresholds()
	for b.Loop() {
		Evaluate(in, th)
	}
}
