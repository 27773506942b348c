package secrets

import (
	"crypto/sha256"
	"sync"

	"github.com/recite-dev/recite/engine/internal/redact"
)

// cache remembers the redaction of texts by content hash, so an
// unchanged section is not scanned again. Like the token-count cache it
// keeps two generations: when the current one holds maxEntries, it
// becomes the old one and the entries not used since are dropped, so a
// long `recite watch` session keeps what its prompts still use and no more.
type cache struct {
	// mu guards the generations: the conversation store redacts through
	// the same Redactor from the goroutines that append (the MCP server,
	// the hook), while a build redacts its prompt.
	mu       sync.Mutex
	r        *redact.Redactor
	done     map[[sha256.Size]byte]redacted
	previous map[[sha256.Size]byte]redacted
	// keyErr is why KeyFile could not be read or made; the placeholders
	// then use a key of this process only, and every Prompt reports keyErr
	// after redacting.
	keyErr error
	// path is the file of "no secret" verdicts kept between processes
	// (CleanCacheFile; "" for none), read into disk on the first miss
	// (loaded); fresh counts the verdicts reached since the last save.
	path   string
	disk   map[cleanKey]bool
	loaded bool
	fresh  int
	// fp is the rules' fingerprint, computed when the file is read.
	fp [sha256.Size]byte
}

// maxEntries bounds one generation of the redaction cache (a norish
// build redacts about 10 texts, one of them new after an edit).
const maxEntries = 1024

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

// loadDisk returns the verdicts of the cache file, read once. c.mu is
// held.
func (c *cache) loadDisk() map[cleanKey]bool {
	if !c.loaded {
		c.loaded = true
		c.fp = redact.Fingerprint()
		if c.path != "" {
			keys := readClean(c.fp, c.path)
			c.disk = make(map[cleanKey]bool, len(keys))
			for _, k := range keys {
				c.disk[k] = true
			}
		}
	}
	return c.disk
}

// keyOf is the cache key of text redacted as path.
func keyOf(path, text string) [sha256.Size]byte {
	return sha256.Sum256([]byte(path + "\x00" + text))
}

func (c *cache) redact(path, text string) (string, []redact.Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := keyOf(path, text)
	if v, ok := c.done[key]; ok {
		return v.result(text)
	}
	v, ok := c.previous[key]
	if !ok && c.loadDisk()[cleanKeyOf(key)] {
		v, ok = redacted{unchanged: true}, true
	}
	if !ok {
		out, f := c.r.Redact(path, text)
		v = redacted{unchanged: out == text, findings: f}
		if !v.unchanged {
			v.text = out
		}
		if v.unchanged && len(f) == 0 {
			c.fresh++
		}
	}
	if len(c.done) >= maxEntries {
		c.previous, c.done = c.done, make(map[[sha256.Size]byte]redacted, len(c.done))
	}
	c.done[key] = v
	return v.result(text)
}
