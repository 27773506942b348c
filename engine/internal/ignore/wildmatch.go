package ignore

// This file is a byte-for-byte port of git's wildmatch.c (dowild), the glob
// engine git uses for gitignore patterns. It exists because no Go library
// reachable here implements it: path.Match and filepath.Match do not know
// "[!...]" (https://github.com/go-git/go-git/issues/2006,
// docs/formats.md#powerignore), POSIX classes or git's "**" rules. Matching is
// on bytes, as in git (core.ignoreCase=false).

const (
	wmMatch           = 0
	wmNoMatch         = 1
	wmAbortAll        = -1
	wmAbortToStarStar = -2
)

// wildmatch reports whether text matches the glob pattern p. With pathname
// set, "*", "?" and brackets never match '/' and "**" gets git's meaning
// (WM_PATHNAME).
func wildmatch(p, text string, pathname bool) bool {
	return dowild(p, text, pathname) == wmMatch
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// at returns s[i], or 0 past the end, mirroring C's NUL terminator.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func indexSlash(s string, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

func dowild(pat, text string, pathname bool) int {
	p, t := 0, 0
	for ; p < len(pat); p, t = p+1, t+1 {
		pCh := pat[p]
		tCh := at(text, t)
		if tCh == 0 && t >= len(text) && pCh != '*' {
			return wmAbortAll
		}
		switch pCh {
		case '\\':
			// Literal match with the following character; a trailing
			// backslash compares against NUL and fails.
			p++
			pCh = at(pat, p)
			if t >= len(text) || tCh != pCh || p >= len(pat) {
				return wmNoMatch
			}
			continue
		case '?':
			if pathname && tCh == '/' {
				return wmNoMatch
			}
			continue
		case '*':
			var matchSlash bool
			p++
			if at(pat, p) == '*' {
				prevP := p - 2
				for p++; at(pat, p) == '*'; p++ {
				}
				if (prevP < 0 || pat[prevP] == '/') &&
					(p >= len(pat) || pat[p] == '/' || (at(pat, p) == '\\' && at(pat, p+1) == '/')) {
					if at(pat, p) == '/' && p < len(pat) && dowild(pat[p+1:], text[t:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = false // git: "WM_PATHNAME is set"
				}
			} else {
				matchSlash = !pathname
			}
			if p >= len(pat) {
				// Trailing "**" matches everything; trailing "*" only
				// when no slash is left.
				if !matchSlash && indexSlash(text, t) >= 0 {
					return wmNoMatch
				}
				return wmMatch
			} else if !matchSlash && pat[p] == '/' {
				// One asterisk followed by a slash matches the next
				// directory name.
				s := indexSlash(text, t)
				if s < 0 {
					return wmNoMatch
				}
				t = s
				// The for loop's post statement consumes the slash in
				// both pattern and text.
				continue
			}
			for {
				if t >= len(text) {
					break
				}
				if !isGlobSpecial(pat[p]) {
					pc := pat[p]
					for t < len(text) && (matchSlash || text[t] != '/') {
						if text[t] == pc {
							break
						}
						t++
					}
					if t >= len(text) || text[t] != pc {
						if matchSlash {
							return wmAbortAll
						}
						return wmAbortToStarStar
					}
				}
				tCh = text[t]
				if m := dowild(pat[p:], text[t:], pathname); m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tCh == '/' {
					return wmAbortToStarStar
				}
				t++
			}
			return wmAbortAll
		case '[':
			p++
			pCh = at(pat, p)
			negated := pCh == '!' || pCh == '^'
			if negated {
				p++
				pCh = at(pat, p)
			}
			var prevCh byte
			matched := false
			for {
				if p >= len(pat) {
					return wmAbortAll
				}
				switch {
				case pCh == '\\':
					p++
					if p >= len(pat) {
						return wmAbortAll
					}
					pCh = pat[p]
					if tCh == pCh {
						matched = true
					}
				case pCh == '-' && prevCh != 0 && p+1 < len(pat) && pat[p+1] != ']':
					p++
					pCh = pat[p]
					if pCh == '\\' {
						p++
						if p >= len(pat) {
							return wmAbortAll
						}
						pCh = pat[p]
					}
					if tCh <= pCh && tCh >= prevCh {
						matched = true
					}
					pCh = 0 // makes prevCh 0
				case pCh == '[' && at(pat, p+1) == ':':
					p += 2
					s := p
					for p < len(pat) && pat[p] != ']' {
						p++
					}
					if p >= len(pat) {
						return wmAbortAll
					}
					i := p - s - 1
					if i < 0 || pat[p-1] != ':' {
						// No ":]": treat "[" as a normal set member.
						p = s - 2
						pCh = '['
						if tCh == pCh {
							matched = true
						}
						break
					}
					ok, known := posixClass(pat[s:s+i], tCh)
					if !known {
						return wmAbortAll
					}
					if ok {
						matched = true
					}
					pCh = 0
				default:
					if tCh == pCh {
						matched = true
					}
				}
				prevCh = pCh
				p++
				pCh = at(pat, p)
				if pCh == ']' && p < len(pat) {
					break
				}
			}
			if matched == negated || (pathname && tCh == '/') {
				return wmNoMatch
			}
			continue
		default:
			if tCh != pCh {
				return wmNoMatch
			}
			continue
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// posixClass reports whether c is in the named POSIX class (ASCII only, as
// git's sane-ctype) and whether the name is known.
func posixClass(name string, c byte) (in, known bool) {
	isDigit := c >= '0' && c <= '9'
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isAlpha := isUpper || isLower
	isSpace := c == ' ' || (c >= '\t' && c <= '\r')
	isPrint := c >= 0x20 && c < 0x7f
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return isPrint && c != ' ', true
	case "lower":
		return isLower, true
	case "print":
		return isPrint, true
	case "punct":
		return isPrint && c != ' ' && !isAlpha && !isDigit, true
	case "space":
		return isSpace, true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
