package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTermText: the characters a terminal acts on, the bidi overrides and
// bytes that are not UTF-8 are escaped; newlines, tabs and other text are
// left; JSON through the escaping keeps its meaning.
func TestTermText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain .planning/STATE.md\n\tindented é 漢字", "plain .planning/STATE.md\n\tindented é 漢字"},
		{"red\x1b[31mname", `red\u001b[31mname`},
		{"title\x1b]0;pwned\x07", `title\u001b]0;pwned\u0007`},
		{"cr\roverwrite", `cr\u000doverwrite`},
		{"del\x7f c1\u0085 bidi\u202eevil\u2066", `del\u007f c1\u0085 bidi\u202eevil\u2066`},
		{"bad\xffname\xc3", `bad\xffname\xc3`},
	}
	for _, tt := range tests {
		if got := termText(tt.in); got != tt.want {
			t.Errorf("termText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// encoding/json leaves DEL, C1 and U+202E raw; escaped, the JSON
	// decodes to the same value.
	v := map[string]string{"name": "a\x7fb\u0085c\u202ed\x1be"}
	raw, _ := json.Marshal(v)
	var back map[string]string
	if err := json.Unmarshal([]byte(termText(string(raw))), &back); err != nil || back["name"] != v["name"] {
		t.Errorf("JSON through termText: %v, %q", err, back)
	}
}

// TestTermWriter: a character split across writes is written whole, and
// an incomplete one at the end is escaped by Flush.
func TestTermWriter(t *testing.T) {
	var b bytes.Buffer
	w := &termWriter{w: &b}
	s := "é\x1b漢"
	for i := 0; i < len(s); i++ {
		if n, err := w.Write([]byte{s[i]}); n != 1 || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	_, _ = w.Write([]byte{0xe6, 0xbc})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), `é\u001b漢\xe6\xbc`; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

// TestStatuslineStdinLeftOpen: a stdin that never ends does not hang the
// status line: past the wait it prints the line without the input.
func TestStatuslineStdinLeftOpen(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	var out, errOut bytes.Buffer
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".planning"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts := &statuslineOptions{io: IOStreams{In: r, Out: &out, ErrOut: &errOut}, inputWait: 10 * time.Millisecond}
	opts.opts.Dir = dir
	if err := statuslineRun(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if out.Len() == 0 || errOut.Len() > 0 {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
}
