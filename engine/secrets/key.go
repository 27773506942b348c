package secrets

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/internal/redact"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/templates"
)

// loadKey reads the KeyFile of the project rooted at dir, or makes it when
// it does not exist: 32 bytes from crypto/rand written to a temporary file
// of mode 0600 and linked into place, so two processes starting at once
// agree on one key and none reads a half-written file. It also writes
// .recite/.gitignore when missing, so the key stays out of git. A file
// that is not hex of at least redact.MinKeySize bytes is an error.
func loadKey(dir string) ([]byte, error) {
	path := filepath.Join(dir, filepath.FromSlash(KeyFile))
	if b, err := os.ReadFile(path); err == nil {
		return parseKey(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if err := ensureCacheIgnore(dir); err != nil {
		return nil, err
	}
	key, err := redact.NewKey()
	if err != nil {
		return nil, err
	}
	tmp, err := writeTempKey(filepath.Dir(path), key)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Another process made it first: use that one.
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			return parseKey(b)
		}
		// A filesystem without hard links: rename, which may replace a
		// key another process made in the same instant (its placeholders
		// then change once).
		if err := os.Rename(tmp, path); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// writeTempKey writes key as hex and a newline to a new temporary file of
// mode 0600 in dir, synced, and returns its path; the caller removes it.
func writeTempKey(dir string, key []byte) (string, error) {
	tmp, err := os.CreateTemp(dir, ".redact.key.*")
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Chmod(0o600); err != nil {
		return fail(err)
	}
	if _, err := tmp.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// parseKey decodes the contents of KeyFile.
func parseKey(b []byte) ([]byte, error) {
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) < redact.MinKeySize {
		return nil, fmt.Errorf("not a key of at least %d hex digits; delete the file and recite makes a new one", 2*redact.MinKeySize)
	}
	return key, nil
}

// ensureCacheIgnore writes the cache folder's .gitignore (the init
// template prompts.gitignore) when it is missing, so nothing recite keeps
// there, the key and RawDir included, shows in git.
func ensureCacheIgnore(dir string) error {
	cacheDir := filepath.Join(dir, filepath.FromSlash(layout.CacheDir))
	gi := filepath.Join(cacheDir, ".gitignore")
	if _, err := os.Stat(gi); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return err
	}
	body, err := templates.Init("prompts.gitignore", "")
	if err != nil {
		return err
	}
	return fsutil.WriteFile(gi, []byte(body), 0o644)
}
