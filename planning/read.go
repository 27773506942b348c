package planning

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/recite-dev/recite/markdown"
)

// fileRole names what a path is by its place and name (docs/formats.md#file-roles,
// for recite's own files too).
func fileRole(p string) string {
	dir, name := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	first, _, _ := strings.Cut(p, "/")
	if dir == "" {
		switch name {
		case "PROJECT.md":
			return "project"
		case "VISION.md":
			return "vision"
		case "ROADMAP.md":
			return "roadmap"
		case "STATE.md", "CONSCIENCE.md":
			return "state"
		case "BLOCKERS.md":
			return "blockers"
		case "REQUIREMENTS.md":
			return "requirements"
		case "DECISION_LOG.md", "DECISIONS.md":
			return "decisions"
		case "context-preserved.md":
			return "preserved"
		case "config.json", "config.yml", "config.yaml":
			return "config"
		case "recite.yaml", ".gitattributes":
			return "recite"
		case "todos.md":
			return "todo"
		case HandoffFile:
			return "handoff"
		}
		return "unknown"
	}
	switch first {
	case "conversations":
		return "conversation"
	case "prompts", ".recite":
		return "recite"
	case "loops":
		return "loop"
	case "debug":
		if strings.HasSuffix(name, ".md") {
			return "debug"
		}
	case "todos":
		if strings.HasSuffix(name, ".md") {
			return "todo"
		}
	case "milestones":
		// GSD's complete-milestone archive: milestones/vX.Y-phases/NN-slug/.
		second, _, _ := strings.Cut(strings.TrimPrefix(p, "milestones/"), "/")
		if !strings.HasPrefix(second, "v") || !strings.HasSuffix(second, "-phases") || strings.Count(p, "/") < 3 {
			break
		}
		fallthrough
	case "phases", "quick":
		switch k, _ := classifyPhaseFile(name); k {
		case kindPlan:
			return "plan"
		case kindSummary:
			return "summary"
		}
		if strings.HasSuffix(strings.ToUpper(name), "CONTEXT.MD") || name == ".continue-here.md" {
			return "context"
		}
	}
	return "unknown"
}

// readDoc reads and parses one markdown file, or returns nil with a
// diagnostic when it is too large, unreadable or binary. Only the front
// matter is parsed when fmOnly is set (summaries: their existence is what
// counts, their front matter is checked).
func (l *loader) readDoc(w *walked, fmOnly bool) *markdown.Document {
	e := l.load(w, fmOnly, false)
	doc := l.cache.document(e)
	if doc == nil {
		return nil
	}
	l.p.Diagnostics = append(l.p.Diagnostics, e.docDiags...)
	return doc
}

// checkFrontMatter reads a markdown file's front matter for its
// diagnostics alone (a summary, a file recite does not interpret): from
// the cache, it decodes no document.
func (l *loader) checkFrontMatter(w *walked) {
	if e := l.load(w, true, false); e != nil && e.hasDoc() {
		l.p.Diagnostics = append(l.p.Diagnostics, e.docDiags...)
	}
}

// readFile reads a file within the size limit; binary or non-UTF-8 content
// is reported (docs/formats.md#missing-and-extra-files). It returns nil when the file must be
// skipped.
func (l *loader) readFile(w *walked) []byte {
	if e := l.load(w, false, true); e != nil {
		return e.data
	}
	return nil
}

// load returns the cache entry of a file (parsed as markdown unless raw;
// only its front matter with fmOnly), from the cache without reading it
// when its stat is unchanged, and reports the file's reading problems. It
// returns nil, with a diagnostic, when the file must be skipped.
func (l *loader) load(w *walked, fmOnly, raw bool) *cacheEntry {
	if l.read == nil {
		l.read = map[string]bool{}
	}
	l.read[w.path] = true
	if w.size > MaxFileSize {
		l.fail(w, 1, "file is %d bytes, over the %d-byte limit; skipped", w.size, MaxFileSize)
		return nil
	}
	k := cacheKey{path: w.path, fmOnly: fmOnly && !raw}
	e := l.cache.fresh(k, w.stat, raw)
	if e != nil && !raw && !k.fmOnly && !e.skipped && l.cache.document(e) == nil {
		e = nil // its cached document does not decode: parsed again
	}
	if e == nil {
		readAt := l.cache.clock()
		data, err := fs.ReadFile(l.fsys, w.path)
		if err != nil {
			l.fail(w, 0, "cannot read: %v", reason(err))
			if !errors.Is(err, fs.ErrNotExist) && !ownFolder(w.path) {
				// Unreadable is not empty (docs/formats.md#unreadable-files).
				l.p.Failures = append(l.p.Failures, *w.failure)
			}
			return nil
		}
		var diags []Diagnostic
		skipped := false
		if i := bytes.IndexByte(data, 0); i >= 0 {
			diags = append(diags, Diagnostic{Path: w.path, Line: lineOf(data, i), Message: "binary content (NUL byte); skipped"})
			skipped = true
		} else if !utf8.Valid(data) {
			diags = append(diags, Diagnostic{Path: w.path, Line: lineOf(data, firstInvalid(data)), Message: "not valid UTF-8; invalid bytes read as U+FFFD"})
			data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
		}
		if k.fmOnly {
			data = data[:frontMatterEnd(data)]
		}
		e = l.cache.store(k, w.stat, readAt, data, diags, skipped, raw)
	}
	l.p.Diagnostics = append(l.p.Diagnostics, e.diags...)
	w.entry = e
	if e.skipped {
		w.role = "skipped"
		d := e.diags[0]
		w.failure = &d
		return nil
	}
	return e
}

// fail reports why a file is skipped and marks it so: role "skipped", and
// the diagnostic kept as its failure.
func (l *loader) fail(w *walked, line int, format string, args ...any) {
	d := Diagnostic{Path: w.path, Line: line, Message: fmt.Sprintf(format, args...)}
	l.p.Diagnostics = append(l.p.Diagnostics, d)
	w.role = "skipped"
	w.failure = &d
}

func lineOf(data []byte, off int) int { return bytes.Count(data[:off], []byte{'\n'}) + 1 }

func firstInvalid(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// frontMatterEnd returns the byte offset just past the stacked front matter
// blocks at the top of data (after a BOM), or 0 when there are none, so that
// a summary's front matter can be checked without parsing its body.
func frontMatterEnd(data []byte) int {
	off := 0
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		off = 3
	}
	end := 0
	for {
		rest := data[off:]
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 || strings.TrimRight(string(rest[:nl]), "\r \t") != "---" {
			return end
		}
		pos := off + nl + 1
		closed := false
		for pos < len(data) {
			e := bytes.IndexByte(data[pos:], '\n')
			line := data[pos:]
			next := len(data)
			if e >= 0 {
				line, next = data[pos:pos+e], pos+e+1
			}
			if strings.TrimRight(string(line), "\r \t") == "---" {
				closed = true
				pos = next
				break
			}
			pos = next
		}
		if !closed {
			return len(data)
		}
		end, off = pos, pos
		// Stacked blocks may be separated by blank lines.
		for off < len(data) && (data[off] == '\n' || data[off] == '\r') {
			off++
		}
	}
}
