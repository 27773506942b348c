package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/recite-dev/recite/engine/internal/redact"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/templates"
)

// RedactKeyFile holds the project's placeholder key (docs/formats.md#secrets-in-committed-files):
// 64 hex digits and a newline, mode 0600, made from crypto/rand the first
// time a prompt is redacted and kept out of git by .recite/.gitignore.
// Placeholders are ⟨secret:KIND:HMAC8⟩ under this key, so they stay the
// same from build to build (prompt caching) but cannot be checked against
// a guessed secret without the key. Deleting the file changes every
// placeholder once.
const RedactKeyFile = CacheDir + "/redact.key"

// redactCache remembers the redaction of texts by content hash, so an
// unchanged section is not scanned again. Like the token-count cache it
// keeps two generations: when the current one holds maxRedactEntries, it
// becomes the old one and the entries not used since are dropped, so a
// long `recite watch` session keeps what its prompts still use and no more.
type redactCache struct {
	// mu guards the generations: the conversation store redacts through
	// the same Engine from the goroutines that append (the MCP server, the
	// hook), while a build redacts its prompt.
	mu       sync.Mutex
	r        *redact.Redactor
	done     map[[sha256.Size]byte]redacted
	previous map[[sha256.Size]byte]redacted
	// keyErr is why RedactKeyFile could not be read or made; the
	// placeholders then use a key of this process only, and every
	// redactPrompt reports keyErr after redacting.
	keyErr error
}

// maxRedactEntries bounds one generation of the redaction cache (a norish
// build redacts about 10 texts, one of them new after an edit).
const maxRedactEntries = 1024

// redacted is a cached redaction. A text without secrets is stored as
// unchanged instead of by value: section bodies are substrings of whole
// parsed files, so keeping them would keep every version of STATE.md an
// edit session produced reachable (the watch memory benchmark grew by
// 140 MB over 10,000 renders that way).
type redacted struct {
	unchanged bool
	text      string
	findings  []redact.Finding
}

// result returns the redacted text of text.
func (v redacted) result(text string) (string, []redact.Finding) {
	if v.unchanged {
		return text, v.findings
	}
	return v.text, v.findings
}

// keyOf is the cache key of text redacted as path.
func keyOf(path, text string) [sha256.Size]byte {
	return sha256.Sum256([]byte(path + "\x00" + text))
}

func (c *redactCache) redact(path, text string) (string, []redact.Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := keyOf(path, text)
	if v, ok := c.done[key]; ok {
		return v.result(text)
	}
	v, ok := c.previous[key]
	if !ok {
		out, f := c.r.Redact(path, text)
		v = redacted{unchanged: out == text, findings: f}
		if !v.unchanged {
			v.text = out
		}
	}
	if len(c.done) >= maxRedactEntries {
		c.previous, c.done = c.done, make(map[[sha256.Size]byte]redacted, len(c.done))
	}
	c.done[key] = v
	return v.result(text)
}

// redactPrompt replaces every secret in the prompt's sections and messages
// with a deterministic placeholder (docs/formats.md#secrets-in-committed-files) and
// returns where each one was, as "section SOURCE line N: KIND", after the
// redactions found while the prompt's inputs were gathered. When the
// key file is unusable it still redacts, with a key of this process, and
// returns the key's error with the list.
func (e *Engine) redactPrompt(p *prompt.Prompt, found []string) ([]string, error) {
	if err := e.initRedactor(); err != nil {
		return nil, err
	}
	where := append([]string(nil), found...)
	note := func(id, src string, fs []redact.Finding) {
		for _, f := range fs {
			where = append(where, fmt.Sprintf("%s (%s) line %d: %s", id, src, f.Line, f.Kind))
		}
	}
	for i := range p.Sections {
		s := &p.Sections[i]
		src := ""
		if len(s.Sources) > 0 {
			src = s.Sources[len(s.Sources)-1]
		}
		var fs []redact.Finding
		s.Body, fs = e.redactor.redact(src, s.Body)
		note(s.ID, src, fs)
		for k := range s.Shorter {
			s.Shorter[k], _ = e.redactor.redact(src, s.Shorter[k])
		}
	}
	for i := range p.Messages {
		m := &p.Messages[i]
		var fs []redact.Finding
		m.Content, fs = e.redactor.redact(m.ID, m.Content)
		note("conversation", m.ID, fs)
		for k := range m.ToolCalls {
			m.ToolCalls[k].Arguments, fs = e.redactor.redact(m.ID, m.ToolCalls[k].Arguments)
			note("conversation", m.ID, fs)
		}
	}
	// One line per place: a text cut before assembly may be reported by
	// its cut and again here.
	seen := map[string]bool{}
	uniq := where[:0]
	for _, w := range where {
		if !seen[w] {
			seen[w] = true
			uniq = append(uniq, w)
		}
	}
	return uniq, e.redactor.keyErr
}

