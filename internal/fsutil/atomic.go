package fsutil

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically: the bytes go to a temporary
// file in path's own folder, which is synced and then renamed over path,
// so a reader sees either the old file or the new one, never a torn mix.
// The temporary file lives beside path (never in $TMPDIR), so the rename
// never crosses filesystems. perm is the mode of a new file (less the
// umask); a file that exists keeps its mode. Errors are the *PathError of
// the step that failed; the temporary file is removed on failure.
//
// On Unix the write is renameio.WriteFile; on Windows, where renameio has
// no WriteFile, the rename is os.Rename, which Windows implements with
// MoveFileEx and MOVEFILE_REPLACE_EXISTING (see atomic_windows.go).
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return writeFile(path, data, perm)
}

// WriteFileNoSync is WriteFile without the sync: for files recite can
// rebuild or lose (caches, the render and pass histories under
// .planning/.recite), where a crash may lose the new bytes but never
// leaves a torn file, and a save does not wait for the disk. perm is the
// mode of the file. Errors are those of the step that failed; the
// temporary file is removed on failure.
func WriteFileNoSync(path string, data []byte, perm fs.FileMode) error {
	return WriteNoSync(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteNoSync is WriteFileNoSync of what write writes, for a cache that
// is streamed rather than held in memory whole.
func WriteNoSync(path string, perm fs.FileMode, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	err = write(f)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
