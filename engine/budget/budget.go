// Package budget counts tokens with a real BPE tokenizer and measures a
// prompt against its token budget.
//
// Counts come from github.com/tiktoken-go/tokenizer (OpenAI's o200k_base by
// default, or cl100k_base), not from a characters/4 estimate, which is off by
// −24% to +20% on the content recite handles (PROVIDERS.md §7). Claude and
// Gemini use tokenizers of their own, so for them the counts are a close
// proxy, not exact.
//
// A Counter holds one codec for the life of the process (building a codec
// compiles its split regexp and initialises an 8 MB vocabulary) and caches
// counts by content hash, so an unchanged section is never re-tokenised.
package budget

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// Encodings recite accepts in recite.yaml's `tokenizer` key.
const (
	O200kBase  = "o200k_base"
	Cl100kBase = "cl100k_base"
)

// Counter counts tokens. It is safe for concurrent use.
//
// Counts are cached by the SHA-256 of the text in two generations: when the
// current one holds maxCacheEntries counts it becomes the previous one and
// the counts not used since are dropped, so a long `recite watch` session
// keeps the counts it uses and no others.
type Counter struct {
	name  string
	codec tokenizer.Codec

	mu     sync.Mutex
	cache  map[[sha256.Size]byte]int
	prev   map[[sha256.Size]byte]int
	hits   int
	misses int
}

// maxCacheEntries bounds one generation of the count cache. A norish build
// uses about 40 counts and adds about 4 per edit, so 4096 holds a session's
// working set many times over while keeping the cache under a megabyte.
const maxCacheEntries = 1 << 12

// chunkMin is the size in bytes from which Count splits a text into
// paragraphs and counts each (see Count).
const chunkMin = 2 << 10

// NewCounter returns a Counter for the named encoding (o200k_base or
// cl100k_base). It returns an error for any other name.
func NewCounter(encoding string) (*Counter, error) {
	switch encoding {
	case O200kBase, Cl100kBase:
	default:
		return nil, fmt.Errorf("unknown tokenizer %q (want %s or %s)", encoding, O200kBase, Cl100kBase)
	}
	codec, err := tokenizer.Get(tokenizer.Encoding(encoding))
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", encoding, err)
	}
	return &Counter{name: encoding, codec: codec, cache: make(map[[sha256.Size]byte]int)}, nil
}

// Encoding is the encoding's name, e.g. "o200k_base".
func (c *Counter) Encoding() string { return c.name }

// Count returns the number of tokens in s. Counts are cached by the SHA-256
// of s; special-token text such as "<|endoftext|>" is counted as ordinary
// text, as it would be in a prompt.
//
// A text of chunkMin bytes or more is counted paragraph by paragraph, each
// paragraph's count cached, so a section whose one paragraph changed costs
// the tokenisation of that paragraph only. The sum is exact: both
// encodings' pre-tokenizer patterns (o200k_base, cl100k_base) end a piece
// at a line feed followed by a character that is neither white space nor
// '/' — no alternative starts with a line feed unless it is all white
// space, and the punctuation alternative takes trailing line feeds (and, in
// o200k_base, slashes) but nothing else — and BPE never merges across
// pieces. TestCountChunksExact and FuzzCountChunks check it.
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	if len(s) < chunkMin {
		return c.count(s)
	}
	key := sha256.Sum256([]byte(s))
	if n, ok := c.lookup(key); ok {
		return n
	}
	n := 0
	for len(s) > 0 {
		cut := paragraphEnd(s)
		n += c.count(s[:cut])
		s = s[cut:]
	}
	c.store(key, n)
	return n
}

// paragraphEnd returns the length of s's first paragraph: up to and
// including the first blank line that is followed by a character that
// starts a piece in both encodings (not white space, and not '/', which
// o200k_base's punctuation alternative takes after line feeds), or all of
// s.
func paragraphEnd(s string) int {
	for i := 0; ; {
		j := strings.Index(s[i:], "\n\n")
		if j < 0 {
			return len(s)
		}
		k := i + j + 2
		for k < len(s) && s[k] == '\n' {
			k++
		}
		if k >= len(s) {
			return len(s)
		}
		if r, _ := utf8.DecodeRuneInString(s[k:]); !unicode.IsSpace(r) && r != '/' {
			return k
		}
		i = k
	}
}

// count tokenises s unless its count is cached.
func (c *Counter) count(s string) int {
	key := sha256.Sum256([]byte(s))
	if n, ok := c.lookup(key); ok {
		return n
	}
	n, err := c.codec.Count(s)
	if err != nil {
		// The codec only fails on invalid UTF-8 in strict mode, which we do
		// not set; fall back to a byte-based bound rather than zero.
		n = len(s)
	}
	c.store(key, n)
	return n
}

func (c *Counter) lookup(key [sha256.Size]byte) (int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.cache[key]; ok {
		c.hits++
		return n, true
	}
	if n, ok := c.prev[key]; ok {
		c.hits++
		c.cache[key] = n
		return n, true
	}
	c.misses++
	return 0, false
}

func (c *Counter) store(key [sha256.Size]byte, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cache) >= maxCacheEntries {
		c.prev, c.cache = c.cache, make(map[[sha256.Size]byte]int)
	}
	c.cache[key] = n
}

// Stats reports how many Count calls were answered from the cache (hits)
// and how many ran the tokenizer (misses).
func (c *Counter) Stats() (hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// Status is a prompt's standing against its token budget.
type Status string

// The statuses, by increasing severity (DESIGN.md §1 "token budget").
const (
	OK       Status = "OK"
	Warning  Status = "WARNING"
	Critical Status = "CRITICAL"
)

// Thresholds are fractions of the budget at which the status changes.
// The defaults are 0.70 and 0.85 (DESIGN.md §1; fire-flow's context budget
// checks, FORMATS.md §2.6).
type Thresholds struct {
	Warning  float64 `yaml:"warning" json:"warning"`
	Critical float64 `yaml:"critical" json:"critical"`
}

// DefaultThresholds returns WARNING at 70% and CRITICAL at 85%.
func DefaultThresholds() Thresholds { return Thresholds{Warning: 0.70, Critical: 0.85} }

// Validate reports thresholds outside 0 < warning <= critical <= 1.
func (t Thresholds) Validate() error {
	if !(t.Warning > 0 && t.Warning <= t.Critical && t.Critical <= 1) {
		return fmt.Errorf("thresholds must satisfy 0 < warning <= critical <= 1, got warning %.2f, critical %.2f", t.Warning, t.Critical)
	}
	return nil
}

// Classify returns the status of used tokens against a budget of window
// tokens.
func (t Thresholds) Classify(used, window int) Status {
	if window <= 0 {
		return Critical
	}
	f := float64(used) / float64(window)
	switch {
	case f >= t.Critical:
		return Critical
	case f >= t.Warning:
		return Warning
	default:
		return OK
	}
}
