package watch

import (
	"slices"
	"sync"
	"time"
)

// Default debounce settings (docs/architecture.md#debouncer), sized for a git
// checkout's burst and an event flood (patterns 10, 15 and 16 of
// docs/architecture.md#editor-save-patterns).
const (
	// DefaultQuiet is the trailing quiet period: a batch is flushed once no
	// hint arrived for this long.
	DefaultQuiet = 50 * time.Millisecond
	// DefaultMaxWait caps how long the first hint of a batch may wait, so a
	// steady stream of writes cannot starve a flush.
	DefaultMaxWait = 250 * time.Millisecond
	// DefaultMaxPaths is the batch size above which the paths are dropped and
	// the batch is flagged Rescan (hugo reloads everything past 50 events;
	// docs/architecture.md#events-are-hints).
	DefaultMaxPaths = 1000
)

// Hint is one input of a Debouncer: a path that may have changed, or a request
// for a full rescan. Events are hints only
// (docs/architecture.md#events-are-hints): the consumer re-reads the file
// system when it receives the batch.
type Hint struct {
	// Path is an absolute or root-relative path; it is used as a set key
	// without cleaning.
	Path string
	// Rescan asks the consumer to re-read everything (Path is then ignored).
	Rescan bool
}

// Batch is one debounced flush.
type Batch struct {
	// Paths is the set of paths hinted since the previous batch, sorted,
	// without duplicates. It is nil when Rescan is true.
	Paths []string
	// Rescan is true when the consumer must re-read the whole tree: after a
	// kernel queue overflow (pattern 15 of
	// docs/architecture.md#editor-save-patterns), or when more than MaxPaths
	// distinct paths were hinted.
	Rescan bool
}

// DebounceOptions configures a Debouncer. Zero fields take the defaults.
type DebounceOptions struct {
	// Quiet is the trailing quiet period (default DefaultQuiet).
	Quiet time.Duration
	// MaxWait caps the delay between the first hint of a batch and its flush
	// (default DefaultMaxWait). Values below Quiet are raised to Quiet.
	MaxWait time.Duration
	// MaxPaths is the largest number of distinct paths a batch carries before
	// it collapses into a Rescan batch (default DefaultMaxPaths).
	MaxPaths int
}

func (o DebounceOptions) withDefaults() DebounceOptions {
	if o.Quiet <= 0 {
		o.Quiet = DefaultQuiet
	}
	if o.MaxWait <= 0 {
		o.MaxWait = DefaultMaxWait
	}
	if o.MaxWait < o.Quiet {
		o.MaxWait = o.Quiet
	}
	if o.MaxPaths <= 0 {
		o.MaxPaths = DefaultMaxPaths
	}
	return o
}

// Debouncer turns a stream of hints into batches. It is a pure channel-in,
// channel-out type with no file-system access, so its timing can be tested
// with testing/synctest (docs/architecture.md#tests).
//
// One goroutine owns the timer and the pending set
// (docs/architecture.md#debouncer). A batch is flushed when no hint arrived
// for Quiet, or when its first hint is MaxWait old, whichever comes first.
// While a flushed batch waits for a slow reader of Batches, later hints that
// come due are merged into it, so the input is never blocked by the consumer.
type Debouncer struct {
	in   <-chan Hint
	out  chan Batch
	quit chan struct{}
	done chan struct{}
	once sync.Once
	opts DebounceOptions
}

// NewDebouncer starts a Debouncer reading hints from in. When in is closed,
// the pending hints are flushed, then Batches is closed. Call Close to stop it
// earlier.
func NewDebouncer(in <-chan Hint, opts DebounceOptions) *Debouncer {
	d := &Debouncer{
		in:   in,
		out:  make(chan Batch),
		quit: make(chan struct{}),
		done: make(chan struct{}),
		opts: opts.withDefaults(),
	}
	go d.run()
	return d
}

// Batches returns the channel of flushed batches. It is closed when the
// Debouncer stops (input closed and drained, or Close).
func (d *Debouncer) Batches() <-chan Batch { return d.out }

// Close stops the Debouncer, drops any pending or undelivered batch, and
// waits for its goroutine to exit. It is safe to call more than once and
// always returns nil.
func (d *Debouncer) Close() error {
	d.once.Do(func() { close(d.quit) })
	<-d.done
	return nil
}

// pendingSet accumulates hints for one future batch.
type pendingSet struct {
	paths  map[string]struct{}
	rescan bool
	first  time.Time // arrival of the first hint; zero when empty
}

func (p *pendingSet) empty() bool { return p.first.IsZero() }

func (p *pendingSet) add(h Hint, now time.Time, maxPaths int) {
	if p.first.IsZero() {
		p.first = now
	}
	if p.rescan {
		return
	}
	if h.Rescan {
		p.rescan, p.paths = true, nil
		return
	}
	if p.paths == nil {
		p.paths = make(map[string]struct{})
	}
	p.paths[h.Path] = struct{}{}
	if len(p.paths) > maxPaths {
		p.rescan, p.paths = true, nil
	}
}

// mergeInto returns b extended by the pending hints and resets p.
func (p *pendingSet) mergeInto(b *Batch, maxPaths int) *Batch {
	if b == nil {
		b = &Batch{}
	}
	if p.rescan || b.Rescan {
		b.Rescan, b.Paths = true, nil
	} else {
		for path := range p.paths {
			b.Paths = append(b.Paths, path)
		}
		slices.Sort(b.Paths)
		b.Paths = slices.Compact(b.Paths)
		if len(b.Paths) > maxPaths {
			b.Rescan, b.Paths = true, nil
		}
	}
	*p = pendingSet{}
	return b
}

func (d *Debouncer) run() {
	defer close(d.done)
	defer close(d.out)

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()

	var (
		pending pendingSet
		ready   *Batch // flushed, waiting for the reader
		in      = d.in
	)
	for {
		var out chan Batch
		var next Batch
		if ready != nil {
			out, next = d.out, *ready
		}
		if in == nil && ready == nil {
			if pending.empty() {
				return
			}
			ready = pending.mergeInto(nil, d.opts.MaxPaths)
			continue
		}
		select {
		case <-d.quit:
			return
		case h, ok := <-in:
			if !ok {
				in = nil
				timer.Stop()
				if !pending.empty() {
					ready = pending.mergeInto(ready, d.opts.MaxPaths)
				}
				continue
			}
			now := time.Now()
			pending.add(h, now, d.opts.MaxPaths)
			wait := min(d.opts.Quiet, pending.first.Add(d.opts.MaxWait).Sub(now))
			timer.Reset(wait)
		case <-timer.C:
			ready = pending.mergeInto(ready, d.opts.MaxPaths)
		case out <- next:
			ready = nil
		}
	}
}
