package markdown

// This file locates go.yaml.in/yaml/v3 errors in their source, for front
// matter here and for recite.yaml (engine/config), so that both report
// file:line at the line of the problem.

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yamlLineRE is the "line N: " prefix of a yaml.v3 message.
var yamlLineRE = regexp.MustCompile(`^line (\d+): `)

// parserProblems are the problems yaml.v3's parser (not its scanner)
// reports (parserc.go, yaml_parser_set_parser_error*). For them
// (*parser).fail in decode.go prints the 0-based line of the context mark
// (where the construct began), or of the problem when the context is on
// the first line.
var parserProblems = [...]string{
	"did not find expected <document start>", "did not find expected <stream-start>",
	"did not find expected key", "did not find expected node content",
	"did not find expected '-' indicator", "did not find expected ',' or ']'",
	"did not find expected ',' or '}'", "found duplicate %YAML directive",
	"found incompatible YAML document", "found duplicate %TAG directive",
	"found undefined tag handle",
}

// readerProblems are yaml.v3's reader errors (readerc.go), which carry a
// byte offset but never a line.
var readerProblems = [...]string{
	"control characters are not allowed", "invalid leading UTF-8 octet",
	"incomplete UTF-8 octet sequence", "invalid trailing UTF-8 octet",
	"invalid length of a UTF-8 sequence", "invalid Unicode character",
	"incomplete UTF-16 character", "incomplete UTF-16 surrogate pair",
	"expected low surrogate area", "unexpected low surrogate area",
}

// LocateYAMLError returns the 1-based line of src that err points to and the
// message without its "yaml: " and "line N: " prefixes. err comes from
// yaml.Unmarshal, a yaml.Decoder or Node.Decode reading src; any other
// error is returned at line 1 with its text.
//
// yaml.v3 numbers lines three ways, and LocateYAMLError undoes each:
//   - decoding errors (*yaml.TypeError, "line N: cannot unmarshal …",
//     "mapping key … already defined at line M") carry the 1-based line of
//     the node: kept;
//   - parser errors ("did not find expected key", …) carry the 0-based line
//     where the construct began, and scanner errors the 1-based line of
//     their context mark; a mark on the first line prints no line at all
//     ((*parser).fail in decode.go): parser lines get 1 added, a missing
//     line is 1;
//   - reader errors (control characters, invalid UTF-8) carry no line:
//     the line is that of the first byte yaml.v3 rejects.
//
// A line past the last line of src (a mark at the end of the stream) is
// the last line. A tab in the indentation is reported at the start of the
// scalar it interrupts ("found a tab character that violates
// indentation"); such an error moves to the first line from there whose
// indentation holds a tab.
func LocateYAMLError(err error, src []byte) (line int, msg string) {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	} else {
		msg = strings.TrimPrefix(err.Error(), "yaml: ")
	}
	n := 0
	m := yamlLineRE.FindStringSubmatch(msg)
	if m != nil {
		n, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	switch {
	case te != nil:
	case hasAnyPrefix(msg, parserProblems[:]):
		if m != nil {
			n++
		}
	case m == nil && hasAnyPrefix(msg, readerProblems[:]):
		n = byteLine(src, firstRejected(src))
	case strings.Contains(msg, "tab character"):
		n = tabLine(src, max(n, 1))
	}
	// A mark at the end of the stream is on the empty line after the
	// last line break: the problem is on the last line.
	if last := bytes.Count(bytes.TrimSuffix(src, []byte{'\n'}), []byte{'\n'}) + 1; len(src) > 0 && n > last {
		n = last
	}
	return max(n, 1), msg
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// byteLine is the 1-based line of byte offset off.
func byteLine(src []byte, off int) int {
	return bytes.Count(src[:min(max(off, 0), len(src))], []byte{'\n'}) + 1
}

// firstRejected returns the offset of the first character yaml.v3's reader
// refuses: invalid UTF-8, or a character outside YAML's printable set
// (#x9 | #xA | #xD | [#x20-#x7E] | #x85 | [#xA0-#xD7FF] | [#xE000-#xFFFD]
// | [#x10000-#x10FFFF], YAML 1.2 §5.1 and readerc.go). It returns 0 when
// there is none.
func firstRejected(src []byte) int {
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return i
		case r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0x7E || r == 0x85,
			r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		default:
			return i
		}
		i += size
	}
	return 0
}

// tabLine returns the first line from line on whose leading white space
// holds a tab, or line when there is none.
func tabLine(src []byte, line int) int {
	n := 0
	for l := range bytes.SplitSeq(src, []byte{'\n'}) {
		n++
		if n < line {
			continue
		}
		indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 {
			return n
		}
	}
	return line
}
