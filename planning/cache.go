package planning

import (
	"crypto/sha256"
	"sync"

	"github.com/recite-dev/recite/markdown"
)

// Cache keeps parsed markdown documents between loads, keyed by path and
// the SHA-256 of the bytes parsed. It is safe for concurrent use. Entries
// for files that were not seen in the latest load are dropped, so the cache
// never outgrows the tree.
type Cache struct {
	mu     sync.Mutex
	docs   map[string]cacheEntry
	seen   map[string]bool
	hits   int
	misses int
}

type cacheEntry struct {
	sum [sha256.Size]byte
	doc *markdown.Document
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{docs: map[string]cacheEntry{}, seen: map[string]bool{}}
}

// Stats reports how many parses were served from the cache (hits) and how
// many ran the parser (misses) since the cache was made.
func (c *Cache) Stats() (hits, misses int) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// parse returns the parsed document for path with content data, from the
// cache when the content is unchanged. A nil cache always parses.
func (c *Cache) parse(path string, data []byte) *markdown.Document {
	if c == nil {
		return markdown.Parse(path, data)
	}
	sum := sha256.Sum256(data)
	c.mu.Lock()
	c.seen[path] = true
	if e, ok := c.docs[path]; ok && e.sum == sum {
		c.hits++
		c.mu.Unlock()
		return e.doc
	}
	c.misses++
	c.mu.Unlock()
	doc := markdown.Parse(path, data)
	c.mu.Lock()
	c.docs[path] = cacheEntry{sum: sum, doc: doc}
	c.mu.Unlock()
	return doc
}

// sweep drops entries for files not parsed since the previous sweep.
func (c *Cache) sweep() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.docs {
		if !c.seen[p] {
			delete(c.docs, p)
		}
	}
	c.seen = map[string]bool{}
}
