package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
// The copy in LastGoodDir is a file of its own, written atomically, never
// a hard link to the prompt file: an editor or agent that writes the
// prompt file in place would otherwise change the last good render too
// (docs/formats.md#the-recite-folder). A copy that shares the prompt
// file's inode (written by an older recite) is replaced.
func (e *Engine) writeIfChanged(rel string, body, old []byte) (bool, error) {
	path := filepath.Join(e.dir, rel)
	last := filepath.Join(e.dir, LastGoodDir, filepath.Base(rel))
	if old != nil && bytes.Equal(old, body) {
		// Keep the last-good copy in step without touching the prompt file.
		cur, err := os.ReadFile(last)
		if err != nil || !bytes.Equal(cur, body) || sameFile(path, last) {
			if err := writeAtomic(last, body); err != nil {
				return false, fmt.Errorf("write %s: %w", last, err)
			}
		}
		return false, nil
	}
	if err := writeAtomic(path, body); err != nil {
		return false, fmt.Errorf("write %s: %w", rel, err)
	}
	if err := writeAtomic(last, body); err != nil {
		return true, fmt.Errorf("write %s: %w", last, err)
	}
	return true, nil
}

// sameFile reports whether a and b are links to one file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// restoreLastGood puts the last good copy of rel back when the prompt file
// is missing.
func (e *Engine) restoreLastGood(rel string) error {
	b, err := os.ReadFile(filepath.Join(e.dir, LastGoodDir, filepath.Base(rel)))
	if errors.Is(err, fs.ErrNotExist) {
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
// file itself (old) or its copy in .recite/last/.
func (e *Engine) hasLastGood(rel string, old []byte) bool {
	if old != nil {
		return true
	}
	_, err := os.Stat(filepath.Join(e.dir, LastGoodDir, filepath.Base(rel)))
	return err == nil
}