// initRedactor compiles the rules with the project's key (redactKey). A
// key that cannot be read or made is replaced by a random one for this
// Engine, recorded in keyErr: secrets are never left in a prompt for want
// of a key. It fails only if the rules do not compile.
func (e *Engine) initRedactor() error {
	e.redactInit.Lock()
	defer e.redactInit.Unlock()
	if e.redactor != nil {
		return nil
	}
	key, keyErr := e.redactKey()
	if keyErr != nil {
		var err error
		if key, err = redact.NewKey(); err != nil {
			return err
		}
		keyErr = fmt.Errorf("%s: %w; placeholders use a key of this run only", RedactKeyFile, keyErr)
	}
	r, err := redact.New(key)
	if err != nil {
		return err
	}
	e.redactor = &redactCache{r: r, done: map[[sha256.Size]byte]redacted{}, keyErr: keyErr}
	return nil
}

// redactKey reads RedactKeyFile, or makes it when it does not exist: 32
// bytes from crypto/rand written to a temporary file of mode 0600 and
// linked into place, so two processes starting at once agree on one key
// and none reads a half-written file. It also writes .recite/.gitignore
// when missing, so the key stays out of git. A file that is not hex of at
// least redact.MinKeySize bytes is an error.
func (e *Engine) redactKey() ([]byte, error) {
	path := filepath.Join(e.dir, filepath.FromSlash(RedactKeyFile))
	if b, err := os.ReadFile(path); err == nil {
		return parseRedactKey(b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, fs.ErrNotExist) {
		body, err := templates.Init("prompts.gitignore", "")
		if err != nil {
			return nil, err
		}
		if err := writeAtomic(gi, []byte(body)); err != nil {
			return nil, err
		}
	}
	key, err := redact.NewKey()
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, ".redact.key.*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, err
	}
	if _, err := tmp.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Another process made it first: use that one.
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			return parseRedactKey(b)
		}
		// A filesystem without hard links: rename, which may replace a
		// key another process made in the same instant (its placeholders
		// then change once).
		if err := os.Rename(tmp.Name(), path); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// parseRedactKey decodes the contents of RedactKeyFile.
func parseRedactKey(b []byte) ([]byte, error) {
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) < redact.MinKeySize {
		return nil, fmt.Errorf("not a key of at least %d hex digits; delete the file and recite makes a new one", 2*redact.MinKeySize)
	}
	return key, nil
}

// fileRedactor returns the redaction of the files section: one project
// file's text redacted with its own path (so path-specific rules such as
// .env values apply), the findings appended to *found for redactPrompt, as
// "files (PATH) line N: KIND" with N the line in the text given.
func (e *Engine) fileRedactor(found *[]string) func(rel, text string) string {
	return func(rel, text string) string {
		if err := e.initRedactor(); err != nil {
			// Never a file unredacted.
			return fmt.Sprintf("⟨%s: not shown, redaction unavailable: %v⟩", rel, err)
		}
		out, fs := e.redactor.redact(rel, text)
		for _, f := range fs {
			*found = append(*found, fmt.Sprintf("%s (%s) line %d: %s", prompt.IDFiles, rel, f.Line, f.Kind))
		}
		return out
	}
}

// redactText returns text with every secret replaced by its placeholder
// (the project's key, as in prompts), path selecting path-specific rules
// as redact.Redactor.Redact does ("" for none). The stop-signal paths use
// it: preservation blocks, the Claude Code hook's output and records, and
// `recite verify`. It never returns a secret: when the rules do not
// compile it returns a note in place of the text.
func (e *Engine) redactText(path, text string) string {
	if text == "" {
		return text
	}
	if err := e.initRedactor(); err != nil {
		return fmt.Sprintf("⟨not shown, redaction unavailable: %v⟩", err)
	}
	out, _ := e.redactor.redact(path, text)
	return out
}

// Redact returns text with every secret replaced by the project's stable
// placeholder, as prompts and conversation logs write it (redactText with
// no path rules). Front ends call it on text they are about to record.
func (e *Engine) Redact(text string) string { return e.redactText("", text) }
