package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// keyLineRE matches a top-level `key: value` line at column 0, the key-line
// fallback for invalid front matter (docs/formats.md#front-matter).
var keyLineRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.\-]*|"[^"]+"|'[^']+')[ \t]*:(?:[ \t]+(.*))?$`)

// splitFrontMatter reads the stacked `---` blocks at the top of d.text
// (docs/formats.md#front-matter) into d.FrontMatter and returns the body's
// offset and line. A first `---` line without a closing `---` line is not
// front matter; when the first line after it that is neither blank nor a
// comment is a `key:` line (at any indentation), the block was meant as
// front matter and a
// diagnostic names the opening line (a markdown heading starts with `#`
// too, so comments alone do not count). A further block is stacked when it
// follows the previous one after optional blank lines and its first content
// line is a `key:` line or a comment, so that a horizontal rule after the
// front matter stays in the body.
func (d *Document) splitFrontMatter() (bodyStart, bodyLine int) {
	pos := 0
	for {
		open := pos
		if len(d.FrontMatter) > 0 {
			// skip blank lines between stacked blocks
			for open < len(d.text) {
				end := d.lineEnd(open)
				if strings.TrimSpace(d.text[open:end]) != "" || end >= len(d.text) {
					break
				}
				open = end + 1
			}
		}
		if open >= len(d.text) {
			break
		}
		end := d.lineEnd(open)
		if strings.TrimRight(d.text[open:end], " \t") != "---" || end >= len(d.text) {
			break
		}
		contentStart := end + 1
		closeStart, closeEnd := -1, -1
		for p := contentStart; p < len(d.text); {
			e := d.lineEnd(p)
			if strings.TrimRight(d.text[p:e], " \t") == "---" {
				closeStart, closeEnd = p, e
				break
			}
			if e >= len(d.text) {
				break
			}
			p = e + 1
		}
		if closeStart < 0 {
			if len(d.FrontMatter) == 0 && startsWithKey(d.text[contentStart:]) {
				d.diag(d.lineOf(open), "unterminated front matter: no `---` line closes the block opened here; read as body")
			}
			break
		}
		raw := d.text[contentStart:closeStart]
		if len(d.FrontMatter) > 0 && !looksLikeYAML(raw) {
			break
		}
		fm := FrontMatter{Line: d.lineOf(open), EndLine: d.lineOf(closeStart), Raw: raw}
		d.readFrontMatter(&fm)
		d.FrontMatter = append(d.FrontMatter, fm)
		pos = closeEnd + 1
		if closeEnd >= len(d.text) {
			pos = len(d.text)
			break
		}
	}
	if len(d.FrontMatter) == 0 {
		return 0, 1
	}
	return pos, d.FrontMatter[len(d.FrontMatter)-1].EndLine + 1
}

// looksLikeYAML reports whether the first non-blank line of raw is a
// `key:` line or a YAML comment.
func looksLikeYAML(raw string) bool {
	for l := range strings.SplitSeq(raw, "\n") {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			continue
		}
		return strings.HasPrefix(l, "#") || keyLineRE.MatchString(l)
	}
	return false
}

// startsWithKey reports whether the first line of text that is neither
// blank nor a `#` line is a `key:` line, whatever its indentation (an
// opening `---` over indented keys is front matter that lost its closing
// line just as much as one over keys at column 0).
func startsWithKey(text string) bool {
	for l := range strings.SplitSeq(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		return keyLineRE.MatchString(l)
	}
	return false
}

// readFrontMatter parses fm.Raw with yaml.v3 into a yaml.Node and fills
// Values, Keys, Valid and Node. Invalid YAML, a top-level value that is not
// a mapping and a duplicate key are reported as a Diagnostic at the
// original-file line of the problem, and the values are read by key lines
// instead.
func (d *Document) readFrontMatter(fm *FrontMatter) {
	fm.Values = map[string]string{}
	root, err := decodeYAML(fm.Raw)
	line, msg := 0, ""
	switch {
	case err != nil:
		line, msg = LocateYAMLError(err, []byte(fm.Raw))
	case root != nil && root.Kind != yaml.MappingNode:
		line, msg = 1, fmt.Sprintf("front matter is a YAML %s, not a mapping", kindName(root.Kind))
	default:
		if dup, first := duplicateKey(root, 0); dup != nil {
			line = dup.Line
			msg = fmt.Sprintf("mapping key %q already defined at line %d", dup.Value, first.Line+fm.Line)
		}
	}
	if msg != "" {
		d.diag(line+fm.Line, "invalid YAML front matter (read by key lines instead): "+msg)
		fm.Valid = false
		fallbackKeys(fm)
		return
	}
	fm.Valid = true
	if root == nil {
		root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	fm.Node = root
	rawLines := strings.Split(fm.Raw, "\n")
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i].Value
		if _, dup := fm.Values[k]; dup {
			continue
		}
		fm.Keys = append(fm.Keys, k)
		next := 0 // line (in Raw) where the next key starts
		if i+2 < len(root.Content) {
			next = root.Content[i+2].Line
		}
		fm.Values[k] = nodeText(root.Content[i+1], rawLines, next)
	}
	shiftLines(root, fm.Line, 0)
}

