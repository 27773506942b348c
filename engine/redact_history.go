package engine

import (
	"bytes"
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
	"github.com/recite-dev/recite/engine/internal/redact"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/planning/conversation"
	"github.com/recite-dev/recite/templates"
)

// RawDir keeps the raw form of the records whose secrets were replaced
// when recite.yaml sets conversations.keep_raw: RawDir/ID.jsonl, mode
// 0600, one record a line by id, inside the cache folder git ignores.
const RawDir = CacheDir + "/raw"

// OpenConversations opens the conversation store of the project. Every
// record it writes has its secrets replaced by placeholders first (the
// redaction of prompts, with the project's key: conversation.Store.Redact
// through logRedactor), since the logs are committed; with
// conversations.keep_raw the records as they were go to RawDir
// (docs/formats.md#secrets-in-committed-files).
func (e *Engine) OpenConversations() (*conversation.Store, error) {
	s, err := conversation.Open(filepath.Join(e.dir, filepath.FromSlash(ConversationsDir)))
	if err != nil {
		return nil, err
	}
	s.Redact = e.logRedactor
	if e.keepRaw() {
		if err := e.ensureCacheIgnore(); err != nil {
			return nil, err
		}
		s.RawDir = filepath.Join(e.dir, filepath.FromSlash(RawDir))
	}
	return s, nil
}

// keepRaw is recite.yaml's conversations.keep_raw; false when the file
// cannot be read (the logs stay redacted, the safe side).
func (e *Engine) keepRaw() bool {
	cfg, _, err := config.Load(e.dir)
	return err == nil && cfg.Conversations.KeepRaw
}

// logRedactor is the conversation.Redactor of the logs: redact.Redactor
// with the project's key and no path-specific rules, as the hook's
// records, preservation blocks and prompts' conversation messages are
// redacted. It never returns a secret: without a redactor (rules that do
// not compile) the text is replaced by a note.
func (e *Engine) logRedactor(text string) (string, int) {
	if err := e.initRedactor(); err != nil {
		return fmt.Sprintf("⟨not recorded: redaction unavailable: %v⟩", err), 1
	}
	out, fs := e.redactor.r.Redact("", text)
	return out, len(fs)
}

// ensureCacheIgnore writes the cache folder's .gitignore when it is
// missing, so nothing recite keeps there shows in git.
func (e *Engine) ensureCacheIgnore() error {
	dir := filepath.Join(e.dir, filepath.FromSlash(CacheDir))
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	body, err := templates.Init("prompts.gitignore", "")
	if err != nil {
		return err
	}
	return writeAtomic(gi, []byte(body))
}

// SecretFinding is one secret in a file about to be committed: the
// project-relative path, the 1-based line and the kind of secret (the id
// of the rule that found it, as in a placeholder).
type SecretFinding struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
}

// String is "path:line: kind".
func (f SecretFinding) String() string { return fmt.Sprintf("%s:%d: %s", f.Path, f.Line, f.Kind) }

// SecretsError is Commit's refusal to commit files that hold secrets:
// every finding, in path and line order. The CLI prints one line per
// finding and exits 1.
type SecretsError struct {
	Findings []SecretFinding
}

