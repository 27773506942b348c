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
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
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
