// Package secrets keeps secrets out of what recite writes and commits
// (docs/formats.md#secrets-in-committed-files). It owns the project's
// redaction key (KeyFile: made, loaded and parsed), a Redactor that
// replaces secrets with keyed placeholders and remembers the redactions of
// unchanged texts in a bounded cache, the redaction of a prompt's sections
// and messages, of single texts and of every string of a report value, the
// redaction wiring of the conversation store (keep_raw and RawDir), the
// scan of files about to be committed (Scan, Error) and the `recite
// redact` migration of logs already written (Migrate).
//
// It may import engine/prompt, engine/config, engine/internal/redact,
// engine/internal/layout, planning/conversation, templates and
// internal/fsutil; never engine or its other subpackages. Per-call state
// (the findings of one build) lives in the call, never on the Redactor.
package secrets

import (
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/internal/redact"
)

// KeyFile holds the project's placeholder key, relative to the project
// root (docs/formats.md#secrets-in-committed-files): 64 hex digits and a
// newline, mode 0600, made from crypto/rand the first time a prompt is
// redacted and kept out of git by .recite/.gitignore. Placeholders are
// ⟨secret:KIND:HMAC8⟩ under this key, so they stay the same from build to
// build (prompt caching) but cannot be checked against a guessed secret
// without the key. Deleting the file changes every placeholder once.
const KeyFile = layout.CacheDir + "/redact.key"

// RawDir keeps the raw form of the records whose secrets were replaced
// when recite.yaml sets conversations.keep_raw: RawDir/ID.jsonl, mode
// 0600, one record a line by id, inside the cache folder git ignores;
// relative to the project root.
const RawDir = layout.CacheDir + "/raw"

// Redactor replaces the secrets of one project's texts with the
// project's placeholders. It reads or makes KeyFile and compiles the rules
// on first use (Init), not in New. It is safe for concurrent use: the
// conversation store redacts through it from the goroutines that append
// (the MCP server, the hook) while a build redacts its prompt.
type Redactor struct {
	dir string
	// mu guards the making of cache (Init) and of scanOnly, the rules a
	// commit's secret scan uses in a project without a key (scanner).
	mu       sync.Mutex
	cache    *cache
	scanOnly *redact.Redactor
	// cachePath is the file of verdicts kept between processes
	// (UseCacheFile).
	cachePath string
}

// New returns the Redactor of the project rooted at dir. It reads
// nothing: the key and the rules are loaded on first use.
func New(dir string) *Redactor { return &Redactor{dir: dir} }

// Init compiles the rules with the project's key (loadKey). A key that
// cannot be read or made is replaced by a random one for this Redactor,
// recorded as the key error Prompt reports: secrets are never left in a
// prompt for want of a key. It fails only if the rules do not compile;
// calling it again after a success does nothing.
func (r *Redactor) Init() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache != nil {
		return nil
	}
	key, keyErr := loadKey(r.dir)
	if keyErr != nil {
		var err error
		if key, err = redact.NewKey(); err != nil {
			return err
		}
		keyErr = fmt.Errorf("%s: %w; placeholders use a key of this run only", KeyFile, keyErr)
	}
	rules, err := redact.New(key)
	if err != nil {
		return err
	}
	r.cache = &cache{r: rules, done: map[[sha256.Size]byte]redacted{}, keyErr: keyErr, path: r.cachePath}
	return nil
}

// Ready reports whether Init has succeeded, without trying it.
func (r *Redactor) Ready() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cache != nil
}

// Redact returns text with every secret replaced by its placeholder and
// where each was (lines 1-based in text), path selecting path-specific
// rules such as .env values ("" for none), as redact.Redactor.Redact
// does; unchanged texts are answered from the cache. It calls Init; when
// the rules do not compile it returns a note in place of the text and no
// findings, never the secret.
func (r *Redactor) Redact(path, text string) (string, []redact.Finding) {
	if err := r.Init(); err != nil {
		return fmt.Sprintf("⟨not shown, redaction unavailable: %v⟩", err), nil
	}
	return r.cache.redact(path, text)
}

// Text returns text with every secret replaced by its placeholder (the
// project's key, as in prompts), path selecting path-specific rules as
// Redact does ("" for none). The stop-signal paths use it: preservation
// blocks, the Claude Code hook's output and records, and `recite verify`.
// It never returns a secret: when the rules do not compile it returns a
// note in place of the text.
func (r *Redactor) Text(path, text string) string {
	if text == "" {
		return text
	}
	out, _ := r.Redact(path, text)
	return out
}

// Log is the conversation.Redactor of the logs: the rules with the
// project's key and no path-specific rules, uncached (a record is written
// once), as the hook's records, preservation blocks and prompts'
// conversation messages are redacted. It returns the text and how many
// secrets it replaced. It never returns a secret: when the rules do not
// compile the text is replaced by a note, counted as one.
func (r *Redactor) Log(text string) (string, int) {
	if err := r.Init(); err != nil {
		return fmt.Sprintf("⟨not recorded: redaction unavailable: %v⟩", err), 1
	}
	out, fs := r.cache.r.Redact("", text)
	return out, len(fs)
}