func (e *SecretsError) Error() string {
	files := map[string]bool{}
	for _, f := range e.Findings {
		files[f.Path] = true
	}
	return fmt.Sprintf("refusing to commit: %d %s in %d %s (run `recite redact` to replace them with placeholders, or commit them anyway with --allow-secrets)",
		len(e.Findings), plural(len(e.Findings), "secret", "secrets"), len(files), plural(len(files), "file", "files"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// scanHistory returns the secrets in the content of a history file about
// to be committed (path relative to the project), found with the rules
// that redact what recite writes: a conversation log record by record,
// each text of a record scanned as RedactRecord redacts it (a line that is
// not a record is scanned as text), so a log recite wrote or `recite
// redact` migrated has none; any other file as text
// (docs/formats.md#secrets-in-committed-files).
func (e *Engine) scanHistory(path string, content []byte) ([]SecretFinding, error) {
	r, err := e.scanner()
	if err != nil {
		return nil, err
	}
	var out []SecretFinding
	add := func(line int, fs []redact.Finding) {
		for _, f := range fs {
			out = append(out, SecretFinding{Path: path, Line: line + f.Line - 1, Kind: f.Kind})
		}
	}
	if !strings.HasSuffix(path, ".jsonl") {
		_, fs := r.Redact("", string(content))
		add(1, fs)
		return out, nil
	}
	for i, line := range bytes.Split(content, []byte("\n")) {
		recs, diags := conversation.ParseLog(path, line)
		if len(recs) == 1 {
			var fs []redact.Finding
			conversation.RedactRecord(&recs[0], func(text string) (string, int) {
				o, f := r.Redact("", text)
				fs = append(fs, f...)
				return o, len(f)
			})
			for k := range fs {
				fs[k].Line = 1 // the record's line, whatever line of a text
			}
			add(i+1, fs)
		} else if len(diags) > 0 {
			_, fs := r.Redact("", string(line))
			add(i+1, fs)
		}
	}
	return out, nil
}

// scanner returns the rules that find secrets for scanHistory: the
// engine's redactor when the project has its key, else rules under a key
// of this Engine alone (findings do not depend on the key), so that a
// commit never makes the key file and the cache folder appear.
func (e *Engine) scanner() (*redact.Redactor, error) {
	if _, err := os.Stat(filepath.Join(e.dir, filepath.FromSlash(RedactKeyFile))); err == nil {
		if err := e.initRedactor(); err != nil {
			return nil, err
		}
		return e.redactor.r, nil
	}
	e.redactInit.Lock()
	defer e.redactInit.Unlock()
	if e.redactor != nil {
		return e.redactor.r, nil
	}
	if e.scanOnly == nil {
		key, err := redact.NewKey()
		if err != nil {
			return nil, err
		}
		if e.scanOnly, err = redact.New(key); err != nil {
			return nil, err
		}
	}
	return e.scanOnly, nil
}

// RedactFile is what RedactHistory did to one file.
type RedactFile struct {
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

// RedactReport is the outcome of RedactHistory: the files it changed (or
// would leave with a secret), in path order; never nil.
type RedactReport struct {
	Files []RedactFile `json:"files"`
}

// Replaced is the total of values replaced.
func (r *RedactReport) Replaced() int {
	n := 0
	for _, f := range r.Files {
		n += f.Replaced
	}
	return n
}

// RedactHistory replaces the secrets already in the conversation logs
// (the archive included) and in context-preserved.md with their
// placeholders (`recite redact`): each file is rewritten in place,
// atomically, under its lock (the conversation's lock for a log, the
// file's own lock for context-preserved.md, the locks the writers take),
// record ids, times and order kept; with conversations.keep_raw the
// records as they were go to RawDir first. Files without secrets are not
// written, so a second run changes nothing. Errors: *InputError without a
// .planning folder; the first failure to read or write a file.
func (e *Engine) RedactHistory(ctx context.Context) (*RedactReport, error) {
	if _, err := e.planningDir(); err != nil {
		return nil, err
	}
	if err := e.initRedactor(); err != nil {
		return nil, err
	}
	rep := &RedactReport{Files: []RedactFile{}}
	store, err := e.OpenConversations()
	if err != nil {
		return nil, err
	}
	for _, dir := range []string{ConversationsDir, ConversationsDir + "/" + conversation.ArchiveDir} {
		ents, err := os.ReadDir(filepath.Join(e.dir, filepath.FromSlash(dir)))
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
				rep.Files = append(rep.Files, RedactFile{Path: dir + "/" + ent.Name(), Replaced: n, Unredacted: kept})
			}
		}
	}
	n, err := e.redactPreservedFile(ctx)
	if err != nil {
		return rep, err
	}
	if n > 0 {
		rep.Files = append(rep.Files, RedactFile{Path: PreservedFile, Replaced: n})
	}
	slices.SortFunc(rep.Files, func(a, b RedactFile) int { return strings.Compare(a.Path, b.Path) })
	return rep, nil
}

// redactPreservedFile replaces the secrets of context-preserved.md in
// place under the lock signals.AppendBlock takes (an advisory lock on the
// file itself, which fsutil.TryLock re-takes on the new file after a
// rename) and returns how many it replaced; a missing file is none.
func (e *Engine) redactPreservedFile(ctx context.Context) (int, error) {
	p := filepath.Join(e.dir, filepath.FromSlash(PreservedFile))
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	unlock, ok, err := fsutil.TryLock(ctx, p, 10*time.Millisecond)
	if err != nil || !ok {
		return 0, fmt.Errorf("redact %s: lock: %v", PreservedFile, err)
	}
	defer func() { _ = unlock() }()
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, fmt.Errorf("redact %s: %w", PreservedFile, err)
	}
	out, fs := e.redactor.r.Redact("", string(b))
	if len(fs) == 0 {
		return 0, nil
	}
	if err := fsutil.WriteFile(p, []byte(out), 0o644); err != nil {
		return 0, fmt.Errorf("redact %s: %w", PreservedFile, err)
	}
	return len(fs), nil
}