// duplicateKey returns the scalar key, anywhere in n, that repeats an
// earlier key of its mapping and comes first in the text, with that earlier
// key; nil when keys are unique. YAML requires unique keys (YAML 1.2
// §3.2.1.1); yaml.v3 checks them only when decoding into Go values, not
// into a yaml.Node, and compares their text ((*decoder).mapping in
// decode.go), as this does. Aliases are not followed: the node they name is
// checked where it stands.
func duplicateKey(n *yaml.Node, depth int) (dup, first *yaml.Node) {
	if n == nil || depth > 100 {
		return nil, nil
	}
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]*yaml.Node, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if f, ok := seen[k.Value]; ok {
				dup, first = k, f
				break
			}
			seen[k.Value] = k
		}
	}
	for _, c := range n.Content {
		if d, f := duplicateKey(c, depth+1); d != nil && (dup == nil || d.Line < dup.Line) {
			dup, first = d, f
		}
	}
	return dup, first
}

// shiftLines adds off to the Line of n and its descendants, turning lines
// relative to the front matter block into original-file lines.
func shiftLines(n *yaml.Node, off, depth int) {
	if n == nil || depth > 100 || n.Line == 0 && n.Kind != yaml.MappingNode {
		return
	}
	if n.Line > 0 {
		n.Line += off
	}
	for _, c := range n.Content {
		shiftLines(c, off, depth+1)
	}
}

// decodeYAML parses raw into its root node (nil for an empty document). A
// panic inside yaml.v3 becomes an error.
func decodeYAML(raw string) (root *yaml.Node, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("yaml parser failed: %v", v)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(raw), &doc); err != nil {
		return nil, err
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		return doc.Content[0], nil
	}
	return nil, nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "node"
}

// nodeText returns a value's text. A scalar gives its literal text
// (docs/formats.md#front-matter-values: `010` stays "010", `1.10` stays "1.10", `no` stays "no", a
// null is ""). A sequence or mapping gives its YAML source from raw: a flow
// collection as written (`[03-01, 03-02]`), a block collection as its lines
// with the common indentation removed, trailing blank and comment lines
// dropped. lines are Raw's lines; next is the Raw line of the following key
// (0 at the end). Line and Column of n must still be relative to Raw.
func nodeText(n *yaml.Node, lines []string, next int) string {
	if n.Kind == yaml.AliasNode && n.Alias != nil && n.Alias.Kind == yaml.ScalarNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode {
		if n.Tag == "!!null" && (n.Value == "~" || n.Value == "") {
			return ""
		}
		return n.Value
	}
	from, to := n.Line-1, len(lines)
	if next > 0 {
		to = next - 1
	}
	if from < 0 || from >= len(lines) || to <= from {
		return ""
	}
	block := append([]string(nil), lines[from:to]...)
	first := block[0]
	col := 0 // byte offset of the value in its first line
	for k := 1; k < n.Column && col < len(first); k++ {
		_, size := utf8.DecodeRuneInString(first[col:])
		col += size
	}
	if strings.TrimSpace(first[:col]) != "" && !strings.HasPrefix(strings.TrimSpace(first[:col]), "-") {
		// the value starts after its key on the same line (flow or anchor)
		block[0] = first[col:]
	}
	for len(block) > 1 {
		l := strings.TrimSpace(block[len(block)-1])
		if l != "" && !strings.HasPrefix(l, "#") {
			break
		}
		block = block[:len(block)-1]
	}
	if len(block) == 1 {
		return strings.TrimSpace(block[0])
	}
	return dedent(block)
}

// fallbackKeys fills fm.Values and fm.Keys from `key: value` lines at
// column 0 (surrounding quotes removed from keys and one-line values). A
// key without an inline value takes the raw text of the indented or `- `
// lines below it, LF-joined and trimmed.
func fallbackKeys(fm *FrontMatter) {
	lines := strings.Split(fm.Raw, "\n")
	for i := 0; i < len(lines); i++ {
		m := keyLineRE.FindStringSubmatch(strings.TrimRight(lines[i], " \t"))
		if m == nil {
			continue
		}
		key := unquote(m[1])
		val := strings.TrimSpace(m[2])
		if val == "" {
			var block []string
			for i+1 < len(lines) && (strings.HasPrefix(lines[i+1], " ") || strings.HasPrefix(lines[i+1], "\t") ||
				strings.HasPrefix(lines[i+1], "- ") || lines[i+1] == "-" || strings.TrimSpace(lines[i+1]) == "") {
				i++
				block = append(block, lines[i])
			}
			val = dedent(block)
		} else {
			val = unquote(val)
		}
		if _, dup := fm.Values[key]; dup {
			continue
		}
		fm.Keys = append(fm.Keys, key)
		fm.Values[key] = val
	}
}

// dedent removes the common leading white space of the non-blank lines and
// the surrounding blank lines, and joins the lines with LF.
func dedent(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		out[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(out, "\n")
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
