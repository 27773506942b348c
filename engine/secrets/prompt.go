package secrets

import (
	"fmt"

	"github.com/recite-dev/recite/engine/internal/redact"
	"github.com/recite-dev/recite/engine/prompt"
)

// Prompt replaces every secret in p's sections (their shorter forms
// included) and messages (their tool-call arguments included) with a
// deterministic placeholder (docs/formats.md#secrets-in-committed-files)
// and returns where each one was, as "SECTION (SOURCE) line N: KIND", after
// found, the redactions made while the prompt's inputs were gathered
// (FileRedactor, the conversation cutter); each place once. When the key
// file is unusable it still redacts, with a key of this process, and
// returns the key's error with the list; the only other error is rules
// that do not compile (then p is unchanged).
func (r *Redactor) Prompt(p *prompt.Prompt, found []string) ([]string, error) {
	if err := r.Init(); err != nil {
		return nil, err
	}
	c := r.cache
	where := append([]string(nil), found...)
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
		s.Body, fs = c.redact(src, s.Body)
		note(s.ID, src, fs)
		for k := range s.Shorter {
			s.Shorter[k], _ = c.redact(src, s.Shorter[k])
		}
	}
	for i := range p.Messages {
		m := &p.Messages[i]
		var fs []redact.Finding
		m.Content, fs = c.redact(m.ID, m.Content)
		note("conversation", m.ID, fs)
		for k := range m.ToolCalls {
			m.ToolCalls[k].Arguments, fs = c.redact(m.ID, m.ToolCalls[k].Arguments)
			note("conversation", m.ID, fs)
		}
	}
	// One line per place: a text cut before assembly may be reported by
	// its cut and again here.
	seen := map[string]bool{}
	uniq := where[:0]
	for _, w := range where {
		if !seen[w] {
			seen[w] = true
			uniq = append(uniq, w)
		}
	}
	return uniq, c.keyErr
}

// FileRedactor returns the redaction of the files section: one project
// file's text redacted with its own path rel (so path-specific rules such
// as .env values apply), the findings appended to *found for Prompt, as
// "files (REL) line N: KIND" with N the line in the text given. found is
// the caller's, one per build. When the rules do not compile the file's
// text is replaced by a note: never a file unredacted.
func (r *Redactor) FileRedactor(found *[]string) func(rel, text string) string {
	return func(rel, text string) string {
		if err := r.Init(); err != nil {
			return fmt.Sprintf("⟨%s: not shown, redaction unavailable: %v⟩", rel, err)
		}
		out, fs := r.cache.redact(rel, text)
		for _, f := range fs {
			*found = append(*found, fmt.Sprintf("%s (%s) line %d: %s", prompt.IDFiles, rel, f.Line, f.Kind))
		}
		return out
	}
}
