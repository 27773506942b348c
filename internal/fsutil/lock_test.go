package fsutil

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
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
