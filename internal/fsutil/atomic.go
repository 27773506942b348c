package fsutil

import "io/fs"

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
