package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/recite-dev/recite/engine/scaffold"
	"github.com/recite-dev/recite/internal/fsutil"

	"github.com/recite-dev/recite/templates"
)

// ensureDirs creates prompts/ and .recite/ with the .gitignore files that
// keep them out of git, and keeps the copy of recite.yaml's schema there
// current (scaffold.WriteSchemaCopy).
func (e *Engine) ensureDirs() error {
	gi, err := templates.Init("prompts.gitignore", "")
	if err != nil {
		return err
	}
	for _, d := range []string{PromptsDir, LastGoodDir} {
		if err := os.MkdirAll(filepath.Join(e.dir, d), 0o755); err != nil {
			return err
		}
	}
	for _, d := range []string{PromptsDir, CacheDir} {
		p := filepath.Join(e.dir, d, ".gitignore")
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if err := writeAtomic(p, []byte(gi)); err != nil {
				return err
			}
		}
	}
	_, err = scaffold.WriteSchemaCopy(e.dir)
	return err
}

// writeIfChanged writes body to rel (project-relative) atomically unless the
// file already holds exactly these bytes, and keeps a copy as the last good
// render. It reports whether the file was written.
//
// The copy in LastGoodDir is a file of its own, never a hard link to the
// prompt file: an editor or agent that writes the prompt file in place
// would otherwise change the last good render too
// (docs/formats.md#the-recite-folder). It is written over itself in place
// with a checksum (writeLastGood), so a rebuild does not pay for a new
// file each time; a copy that fails its checksum, or that shares the
// prompt file's inode (written by an older recite), is replaced.
func (e *Engine) writeIfChanged(rel string, body, old []byte) (bool, error) {
	path := filepath.Join(e.dir, rel)
	last := filepath.Join(e.dir, LastGoodDir, filepath.Base(rel))
	if old != nil && bytes.Equal(old, body) {
		// Keep the last-good copy in step without touching the prompt file.
		if cur, err := readLastGood(last); err != nil || !bytes.Equal(cur, body) {
			if err := writeLastGood(last, body); err != nil {
				return false, fmt.Errorf("write %s: %w", last, err)
			}
		}
		return false, nil
	}
	if err := writeAtomic(path, body); err != nil {
		return false, fmt.Errorf("write %s: %w", rel, err)
	}
	if err := writeLastGood(last, body); err != nil {
		return true, fmt.Errorf("write %s: %w", last, err)
	}
	return true, nil
}

// lastGoodMagic starts a last good copy: the line
// "recite-last-good 1 SHA256 BYTES\n" (the hex SHA-256 and the length of
// the render), then the render's bytes (docs/formats.md#the-recite-folder).
const lastGoodMagic = "recite-last-good 1 "

// errLastGood is wrapped by every reason a last good copy is not used.
var errLastGood = errors.New("last good copy unusable")

// writeLastGood writes body to the last good copy at path, over the old
// copy in place and without fsync (fsutil.Overwrite): the prompt file
// itself was synced, and a torn copy fails its checksum and is not used.
func writeLastGood(path string, body []byte) error {
	sum := sha256.Sum256(body)
	head := fmt.Sprintf("%s%s %d\n", lastGoodMagic, hex.EncodeToString(sum[:]), len(body))
	return fsutil.Overwrite(path, 0o644, func(w io.Writer) error {
		if _, err := io.WriteString(w, head); err != nil {
			return err
		}
		_, err := w.Write(body)
		return err
	})
}

// readLastGood returns the render kept in the last good copy at path.
// Errors: the file's read error (fs.ErrNotExist when there is none), or
// errLastGood for a copy without the header, of another length, or whose
// bytes fail the checksum (a torn write, an older recite's plain copy).
func readLastGood(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	head, body, ok := bytes.Cut(b, []byte("\n"))
	fields := strings.Fields(strings.TrimPrefix(string(head), lastGoodMagic))
	if !ok || !bytes.HasPrefix(head, []byte(lastGoodMagic)) || len(fields) != 2 {
		return nil, fmt.Errorf("%s: %w: no header", path, errLastGood)
	}
	sum := sha256.Sum256(body)
	if n, err := strconv.Atoi(fields[1]); err != nil || n != len(body) || fields[0] != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("%s: %w: torn or changed", path, errLastGood)
	}
	return body, nil
}

// restoreLastGood puts the last good copy of rel back when the prompt file
// is missing; a missing or unusable copy restores nothing.
func (e *Engine) restoreLastGood(rel string) error {
	b, err := readLastGood(filepath.Join(e.dir, LastGoodDir, filepath.Base(rel)))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errLastGood) {
		return nil
	}
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(e.dir, rel), b)
}

// writeAtomic writes data to path through a temp file in the same folder,
// synced and renamed over path (docs/architecture.md#atomic-writes; fsutil.WriteFile).
func writeAtomic(path string, data []byte) error {
	return fsutil.WriteFile(path, data, 0o644)
}

// hasLastGood reports whether a previous render of rel exists: the prompt
// file itself (old) or a usable copy in .recite/last/.
func (e *Engine) hasLastGood(rel string, old []byte) bool {
	if old != nil {
		return true
	}
	_, err := readLastGood(filepath.Join(e.dir, LastGoodDir, filepath.Base(rel)))
	return err == nil
}
