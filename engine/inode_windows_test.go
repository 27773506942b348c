//go:build windows

package engine

import "os"

// inodeNumber reports false: Windows has no inode numbers in FileInfo.
func inodeNumber(os.FileInfo) (uint64, bool) { return 0, false }
