package ignore

import (
	"bytes"
	"strings"
)

// pattern is one parsed line of an ignore file, following git's
// dir.c:parse_path_pattern.
type pattern struct {
	glob      string // what wildmatch sees: no "!", no trailing "/", no leading "/"
	display   string // the pattern as `git check-ignore -v` prints it
	line      int    // 1-based line in the file
	negative  bool   // "!pattern": re-include
	mustBeDir bool   // "pattern/": directories only
	noDir     bool   // no "/" except a trailing one: match the basename at any depth
	literal   bool   // glob has no special character: compare bytes
	endsWith  bool   // "*literal" without other specials: suffix compare
	need      string // a run of ordinary characters every match contains (see needle)
}

// patternList is the content of one ignore file. Patterns are relative to
// base, the slash path of the file's directory with a trailing "/" ("" for
// the root and for files that apply at the root).
type patternList struct {
	file     string // slash path of the file relative to the root, for Source
	note     string // Source.Note (extra patterns only)
	base     string
	patterns []pattern
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// parsePatterns splits an ignore file into patterns exactly as git's
// dir.c:add_patterns_from_buffer does: a leading UTF-8 BOM is skipped, a
// missing final newline is supplied, lines are split on LF and one CR
// before the LF is dropped, empty lines and lines starting with "#" are
// skipped, then unescaped trailing spaces are trimmed.
func parsePatterns(data []byte, file, base string) *patternList {
	l := &patternList{file: file, base: base}
	data = bytes.TrimPrefix(data, utf8BOM)
	lineno := 1
	for len(data) > 0 {
		var line []byte
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		if len(line) > 0 && line[0] != '#' {
			line = bytes.TrimSuffix(line, []byte{'\r'})
			if p, ok := parseLine(trimTrailingSpaces(string(line)), lineno); ok {
				l.patterns = append(l.patterns, p)
			}
		}
		lineno++
	}
	return l
}

// trimTrailingSpaces is git's dir.c:trim_trailing_spaces: trailing spaces
// (not tabs) go unless the first of them is escaped with a backslash.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// parseLine is git's dir.c:parse_path_pattern. A pattern that can match
// nothing (empty, a lone "!" or "/") is dropped: git keeps it, but it never
// matches, so the verdicts are the same.
func parseLine(s string, lineno int) (pattern, bool) {
	p := pattern{line: lineno, display: s}
	if strings.HasPrefix(s, "!") {
		p.negative = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.mustBeDir = true
		s = s[:len(s)-1]
	}
	if !strings.Contains(s, "/") {
		p.noDir = true
	} else {
		// match_pathname: a leading slash only anchors; the pattern is
		// relative to the file's directory anyway.
		s = strings.TrimPrefix(s, "/")
	}
	if s == "" {
		return p, false
	}
	p.glob = s
	special := strings.IndexAny(s, "*?[\\")
	switch {
	case special < 0:
		p.literal = true
	case special == 0 && s[0] == '*' && !strings.ContainsAny(s[1:], "*?[\\"):
		p.endsWith = true
	default:
		p.need = needle(s)
	}
	return p, true
}

// needle returns the longest run of ordinary characters in glob (no "*",
// "?", "\\" or "/", and only before the first "[", whose contents are not
// literal): wildmatch matches ordinary characters one for one, so every
// text glob matches contains it, and a text that does not is rejected with
// one strings.Contains instead of a wildmatch. "/" ends a run because
// "**/" also matches nothing.
func needle(glob string) string {
	best, start := "", 0
	for i := 0; i <= len(glob); i++ {
		if i < len(glob) && strings.IndexByte("*?/\\[", glob[i]) < 0 {
			continue
		}
		if i-start > len(best) {
			best = glob[start:i]
		}
		if i < len(glob) && glob[i] == '[' {
			break
		}
		if i < len(glob) && glob[i] == '\\' {
			i++ // the escaped character is not looked at
		}
		start = i + 1
	}
	return best
}

// matches reports whether p matches the slash path rel (relative to the
// root) whose last element is name. dir.c:last_matching_pattern_from_list
// with match_basename and match_pathname.
func (p *pattern) matches(base, rel, name string, isDir bool) bool {
	if p.mustBeDir && !isDir {
		return false
	}
	if p.noDir {
		switch {
		case p.literal:
			return name == p.glob
		case p.endsWith:
			return strings.HasSuffix(name, p.glob[1:])
		default:
			return strings.Contains(name, p.need) && wildmatch(p.glob, name, false)
		}
	}
	if !strings.HasPrefix(rel, base) || len(rel) == len(base) {
		return false
	}
	rest := rel[len(base):]
	if p.literal {
		return rest == p.glob
	}
	return strings.Contains(rest, p.need) && wildmatch(p.glob, rest, true)
}

// match returns the last pattern of l that matches, or nil.
func (l *patternList) match(rel, name string, isDir bool) *pattern {
	if l == nil {
		return nil
	}
	for i := len(l.patterns) - 1; i >= 0; i-- {
		if p := &l.patterns[i]; p.matches(l.base, rel, name, isDir) {
			return p
		}
	}
	return nil
}
