package markdown

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
)

// plainKeyRE is the shape of a plain field key (docs/formats.md#fields): a
// letter, then letters, digits, spaces and a little punctuation. It is matched
// against the short key only, never the whole line, so long lines cost
// nothing.
var plainKeyRE = regexp.MustCompile(`^\p{L}[\p{L}\p{N}\p{M} _/&().'#+-]*$`)

// maxKeyRunes bounds a field key: longer "keys" are sentences.
const maxKeyRunes = 40

// maxKeyWords bounds the words of a plain key ("Last activity", "Resume
// file", "Phase 3 (Name)"); more words make a sentence.
const maxKeyWords = 6

// parseFields reads the fields at the start of one trimmed paragraph line.
// A line may carry several bold fields (`**Plan:** 2 **Status:** x`); each
// becomes a Field. Line and Section are left for the caller.
func parseFields(line string) []Field {
	var out []Field
	for line != "" {
		f, rest, ok := parseField(line)
		if !ok {
			break
		}
		out = append(out, f)
		if !f.Bold {
			break
		}
		line = rest
	}
	return out
}

// parseField reads one field at the start of s: `**Key:** value`,
// `**Key**: value` or plain `Key: value` (the colon followed by white space
// or the end of the line, so URLs and times are not fields). It returns the
// field and the text of a following bold field on the same line, if any.
func parseField(s string) (f Field, rest string, ok bool) {
	var key, val string
	if k, v, found := boldField(s); found {
		key, val, f.Bold = k, v, true
	} else {
		i := strings.IndexByte(s, ':')
		if i <= 0 || i > 4*maxKeyRunes || (i+1 < len(s) && s[i+1] != ' ' && s[i+1] != '\t') {
			return Field{}, "", false
		}
		key, val = strings.TrimRight(s[:i], " \t"), s[i+1:]
		if !plainKeyRE.MatchString(key) || strings.Count(key, " ")+1 > maxKeyWords || strings.Contains(key, ". ") {
			return Field{}, "", false
		}
	}
	key = strings.TrimSpace(key)
	if key == "" || utf8.RuneCountInString(key) > maxKeyRunes {
		return Field{}, "", false
	}
	if f.Bold {
		if i := nextBoldField(val); i >= 0 {
			rest = strings.TrimSpace(val[i:])
			val = val[:i]
		}
	}
	f.Key = key
	f.Value = trimValue(val)
	return f, rest, true
}

// boldField reads `**Key:** value` or `**Key**: value` at the start of s.
// The key is the text up to the first '*', as GFM emphasis would close there.
func boldField(s string) (key, val string, ok bool) {
	if !strings.HasPrefix(s, "**") {
		return "", "", false
	}
	star := strings.IndexByte(s[2:], '*')
	if star <= 0 || !strings.HasPrefix(s[2+star:], "**") {
		return "", "", false
	}
	key, after := s[2:2+star], s[2+star+2:]
	if strings.HasSuffix(key, ":") {
		return strings.TrimSuffix(key, ":"), after, true
	}
	after = strings.TrimLeft(after, " \t")
	if strings.HasPrefix(after, ":") {
		return key, after[1:], true
	}
	return "", "", false
}

// nextBoldField returns the offset in v of a further ` **Key:**` or
// ` **Key**:` field, or -1.
func nextBoldField(v string) int {
	for i := 0; i < len(v); {
		j := strings.Index(v[i:], "**")
		if j < 0 {
			return -1
		}
		p := i + j
		if p > 0 && (v[p-1] == ' ' || v[p-1] == '\t') {
			if _, _, ok := boldField(v[p:]); ok {
				return p
			}
		}
		i = p + 2
	}
	return -1
}

// trimValue trims white space and a trailing backslash hard break (trailing
// double spaces are hard breaks too: docs/formats.md#encoding-traps).
func trimValue(v string) string {
	v = strings.TrimSpace(v)
	if strings.HasSuffix(v, `\`) && !strings.HasSuffix(v, `\\`) {
		v = strings.TrimSpace(v[:len(v)-1])
	}
	return v
}

// continuesValue reports whether a paragraph line that starts no field
// carries on the value of the field above it: not after a YAML block
// indicator (`errors: |`), and not a line that opens something of its own:
// a bold label (`**Success Criteria** (what must be TRUE):`), a tag
// (`</objective>`), a pipe row or a quote marker.
func continuesValue(value, raw string) bool {
	if raw == "" {
		return false
	}
	switch strings.TrimRight(value, "+-0123456789") {
	case "|", ">":
		return false
	}
	switch {
	case strings.HasPrefix(raw, "**"), strings.HasPrefix(raw, "__"), raw[0] == '<', raw[0] == '|', raw[0] == '>':
		return false
	}
	return true
}

// itemText is the plain text of a checkbox's first paragraph: its first
// line and the lines it wraps onto, joined by spaces, up to a line that
// starts a field (`- [ ] Task` then `  **Files:** a.go`;
// docs/formats.md#checkboxes).
func (w *walker) itemText(fc ast.Node) string {
	stop := -1
	lines := fc.Lines()
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		if raw := strings.TrimSpace(string(seg.Value(w.src))); len(parseFields(raw)) > 0 || isPipeRow(raw) {
			stop = seg.Start
			break
		}
	}
	var b bytes.Buffer
	appendPlain(&b, fc, w.src, false, stop)
	return strings.TrimSpace(b.String())
}
