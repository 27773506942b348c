package budget

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// TestPiecePatternsAreTheCodecs: the patterns we split by are, byte for
// byte, those the codecs split by (the library keeps them in an unexported
// field; reflect reads it without calling into it).
func TestPiecePatternsAreTheCodecs(t *testing.T) {
	for enc, want := range map[string]string{O200kBase: o200kPattern, Cl100kBase: cl100kPattern} {
		codec, err := tokenizer.Get(tokenizer.Encoding(enc))
		if err != nil {
			t.Fatal(err)
		}
		re := reflect.ValueOf(codec).Elem().FieldByName("splitRegexp")
		if !re.IsValid() || re.IsNil() {
			t.Fatalf("%s: the codec has no splitRegexp field any more; check the patterns by hand", enc)
		}
		if got := re.Elem().FieldByName("pattern").String(); got != want {
			t.Errorf("%s: the codec splits by\n%s\nwe split by\n%s", enc, got, want)
		}
	}
}

// exactTexts returns the files under root whose names end in one of exts,
// or all files when exts is empty.
func exactTexts(t *testing.T, root string, exts ...string) []string {
	t.Helper()
	var texts []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if len(exts) > 0 && !slices.ContainsFunc(exts, func(e string) bool { return strings.HasSuffix(p, e) }) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		texts = append(texts, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// checkPiecesExact counts texts with a Counter over an empty folder (the
// piece cache filled as it goes), then, once only the piece file is left,
// with a new Counter that must answer every count from it without building
// the codec; both must equal codec.Count.
func checkPiecesExact(t *testing.T, enc string, texts []string) {
	t.Helper()
	codec, err := tokenizer.Get(tokenizer.Encoding(enc))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var builds atomic.Int32
	cold, _ := NewCounterWith(enc, countingCodecs(dir, &builds))
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i], _ = codec.Count(s)
		if got := cold.Count(s); got != want[i] {
			t.Fatalf("%s cold: %d tokens, codec.Count %d, for %.80q…", enc, got, want[i], s)
		}
	}
	if err := cold.Save(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(cold.cachePath()); err != nil {
		t.Fatal(err)
	}
	pieces := readPieceFile(enc, cold.piecePath())
	builds.Store(0)
	warm, _ := NewCounterWith(enc, countingCodecs(dir, &builds))
	for i, s := range texts {
		if got := warm.Count(s); got != want[i] {
			t.Fatalf("%s from pieces: %d tokens, codec.Count %d, for %.80q…", enc, got, want[i], s)
		}
	}
	if builds.Load() != 0 {
		t.Errorf("%s: counting from the piece cache built the codec", enc)
	}
	// With the rank tables and a piece cache of other texts (the
	// repository's docs): the new pieces of each text are counted with
	// the table where they are few, else with the codec; exactly.
	ranked, _ := NewCounterWith(enc, Options{CacheDir: t.TempDir()})
	for _, s := range exactTexts(t, filepath.Join("..", "..", "docs"), ".md") {
		ranked.Count(s)
	}
	for i, s := range texts {
		if got := ranked.Count(s); got != want[i] {
			t.Fatalf("%s with the rank table: %d tokens, codec.Count %d, for %.80q…", enc, got, want[i], s)
		}
	}
	t.Logf("%s: %d texts (%d KB), %d tokens, %d pieces cached (%d KB of piece text)", enc, len(texts), totalLen(texts)>>10, sum(want), pieces.len(), len(pieces.text)>>10)
}

func totalLen(texts []string) int {
	n := 0
	for _, s := range texts {
		n += len(s)
	}
	return n
}

func sum(ns []int) int {
	n := 0
	for _, m := range ns {
		n += m
	}
	return n
}

// TestCountPiecesExact: the count by pieces equals codec.Count, for both
// encodings, on the repository's markdown, YAML and txtar files and on
// every file of the real trees in ../shared/realdata (one piece cache per
// tree), counted cold and then from the piece cache alone. The real trees
// (10 MB, counted four times per encoding in one goroutine) are skipped
// under the race detector, which makes them ten times slower and has no
// race to find; `make test` counts them in a second pass without it
// (EXACT_TESTS in the Makefile).
func TestCountPiecesExact(t *testing.T) {
	repo := exactTexts(t, filepath.Join("..", ".."), ".md", ".yaml", ".txtar")
	if len(repo) < 50 {
		t.Fatalf("only %d repository texts", len(repo))
	}
	for _, enc := range []string{O200kBase, Cl100kBase} {
		t.Run(enc+"/repository", func(t *testing.T) { checkPiecesExact(t, enc, repo) })
	}
	t.Run("realdata", func(t *testing.T) {
		if raceDetector {
			t.Skip("single-goroutine count of 10 MB of real trees: make test runs it without -race")
		}
		root := sharedtest.Realdata(t)
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		trees := 0
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			texts := exactTexts(t, filepath.Join(root, e.Name()))
			trees++
			for _, enc := range []string{O200kBase, Cl100kBase} {
				t.Run(enc+"/"+e.Name(), func(t *testing.T) { checkPiecesExact(t, enc, texts) })
			}
		}
		if trees == 0 {
			t.Fatal("no trees in " + root)
		}
	})
}

