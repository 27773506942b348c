package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"

	"github.com/recite-dev/recite/templates"
)

// ensureDirs creates prompts/ and .recite/ with the .gitignore files that
// keep them out of git.
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
			if err := renameio.WriteFile(p, []byte(gi), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeIfChanged writes body to rel (project-relative) atomically unless the
// file already holds exactly these bytes, and keeps a copy as the last good
// render. It reports whether the file was written.
func (e *Engine) writeIfChanged(rel string, body, old []byte) (bool, error) {
	last := filepath.Join(e.dir, LastGoodDir, filepath.Base(rel))
	if old != nil && bytes.Equal(old, body) {
		// Keep the last-good copy in step without touching the prompt file.
		if cur, err := os.ReadFile(last); err != nil || !bytes.Equal(cur, body) {
			if err := renameio.WriteFile(last, body, 0o644); err != nil {
				return false, fmt.Errorf("write %s: %w", last, err)
			}
		}
		return false, nil
	}
	if err := renameio.WriteFile(filepath.Join(e.dir, rel), body, 0o644); err != nil {
		return false, fmt.Errorf("write %s: %w", rel, err)
	}
	if err := renameio.WriteFile(last, body, 0o644); err != nil {
		return true, fmt.Errorf("write %s: %w", last, err)
	}
	return true, nil
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
	return renameio.WriteFile(filepath.Join(e.dir, rel), b, 0o644)
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
