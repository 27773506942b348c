package config

import (
	"strings"

	"github.com/agnivade/levenshtein"
)

// closest returns the candidate a mistyped word most likely meant, or "":
// the one at the smallest Levenshtein distance, compared in lower case
// with '-' read as '_', within 1 edit for words of up to 4 letters, 2 up
// to 9 and 3 beyond; or the one word is a prefix of (at least 4 letters
// long). Ties go to the earlier candidate.
func closest(word string, candidates []string) string {
	w := normal(word)
	limit := 1 + min(len(w)/5, 2)
	best, bestD := "", limit+1
	for _, cand := range candidates {
		c := normal(cand)
		d := levenshtein.ComputeDistance(w, c)
		if d > limit && len(w) >= 4 && len(c) >= 4 && (strings.HasPrefix(c, w) || strings.HasPrefix(w, c)) {
			d = limit
		}
		if d < bestD {
			best, bestD = cand, d
		}
	}
	return best
}

// suggestion is ": did you mean X?" for the closest candidate, or "".
func suggestion(word string, candidates []string) string {
	if s := closest(word, candidates); s != "" && s != word {
		return ": did you mean " + s + "?"
	}
	return ""
}

func normal(s string) string {
	return strings.ReplaceAll(strings.ToLower(s), "-", "_")
}
