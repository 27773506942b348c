package claudecode

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"time"

	"github.com/recite-dev/recite/internal/fsutil"
)

// fingerprintSkipped reports the folders of the planning tree the status
// summary's fingerprint leaves out (p relative to it): recite's own
// outputs and caches, which no summary is computed from. The conversation
// logs count: their tails give the health and the open stop signals.
func fingerprintSkipped(p string) bool {
	switch p {
	case "prompts", ".recite":
		return true
	}
	return false
}

// planningFingerprint walks the planning tree at pdir (symbolic links
// below it are not followed; the tree itself may be one) and returns a
// hash of every file's slash path, size and modification time, in walk
// order, and the newest modification time of those files. Folders are
// not noted: a file added, removed or renamed changes the list of paths
// already, and recite's own readers create folders (conversations/) that
// would make a summary out of date as it is written. Only stat calls: no
// file is read. Errors: the root cannot be read.
func planningFingerprint(pdir string) (string, time.Time, error) {
	h := sha256.New()
	var newest time.Time
	var buf [16]byte
	note := func(p string, fi fs.FileInfo) {
		if t := fi.ModTime(); t.After(newest) {
			newest = t
		}
		h.Write([]byte(p))
		binary.LittleEndian.PutUint64(buf[:8], uint64(fi.Size()))
		binary.LittleEndian.PutUint64(buf[8:], uint64(fi.ModTime().UnixNano()))
		h.Write(buf[:])
	}
	fsys := fsutil.DirFS(pdir)
	if _, err := fs.Stat(fsys, "."); err != nil {
		return "", time.Time{}, err
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			h.Write([]byte(p + "\x00unreadable"))
			return nil
		}
		if p == "." {
			return nil
		}
		if d.IsDir() {
			if fingerprintSkipped(p) || d.Name() == ".git" || d.Name() == "node_modules" {
				return fs.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			h.Write([]byte(p + "\x00gone"))
			return nil
		}
		note(p, fi)
		return nil
	})
	if err != nil {
		return "", time.Time{}, err
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), newest, nil
}
