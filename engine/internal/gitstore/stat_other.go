//go:build !linux

package gitstore

import (
	"os"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat leaves the platform stat fields zero; git then re-hashes the file
// once and finds it unchanged.
func fillStat(e *index.Entry, fi os.FileInfo) {}

func syscallENOTDIR() error { return syscall.ENOTDIR }
