package secrets

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/internal/fsutil"
)

// CleanCacheFile keeps, between processes, which texts the redaction
// rules found no secret in (docs/formats.md#redaction-cache), relative to
// the project root:
//
//	magic "RRCL", version (uint32), the rules' fingerprint
//	(redact.Fingerprint in engine/internal/redact, 32 bytes), the number
//	of entries (uint32), then per entry the first 16 bytes of
//	SHA-256(path, NUL, text), and last the CRC-32C (Castagnoli) of
//	everything before it.
//
// Integers are little-endian. Only verdicts of "no secret" are kept, never
// a text or a finding, so the file holds nothing of the project's content
// beyond hashes. A file that fails any check (a torn write, a flipped bit,
// another version, rules that changed) is ignored and replaced at the next
// save, never trusted. It holds at most maxDiskClean entries, those used
// most recently first.
const CleanCacheFile = layout.CacheDir + "/redact-clean.bin"

const (
	cleanMagic   = "RRCL"
	cleanVersion = 1
	// maxDiskClean bounds the file: four in-memory generations' worth.
	maxDiskClean = 4 * maxEntries
)

// errBadClean is wrapped by every reason to ignore the file.
var errBadClean = errors.New("redaction cache unusable")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// cleanKey is the disk form of a cache key: its first 16 bytes.
type cleanKey [16]byte

func cleanKeyOf(k [sha256.Size]byte) cleanKey { return cleanKey(k[:16]) }

// encodeClean formats the keys as the file's bytes.
func encodeClean(fp [sha256.Size]byte, keys []cleanKey) []byte {
	b := make([]byte, 0, 4+4+len(fp)+4+len(keys)*16+4)
	b = append(b, cleanMagic...)
	b = binary.LittleEndian.AppendUint32(b, cleanVersion)
	b = append(b, fp[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(keys)))
	for _, k := range keys {
		b = append(b, k[:]...)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeClean parses the file's bytes, written under the rules of
// fingerprint fp. Every error wraps errBadClean.
func decodeClean(fp [sha256.Size]byte, data []byte) ([]cleanKey, error) {
	const head = 4 + 4 + sha256.Size + 4
	if len(data) < head+4 {
		return nil, fmt.Errorf("%w: %d bytes", errBadClean, len(data))
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum", errBadClean)
	}
	if string(body[:4]) != cleanMagic || binary.LittleEndian.Uint32(body[4:]) != cleanVersion {
		return nil, fmt.Errorf("%w: magic or version", errBadClean)
	}
	if !bytes.Equal(body[8:8+sha256.Size], fp[:]) {
		return nil, fmt.Errorf("%w: made under other rules", errBadClean)
	}
	n := binary.LittleEndian.Uint32(body[8+sha256.Size:])
	rest := body[head:]
	if n > maxDiskClean || uint64(len(rest)) != uint64(n)*16 {
		return nil, fmt.Errorf("%w: %d entries in %d bytes", errBadClean, n, len(rest))
	}
	keys := make([]cleanKey, n)
	for i := range keys {
		copy(keys[i][:], rest[i*16:])
	}
	return keys, nil
}

// UseCacheFile makes the Redactor keep its "no secret" verdicts in path
// between processes (CleanCacheFile under the project; "" keeps them in
// memory only, as `--no-cache` does). The file is read on the first text
// no in-memory verdict answers and written by SaveCache. Call it before
// the first redaction.
func (r *Redactor) UseCacheFile(path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cachePath = path
}

// SaveCache writes the verdicts of "no secret" this Redactor reached or
// used, those in the file before them, at most maxDiskClean, written
// over the file in place without fsync (fsutil.Overwrite): its checksum
// covers every byte, so a lost or torn write costs a scan, never a secret
// passed unscanned. It writes nothing when no new verdict was reached or
// there is no cache file. Errors: creating the folder or writing the file.
func (r *Redactor) SaveCache() error {
	r.mu.Lock()
	c, path := r.cache, r.cachePath
	r.mu.Unlock()
	if c == nil || path == "" {
		return nil
	}
	c.mu.Lock()
	if c.fresh == 0 {
		c.mu.Unlock()
		return nil
	}
	// Sized for the verdicts in memory, not the bound (see budget's
	// saveCounts).
	seen := make(map[cleanKey]bool, min(maxDiskClean, len(c.done)+len(c.previous)))
	var keys []cleanKey
	add := func(k cleanKey) {
		if len(keys) < maxDiskClean && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, gen := range []map[[sha256.Size]byte]redacted{c.done, c.previous} {
		for k, v := range gen {
			if v.unchanged && len(v.findings) == 0 {
				add(cleanKeyOf(k))
			}
		}
	}
	c.fresh = 0
	fp := c.fp // a verdict was reached, so the file was read (loadDisk)
	c.mu.Unlock()
	for _, k := range readClean(fp, path) {
		add(k)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save redaction cache: %w", err)
	}
	if err := fsutil.OverwriteFile(path, encodeClean(fp, keys), 0o644); err != nil {
		return fmt.Errorf("save redaction cache: %w", err)
	}
	return nil
}

// readClean returns the keys of the file at path, nil when it is missing
// or unusable.
func readClean(fp [sha256.Size]byte, path string) []cleanKey {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	keys, err := decodeClean(fp, data)
	if err != nil {
		return nil
	}
	return keys
}
