//go:build !linux

package fsutiltest

import (
	"runtime"
	"testing"
)

func smallFilesystem(t testing.TB, size int64) string {
	t.Skipf("no small file system to fill on %s; the injected-writer tests cover the disk-full path", runtime.GOOS)
	return ""
}
