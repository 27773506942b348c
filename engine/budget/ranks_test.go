package budget

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

var updateRanks = flag.Bool("update", false, "rewrite the rank tables from the codecs")

// codecVocabulary returns the tokens of enc's codec by rank (its ids, from
// 0 up to the last id Decode knows; special tokens are not among them).
func codecVocabulary(t testing.TB, enc string) ([]string, []uint32) {
	t.Helper()
	codec, err := tokenizer.Get(tokenizer.Encoding(enc))
	if err != nil {
		t.Fatal(err)
	}
	var tokens []string
	var ranks []uint32
	for id, misses := uint(0), 0; misses < 1<<12; id++ {
		s, err := codec.Decode([]uint{id})
		if err != nil || s == "" {
			misses++
			continue
		}
		misses = 0
		tokens, ranks = append(tokens, s), append(ranks, uint32(id))
	}
	return tokens, ranks
}

// TestRankTablesAreTheCodecs: each embedded rank table is its codec's
// vocabulary, byte for byte as encodeRanks writes it (with -update, the
// tables are rewritten from the codecs: after a tiktoken-go upgrade).
func TestRankTablesAreTheCodecs(t *testing.T) {
	if raceDetector && !*updateRanks {
		t.Skip("builds both vocabularies; run without -race")
	}
	for _, enc := range []string{O200kBase, Cl100kBase} {
		t.Run(enc, func(t *testing.T) {
			tokens, ranks := codecVocabulary(t, enc)
			want := encodeRanks(tokens, ranks)
			path := filepath.Join("ranks", enc+".ranks")
			if *updateRanks {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			got := o200kRanks
			if enc == Cl100kBase {
				got = cl100kRanks
			}
			if !bytes.Equal([]byte(got), want) {
				t.Fatalf("%s differs from the codec's vocabulary of %d tokens: go test -run TestRankTablesAreTheCodecs ./engine/budget/ -update", path, len(tokens))
			}
			tab, ok := ranksOf(enc)
			if !ok || tab.n != len(tokens) {
				t.Fatalf("table of %d tokens, want %d", tab.n, len(tokens))
			}
			for i := 0; i < len(tokens); i += 97 {
				if r, ok := tab.rank(tokens[i]); !ok || r != ranks[i] {
					t.Errorf("rank(%q) = %d, %v; want %d", tokens[i], r, ok, ranks[i])
				}
			}
			if _, ok := tab.rank("\x00not a token of any vocabulary\xff"); ok {
				t.Error("a non-token has a rank")
			}
		})
	}
}

// TestRankCountIsTheCodecs: the count of a piece made with the rank table
// is the codec's, for the pieces of varied text (words of several
// scripts, numbers, code, punctuation runs, invalid bytes turned pieces).
func TestRankCountIsTheCodecs(t *testing.T) {
	if raceDetector {
		t.Skip("builds both vocabularies; run without -race")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	words := strings.Fields("the Handler HTTP_API redirect Minimal parity upstream naïve Straße 東京 café 1234567 0x7fff ))\n ==> {{ }} ::= 'll 're fmt.Println(\"x\") self-contained re-baseable ✅ — … internationalization Ünïcödé ½ антидисэстаблишментарианизм")
	for _, enc := range []string{O200kBase, Cl100kBase} {
		codec, err := tokenizer.Get(tokenizer.Encoding(enc))
		if err != nil {
			t.Fatal(err)
		}
		tab, ok := ranksOf(enc)
		if !ok {
			t.Fatalf("%s: no rank table", enc)
		}
		c := &Counter{name: enc}
		var text strings.Builder
		for range 4000 {
			w := words[rng.IntN(len(words))]
			if rng.IntN(3) == 0 {
				w = strings.ToUpper(w)
			}
			text.WriteString(w)
			text.WriteString([]string{" ", "  ", "\n", "(", ", ", ""}[rng.IntN(6)])
		}
		pieces, err := c.splitPieces(text.String())
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, p := range pieces {
			if len(p) > maxRankedPiece {
				continue
			}
			_, toks, err := codec.Encode(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := tab.count(p); got != len(toks) {
				t.Fatalf("%s: count(%q) = %d, codec %d (%q)", enc, p, got, len(toks), toks)
			}
			checked++
		}
		t.Logf("%s: %d pieces counted alike", enc, checked)
	}
}

// TestNewWordsBuildNoCodec: after an edit that adds words the piece cache
// has never seen, a new process counts the edited text exactly with the
// rank table, and builds no codec; a text of many new pieces (a cold
// count) still builds it.
func TestNewWordsBuildNoCodec(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "gsd", ".planning", "ROADMAP.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	dir := t.TempDir()
	var builds atomic.Int32
	opts := func() Options {
		o := countingCodecs(dir, &builds)
		o.noRanks = false
		return o
	}
	first, _ := NewCounterWith(O200kBase, opts())
	first.Count(text)
	if err := first.Save(); err != nil {
		t.Fatal(err)
	}
	truth, _ := NewCounter(O200kBase)
	for _, edit := range []string{" Qwxzvk first,", " Minimal (re-baseable)) first,", " 東京の café, naïvely first,"} {
		edited := strings.Replace(text, " storage first,", edit, 1)
		if edited == text {
			t.Fatal("the edit changed nothing")
		}
		builds.Store(0)
		c, _ := NewCounterWith(O200kBase, opts())
		if got, want := c.Count(edited), truth.Count(edited); got != want {
			t.Errorf("%q: %d tokens, want %d", edit, got, want)
		}
		if builds.Load() != 0 {
			t.Errorf("%q: the codec was built for a few new words", edit)
		}
	}
	var many strings.Builder
	for i := range maxRankedMissing + 10 {
		fmt.Fprintf(&many, " w%dq%d", i*7919, i)
	}
	builds.Store(0)
	c, _ := NewCounterWith(O200kBase, opts())
	if got, want := c.Count(many.String()), truth.Count(many.String()); got != want || builds.Load() != 1 {
		t.Errorf("many new pieces: %d tokens (want %d), %d codec builds (want 1)", got, want, builds.Load())
	}
}

// BenchmarkNewWord is a new process's count of a text with one word the
// piece cache lacks: with the rank table (ranked), and with the codec
// (codec; its vocabulary is built once per test process, so this is the
// encoding alone: a new process pays for the vocabulary on top, about
// 35 ms, which BenchmarkProcessNorish in engine measures whole).
func BenchmarkNewWord(b *testing.B) {
	base, err := os.ReadFile(filepath.Join("..", "..", "examples", "gsd", ".planning", "ROADMAP.md"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	first, _ := NewCounterWith(O200kBase, Options{CacheDir: dir})
	first.Count(string(base))
	if err := first.Save(); err != nil {
		b.Fatal(err)
	}
	for _, noRanks := range []bool{false, true} {
		name := "ranked"
		if noRanks {
			name = "codec"
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				text := strings.Replace(string(base), " storage first,", fmt.Sprintf(" Qw%dzvk first,", i), 1)
				c, _ := NewCounterWith(O200kBase, Options{CacheDir: dir, noRanks: noRanks})
				c.Count(text)
			}
		})
	}
}
