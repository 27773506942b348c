package fsutil

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// TryLock takes an exclusive advisory lock on the file at path (flock(2)
// on Unix, LockFileEx on Windows, through github.com/gofrs/flock),
// creating the file (mode 0644) when it is absent and never truncating
// it, so the lock may be taken on a data file itself as well as on a
// sidecar lock file. It retries every retry until the lock is taken or ctx
// is done. ok is false when the lock was not taken; err is ctx's error or
// the one opening or locking the file. The lock is per open file: a
// second TryLock on the same path, in this process or another, waits.
// unlock releases the lock and closes the file.
//
// A lock belongs to the file it was taken on, not to its name: when the
// file at path was replaced between TryLock's open and its lock (a
// rewrite renamed a new file over it, WriteFile), the lock it got is on a
// file nobody reads any more, so TryLock lets it go and locks the file now
// at path (lockedCurrent). A writer that rewrites a locked data file by
// rename therefore never loses an append made by a writer that was
// waiting.
func TryLock(ctx context.Context, path string, retry time.Duration) (unlock func() error, ok bool, err error) {
	for {
		lk := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDONLY), flock.SetPermissions(0o644))
		ok, err = lk.TryLockContext(ctx, retry)
		if err != nil || !ok {
			return nil, ok, err
		}
		if lockedCurrent(lk, path) {
			return lk.Unlock, true, nil
		}
		// Replaced or removed while we waited: lock the file at path now.
		_ = lk.Unlock()
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
	}
}

// lockedCurrent reports whether the locked lk holds the file now at path.
// A path that cannot be stat-ed for another reason than its absence
// counts as held: the caller's own open will report the problem.
func lockedCurrent(lk *flock.Flock, path string) bool {
	held, err := lk.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(path)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	return os.SameFile(held, now)
}
