//go:build windows

package fsutil

import (
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// writeFile writes a temporary file beside path, syncs it and renames it
// over path. renameio.WriteFile does not exist on Windows, so the replace
// is os.Rename, which on Windows calls MoveFileEx with
// MOVEFILE_REPLACE_EXISTING (Go's os/file_windows.go and
// internal/syscall/windows.Rename): the documented way to replace an
// existing file in one step,
// https://learn.microsoft.com/en-us/windows/win32/api/winbase/nf-winbase-movefileexw.
// The temporary file is named as renameio names its own ("." + the base
// name + a random decimal number), so watchers that skip recite's temp
// files skip these too. Windows keeps only the read-only bit of a mode; a
// file that exists keeps its own.
func writeFile(path string, data []byte, perm fs.FileMode) (err error) {
	if fi, serr := os.Stat(path); serr == nil {
		perm = fi.Mode().Perm()
	}
	f, tmp, err := createTemp(path, perm)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err = errors.Join(werr, serr, cerr); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// createTemp creates a new file beside path named "." + base + a random
// 19-digit number, retrying on a name already taken.
func createTemp(path string, perm fs.FileMode) (*os.File, string, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for range 100 {
		n := 1_000_000_000_000_000_000 + rand.Int64N(math.MaxInt64-1_000_000_000_000_000_000)
		tmp := filepath.Join(dir, "."+base+strconv.FormatInt(n, 10))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, tmp, err
	}
	return nil, "", &fs.PathError{Op: "createtemp", Path: path, Err: fs.ErrExist}
}

// openInPlace declines on Windows, where os.OpenFile cannot refuse to
// follow a link at path: Overwrite replaces the file (WriteNoSync) there.
func openInPlace(string) (*os.File, fs.FileInfo, bool) { return nil, nil, false }

// openAppend declines on Windows for the same reason: AppendJSONLRing
// rewrites the ring (WriteFileNoSync) there.
func openAppend(string, fs.FileMode) (*os.File, bool) { return nil, false }
