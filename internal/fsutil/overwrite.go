package fsutil

import (
	"io"
	"io/fs"
	"os"
)

// Overwrite writes what write writes over the file at path in place: from
// its first byte, cutting what is left of the old bytes, with no new file
// and no fsync. It is for files recite can rebuild that carry their own
// checksum over every byte (the caches under .planning/.recite and the
// last good renders): a crash or a reader racing the write sees a file
// that fails its checksum and is discarded, never a wrong one. Creating a
// file and renaming it over the old one (WriteNoSync) costs the
// filesystem a new inode and the old one's blocks each time, tens of
// times the write itself on ext4 (make bench: BenchmarkOverwrite), and a
// warm rebuild saves several such files.
//
// A path that is missing, not a regular file, a symbolic link (never
// followed: it could point out of the project), a named pipe (never
// waited on) or a file with other hard links is written by WriteNoSync
// instead, replacing it with a file of its
// own. perm is the mode of the file. Errors are those of the step that
// failed; a file the write failed in the middle of is removed.
func Overwrite(path string, perm fs.FileMode, write func(io.Writer) error) error {
	f, old, ok := openInPlace(path)
	if !ok {
		return WriteNoSync(path, perm, write)
	}
	cw := &countingWriter{w: f} // unbuffered: callers write whole blocks
	err := write(cw)
	if err == nil && cw.n < old.Size() {
		err = f.Truncate(cw.n) // a file that grew or kept its length has no old tail
	}
	if err == nil && old.Mode().Perm() != perm.Perm() {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// OverwriteFile is Overwrite of data.
func OverwriteFile(path string, data []byte, perm fs.FileMode) error {
	return Overwrite(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
