package planning

import (
	"regexp"
	"strings"

	"github.com/recite-dev/recite/markdown"
)

// debugKeyRe is a `key: value` line of a debug file's YAML-ish sections
// (docs/formats.md#debug-files), optionally the first line of a list item.
var debugKeyRe = regexp.MustCompile(`^(\s*)(?:[-*]\s+)?([a-z][a-z_]*):(?:\s+(.*)|\s*)$`)

// parseDebug reads a `.planning/debug/` file (fire-flow `fire-debug.md`, GSD
// `templates/DEBUG.md`; docs/formats.md#debug-files):
//
//   - front matter status and trigger;
//   - `## Current Focus` hypothesis and next_action;
//   - `## Symptoms` errors (a `|` block is kept verbatim, dedented);
//   - `## Eliminated` items `- hypothesis: … / evidence: … / timestamp: …`
//     (markdown list items with indented sub-lines);
//   - `## Evidence` items `- timestamp: / checked: / found: / implication:`,
//     each kept as one string "checked: …; found: …; implication: …";
//   - `## Resolution` root_cause.
//
// Resolved is true when the file is under debug/resolved/ or its status is
// resolved. An Eliminated item without a hypothesis key yields a
// diagnostic. It never returns a nil DebugFile.
func parseDebug(path string, doc *markdown.Document) (*DebugFile, []Diagnostic) {
	df := &DebugFile{Path: path}
	df.Resolved = strings.Contains("/"+path, "/debug/resolved/") || strings.HasPrefix(path, "resolved/")
	if doc == nil {
		return df, nil
	}
	var diags []Diagnostic
	df.Status = metaString(doc, "status")
	df.Trigger = metaString(doc, "trigger")
	if strings.EqualFold(df.Status, "resolved") {
		df.Resolved = true
	}
	if len(doc.FrontMatter) == 0 {
		diags = append(diags, Diagnostic{Path: path, Line: 1, Message: "debug file has no front matter (status, trigger)"})
	}
	if i := doc.FindSection("Current Focus"); i >= 0 {
		kv := debugKeys(sectionOwnLines(doc, i))
		df.Hypothesis = kv["hypothesis"]
		df.NextAction = kv["next_action"]
	}
	if i := doc.FindSection("Symptoms"); i >= 0 {
		lines := sectionOwnLines(doc, i)
		df.Errors = debugKeys(lines)["errors"]
		if df.Errors != "" {
			df.ErrorsLine = debugKeyLine(lines, "errors")
		}
	}
	if i := doc.FindSection("Resolution"); i >= 0 {
		df.RootCause = debugKeys(sectionOwnLines(doc, i))["root_cause"]
	}
	if i := doc.FindSection("Eliminated"); i >= 0 {
		for _, it := range splitListItems(sectionOwnLines(doc, i)) {
			kv := debugKeys(append([]srcLine{{n: it.Line, text: "- " + it.Text}}, it.More...))
			h := Hypothesis{
				Text:      kv["hypothesis"],
				Evidence:  kv["evidence"],
				Timestamp: kv["timestamp"],
				Source:    srcRef(path, it.Line),
			}
			if h.Text == "" {
				if len(kv) > 0 {
					diags = append(diags, Diagnostic{Path: path, Line: it.Line, Message: "eliminated item has no hypothesis"})
					continue
				}
				h.Text = cleanInline(it.Text) // a plain bullet: the text is the hypothesis
				if h.Text == "" || placeholderRe.MatchString(h.Text) {
					continue
				}
			}
			df.Eliminated = append(df.Eliminated, h)
		}
	}
	if i := doc.FindSection("Evidence"); i >= 0 {
		for _, it := range splitListItems(sectionOwnLines(doc, i)) {
			lines := append([]srcLine{{n: it.Line, text: "- " + it.Text}}, it.More...)
			kv, order := debugKeysOrdered(lines)
			var parts []string
			for _, k := range order {
				if k == "timestamp" || kv[k] == "" {
					continue
				}
				parts = append(parts, k+": "+kv[k])
			}
			if len(order) == 0 {
				if t := cleanInline(it.Text); t != "" && !placeholderRe.MatchString(t) {
					parts = append(parts, t)
				}
			}
			if len(parts) > 0 {
				df.Evidence = append(df.Evidence, strings.Join(parts, "; "))
			}
		}
	}
	return df, diags
}

