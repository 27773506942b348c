package main

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// Terminal safety (docs/architecture.md#terminal-safety): a file name or a
// line of a file may hold control characters (ESC starts a sequence that
// recolours, moves the cursor, retitles the window or writes to the
// clipboard), bidirectional overrides that show text in another order than
// it has, or bytes that are not UTF-8. Every text recite prints for a
// terminal goes through termText, which writes each of them as an escape
// a reader sees: \u001b, \u202e, \xff. The \u form of a character is also
// what it means inside a JSON string, so JSON output passes through with
// its meaning unchanged (encoding/json already escapes the C0 controls;
// DEL, the C1 controls and the overrides it leaves are escaped here).

// termText returns s with every character a terminal would act on
// escaped: the C0 controls but newline and tab, DEL, the C1 controls
// (U+0080–U+009F), the bidirectional embeddings, overrides and isolates
// (U+202A–U+202E, U+2066–U+2069), as \uXXXX; each byte that is not
// UTF-8 as \xNN. A text without any comes back as it is.
func termText(s string) string {
	if termClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	termEscape(&b, s)
	return b.String()
}

// termClean reports whether s has nothing termText escapes.
func termClean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if termUnsafe(rune(c)) {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || termUnsafe(r) {
			return false
		}
		i += n
	}
	return true
}

// termEscape writes s to b with termText's escapes.
func termEscape(b *strings.Builder, s string) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case termUnsafe(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
}

// termUnsafe reports whether a terminal acts on r or shows it out of
// order (see termText).
func termUnsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// termWriter escapes what is written through it with termText: the
// standard output and error of every command but those that speak a
// protocol (hook, mcp, render: IOStreams.raw). A character split across
// two writes is held until the second (at most 3 bytes), never escaped as
// bytes; Flush writes what is held.
type termWriter struct {
	w    io.Writer
	hold []byte
}

// Write escapes p and writes it; it reports len(p) when all was written.
func (t *termWriter) Write(p []byte) (int, error) {
	data := p
	if len(t.hold) > 0 {
		data = append(t.hold, p...)
		t.hold = nil
	}
	// Keep back the start of a character the next write completes.
	if k := partialRune(data); k > 0 {
		t.hold = append([]byte(nil), data[len(data)-k:]...)
		data = data[:len(data)-k]
	}
	s := string(data)
	if !termClean(s) {
		s = termText(s)
	}
	if _, err := io.WriteString(t.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes the bytes held back, escaped.
func (t *termWriter) Flush() error {
	if len(t.hold) == 0 {
		return nil
	}
	s := termText(string(t.hold))
	t.hold = nil
	_, err := io.WriteString(t.w, s)
	return err
}

// partialRune returns how many bytes at the end of b start a UTF-8
// character that is not complete (0 when none).
func partialRune(b []byte) int {
	for k := 1; k <= utf8.UTFMax-1 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// termSafeValue escapes, in place, every string reachable from the
// pointer v (struct fields, slices, maps' values, pointers) with termText:
// a report about to be drawn with colour (the status picture), whose
// styling must stay while what came from files is escaped.
func termSafeValue(v any) {
	termSafeReflect(reflect.ValueOf(v), 0)
}

func termSafeReflect(v reflect.Value, depth int) {
	if depth > 32 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			termSafeReflect(v.Elem(), depth+1)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				termSafeReflect(v.Field(i), depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			termSafeReflect(v.Index(i), depth+1)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			if e.Kind() == reflect.String && v.CanSet() {
				v.SetMapIndex(k, reflect.ValueOf(termText(e.String())).Convert(e.Type()))
			}
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(termText(v.String()))
		}
	}
}
