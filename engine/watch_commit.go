package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/recite-dev/recite/engine/config"
)

// FinalCommitError is Watch's error when the history commit it makes on
// the way out fails: the history written since the last commit is not in
// git. The CLI exits 1 on it.
type FinalCommitError struct {
	// Err is Commit's error (a *SecretsError, ErrIndexLocked, …).
	Err error
}

func (e *FinalCommitError) Error() string { return fmt.Sprintf("final history commit: %v", e.Err) }

// Unwrap returns Commit's error.
func (e *FinalCommitError) Unwrap() error { return e.Err }

// commitInterval is recite.yaml's watch.commit_interval, or the default.
func (e *Engine) commitInterval() time.Duration {
	if cfg, _, err := config.Load(e.dir); err == nil {
		return time.Duration(cfg.Watch.CommitInterval)
	}
	return config.DefaultCommitInterval
}

// commitLoop commits the history every interval while it is dirty, and
// once more when ctx ends, and returns that final commit's failure as a
// *FinalCommitError (nil when it succeeded or had nothing to do). A tick
// while `.planning/` is missing (moved away for a moment, or being
// re-created) is skipped and the history stays dirty: Commit would refuse
// anyway, and the render events report the missing folder. A failed
// commit is an event whose Error says why (with the findings of a secret
// scan in Secrets), and the next tick tries again.
func (e *Engine) commitLoop(ctx context.Context, opts WatchOptions, interval time.Duration, dirty *atomic.Bool, emit func(WatchEvent)) error {
	lastKept := 0
	commit := func(ctx context.Context) error {
		if !dirty.Load() {
			return nil
		}
		if _, err := e.planningDir(); err != nil {
			return nil // skip this tick; still dirty
		}
		dirty.Store(false)
		start := time.Now()
		res, err := e.Commit(ctx, CommitOptions{Message: opts.CommitMessage})
		if errors.Is(err, ErrNoPlanning) {
			dirty.Store(true) // gone since the check: skip this tick
			return nil
		}
		ev := WatchEvent{Kind: EventCommit, Time: time.Now(), Commit: res.Hash, KeptMissing: len(res.Kept), Written: []string{}}
		ev.Duration = ev.Time.Sub(start)
		if err != nil {
			dirty.Store(true) // try again at the next tick
			ev.Error = err.Error()
			var se *SecretsError
			if errors.As(err, &se) {
				ev.Secrets = se.Findings
			}
		}
		if err != nil || res.Hash != "" || len(res.Kept) != lastKept {
			emit(ev)
		}
		if err == nil {
			lastKept = len(res.Kept)
		}
		return err
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			// The history written since the last tick: commit it before
			// leaving, bounded by the index-lock wait.
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			err := commit(final)
			cancel()
			if err != nil {
				return &FinalCommitError{Err: err}
			}
			return nil
		case <-t.C:
			_ = commit(ctx) // reported as an event; retried at the next tick
		}
	}
}