// debugKeyLine returns the line where key's value starts: the key's own
// line, or for a `|` or `>` block the first non-blank line after it; 0 when
// the key is absent.
func debugKeyLine(lines []srcLine, key string) int {
	for i, l := range lines {
		m := debugKeyRe.FindStringSubmatch(l.text)
		if m == nil || m[2] != key {
			continue
		}
		if v := strings.TrimSpace(m[3]); v != "" && !strings.ContainsAny(v[:1], "|>") {
			return l.n
		}
		for _, next := range lines[i+1:] {
			if strings.TrimSpace(next.text) != "" {
				return next.n
			}
		}
		return l.n
	}
	return 0
}

// debugKeys reads `key: value` lines into a map; see debugKeysOrdered.
func debugKeys(lines []srcLine) map[string]string {
	kv, _ := debugKeysOrdered(lines)
	return kv
}

// debugKeysOrdered reads the YAML-ish `key: value` lines of a debug section.
// A value of `|` or `>` takes the following more-indented lines, dedented
// and joined with newlines; other lines that are not keys continue the
// previous value, joined with a space. The first occurrence of a key wins.
// It also returns the keys in order of appearance.
func debugKeysOrdered(lines []srcLine) (map[string]string, []string) {
	kv := make(map[string]string)
	var order []string
	cur := ""
	block := false
	blockIndent := -1
	var blockLines []string
	keyIndent := 0
	flush := func() {
		if cur != "" && block {
			if _, dup := kv[cur]; !dup || kv[cur] == "" {
				kv[cur] = strings.TrimRight(strings.Join(blockLines, "\n"), "\n ")
			}
		}
		block, blockIndent, blockLines = false, -1, nil
	}
	for _, l := range lines {
		if block {
			ind := markdown.IndentWidth(l.text)
			if strings.TrimSpace(l.text) == "" {
				blockLines = append(blockLines, "")
				continue
			}
			if ind > keyIndent {
				if blockIndent < 0 {
					blockIndent = ind
				}
				cut := min(ind, blockIndent)
				blockLines = append(blockLines, l.text[byteOffsetOfIndent(l.text, cut):])
				continue
			}
			flush()
		}
		m := debugKeyRe.FindStringSubmatch(l.text)
		if m == nil {
			if cur != "" && strings.TrimSpace(l.text) != "" {
				if v := kv[cur]; v != "" {
					kv[cur] = v + " " + strings.TrimSpace(l.text)
				}
			}
			continue
		}
		cur = m[2]
		keyIndent = len(m[1])
		val := strings.TrimSpace(m[3])
		if _, dup := kv[cur]; !dup {
			order = append(order, cur)
			kv[cur] = ""
		} else if kv[cur] != "" {
			cur = "" // a repeated key: keep the first value, ignore the rest
			continue
		}
		if val == "|" || val == ">" || val == "|-" || val == ">-" {
			block = true
			continue
		}
		kv[cur] = unquoteYAMLish(val)
	}
	flush()
	return kv, order
}

// byteOffsetOfIndent returns the byte offset after the first n columns of
// leading white space of s (a tab counts as four columns).
func byteOffsetOfIndent(s string, n int) int {
	col := 0
	for i, r := range s {
		if col >= n || (r != ' ' && r != '\t') {
			return i
		}
		if r == '\t' {
			col += 4
		} else {
			col++
		}
	}
	return len(s)
}

// unquoteYAMLish removes one pair of matching surrounding quotes.
func unquoteYAMLish(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
