package config

import "time"

// Default timings of the `watch` block.
const (
	// DefaultWatchQuiet is the trailing quiet period after the last file
	// event before `recite watch` re-renders: 20 ms, watchman's settle
	// time, is 4 times the longest save burst measured (a `git checkout`
	// of 25 files, 5 ms; vim's rename save, sed -i, a truncate and write
	// and a temp file renamed over the file all end within 1.5 ms,
	// docs/architecture.md#editor-save-patterns).
	DefaultWatchQuiet = 20 * time.Millisecond
	// DefaultWatchMaxWait caps how long a stream of events may delay a
	// render.
	DefaultWatchMaxWait = 250 * time.Millisecond
	// DefaultCommitInterval is how often `recite watch --commit` commits the
	// conversation history when it changed.
	DefaultCommitInterval = time.Minute
)

// Watch is the `watch` block of recite.yaml: the timing of `recite watch`.
// Durations are Go duration strings ("50ms", "1m"); a missing value takes
// the default, and a zero or negative one is an error at its line
// (values.go). Command-line flags override these values.
//
//	watch:
//	  quiet: 20ms          # render once no event came for this long
//	  max_wait: 250ms      # …but never later than this after the first event
//	  commit_interval: 1m  # `recite watch --commit`: commit history this often
type Watch struct {
	// Quiet is the debounce quiet period, as a Go duration (default 20ms).
	Quiet Duration `yaml:"quiet"`
	// MaxWait caps the delay between the first event of a batch and its
	// render (default 250ms); it must be at least Quiet.
	MaxWait Duration `yaml:"max_wait"`
	// CommitInterval is the period of history commits under
	// `recite watch --commit` (default 1m).
	CommitInterval Duration `yaml:"commit_interval"`
}

// fill sets defaults for zero values.
func (x *Watch) fill() {
	if x.Quiet == 0 {
		x.Quiet = Duration(DefaultWatchQuiet)
	}
	if x.MaxWait == 0 {
		x.MaxWait = Duration(DefaultWatchMaxWait)
	}
	if x.CommitInterval == 0 {
		x.CommitInterval = Duration(DefaultCommitInterval)
	}
}

// validate reports a max_wait below quiet, at the line of max_wait (each
// duration's range is checked where it is written: rules).
func (x *Watch) validate(fail failFunc) {
	if x.MaxWait < x.Quiet {
		fail("watch.max_wait", "watch.max_wait %v must be at least watch.quiet %v", time.Duration(x.MaxWait), time.Duration(x.Quiet))
	}
}
