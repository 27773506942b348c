// Package textutil holds the small text helpers several engine packages
// share. It imports the standard library only.
package textutil

import "strings"

// FirstLine returns the first non-blank line of s, trimmed and cut to 300
// bytes (with "…" appended when cut).
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			if len(t) > 300 {
				t = t[:300] + "…"
			}
			return t
		}
	}
	return ""
}

// LastLines returns the last n lines of s.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
