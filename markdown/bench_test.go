package markdown

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

func norishState(b *testing.B) []byte {
	b.Helper()
	src, err := os.ReadFile(filepath.Join(sharedtest.Realdata(b), "23492__norish", ".planning", "STATE.md"))
	if err != nil {
		b.Skipf("norish STATE.md not readable: %v", err)
	}
	return src
}

// BenchmarkParse parses norish's 340 KB STATE.md with the package-level
// Parse (a new goldmark parser per call).
func BenchmarkParse(b *testing.B) {
	src := norishState(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Parse("STATE.md", src)
	}
}

// BenchmarkReaderParse parses the same file with one shared Reader.
func BenchmarkReaderParse(b *testing.B) {
	src := norishState(b)
	r := NewReader()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		r.Parse("STATE.md", src)
	}
}

// BenchmarkNewReader measures building the goldmark GFM parser, which a
// shared Reader pays once per tree instead of once per file.
func BenchmarkNewReader(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		NewReader().Parse("x.md", []byte("# x\n"))
	}
}

// BenchmarkParseNorishTree parses every markdown file of the norish planning
// tree (168 files, 3.2 MB) with one Reader; the tree must load in < 150 ms.
func BenchmarkParseNorishTree(b *testing.B) {
	root := filepath.Join(sharedtest.Realdata(b), "23492__norish", ".planning")
	var files [][]byte
	var total int64
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		src, err := os.ReadFile(p)
		files = append(files, src)
		total += int64(len(src))
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(total)
	b.ReportAllocs()
	r := NewReader()
	for b.Loop() {
		for _, src := range files {
			r.Parse("f.md", src)
		}
	}
	b.ReportMetric(float64(len(files)), "files")
}

// BenchmarkAdversarial parses inputs built to expose super-linear work in
// recite's own passes, at two sizes: ns/op should grow about 4x from n=1000
// to n=4000.
func BenchmarkAdversarial(b *testing.B) {
	inputs := map[string]func(n int) string{
		"unclosed-generics-in-task": func(n int) string {
			return "<task>\n" + strings.Repeat("List<T> and Map<K> ", n) + "\n</task>\n"
		},
		"task-opens-one-line": func(n int) string { return strings.Repeat("`<task>` <task x ", n) },
		"bold-fields-one-line": func(n int) string {
			return "**A:** " + strings.Repeat("x **b** **K:** v ", n) + "\n"
		},
		"front-matter-keys": func(n int) string {
			var sb strings.Builder
			sb.WriteString("---\n")
			for i := range n {
				sb.WriteString("k" + itoa(i) + ":\n  - a\n")
			}
			return sb.String() + "---\n"
		},
		"invalid-front-matter-keys": func(n int) string {
			return "---\n" + strings.Repeat("k: a: b\n", n) + "---\n"
		},
		"appended-rows": func(n int) string {
			return "| a | b |\n|---|---|\n| 1 | 2 |\n\n" + strings.Repeat("*note*\n| 3 | 4 |\n\n", n)
		},
		"sections": func(n int) string { return strings.Repeat("# a\n## b\n### c\nPhase: 1\n- [ ] x\n", n) },
		"fences":   func(n int) string { return strings.Repeat("```\n<task>\n```\n<task>\n</task>\n", n) },
	}
	r := NewReader()
	for name, gen := range inputs {
		for _, n := range []int{1000, 4000} {
			src := []byte(gen(n))
			b.Run(name+"/n="+itoa(n), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					r.Parse("a.md", src)
				}
			})
		}
	}
}
