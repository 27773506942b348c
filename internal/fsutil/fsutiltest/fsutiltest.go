// Package fsutiltest is test support for the faults a real file system
// has: SmallFilesystem gives a test a folder on a file system of its own,
// small enough to fill. It is imported by tests only, and imports no
// package of this module.
package fsutiltest

import "testing"

// SmallFilesystem returns a new folder on a file system of size bytes of
// its own (a tmpfs mounted there on Linux, unmounted when the test ends),
// so a test can fill it and see ENOSPC. It skips the test, saying why,
// where the machine does not allow the mount (not root, a container
// without the capability, another system): the tests that inject a
// failing writer cover the same path there.
func SmallFilesystem(t testing.TB, size int64) string {
	t.Helper()
	return smallFilesystem(t, size)
}
