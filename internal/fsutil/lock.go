package fsutil

import (
	"context"
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
func TryLock(ctx context.Context, path string, retry time.Duration) (unlock func() error, ok bool, err error) {
	lk := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDONLY), flock.SetPermissions(0o644))
	ok, err = lk.TryLockContext(ctx, retry)
	if err != nil || !ok {
		return nil, ok, err
	}
	return lk.Unlock, true, nil
}
