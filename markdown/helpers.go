package markdown

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FindSection returns the index in d.Sections of the first section whose
// Title equals title, compared case-insensitively after removing from both a
// leading run of emoji, symbols, punctuation and list numbering ("🚧 ",
// "1. ", "2.3) ") and a trailing colon. It returns -1 when no section
// matches.
func (d *Document) FindSection(title string) int {
	want := normTitle(title)
	for i, s := range d.Sections {
		if strings.EqualFold(normTitle(s.Title), want) {
			return i
		}
	}
	return -1
}

// FindSectionPrefix returns the index of the first section whose Title,
// normalised as in FindSection, starts with prefix (case-insensitive), or -1.
func (d *Document) FindSectionPrefix(prefix string) int {
	want := strings.ToLower(normTitle(prefix))
	for i, s := range d.Sections {
		if strings.HasPrefix(strings.ToLower(normTitle(s.Title)), want) {
			return i
		}
	}
	return -1
}

// SectionText returns the text of section i without its heading: the
// original-file lines after the heading up to the section's EndLine, with LF
// line endings and no BOM. For a setext heading the underline is excluded
// too. It returns "" for an index out of range.
func (d *Document) SectionText(i int) string {
	if i < 0 || i >= len(d.Sections) {
		return ""
	}
	s := d.Sections[i]
	start := s.Line + 1
	if s.bodyLine > 0 {
		start = s.bodyLine
	}
	if start > s.EndLine {
		return ""
	}
	return d.Lines(start, s.EndLine)
}

// Field returns the first field of the document whose Key equals key
// case-insensitively.
func (d *Document) Field(key string) (Field, bool) {
	for _, f := range d.Fields {
		if strings.EqualFold(f.Key, key) {
			return f, true
		}
	}
	return Field{}, false
}

// FieldIn returns the first field whose Key equals key case-insensitively and
// whose line lies inside section i (including its subsections). It returns
// false when i is out of range or no such field exists.
func (d *Document) FieldIn(section int, key string) (Field, bool) {
	if section < 0 || section >= len(d.Sections) {
		return Field{}, false
	}
	for _, f := range d.Fields {
		if d.InSection(f.Line, section) && strings.EqualFold(f.Key, key) {
			return f, true
		}
	}
	return Field{}, false
}

// InSection reports whether the original-file line lies within section i,
// from its heading line to its EndLine (subsections included).
func (d *Document) InSection(line, i int) bool {
	if i < 0 || i >= len(d.Sections) {
		return false
	}
	s := d.Sections[i]
	return line >= s.Line && line <= s.EndLine
}

// Meta returns the value of a top-level front matter key from the first
// front matter block that has it (valid or read by the key-line fallback).
func (d *Document) Meta(key string) (string, bool) {
	for _, fm := range d.FrontMatter {
		if v, ok := fm.Values[key]; ok {
			return v, true
		}
	}
	return "", false
}

// Lines returns original-file lines from..to (1-based, inclusive) joined with
// LF, without the BOM and without a trailing newline. Out-of-range bounds are
// clamped; an empty range gives "".
func (d *Document) Lines(from, to int) string {
	if from < 1 {
		from = 1
	}
	to = min(to, d.LineCount())
	if from > to {
		return ""
	}
	start := d.lineStarts[from-1]
	end := len(d.text)
	if to < len(d.lineStarts) {
		end = d.lineStarts[to] - 1 // drop the LF ending line `to`
	}
	return d.text[start:end]
}

// LineCount returns the number of lines of the original file (a final line
// without a newline counts; an empty file has 0 lines).
func (d *Document) LineCount() int {
	n := len(d.lineStarts)
	if n > 0 && d.lineStarts[n-1] == len(d.text) {
		n-- // text ends with "\n": no line after it
	}
	return n
}

// Title returns the title of the first level-1 section, else of the first
// section, else "".
func (d *Document) Title() string {
	for _, s := range d.Sections {
		if s.Level == 1 {
			return s.Title
		}
	}
	if len(d.Sections) > 0 {
		return d.Sections[0].Title
	}
	return ""
}

// SectionAt returns the index of the innermost section containing the
// original-file line, or -1 when the line precedes every heading.
func (d *Document) SectionAt(line int) int {
	// the last section starting at or before line, then up its parents
	i := sort.Search(len(d.Sections), func(i int) bool { return d.Sections[i].Line > line }) - 1
	for i >= 0 && line > d.Sections[i].EndLine {
		i = d.Sections[i].Parent
	}
	return i
}

// normTitle strips a leading run of emoji, symbols, punctuation, spaces and
// list numbering such as "1." or "2.3)" from a heading title, and a trailing
// colon (ASCII or full-width), then trims spaces.
func normTitle(s string) string {
	s = strings.TrimSpace(s)
	for s != "" {
		r, n := utf8.DecodeRuneInString(s)
		if unicode.IsDigit(r) {
			j := 0
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			k := j
			if k < len(s) && s[k] == ')' {
				k++
			}
			if k < len(s) && s[k] == ' ' {
				s = strings.TrimLeft(s[k:], " ")
				continue
			}
			break
		}
		if unicode.IsLetter(r) || r == '(' || r == '[' || r == '`' || r == '"' || r == '\'' || r == '#' || r == '*' || r == '_' || r == '~' {
			break
		}
		if r == utf8.RuneError && n <= 1 {
			break
		}
		if unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r) ||
			unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Me, r) {
			s = s[n:]
			continue
		}
		break
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, ":")
	s = strings.TrimSuffix(s, "：")
	return strings.TrimSpace(s)
}
