package budget

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCountCachesByContent(t *testing.T) {
	c, err := NewCounter(O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Count("hello world, this is recite")
	b := c.Count("hello world, this is recite")
	if a != b || a == 0 {
		t.Fatalf("counts %d, %d", a, b)
	}
	hits, misses := c.Stats()
	if hits != 1 || misses != 1 {
		t.Fatalf("hits %d misses %d, want 1 1", hits, misses)
	}
	if c.Count("") != 0 {
		t.Fatal("empty string has tokens")
	}
}

func TestUnknownEncoding(t *testing.T) {
	if _, err := NewCounter("p50k_base"); err == nil {
		t.Fatal("want error for an encoding recite does not accept")
	}
}

func TestClassify(t *testing.T) {
	th := DefaultThresholds()
	for _, tc := range []struct {
		used, window int
		want         Status
	}{
		{0, 100, OK}, {69, 100, OK}, {70, 100, Warning}, {84, 100, Warning},
		{85, 100, Critical}, {200, 100, Critical}, {1, 0, Critical},
	} {
		if got := th.Classify(tc.used, tc.window); got != tc.want {
			t.Errorf("Classify(%d, %d) = %s, want %s", tc.used, tc.window, got, tc.want)
		}
	}
	if err := (Thresholds{Warning: 0.9, Critical: 0.8}).Validate(); err == nil {
		t.Error("warning above critical accepted")
	}
}

// TestMatchesTiktoken compares our counts with OpenAI's tiktoken on the
// bundled examples. The expected numbers in testdata/tiktoken.json were
// recorded once with the npm package `tiktoken` (the WASM build of OpenAI's
// Rust tiktoken) by testdata/count.mjs; see testdata/README.md.
func TestMatchesTiktoken(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "tiktoken.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Encodings map[string]map[string]int `json:"encodings"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Encodings) == 0 {
		t.Fatal("no golden counts")
	}
	root := filepath.Join("..", "..")
	for enc, files := range golden.Encodings {
		c, err := NewCounter(enc)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("%s: no files", enc)
		}
		for rel, want := range files {
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				t.Errorf("%s: %v", rel, err)
				continue
			}
			if got := c.Count(string(src)); got != want {
				t.Errorf("%s %s: got %d tokens, tiktoken says %d", enc, rel, got, want)
			}
		}
	}
}

func BenchmarkCount(b *testing.B) {
	c, err := NewCounter(O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("The recitation block restates the task, progress and blockers.\n", 200)
	b.SetBytes(int64(len(text)))
	for i := 0; b.Loop(); i++ {
		// Defeat the cache: a different text each iteration.
		c.Count(text + string(rune('a'+i%26)) + strings.Repeat("x", i%7))
	}
}

// TestCountChunksExact: counting a long text paragraph by paragraph gives
// the count of the whole text, for both encodings, on the repository's
// markdown and YAML files and on texts built to stress the paragraph
// boundary (blank lines before spaces, tabs, punctuation, digits, CJK, a
// non-breaking space, CRLF).
func TestCountChunksExact(t *testing.T) {
	var texts []string
	root := filepath.Join("..", "..")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".txtar") {
			if b, err := os.ReadFile(p); err == nil && len(b) >= chunkMin {
				texts = append(texts, string(b))
			}
		}
		return nil
	})
	para := strings.Repeat("word ", 500)
	for _, sep := range []string{"\n\n", "\n\n\n", "\n\n ", "\n\n\t", "\n\n- ", "\n\n## ", "\n\n123", "\n\n中文", "\n\n\u00a0x", "\r\n\r\n", "\n \n", ":\n\n", "\n\n.", "\n\n'", "\n\n<|endoftext|>"} {
		texts = append(texts, para+sep+para+sep+para)
	}
	// Random texts over an alphabet of the characters that decide piece
	// boundaries.
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"\n", "\n\n", " ", "\t", "/", ")", "'s", "a", "Word", "12345", "中", "—", ".", "-", "#", "\u00a0", "\r\n", "  "}
	for range 300 {
		var b strings.Builder
		for b.Len() < chunkMin*2 {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	if len(texts) < 20 {
		t.Fatalf("only %d texts", len(texts))
	}
	for _, enc := range []string{O200kBase, Cl100kBase} {
		c, err := NewCounter(enc)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			codec, _ := c.loadCodec()
			want, _ := codec.Count(s)
			if got := c.Count(s); got != want {
				t.Errorf("%s: paragraph sum %d, whole %d, for %.60q…", enc, got, want, s)
			}
		}
	}
}

// FuzzCountChunks: the paragraph-wise count of any text equals the count of
// the whole text.
func FuzzCountChunks(f *testing.F) {
	f.Add(strings.Repeat("x", chunkMin) + ")\n\n// c\n\n's\n\n 1\n\n中")
	c, err := NewCounter(O200kBase)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) < chunkMin {
			s += strings.Repeat("\n\nword", chunkMin/6)
		}
		codec, _ := c.loadCodec()
		want, _ := codec.Count(s)
		if got := c.Count(s); got != want {
			t.Fatalf("paragraph sum %d, whole %d", got, want)
		}
	})
}
