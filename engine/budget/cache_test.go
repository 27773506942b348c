package budget

import (
	"bytes"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// countingCodecs returns Options whose codec factory counts its calls,
// without the rank tables: every piece the caches lack builds the codec.
func countingCodecs(dir string, builds *atomic.Int32) Options {
	return Options{CacheDir: dir, noRanks: true, newCodec: func(e tokenizer.Encoding) (tokenizer.Codec, error) {
		builds.Add(1)
		return tokenizer.Get(e)
	}}
}

// buildTexts are the texts of a build: the bundled examples' planning
// files (some over chunkMin, counted by paragraph) and a few short ones.
func buildTexts(t testing.TB) []string {
	t.Helper()
	var texts []string
	for _, rel := range []string{"examples/gsd/.planning/ROADMAP.md", "examples/gsd/.planning/STATE.md", "examples/gsd/.planning/PROJECT.md",
		"examples/fire/.planning/loops/fire-loop-20260123-143052.md", "templates/init/recite.yaml"} {
		b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	for i := range 30 {
		texts = append(texts, "## Section "+strconv.Itoa(i)+"\n\nA short section body.")
	}
	return texts
}

func counts(c *Counter, texts []string) []int {
	var out []int
	for _, s := range texts {
		out = append(out, c.Count(s))
	}
	return out
}

// TestWarmCacheSkipsTokenizer: a new Counter over a saved cache answers a
// whole build's counts without building the codec; one new text builds
// it.
func TestWarmCacheSkipsTokenizer(t *testing.T) {
	dir := t.TempDir()
	texts := buildTexts(t)
	var builds atomic.Int32
	cold, err := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
	if err != nil {
		t.Fatal(err)
	}
	if builds.Load() != 0 {
		t.Fatal("NewCounterWith built the codec")
	}
	want := counts(cold, texts)
	if builds.Load() != 1 {
		t.Fatalf("cold counter built the codec %d times", builds.Load())
	}
	if err := cold.Save(); err != nil {
		t.Fatal(err)
	}
	warm, _ := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
	if got := counts(warm, texts); !equalInts(got, want) {
		t.Fatalf("warm counts %v, cold %v", got, want)
	}
	hits, misses := warm.Stats()
	if builds.Load() != 1 || misses != 0 || hits != len(texts) {
		t.Fatalf("warm counter: %d codec builds, %d hits, %d misses", builds.Load(), hits, misses)
	}
	// A new process after a one-paragraph edit: only that paragraph is
	// counted, and the codec is built for its never-seen word.
	edited := strings.Replace(texts[0], "\n\n", "\n\nAn added Qwxzvk sentence.\n\n", 1)
	again, _ := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
	truth, _ := NewCounter(O200kBase)
	if got, want := again.Count(edited), truth.Count(edited); got != want {
		t.Fatalf("edited text: %d tokens, want %d", got, want)
	}
	if _, misses := again.Stats(); builds.Load() != 2 || misses != 2 {
		t.Fatalf("after an edit: %d codec builds, %d misses (want the text and its changed paragraph)", builds.Load(), misses)
	}
	// Save merged the new counts with the old ones.
	if err := again.Save(); err != nil {
		t.Fatal(err)
	}
	if n := len(readCacheFile(O200kBase, again.cachePath())); n != len(texts)+countParagraphs(texts)+2 {
		t.Errorf("cache holds %d counts after two saves", n)
	}
}

// countParagraphs is how many paragraph counts Count caches for texts.
func countParagraphs(texts []string) int {
	n := 0
	for _, s := range texts {
		if len(s) < chunkMin {
			continue
		}
		seen := map[string]bool{}
		for len(s) > 0 {
			cut := paragraphEnd(s)
			seen[s[:cut]] = true
			s = s[cut:]
		}
		n += len(seen)
	}
	return n
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNoCache: NoCache neither reads nor writes the cache file.
func TestNoCache(t *testing.T) {
	dir := t.TempDir()
	texts := buildTexts(t)[:3]
	var builds atomic.Int32
	c, _ := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
	counts(c, texts)
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(c.cachePath())
	piecesBefore, err := os.ReadFile(c.piecePath())
	if err != nil {
		t.Fatal(err)
	}
	opts := countingCodecs(dir, &builds)
	opts.NoCache = true
	nc, _ := NewCounterWith(O200kBase, opts)
	counts(nc, append(texts, "a text never counted"))
	if err := nc.Save(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(c.cachePath())
	if builds.Load() != 2 || !bytes.Equal(before, after) {
		t.Errorf("NoCache: %d codec builds (want 2), cache file changed: %v", builds.Load(), !bytes.Equal(before, after))
	}
	piecesAfter, _ := os.ReadFile(c.piecePath())
	if nc.pieces.loaded || !bytes.Equal(piecesBefore, piecesAfter) {
		t.Errorf("NoCache: piece file read %v, changed %v", nc.pieces.loaded, !bytes.Equal(piecesBefore, piecesAfter))
	}
}

// TestDamagedCache: a cache file that is torn, flipped, of another
// version or encoding, or garbage is ignored (the counts are right, the
// codec is built) and replaced by a good one at the next Save.
func TestDamagedCache(t *testing.T) {
	texts := buildTexts(t)[:4]
	truth, _ := NewCounter(O200kBase)
	want := counts(truth, texts)
	for name, damage := range map[string]func([]byte) []byte{
		"torn":      func(b []byte) []byte { return b[:len(b)-7] },
		"empty":     func([]byte) []byte { return nil },
		"bit flip":  func(b []byte) []byte { b[len(b)/2] ^= 1; return b },
		"garbage":   func(b []byte) []byte { return bytes.Repeat([]byte{0x5a}, len(b)) },
		"version 2": func(b []byte) []byte { b[4] = 2; return reseal(b) },
		"other encoding": func(b []byte) []byte {
			return encodeCache(Cl100kBase, mustDecode(t, b))
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var builds atomic.Int32
			c, _ := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
			counts(c, texts)
			if err := c.Save(); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(c.cachePath())
			if err := os.WriteFile(c.cachePath(), damage(b), 0o644); err != nil {
				t.Fatal(err)
			}
			// Without the piece file, counting texts the damaged file
			// was trusted for would not build the codec.
			if err := os.Remove(c.piecePath()); err != nil {
				t.Fatal(err)
			}
			d, _ := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
			if got := counts(d, texts); !equalInts(got, want) {
				t.Fatalf("counts %v, want %v", got, want)
			}
			if builds.Load() != 2 {
				t.Errorf("damaged cache trusted: %d codec builds", builds.Load())
			}
			if err := d.Save(); err != nil {
				t.Fatal(err)
			}
			if len(readCacheFile(O200kBase, d.cachePath())) == 0 {
				t.Error("Save did not replace the damaged file")
			}
		})
	}
}

func mustDecode(t *testing.T, b []byte) []cacheEntry {
	t.Helper()
	e, err := decodeCache(O200kBase, b)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// reseal recomputes the trailing CRC of a cache file.
func reseal(b []byte) []byte {
	body := b[:len(b)-4]
	return encodeCacheRaw(body)
}

func encodeCacheRaw(body []byte) []byte {
	out := append([]byte(nil), body...)
	sum := crc32.Checksum(body, castagnoli)
	return append(out, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
}

// TestCacheBounded: however many texts a counter saw, the file holds at
// most maxDiskEntries counts.
func TestCacheBounded(t *testing.T) {
	dir := t.TempDir()
	c, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
	for i := range maxDiskEntries + 3000 {
		c.Count("text " + strconv.Itoa(i))
	}
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(c.cachePath())
	if err != nil {
		t.Fatal(err)
	}
	n := len(readCacheFile(O200kBase, c.cachePath()))
	if n == 0 || n > maxDiskEntries || st.Size() > 200<<10 {
		t.Errorf("cache file: %d entries, %d bytes", n, st.Size())
	}
}

// TestSaveWithoutCacheDir: a counter without a folder saves nothing and
// reports no error; an unwritable folder is an error.
func TestSaveWithoutCacheDir(t *testing.T) {
	c, _ := NewCounter(O200kBase)
	c.Count("x")
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	_ = os.WriteFile(file, nil, 0o644)
	d, _ := NewCounterWith(O200kBase, Options{CacheDir: filepath.Join(file, "sub")})
	d.Count("x")
	if err := d.Save(); err == nil {
		t.Error("Save into a folder below a file succeeded")
	}
}

// FuzzDecodeCache: the cache reader never panics, accepts only files
// whose checksum matches, and reads back what it writes.
func FuzzDecodeCache(f *testing.F) {
	f.Add(encodeCache(O200kBase, []cacheEntry{{keyOf("a"), 1}, {keyOf("b"), 70000}}))
	f.Add(encodeCache(O200kBase, nil))
	f.Add([]byte("RTKC\x01\x00\x0ao200k_base"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := decodeCache(O200kBase, data)
		if err != nil {
			if !errors.Is(err, errBadCache) {
				t.Fatalf("error %v does not wrap errBadCache", err)
			}
			return
		}
		if len(entries) > maxDiskEntries {
			t.Fatalf("%d entries accepted", len(entries))
		}
		if !bytes.Equal(encodeCache(O200kBase, entries), data) {
			t.Fatal("re-encoding differs")
		}
	})
}

// BenchmarkWarmCount is a build's counts in a new Counter (a new process)
// over a saved cache: the codec is never built.
func BenchmarkWarmCount(b *testing.B) {
	dir := b.TempDir()
	texts := buildTexts(b)
	c, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
	counts(c, texts)
	if err := c.Save(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		w, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
		counts(w, texts)
		if _, misses := w.Stats(); misses != 0 {
			b.Fatal("warm count tokenised")
		}
	}
}

// BenchmarkColdCount is the same counts in a new Counter without a cache:
// building the codec and tokenising everything.
func BenchmarkColdCount(b *testing.B) {
	texts := buildTexts(b)
	b.ReportAllocs()
	for b.Loop() {
		w, _ := NewCounterWith(O200kBase, Options{})
		counts(w, texts)
	}
}
