package config

// Compression is the `compression` block of recite.yaml: difficulty
// routing and relevance-scored context compression (fire-flow's
// difficulty levels and its compression every 3 iterations).
//
//	compression:
//	  enabled: true
//	  every: 3
//	  summarizer: ""
//	  difficulty:
//	    simple:   {omit: [learnings, directives, rewards]}
//	    moderate: {omit: []}
//	    complex:  {double_check: true}
type Compression struct {
	// Enabled turns compression passes and budget levels on (default
	// true). Difficulty routing applies either way.
	Enabled *bool `yaml:"enabled"`
	// Every is the compression cadence in loop iterations (default 3, as
	// fire-flow compresses "EVERY 3 iterations"). Between passes the result
	// of the last pass is reused, so the prompt stays byte-stable.
	Every int `yaml:"every"`
	// Summarizer is a command (stdin to stdout, run through `sh -c` in the
	// project root, with the share of tokens to keep in $RECITE_KEEP, e.g.
	// 0.15) that shortens LOW segments instead of the built-in extractive
	// rules; its outputs are cached by content hash under
	// .planning/.recite/compress. "" uses the extractive rules; a failing or
	// silent command falls back to them.
	Summarizer string `yaml:"summarizer"`
	// Difficulty holds the section policy of each difficulty level.
	Difficulty DifficultyPolicies `yaml:"difficulty"`
}

// DifficultyPolicies are the per-level section policies (fire-flow's
// difficulty routing: SIMPLE skips episodic learnings, directives and rewards; COMPLEX adds a
// double-check).
type DifficultyPolicies struct {
	// Simple is the policy of SIMPLE tasks (default: omit learnings,
	// directives and rewards).
	Simple DifficultyPolicy `yaml:"simple"`
	// Moderate is the policy of MODERATE tasks (default: omit nothing).
	Moderate DifficultyPolicy `yaml:"moderate"`
	// Complex is the policy of COMPLEX tasks (default: omit nothing, add
	// the double-check).
	Complex DifficultyPolicy `yaml:"complex"`
}

// DifficultyPolicy is what one difficulty level changes in a prompt.
type DifficultyPolicy struct {
	// Omit lists sections left out at this level: learnings, directives,
	// rewards, epic, loop, file-tree, files or skills. Left out, the
	// level's default applies; an empty list omits nothing.
	Omit []string `yaml:"omit"`
	// DoubleCheck adds a "Double-check" section (semi tier) asking the
	// agent to verify its change against the plan's must-haves before
	// reporting done. Left out, the level's default applies (COMPLEX
	// only).
	DoubleCheck *bool `yaml:"double_check"`
}

// CompressionOn reports whether compression passes are enabled.
func (x *Compression) CompressionOn() bool { return x.Enabled == nil || *x.Enabled }

// fill sets defaults for zero values.
func (x *Compression) fill() {
	if x.Every == 0 {
		x.Every = 3
	}
	if x.Difficulty.Simple.Omit == nil {
		x.Difficulty.Simple.Omit = []string{"learnings", "directives", "rewards"}
	}
	if x.Difficulty.Moderate.Omit == nil {
		x.Difficulty.Moderate.Omit = []string{}
	}
	if x.Difficulty.Complex.Omit == nil {
		x.Difficulty.Complex.Omit = []string{}
	}
	f, t := false, true
	if x.Difficulty.Simple.DoubleCheck == nil {
		x.Difficulty.Simple.DoubleCheck = &f
	}
	if x.Difficulty.Moderate.DoubleCheck == nil {
		x.Difficulty.Moderate.DoubleCheck = &f
	}
	if x.Difficulty.Complex.DoubleCheck == nil {
		x.Difficulty.Complex.DoubleCheck = &t
	}
}