// FuzzCountPieces: a Counter whose piece cache was filled from other texts
// counts any text, valid UTF-8 or not, as codec.Count does.
func FuzzCountPieces(f *testing.F) {
	for _, s := range []string{
		"## Section 1\n\nA short section body.", "Four phases to a deployable store,\n", "  \n\n\t x's 'S 1234567 中文 — ",
		"\xff\xfe bad", "caf\xc3", "a\r\n\r\nb", "<|endoftext|>", "// c\n\n/x", strings.Repeat("=", 2000),
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	fill, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
	counts(fill, buildTexts(f))
	if err := fill.Save(); err != nil {
		f.Fatal(err)
	}
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		f.Fatal(err)
	}
	c, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := codec.Count(s)
		if got := c.Count(s); got != want {
			t.Fatalf("Count %d, codec.Count %d (valid UTF-8: %v)", got, want, utf8.ValidString(s))
		}
	})
}

// TestEditOfSeenPieces: a new Counter over the caches of a text counts the
// text with one word changed to a word it holds without building the
// codec; a never-seen word builds it. Both counts are right.
func TestEditOfSeenPieces(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "gsd", ".planning", "ROADMAP.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	var builds atomic.Int32
	first, _ := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
	first.Count(text)
	if err := first.Save(); err != nil {
		t.Fatal(err)
	}
	truth, _ := NewCounter(O200kBase)

	// Nothing changed: the text cache answers, the piece file is not read.
	same, _ := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
	same.Count(text)
	if same.pieces.loaded {
		t.Error("a count the text cache held read the piece file")
	}

	for _, tc := range []struct {
		edit  string
		build bool
	}{
		{" binary first,", false},        // " binary" is in "a deployable binary"
		{" Qwxzvk first,", true},         // never seen
		{" Qwxzvk binary first,", false}, // seen since the last edit's Save
		{" storage first again,", true},  // " again" is not in the text
	} {
		edited := strings.Replace(text, " storage first,", tc.edit, 1)
		if edited == text {
			t.Fatal("the edit changed nothing")
		}
		builds.Store(0)
		c, _ := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
		if got, want := c.Count(edited), truth.Count(edited); got != want {
			t.Errorf("%q: %d tokens, want %d", tc.edit, got, want)
		}
		if built := builds.Load() != 0; built != tc.build {
			t.Errorf("%q: codec built %v, want %v", tc.edit, built, tc.build)
		}
		if err := c.Save(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDamagedPieceFile: a piece file that is torn, flipped, of another
// version or encoding, out of order or garbage is ignored (the counts are
// right, the codec is built) and replaced by a good one at the next Save.
func TestDamagedPieceFile(t *testing.T) {
	texts := buildTexts(t)[:4]
	truth, _ := NewCounter(O200kBase)
	want := counts(truth, texts)
	reorder := func(b []byte) []byte {
		e := mustDecodePieces(t, b).entries()
		e[0], e[1] = e[1], e[0]
		return encodePieces(O200kBase, e)
	}
	for name, damage := range map[string]func([]byte) []byte{
		"torn":         func(b []byte) []byte { return b[:len(b)-7] },
		"empty":        func([]byte) []byte { return nil },
		"bit flip":     func(b []byte) []byte { b[len(b)/2] ^= 1; return b },
		"garbage":      func(b []byte) []byte { return bytes.Repeat([]byte{0x5a}, len(b)) },
		"version 2":    func(b []byte) []byte { b[4] = 2; return reseal(b) },
		"out of order": reorder,
		"zero count": func(b []byte) []byte {
			e := mustDecodePieces(t, b).entries()
			e[3].count = 0
			return encodePieces(O200kBase, e)
		},
		"other encoding": func(b []byte) []byte {
			return encodePieces(Cl100kBase, mustDecodePieces(t, b).entries())
		},
		"text cache's format": func(b []byte) []byte {
			return encodeCache(O200kBase, []cacheEntry{{keyOf("a"), 1}})
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
			// Without the text cache every text is counted by pieces.
			if err := os.Remove(c.cachePath()); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(c.piecePath())
			if err := os.WriteFile(c.piecePath(), damage(bytes.Clone(b)), 0o644); err != nil {
				t.Fatal(err)
			}
			d, _ := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
			if got := counts(d, texts); !equalInts(got, want) {
				t.Fatalf("counts %v, want %v", got, want)
			}
			if builds.Load() != 2 {
				t.Errorf("damaged piece file trusted: %d codec builds", builds.Load())
			}
			if err := d.Save(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(d.piecePath())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, b) {
				t.Error("Save did not replace the damaged file by the one a cold counter writes")
			}
		})
	}
}

func mustDecodePieces(t *testing.T, b []byte) *pieceTable {
	t.Helper()
	p, err := decodePieces(O200kBase, b)
	if err != nil {
		t.Fatal(err)
	}
	return &p
}

// FuzzDecodePieces: the piece file reader never panics, wraps errBadCache
// in every error, and accepts only what it would write itself.
func FuzzDecodePieces(f *testing.F) {
	f.Add(encodePieces(O200kBase, []pieceEntry{{" a", 1}, {"bc", 1}, {"中文", 2}}))
	f.Add(encodePieces(O200kBase, nil))
	f.Add([]byte("RTKP\x01\x00\x0ao200k_base"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := decodePieces(O200kBase, data)
		if err != nil {
			if !errors.Is(err, errBadCache) {
				t.Fatalf("error %v does not wrap errBadCache", err)
			}
			return
		}
		if p.len() > maxPieces || len(p.text) > maxPieceText {
			t.Fatalf("%d pieces of %d bytes accepted", p.len(), len(p.text))
		}
		for i := range p.len() {
			if j, ok := p.find(p.piece(i)); !ok || j != i {
				t.Fatalf("piece %d found at %d, %v", i, j, ok)
			}
		}
		if !bytes.Equal(encodePieces(O200kBase, p.entries()), data) {
			t.Fatal("re-encoding differs")
		}
	})
}

// words returns n distinct lowercase words of length size or more, each
// one piece after a space, from index from on.
func words(from, n, size int) []string {
	out := make([]string, n)
	for i := range out {
		w := []byte(strings.Repeat("q", size))
		for k := from + i; k > 0; k /= 26 {
			w = append(w, byte('a'+k%26))
		}
		out[i] = string(w)
	}
	return out
}

// countWords counts the words in texts of 100 words each.
func countWords(c *Counter, ws []string) {
	for len(ws) > 0 {
		k := min(100, len(ws))
		c.Count(" " + strings.Join(ws[:k], " "))
		ws = ws[k:]
	}
}

// TestPieceCacheBounded: however many pieces counters saw, the file holds
// at most maxPieces pieces and maxPieceText bytes of them, and a Save keeps
// the pieces its counter used (seen in the file or new) before the others.
func TestPieceCacheBounded(t *testing.T) {
	for name, size := range map[string]int{"pieces": 0, "bytes": maxPieceLen - 20} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			n := maxPieces + 1000
			if size > 0 {
				n = maxPieceText/size + 100
			}
			c, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
			countWords(c, words(0, n, size))
			if err := c.Save(); err != nil {
				t.Fatal(err)
			}
			checkPieceBounds(t, c.piecePath())
			// A new process uses the last words (most of them not kept)
			// and new ones: all of them are kept.
			used := slices.Concat(words(n-200, 200, size), words(n, 200, size))
			d, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
			countWords(d, used)
			if err := d.Save(); err != nil {
				t.Fatal(err)
			}
			p := checkPieceBounds(t, d.piecePath())
			for _, w := range used {
				if _, ok := p.find(" " + w); !ok {
					t.Fatalf("%q, used by the last counter, was dropped", " "+w)
				}
			}
		})
	}
}

