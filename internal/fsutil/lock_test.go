package fsutil

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

func TestTryLockExcludes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(p, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, ok, err := TryLock(context.Background(), p, time.Millisecond)
	if err != nil || !ok {
		t.Fatalf("first lock: ok=%v err=%v", ok, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok, err := TryLock(ctx, p, time.Millisecond); ok || err == nil {
		t.Fatalf("second lock while held: ok=%v err=%v, want not taken with ctx's error", ok, err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	unlock, ok, err = TryLock(context.Background(), p, time.Millisecond)
	if err != nil || !ok {
		t.Fatalf("lock after unlock: ok=%v err=%v", ok, err)
	}
	_ = unlock()
	if b, _ := os.ReadFile(p); string(b) != "kept" {
		t.Errorf("locking changed the file: %q", b)
	}
}

func TestTryLockCreates(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	unlock, ok, err := TryLock(context.Background(), p, time.Millisecond)
	if err != nil || !ok {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	defer func() { _ = unlock() }()
	if _, err := os.Stat(p); err != nil {
		t.Errorf("lock file not created: %v", err)
	}
}

// TestLockedCurrent: a lock taken on a data file that was then replaced
// by rename (WriteFile) or removed is not a lock on the file at the path,
// so TryLock takes the lock again; a lock on the current file is.
func TestLockedCurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "context-preserved.md")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	lock := func() *flock.Flock {
		lk := flock.New(p, flock.SetFlag(os.O_RDONLY))
		if ok, err := lk.TryLock(); !ok || err != nil {
			t.Fatal(ok, err)
		}
		return lk
	}
	old := lock()
	if !lockedCurrent(old, p) {
		t.Fatal("the lock on the current file does not count")
	}
	if err := WriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if lockedCurrent(old, p) {
		t.Error("the lock on the replaced file counts as the new file's")
	}
	_ = old.Unlock()
	cur := lock()
	if !lockedCurrent(cur, p) {
		t.Error("the lock on the new file does not count")
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if lockedCurrent(cur, p) {
		t.Error("the lock on a removed file counts")
	}
	_ = cur.Unlock()
	unlock, ok, err := TryLock(context.Background(), p, time.Millisecond)
	if err != nil || !ok {
		t.Fatalf("TryLock after the removal: %v %v", ok, err)
	}
	_ = unlock()
}
