package budget

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/recite-dev/recite/internal/fsutil"
)

// The on-disk count cache is one file per encoding in Options.CacheDir,
// token-counts-ENCODING.bin (docs/formats.md#token-count-cache):
//
//	magic "RTKC", version (uint16), length of the encoding's name (uint16),
//	the name, the number of entries (uint32), then per entry the first 16
//	bytes of the text's SHA-256 and its count (uint32), and last the
//	CRC-32C (Castagnoli) of everything before it.
//
// Integers are little-endian. A file that fails any check (a torn write, a
// flipped bit, another version or encoding) is ignored and replaced at the
// next Save, never trusted. It holds at most maxDiskEntries counts (about
// 160 KB), the most recently used first.

// cacheMagic and cacheVersion start the cache file.
const (
	cacheMagic   = "RTKC"
	cacheVersion = 1
)

// maxDiskEntries bounds the on-disk cache: two full in-memory generations.
const maxDiskEntries = 2 * maxCacheEntries

// cacheEntrySize is the size in bytes of one entry.
const cacheEntrySize = 16 + 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errBadCache is wrapped by every reason to ignore a cache file.
var errBadCache = errors.New("token count cache unusable")

type cacheEntry struct {
	key   cacheKey
	count int
}

// encodeCache formats entries for encoding as the cache file's bytes.
func encodeCache(encoding string, entries []cacheEntry) []byte {
	b := make([]byte, 0, 12+len(encoding)+len(entries)*cacheEntrySize+4)
	b = append(b, cacheMagic...)
	b = binary.LittleEndian.AppendUint16(b, cacheVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(encoding)))
	b = append(b, encoding...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(entries)))
	for _, e := range entries {
		b = append(b, e.key[:]...)
		b = binary.LittleEndian.AppendUint32(b, uint32(e.count))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeCache parses a cache file written for encoding. Every error wraps
// errBadCache.
func decodeCache(encoding string, data []byte) ([]cacheEntry, error) {
	if len(data) < 4+2+2+4+4 {
		return nil, fmt.Errorf("%w: %d bytes", errBadCache, len(data))
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum", errBadCache)
	}
	if !bytes.HasPrefix(body, []byte(cacheMagic)) {
		return nil, fmt.Errorf("%w: magic", errBadCache)
	}
	b := body[4:]
	if v := binary.LittleEndian.Uint16(b); v != cacheVersion {
		return nil, fmt.Errorf("%w: version %d", errBadCache, v)
	}
	n := int(binary.LittleEndian.Uint16(b[2:]))
	b = b[4:]
	if len(b) < n+4 || string(b[:n]) != encoding {
		return nil, fmt.Errorf("%w: not for %s", errBadCache, encoding)
	}
	b = b[n:]
	count := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if count > maxDiskEntries || uint64(len(b)) != uint64(count)*cacheEntrySize {
		return nil, fmt.Errorf("%w: %d entries in %d bytes", errBadCache, count, len(b))
	}
	out := make([]cacheEntry, count)
	for i := range out {
		copy(out[i].key[:], b[:16])
		out[i].count = int(binary.LittleEndian.Uint32(b[16:20]))
		b = b[cacheEntrySize:]
	}
	return out, nil
}

// cachePath is the cache file of the counter's encoding, "" when the
// counter has no on-disk cache.
func (c *Counter) cachePath() string {
	if c.opts.CacheDir == "" || c.opts.NoCache {
		return ""
	}
	return filepath.Join(c.opts.CacheDir, "token-counts-"+c.name+".bin")
}

// readCacheFile returns the entries of the cache file at path, nil when it
// is missing or unusable.
func readCacheFile(encoding, path string) []cacheEntry {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	entries, err := decodeCache(encoding, data)
	if err != nil {
		return nil
	}
	return entries
}

// loadDiskLocked reads the on-disk cache once. c.mu is held.
func (c *Counter) loadDiskLocked() {
	if c.loaded {
		return
	}
	c.loaded = true
	p := c.cachePath()
	if p == "" {
		return
	}
	entries := readCacheFile(c.name, p)
	c.disk = make(map[cacheKey]int, len(entries))
	for _, e := range entries {
		c.disk[e.key] = e.count
	}
}

// Save writes the on-disk caches. The text cache is written when counts
// were computed since the last Save: the counts this counter holds in
// memory (those it used, the current generation first), then those on disk
// (re-read, so that counts another process saved meanwhile are kept), at
// most maxDiskEntries. The piece cache is written when pieces were counted
// by the codec since the last Save (see savePieces). Nothing is written
// when nothing new was counted or the counter has no on-disk cache. Each
// file is written over in place without fsync (fsutil.Overwrite): it is a
// cache whose checksum covers every byte, so a lost or torn write costs a
// re-count, never a wrong count. Errors are those of creating the folder
// or writing the files.
func (c *Counter) Save() error {
	return errors.Join(c.saveCounts(), c.savePieces())
}

// saveCounts writes the text cache (see Save).
func (c *Counter) saveCounts() error {
	p := c.cachePath()
	if p == "" {
		return nil
	}
	c.mu.Lock()
	if c.fresh == 0 {
		c.mu.Unlock()
		return nil
	}
	// Sized for the counts in memory, not the bound: a warm rebuild saves
	// a few hundred, and a map made for maxDiskEntries is 300 KB.
	seen := make(map[cacheKey]bool, min(maxDiskEntries, len(c.cache)+len(c.prev)))
	var entries []cacheEntry
	add := func(k cacheKey, n int) {
		if len(entries) < maxDiskEntries && !seen[k] {
			seen[k] = true
			entries = append(entries, cacheEntry{k, n})
		}
	}
	for _, gen := range []map[cacheKey]int{c.cache, c.prev} {
		for k, n := range gen {
			add(k, n)
		}
	}
	c.fresh = 0
	c.mu.Unlock()
	for _, e := range readCacheFile(c.name, p) {
		add(e.key, e.count)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("save token counts: %w", err)
	}
	if err := fsutil.OverwriteFile(p, encodeCache(c.name, entries), 0o644); err != nil {
		return fmt.Errorf("save token counts: %w", err)
	}
	return nil
}
