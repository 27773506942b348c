package signals

import (
	"strconv"
	"strings"
)

// segment is one simple command of a shell command line: its words
// (quotes removed) and the operator that ends it ("&&", "||", ";", "|",
// or "" for the last).
type segment struct {
	words []string
	op    string
}

// shellSegments splits a shell command line into simple commands at
// `&&`, `||`, `;`, `|`, `&` and newlines outside quotes. It is not a
// shell: subshells and substitutions stay words, which is enough to name
// what ran (a command's verb, its filters). A here-document's body (the
// lines after `<<EOF` up to the line `EOF`) is no command: it is skipped,
// and its `<<EOF` word stays.
func shellSegments(cmd string) []segment {
	var out []segment
	var words []string
	var cur strings.Builder
	inWord := false
	var heredocs []string // delimiters whose bodies start at the next newline
	flushWord := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	flushSeg := func(op string) {
		flushWord()
		if len(words) > 0 {
			out = append(out, segment{words: words, op: op})
		}
		words = nil
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\\' && i+1 < len(cmd):
			i++
			if cmd[i] != '\n' {
				cur.WriteByte(cmd[i])
				inWord = true
			}
		case c == '\'' || c == '"':
			j := strings.IndexByte(cmd[i+1:], c)
			if j < 0 {
				j = len(cmd) - i - 1
			}
			cur.WriteString(cmd[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == ' ' || c == '\t':
			flushWord()
		case c == '<' && i+1 < len(cmd) && cmd[i+1] == '<' && (i+2 >= len(cmd) || cmd[i+2] != '<'):
			d, n := heredocDelimiter(cmd[i+2:])
			if d != "" {
				heredocs = append(heredocs, d)
			}
			cur.WriteString(cmd[i : i+2+n])
			inWord = true
			i += 1 + n
		case c == '\n' && len(heredocs) > 0:
			flushSeg(";")
			i = skipHeredocs(cmd, i+1, heredocs) - 1
			heredocs = nil
		case c == '\n' || c == ';':
			flushSeg(";")
		case c == '&' || c == '|':
			if i+1 < len(cmd) && cmd[i+1] == c {
				flushSeg(string([]byte{c, c}))
				i++
				continue
			}
			if c == '&' && (inWord && strings.HasSuffix(cur.String(), ">") || i+1 < len(cmd) && cmd[i+1] == '>') {
				// 2>&1, &>file: a redirection, part of the word.
				cur.WriteByte(c)
				inWord = true
				continue
			}
			flushSeg(string(c))
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flushSeg("")
	return out
}

// heredocDelimiter reads the delimiter after `<<` in s (`-`, spaces and
// quotes aside: `<<'EOF'`, `<< "SCRIPT"`, `<<-END`) and how many bytes of
// s it took; "" when s holds none.
func heredocDelimiter(s string) (string, int) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		q := s[i]
		j := strings.IndexByte(s[i+1:], q)
		if j <= 0 {
			return "", i
		}
		return s[i+1 : i+1+j], i + 2 + j
	}
	j := i
	for j < len(s) && (nameChar(s[j]) || s[j] == '\\') {
		j++
	}
	return strings.ReplaceAll(s[i:j], "\\", ""), j
}

// skipHeredocs returns the index in cmd after the bodies of the
// here-documents delim that start at from: each body ends with a line
// that is its delimiter (tabs and spaces around it aside); an unterminated
// body runs to the end.
func skipHeredocs(cmd string, from int, delim []string) int {
	i := from
	for _, d := range delim {
		for i < len(cmd) {
			end := strings.IndexByte(cmd[i:], '\n')
			line := cmd[i:]
			next := len(cmd)
			if end >= 0 {
				line, next = cmd[i:i+end], i+end+1
			}
			i = next
			if strings.TrimSpace(line) == d {
				break
			}
		}
	}
	return i
}

// isOutputFilter reports a program that only reshapes what a command
// printed: a pipe into one does not change what ran (`go test ./... 2>&1
// | tail -30` is `go test ./...`).
func isOutputFilter(w string) bool {
	switch w {
	case "head", "tail", "grep", "egrep", "fgrep", "rg", "less", "more", "cat", "tee", "wc", "sort", "uniq", "cut", "tr",
		"sed", "awk", "jq", "column", "nl":
		return true
	}
	return false
}

// isRedirection reports a word that only sends output somewhere: `2>&1`,
// `>/dev/null`, `2>/dev/null`, `&>log`.
func isRedirection(w string) bool {
	if strings.HasPrefix(w, "&>") {
		return true
	}
	w = strings.TrimLeft(w, "0123456789")
	w = strings.TrimPrefix(strings.TrimPrefix(w, ">"), ">")
	if len(w) == 0 {
		return false
	}
	if w == "/dev/null" {
		return true
	}
	return len(w) >= 2 && w[0] == '&' && strings.Trim(w[1:], "0123456789") == ""
}

// commandIdentity names a run for resolution: two runs with the same
// identity ran the same thing. For a shell command line it drops leading
// `cd DIR` commands, output redirections, pipes into output filters
// (head, tail, grep, …) and trailing `|| true` / `echo` commands; other
// commands ("Read /src/a.go") are their own identity.
func commandIdentity(cmd string) string {
	cmd = strings.TrimSpace(cmd)
	if cmd == "" {
		return ""
	}
	segs := shellSegments(cmd)
	for len(segs) > 1 && segs[0].words[0] == "cd" {
		segs = segs[1:]
	}
	var kept []segment
	for i, s := range segs {
		if i > 0 && segs[i-1].op == "|" && isOutputFilter(s.words[0]) {
			continue
		}
		if i > 0 && (segs[i-1].op == "||" || segs[i-1].op == ";") && (s.words[0] == "true" || s.words[0] == "echo" || s.words[0] == ":") {
			continue
		}
		var w []string
		for _, word := range s.words {
			if !isRedirection(word) {
				w = append(w, word)
			}
		}
		if len(w) > 0 {
			kept = append(kept, segment{words: w, op: s.op})
		}
	}
	var sb strings.Builder
	for i, s := range kept {
		if i > 0 {
			sb.WriteString(" " + kept[i-1].op + " ")
		}
		sb.WriteString(strings.Join(s.words, " "))
	}
	return strings.Join(strings.Fields(sb.String()), " ")
}

// exitCodeOf reads Claude Code's "Exit code N" first line of a failed
// command's output; -1 when there is none.
func exitCodeOf(content string) int {
	first, _, _ := strings.Cut(strings.TrimLeft(content, " \n"), "\n")
	first = strings.TrimSpace(first)
	if n, ok := strings.CutPrefix(first, "Exit code "); ok {
		if v, err := strconv.Atoi(n); err == nil {
			return v
		}
	}
	return -1
}

// isBareExit reports a key line that is only an exit code ("Exit code 1").
func isBareExit(key string) bool {
	n, ok := strings.CutPrefix(key, "Exit code ")
	if !ok {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

// maxCommandLine is the longest first line of a command the re-injection
// shows, in UTF-16 code units (shortCommand).
const maxCommandLine = 200

// shortCommand is a command as a one-line mention shows it: its first
// line, cut at maxCommandLine with "…", and " …" when lines follow (a
// here-document's body is never shown).
func shortCommand(cmd string) string {
	cmd = strings.TrimSpace(cleanText(cmd))
	first, rest, more := strings.Cut(cmd, "\n")
	first = strings.TrimSpace(first)
	if UTF16Len(first) > maxCommandLine {
		first, more = CutUTF16(first, maxCommandLine-1)+"…", false
	}
	if more && strings.TrimSpace(rest) != "" {
		first += " …"
	}
	return first
}

// commandLines counts the lines of a command after its first.
func commandLines(cmd string) int {
	return strings.Count(strings.TrimSpace(cleanText(cmd)), "\n")
}
