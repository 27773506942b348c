//go:build !windows

package watch

import (
	"os"
	"syscall"
)

// inodeNumber is fi's inode number.
func inodeNumber(fi os.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ino, true
}
