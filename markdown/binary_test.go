package markdown

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// roundTrip encodes d and decodes it back, failing t when the result is
// not deeply equal to d (unexported fields and yaml nodes included).
func roundTrip(t *testing.T, name string, d *Document) *Document {
	t.Helper()
	b, err := d.AppendBinary(nil)
	if err != nil {
		t.Fatalf("%s: AppendBinary: %v", name, err)
	}
	got, err := DecodeDocument(b)
	if err != nil {
		t.Fatalf("%s: DecodeDocument: %v", name, err)
	}
	if !reflect.DeepEqual(got, d) {
		t.Fatalf("%s: the decoded document differs from the parsed one", name)
	}
	return got
}

// markdownFiles returns the .md files under root.
func markdownFiles(t *testing.T, root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestBinaryRoundTrip: every markdown file of the examples and of the real
// planning trees decodes back to the document Parse made, and a Reparse of
// the decoded document after an edit equals a Reparse of the original.
func TestBinaryRoundTrip(t *testing.T) {
	roots := []string{filepath.Join(sharedtest.ModuleRoot(), "examples")}
	if _, err := os.Stat(filepath.Join(sharedtest.ModuleRoot(), "..", "shared", "realdata")); err == nil {
		roots = append(roots, sharedtest.Realdata(t))
	}
	r := NewReader()
	n := 0
	for _, root := range roots {
		for _, p := range markdownFiles(t, root) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			d := r.Parse(p, src)
			got := roundTrip(t, p, d)
			edited := append(append([]byte{}, src...), "\n- [ ] a new item\n"...)
			if !reflect.DeepEqual(r.Reparse(got, edited), r.Reparse(d, edited)) {
				t.Fatalf("%s: Reparse of the decoded document differs", p)
			}
			n++
		}
	}
	if n < 20 {
		t.Fatalf("only %d files checked", n)
	}
	// Aliases, comments, stacked and invalid front matter, CRLF, a BOM.
	for _, src := range []string{
		"---\na: &x [1, {b: 2}]\nc: *x # comment\n# foot\n---\n# T\n",
		"\uFEFF---\r\nx: 1\r\n---\r\n---\r\ny: [\r\n---\r\nbody\r\n",
		"",
		"<task type=\"auto\">\n<name>n</name>\n</task>\n| a | b |\n|---|---|\n| 1 | 2 |\n",
	} {
		roundTrip(t, src, r.Parse("x.md", []byte(src)))
	}
}

// TestDecodeRejects: truncated bytes, another version and trailing bytes
// are errors, never a document.
func TestDecodeRejects(t *testing.T) {
	d := Parse("x.md", []byte("---\na: 1\n---\n# T\n- [ ] x\n"))
	b, err := d.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"truncated": b[:len(b)-1],
		"empty":     nil,
		"version":   append([]byte{binaryVersion + 1}, b[1:]...),
		"trailing":  append(append([]byte{}, b...), 0),
	} {
		if got, err := DecodeDocument(bad); err == nil || got != nil {
			t.Errorf("%s: decoded (%v)", name, err)
		}
	}
}

// FuzzDecodeDocument: decoding any bytes never panics, and a document
// decoded from AppendBinary of a parse is that parse.
func FuzzDecodeDocument(f *testing.F) {
	for _, s := range []string{"", "---\na: &x 1\nb: *x\n---\n# H\n- [x] y\n", "| a |\n|---|\n| b |\n"} {
		b, _ := Parse("f.md", []byte(s)).AppendBinary(nil)
		f.Add(b, s)
	}
	f.Fuzz(func(t *testing.T, raw []byte, src string) {
		_, _ = DecodeDocument(raw)
		d := Parse("f.md", []byte(src))
		b, err := d.AppendBinary(nil)
		if err != nil {
			return // an alias yaml.v3 resolved out of order: not cached
		}
		got, err := DecodeDocument(b)
		if err != nil || !reflect.DeepEqual(got, d) {
			t.Fatalf("%q: round trip: %v", src, err)
		}
	})
}
