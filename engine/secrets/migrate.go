package secrets

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/planning/conversation"
)

// Wire makes the conversation store s redact every record before it
// writes it (Log, with the project's key: conversation.Store.Redact),
// since the logs are committed; with recite.yaml's conversations.keep_raw
// the records as they were go to RawDir, and the cache folder's
// .gitignore is written first when missing
// (docs/formats.md#secrets-in-committed-files). Errors: writing that
// .gitignore.
func (r *Redactor) Wire(s *conversation.Store) error {
	s.Redact = r.Log
	if keepRaw(r.dir) {
		if err := ensureCacheIgnore(r.dir); err != nil {
			return err
		}
		s.RawDir = filepath.Join(r.dir, filepath.FromSlash(RawDir))
	}
	return nil
}

// keepRaw is recite.yaml's conversations.keep_raw; false when the file
// cannot be read (the logs stay redacted, the safe side).
func keepRaw(dir string) bool {
	cfg, _, err := config.Load(dir)
	return err == nil && cfg.Conversations.KeepRaw
}

// File is what Migrate did to one file.
type File struct {
	// Path is the project-relative path of the log or context-preserved.md.
	Path string `json:"path"`
	// Replaced is how many values were replaced by placeholders.
	Replaced int `json:"replaced"`
	// Unredacted counts the lines that hold a secret recite could not
	// replace without changing how the line reads (a record of a newer
	// recite, a line broken in a way redaction would change); they are
	// left as they were and `recite commit` names them.
	Unredacted int `json:"unredacted,omitempty"`
}

// Report is the outcome of Migrate: the files it changed (or would leave
// with a secret), in path order; never nil.
type Report struct {
	Files []File `json:"files"`
}

// Replaced is the total of values replaced.
func (r *Report) Replaced() int {
	n := 0
	for _, f := range r.Files {
		n += f.Replaced
	}
	return n
}

// Migrate replaces the secrets already in the conversation logs of store
// (the archive included; store wired by Wire) and in context-preserved.md
// with their placeholders (`recite redact`): each file is rewritten in
// place, atomically, under its lock (the conversation's lock for a log,
// the file's own lock for context-preserved.md, the locks the writers
// take), record ids, times and order kept; with conversations.keep_raw the
// records as they were go to RawDir first. Files without secrets are not
// written, so a second run changes nothing. Errors: rules that do not
// compile (nil report); the first failure to read or write a file (with
// the report so far).
func (r *Redactor) Migrate(ctx context.Context, store *conversation.Store) (*Report, error) {
	if err := r.Init(); err != nil {
		return nil, err
	}
	rep := &Report{Files: []File{}}
	for _, dir := range []string{layout.ConversationsDir, layout.ConversationsDir + "/" + conversation.ArchiveDir} {
		ents, err := os.ReadDir(filepath.Join(r.dir, filepath.FromSlash(dir)))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return rep, err
		}
		for _, ent := range ents {
			id, ok := strings.CutSuffix(ent.Name(), ".jsonl")
			if !ok || !ent.Type().IsRegular() || conversation.ValidateID(id) != nil {
				continue
			}
			n, kept, err := store.RedactLog(ctx, id)
			if err != nil {
				return rep, fmt.Errorf("redact %s/%s: %w", dir, ent.Name(), err)
			}
			if n > 0 || kept > 0 {
				rep.Files = append(rep.Files, File{Path: dir + "/" + ent.Name(), Replaced: n, Unredacted: kept})
			}
		}
	}
	n, err := r.migratePreserved(ctx)
	if err != nil {
		return rep, err
	}
	if n > 0 {
		rep.Files = append(rep.Files, File{Path: layout.PreservedFile, Replaced: n})
	}
	slices.SortFunc(rep.Files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return rep, nil
}

// migratePreserved replaces the secrets of context-preserved.md in place
// under the lock signals.AppendBlock takes (an advisory lock on the file
// itself, which fsutil.TryLock re-takes on the new file after a rename)
// and returns how many it replaced; a missing file is none. Init has
// succeeded.
func (r *Redactor) migratePreserved(ctx context.Context) (int, error) {
	p := filepath.Join(r.dir, filepath.FromSlash(layout.PreservedFile))
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	unlock, ok, err := fsutil.TryLock(ctx, p, 10*time.Millisecond)
	if err != nil || !ok {
		return 0, fmt.Errorf("redact %s: lock: %v", layout.PreservedFile, err)
	}
	defer func() { _ = unlock() }()
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, fmt.Errorf("redact %s: %w", layout.PreservedFile, err)
	}
	out, fs := r.cache.r.Redact("", string(b))
	if len(fs) == 0 {
		return 0, nil
	}
	if err := fsutil.WriteFile(p, []byte(out), 0o644); err != nil {
		return 0, fmt.Errorf("redact %s: %w", layout.PreservedFile, err)
	}
	return len(fs), nil
}
