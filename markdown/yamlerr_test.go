package markdown

import (
	"bytes"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestLocateYAMLError feeds real yaml.v3 errors to LocateYAMLError: each
// source has its problem on a known line, found by reading the source.
func TestLocateYAMLError(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
		msg       string
	}{
		{"scanner error", "a: 1\nb: c: d\n", 2, "mapping values are not allowed in this context"},
		{"scanner error on line 1", "a: b: c\n", 1, "mapping values are not allowed"},
		{"parser error, flow sequence", "a: 1\nb: [x\n", 2, "did not find expected ',' or ']'"},
		{"parser error, deeper", "a: 1\n\nt:\n  - n: [x\n", 4, "did not find expected ',' or ']'"},
		{"parser error, under-indented key", "a: 1\nh:\n  w: 3\n k: 2\n", 4, "did not find expected key"},
		{"parser error at the end of the stream", "{\n", 1, "did not find expected node content"},
		{"parser error at the end, no final newline", "a: 1\nb: [", 2, "did not find expected node content"},
		{"tab as indentation", "a:\n\t- x\n", 2, "found character that cannot start any token"},
		{"tab on line 1", "\ta: 1\n", 1, "found character that cannot start any token"},
		{"tab in a continuation line", "x: \"q\"\nc: 1\n\tf: 2\n", 3, "found a tab character that violates indentation"},
		{"control character", "a: 1\nb: 2\nc: \x00\n", 3, "control characters are not allowed"},
		{"escape character", "\x1b[0m\n", 1, "control characters are not allowed"},
		{"invalid UTF-8", "a: 1\n\xff\n", 2, "invalid leading UTF-8 octet"},
		{"unterminated quote", "a: 1\nb: \"open\nc: 2\n", 2, "found unexpected end of stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n yaml.Node
			err := yaml.Unmarshal([]byte(tc.src), &n)
			if err == nil {
				t.Fatalf("yaml.v3 accepts %q", tc.src)
			}
			line, msg := LocateYAMLError(err, []byte(tc.src))
			if line != tc.line || !strings.HasPrefix(msg, tc.msg) {
				t.Errorf("LocateYAMLError(%q) = %d, %q; want %d, %q…", err, line, msg, tc.line, tc.msg)
			}
		})
	}
}

// TestLocateYAMLErrorDecode: a decoding error (*yaml.TypeError) keeps the
// node's line, which is already 1-based.
func TestLocateYAMLErrorDecode(t *testing.T) {
	src := []byte("a: 1\nb: 2\na: 3\n")
	var m map[string]int
	err := yaml.Unmarshal(src, &m)
	if err == nil {
		t.Fatal("yaml.v3 accepts a duplicate key when decoding into a map")
	}
	if line, msg := LocateYAMLError(err, src); line != 3 || msg != `mapping key "a" already defined at line 1` {
		t.Errorf("got %d, %q", line, msg)
	}
	var x struct{ A int }
	src = []byte("\n\na: many\n")
	err = yaml.Unmarshal(src, &x)
	if line, msg := LocateYAMLError(err, src); line != 3 || !strings.HasPrefix(msg, "cannot unmarshal !!str `many` into int") {
		t.Errorf("got %d, %q", line, msg)
	}
}

// FuzzLocateYAMLError: for any source yaml.v3 rejects, the line is within
// the source and the message is not empty.
func FuzzLocateYAMLError(f *testing.F) {
	for _, s := range []string{"a: b: c\n", "a: 1\nb: [x\n", "a:\n\t- x\n", "x: 1\n\tf: 2\n", "\x00", "a: \xff\n", "\xff\xfe", "{\n", "a: \"x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var n yaml.Node
		err := yaml.Unmarshal(src, &n)
		if err == nil {
			return
		}
		line, msg := LocateYAMLError(err, src)
		if lines := bytes.Count(bytes.TrimSuffix(src, []byte{'\n'}), []byte{'\n'}) + 1; line < 1 || line > lines {
			t.Fatalf("%q: line %d outside 1..%d", src, line, lines)
		}
		if msg == "" {
			t.Fatalf("%q: empty message for %v", src, err)
		}
	})
}
