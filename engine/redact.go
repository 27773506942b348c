package engine

import (
	"crypto/sha256"
	"fmt"

	"github.com/recite-dev/recite/engine/internal/redact"
	"github.com/recite-dev/recite/engine/prompt"
)

// redactCache remembers the redaction of texts by content hash, so an
// unchanged section is not scanned again.
type redactCache struct {
	r    *redact.Redactor
	done map[[sha256.Size]byte]redacted
}

type redacted struct {
	text     string
	findings []redact.Finding
}

func (c *redactCache) redact(path, text string) (string, []redact.Finding) {
	key := sha256.Sum256([]byte(path + "\x00" + text))
	if v, ok := c.done[key]; ok {
		return v.text, v.findings
	}
	out, f := c.r.Redact(path, text)
	c.done[key] = redacted{out, f}
	return out, f
}

// redactPrompt replaces every secret in the prompt's sections and messages
// with a deterministic placeholder (issue "What enters context" §5) and
// returns where each one was, as "section SOURCE line N: KIND".
func (e *Engine) redactPrompt(p *prompt.Prompt) ([]string, error) {
	if e.redactor == nil {
		r, err := redact.New()
		if err != nil {
			return nil, err
		}
		e.redactor = &redactCache{r: r, done: map[[sha256.Size]byte]redacted{}}
	}
	var where []string
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
