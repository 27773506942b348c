//go:build !windows

package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/google/renameio/v2"
)

// writeFile is renameio.WriteFile with the temporary file in path's
// folder, which spares renameio's probe of whether $TMPDIR shares path's
// filesystem (two temporary files and a rename per write).
func writeFile(path string, data []byte, perm fs.FileMode) error {
	return renameio.WriteFile(path, data, perm, renameio.WithTempDir(filepath.Dir(path)))
}

// openInPlace opens path for Overwrite: a regular file with one link,
// reached without following a symbolic link at path, with its stat.
func openInPlace(path string) (*os.File, fs.FileInfo, bool) {
	return openRegular(path, os.O_WRONLY, 0)
}

// openAppend opens path for AppendJSONLRing: as openInPlace, appending,
// creating a missing file with mode perm.
func openAppend(path string, perm fs.FileMode) (*os.File, bool) {
	f, _, ok := openRegular(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
	return f, ok
}

// openRegular opens path with flag when it is a regular file with one
// link: never through a symbolic link at path (O_NOFOLLOW), and without
// blocking on a named pipe (O_NONBLOCK, which changes nothing for a
// regular file), so neither can take a cache write out of the project or
// hang it.
func openRegular(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, bool) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, nil, false
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, false
	}
	st, isUnix := fi.Sys().(*syscall.Stat_t)
	if !fi.Mode().IsRegular() || !isUnix || st.Nlink != 1 {
		f.Close()
		return nil, nil, false
	}
	return f, fi, true
}
