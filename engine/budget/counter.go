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

// Options configure a Counter.
type Options struct {
	// CacheDir is the folder of the on-disk caches, the text counts and
	// the piece counts, shared by every process counting for the project
	// (the engine passes .planning/.recite). Empty keeps counts in memory
	// only and counts no text by pieces.
	CacheDir string
	// NoCache neither reads nor writes the on-disk caches (`recite build
	// --no-cache`); text counts are still cached in memory, and no text is
	// counted by pieces.
	NoCache bool

	// newCodec builds the codec; tests replace it to count the builds.
	newCodec func(tokenizer.Encoding) (tokenizer.Codec, error)
	// noRanks counts no piece with the rank tables (ranks.go), so that
	// tests can tell the pieces the piece cache answered from those it
	// did not by the codec builds.
	noRanks bool
}

// Counter counts tokens. It is safe for concurrent use.
//
// Counts are cached by the SHA-256 of the text (its first 16 bytes) in two
// generations: when the current one holds maxCacheEntries counts it
// becomes the previous one and the counts not used since are dropped, so a
// long `recite watch` session keeps the counts it uses and no others.
// Behind them is the on-disk cache (see Options), read on the first
// lookup and written by Save.
//
// Under the text cache is the piece-count cache (pieces.go): a text whose
// hash no cache holds is split into the pieces the tokenizer's
// pre-tokenizer makes, and when every piece's count is known the text's
// count is their sum, so a new process after a one-word edit builds no
// codec when the new word was seen before, and the few pieces it lacks
// (a word never seen) are counted with the encoding's rank table
// (ranks.go), which builds no vocabulary: the codec is built only for a
// text of many new pieces (a cold count). Its file is read on the first
// text that misses the text cache, and written by Save.
type Counter struct {
	name string
	opts Options

	codecOnce sync.Once
	codec     tokenizer.Codec
	codecErr  error

	mu     sync.Mutex
	cache  map[cacheKey]int
	prev   map[cacheKey]int
	disk   map[cacheKey]int // loaded from CacheDir; nil until the first lookup
	loaded bool
	fresh  int // counts computed since the last Save
	hits   int
	misses int

	pieces pieceCache
}

// cacheKey is the first 16 bytes of a text's SHA-256.
type cacheKey [16]byte

func keyOf(s string) cacheKey {
	sum := sha256.Sum256([]byte(s))
	return cacheKey(sum[:16])
}

// maxCacheEntries bounds one generation of the count cache. A norish build
// uses about 40 counts and adds about 4 per edit, so 4096 holds a session's
// working set many times over while keeping the cache under a megabyte.
const maxCacheEntries = 1 << 12

// chunkMin is the size in bytes from which Count splits a text into
// paragraphs and counts each (see Count).
const chunkMin = 2 << 10

// NewCounter returns a Counter for the named encoding (o200k_base or
// cl100k_base) that caches in memory only. It returns an error for any
// other name.
func NewCounter(encoding string) (*Counter, error) {
	return NewCounterWith(encoding, Options{})
}

// NewCounterWith returns a Counter for the named encoding (o200k_base or
// cl100k_base) configured by opts. It returns an error for any other name;
// it reads no file and builds no codec (both happen on first use).
func NewCounterWith(encoding string, opts Options) (*Counter, error) {
	switch encoding {
	case O200kBase, Cl100kBase:
	default:
		return nil, fmt.Errorf("unknown tokenizer %q (want %s or %s)", encoding, O200kBase, Cl100kBase)
	}
	if opts.newCodec == nil {
		opts.newCodec = tokenizer.Get
	}
	return &Counter{name: encoding, opts: opts, cache: make(map[cacheKey]int)}, nil
}

// Encoding is the encoding's name, e.g. "o200k_base".
func (c *Counter) Encoding() string { return c.name }

// loadCodec returns the codec, building it on first use.
func (c *Counter) loadCodec() (tokenizer.Codec, error) {
	c.codecOnce.Do(func() {
		c.codec, c.codecErr = c.opts.newCodec(tokenizer.Encoding(c.name))
		if c.codecErr != nil {
			c.codecErr = fmt.Errorf("tokenizer %s: %w", c.name, c.codecErr)
		}
	})
	return c.codec, c.codecErr
}

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
//
// A text (or paragraph) that misses the text cache is, with an on-disk
// cache, counted by its pieces: the sum of the cached counts of the pieces
// the encoding's pre-tokenizer splits it into, without building the codec
// when all are cached. That sum is exact too, for the same reason (BPE
// never merges across pieces, and our split is the codec's); when a piece
// is missing the codec counts the whole text. TestCountPiecesExact and
// FuzzCountPieces check it. Count never fails: the result is always the
// codec's count of s in tokens (or, should the codec fail to build, the
// length of s in bytes, an upper bound).
func (c *Counter) Count(s string) int {
	if s == "" {
		return 0
	}
	if len(s) < chunkMin {
		return c.count(s)
	}
	key := keyOf(s)
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

// count counts s unless its count is cached: by its pieces when the
// counter has an on-disk cache and s is valid UTF-8 (the codec's split of
// invalid UTF-8 turns bytes into U+FFFD, so the pieces are not substrings
// of s; a few pieces the piece cache lacks are counted with the rank
// table, without the codec), else with the codec.
func (c *Counter) count(s string) int {
	key := keyOf(s)
	if n, ok := c.lookup(key); ok {
		return n
	}
	n, ok := 0, false
	if c.piecePath() != "" && utf8.ValidString(s) {
		n, ok = c.countPieces(s)
	}
	if !ok {
		n = len(s)
		if codec, err := c.loadCodec(); err == nil {
			// The codec only fails on invalid UTF-8 in strict mode, which
			// we do not set; on failure the byte length stands as a bound
			// rather than zero.
			if m, err := codec.Count(s); err == nil {
				n = m
			}
		}
	}
	c.store(key, n)
	return n
}

func (c *Counter) lookup(key cacheKey) (int, bool) {
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
	c.loadDiskLocked()
	if n, ok := c.disk[key]; ok {
		c.hits++
		c.putLocked(key, n)
		return n, true
	}
	c.misses++
	return 0, false
}

func (c *Counter) store(key cacheKey, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(key, n)
	c.fresh++
}

func (c *Counter) putLocked(key cacheKey, n int) {
	if len(c.cache) >= maxCacheEntries {
		c.prev, c.cache = c.cache, make(map[cacheKey]int)
	}
	c.cache[key] = n
}

// Stats reports how many texts were answered from the text cache (in
// memory or on disk: hits) and how many were not (misses), whose counts
// came from the piece cache or the tokenizer. A text of chunkMin bytes or
// more that misses is one miss, and so is each of its paragraphs that
// misses.
func (c *Counter) Stats() (hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}
