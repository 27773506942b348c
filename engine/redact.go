package engine

import (
	"crypto/sha256"
	"fmt"

	"github.com/recite-dev/recite/engine/internal/redact"
	"github.com/recite-dev/recite/engine/prompt"
)

// redactCache remembers the redaction of texts by content hash, so an
// unchanged section is not scanned again. Like the token-count cache it
// keeps two generations: when the current one holds maxRedactEntries, it
// becomes the old one and the entries not used since are dropped, so a
// long `recite watch` session keeps what its prompts still use and no more.
type redactCache struct {
	r        *redact.Redactor
	done     map[[sha256.Size]byte]redacted
	previous map[[sha256.Size]byte]redacted
}

// maxRedactEntries bounds one generation of the redaction cache (a norish
// build redacts about 10 texts, one of them new after an edit).
const maxRedactEntries = 1024

// redacted is a cached redaction. A text without secrets is stored as
// unchanged instead of by value: section bodies are substrings of whole
// parsed files, so keeping them would keep every version of STATE.md an
// edit session produced reachable (the watch memory benchmark grew by
// 140 MB over 10,000 renders that way).
type redacted struct {
	unchanged bool
	text      string
	findings  []redact.Finding
}

// result returns the redacted text of text.
func (v redacted) result(text string) (string, []redact.Finding) {
	if v.unchanged {
		return text, v.findings
	}
	return v.text, v.findings
}

// keyOf is the cache key of text redacted as path.
func keyOf(path, text string) [sha256.Size]byte {
	return sha256.Sum256([]byte(path + "\x00" + text))
}

func (c *redactCache) redact(path, text string) (string, []redact.Finding) {
	key := keyOf(path, text)
	if v, ok := c.done[key]; ok {
		return v.result(text)
	}
	v, ok := c.previous[key]
	if !ok {
		out, f := c.r.Redact(path, text)
		v = redacted{unchanged: out == text, findings: f}
		if !v.unchanged {
			v.text = out
		}
	}
	if len(c.done) >= maxRedactEntries {
		c.previous, c.done = c.done, make(map[[sha256.Size]byte]redacted, len(c.done))
	}
	c.done[key] = v
	return v.result(text)
}

// redactPrompt replaces every secret in the prompt's sections and messages
// with a deterministic placeholder (issue "What enters context" §5) and
// returns where each one was, as "section SOURCE line N: KIND".
func (e *Engine) redactPrompt(p *prompt.Prompt) ([]string, error) {
	if err := e.initRedactor(); err != nil {
		return nil, err
	}
	where := append([]string(nil), e.fileRedactions...)
	e.fileRedactions = e.fileRedactions[:0]
	note := func(id, src string, fs []redact.Finding) {
		for _, f := range fs {
			where = append(where, fmt.Sprintf("%s (%s) line %d: %s", id, src, f.Line, f.Kind))
		}
	}
	for i := range p.Sections {
		s := &p.Sections[i]
		src := ""
		if len(s.Sources) > 0 {
			src = s.Sources[len(s.Sources)-1]
		}
		var fs []redact.Finding
		s.Body, fs = e.redactor.redact(src, s.Body)
		note(s.ID, src, fs)
		for k := range s.Shorter {
			s.Shorter[k], _ = e.redactor.redact(src, s.Shorter[k])
		}
	}
	for i := range p.Messages {
		m := &p.Messages[i]
		var fs []redact.Finding
		m.Content, fs = e.redactor.redact(m.ID, m.Content)
		note("conversation", m.ID, fs)
		for k := range m.ToolCalls {
			m.ToolCalls[k].Arguments, fs = e.redactor.redact(m.ID, m.ToolCalls[k].Arguments)
			note("conversation", m.ID, fs)
		}
	}
	return where, nil
}

func (e *Engine) initRedactor() error {
	if e.redactor != nil {
		return nil
	}
	r, err := redact.New()
	if err != nil {
		return err
	}
	e.redactor = &redactCache{r: r, done: map[[sha256.Size]byte]redacted{}}
	return nil
}

// redactFile redacts one project file's text with its own path (so
// path-specific rules such as .env values apply) and records the findings
// for the next redactPrompt, as "files (PATH) line N: KIND" with N the
// line in the text given.
func (e *Engine) redactFile(rel, text string) string {
	if err := e.initRedactor(); err != nil {
		return text
	}
	out, fs := e.redactor.redact(rel, text)
	for _, f := range fs {
		e.fileRedactions = append(e.fileRedactions, fmt.Sprintf("%s (%s) line %d: %s", prompt.IDFiles, rel, f.Line, f.Kind))
	}
	return out
}