func checkPieceBounds(t *testing.T, path string) *pieceTable {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := mustDecodePieces(t, b)
	if p.len() == 0 || p.len() > maxPieces || len(p.text) > maxPieceText || len(b) > 20+len(O200kBase)+maxPieces*pieceIndexSize+maxPieceText+4 {
		t.Fatalf("piece file: %d pieces, %d bytes of text, %d bytes", p.len(), len(p.text), len(b))
	}
	return p
}

// TestAttribute: tokens are attributed to pieces by their lengths, and a
// token across two pieces (a split that is not the codec's) stores nothing.
func TestAttribute(t *testing.T) {
	if got, ok := attribute([]string{"ab", " cde", "\n"}, []string{"a", "b", " c", "de", "\n"}); !ok || !slices.Equal(got, []int{2, 2, 1}) {
		t.Errorf("attribute: %v, %v", got, ok)
	}
	for _, tokens := range [][]string{{"ab", " cd", "e\n"}, {"ab", " cde"}, {"ab", " cde", "\n", "x"}, {"ab", "", " cde", "\n"}} {
		if got, ok := attribute([]string{"ab", " cde", "\n"}, tokens); ok {
			t.Errorf("tokens %q attributed: %v", tokens, got)
		}
	}
}

// TestPiecesConcurrent: counters sharing a piece file count concurrently
// and right (run with -race).
func TestPiecesConcurrent(t *testing.T) {
	dir := t.TempDir()
	texts := buildTexts(t)
	first, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
	counts(first, texts)
	if err := first.Save(); err != nil {
		t.Fatal(err)
	}
	truth, _ := NewCounter(O200kBase)
	c, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i, s := range texts {
				s = strings.Replace(s, "\n", "\nedit "+strconv.Itoa(g*1000+i)+" Zqwvx"+strconv.Itoa(g)+"\n", 1)
				if got, want := c.Count(s), truth.Count(s); got != want {
					t.Errorf("goroutine %d text %d: %d tokens, want %d", g, i, got, want)
				}
			}
			if err := c.Save(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// BenchmarkPieceCount is a build's counts in a new Counter (a new process)
// whose folder holds only the piece file, as after an edit of every text
// to words seen before: each text misses the text cache and is counted
// from its pieces, and the codec is never built. Compare BenchmarkColdCount
// (in one process the vocabulary is built once, so that one leaves out
// the 30-40 ms a new process spends building it).
func BenchmarkPieceCount(b *testing.B) {
	dir := b.TempDir()
	texts := buildTexts(b)
	c, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
	counts(c, texts)
	if err := c.Save(); err != nil {
		b.Fatal(err)
	}
	if err := os.Remove(c.cachePath()); err != nil {
		b.Fatal(err)
	}
	var builds atomic.Int32
	b.ReportAllocs()
	for b.Loop() {
		w, _ := NewCounterWith(O200kBase, countingCodecs(dir, &builds))
		counts(w, texts)
	}
	if builds.Load() != 0 {
		b.Fatal("counting from pieces built the codec")
	}
}

// BenchmarkColdCountPieces is BenchmarkColdCount over an empty cache
// folder: each text is split into pieces, then encoded, and its pieces'
// counts stored. The difference is what the piece cache costs a cold
// count.
func BenchmarkColdCountPieces(b *testing.B) {
	texts := buildTexts(b)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		w, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
		counts(w, texts)
	}
}
