package layers

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recite-dev/recite/engine/internal/redact"
)

// maxErrorBytes bounds one error's text in the errors section.
const maxErrorBytes = 8 << 10

// MaxMessageBytes caps one message's content in a prompt, in bytes (256
// KiB, about 64k tokens): a longer message keeps its head and tail around a
// "⟨N bytes omitted⟩" line (Cutter.CapMessage). The log keeps the full text (it is
// the record); the cap is applied when a prompt is assembled, where the
// cost is: tokenizing and pruning one 10 MB agent reply took every later
// build about 14 s and 530 MB.
const MaxMessageBytes = 256 << 10

// SecretReach is how far past a cut the text is redacted before cutting,
// in bytes: more than the longest secret the rules match (a PEM private
// key of RSA-4096 is about 3.3 KB), so no secret is split by a cut into a
// prefix or suffix the rules no longer match.
const SecretReach = 8 << 10

// Redact redacts text as the prompt's final redaction does for src (a
// section's source or a message id), returning the text and its findings.
type Redact func(src, text string) (string, []redact.Finding)

// Cutter cuts long conversation texts after redacting around the cut, so
// no secret is split into a piece the rules no longer match. The zero
// Cutter (no redactor could be made) cuts without redacting: then the
// final redaction of the prompt is all there is.
type Cutter struct {
	redactor Redact
	// found receives the redactions of the kept parts, as the prompt's
	// redaction report words them; nil reports nothing.
	found *[]string
	// quiet cuts without reporting (to compare texts before one is kept).
	quiet bool
}

// NewCutter returns a Cutter that redacts with r and appends what it kept
// to *found ("LABEL (SRC) line N: KIND", as the prompt's redaction report
// has it).
func NewCutter(r Redact, found *[]string) Cutter { return Cutter{redactor: r, found: found} }

// Quiet is c reporting nothing: to compare cut texts before one is kept.
func (c Cutter) Quiet() Cutter {
	c.quiet = true
	return c
}

func (c Cutter) redact(src, text string) (string, []redact.Finding) {
	if c.redactor == nil {
		return text, nil
	}
	return c.redactor(src, text)
}

// report records the findings of a redacted window that survive in kept,
// the part of the window a cut keeps, as redactPrompt would for label (the
// section) and src, with lines counted from the message's start (offset
// lines before the window). A placeholder kept k times stands for the
// first k findings with it when kept is the window's head, the last k
// when it is the tail.
func (c Cutter) report(label, src string, fs []redact.Finding, kept string, offset int, tail bool) {
	if c.redactor == nil || c.found == nil || c.quiet {
		return
	}
	used := map[string]int{}
	keep := func(f redact.Finding) bool {
		if used[f.Placeholder] >= strings.Count(kept, f.Placeholder) {
			return false
		}
		used[f.Placeholder]++
		return true
	}
	var out []string
	for i := range fs {
		f := fs[i]
		if tail {
			f = fs[len(fs)-1-i]
		}
		if keep(f) {
			out = append(out, fmt.Sprintf("%s (%s) line %d: %s", label, src, f.Line+offset, f.Kind))
		}
	}
	if tail {
		slices.Reverse(out)
	}
	*c.found = append(*c.found, out...)
}

// redactHead redacts a prefix of text that, redacted, reaches at least
// SecretReach bytes past keep (or is the whole text): placeholders shorten
// what they replace, so a fixed window could end, after redaction, inside
// the part that is kept, with a secret split at its edge. The window
// doubles until it does, so the work stays linear in what is read.
func (c Cutter) redactHead(src, text string, keep int) (r string, fs []redact.Finding, end int) {
	end = min(len(text), keep+SecretReach)
	for {
		r, fs = c.redact(src, text[:end])
		if end == len(text) || len(r) >= keep+SecretReach {
			return r, fs, end
		}
		end = min(len(text), 2*end)
	}
}

// redactTail is redactHead for a suffix; start is where its window
// begins, offset the number of lines before it.
func (c Cutter) redactTail(src, text string, keep int) (r string, fs []redact.Finding, start, offset int) {
	start = max(0, len(text)-keep-SecretReach)
	for {
		r, fs = c.redact(src, text[start:])
		if start == 0 || len(r) >= keep+SecretReach {
			return r, fs, start, strings.Count(text[:start], "\n")
		}
		start = max(0, len(text)-2*(len(text)-start))
	}
}

// CapMessage cuts s, a message of the conversation, to about
// MaxMessageBytes of redacted text: two thirds from the head, one third
// from the tail, at UTF-8 boundaries, around "\n⟨N bytes omitted⟩\n" (N
// counts the original's bytes between the two windows' kept parts, so it
// is approximate when redaction changed lengths). Each side is redacted
// before it is cut; when the two windows meet, the whole message is
// redacted once and kept whole if it then fits, so head and tail never
// overlap.
func (c Cutter) CapMessage(src, s string) string {
	if len(s) <= MaxMessageBytes {
		return s
	}
	head, tail := MaxMessageBytes*2/3, MaxMessageBytes/3
	h, hfs, end := c.redactHead(src, s, head)
	var t string
	var tfs []redact.Finding
	start, offset := len(s), 0
	if end < len(s) {
		t, tfs, start, offset = c.redactTail(src, s, tail)
	}
	if end >= start {
		all, fs := h, hfs // the head window already covers the message
		if end < len(s) {
			all, fs = c.redact(src, s)
		}
		if len(all) <= MaxMessageBytes {
			c.report("conversation", src, fs, all, 0, false)
			return all
		}
		h, hfs, t, tfs, offset = all, fs, all, fs, 0
	}
	h = withoutOpenKey(h[:runeStart(h, min(len(h), head))])
	c.report("conversation", src, hfs, h, 0, false)
	t = t[runeStart(t, max(0, len(t)-tail)):]
	t = withoutCutKey(t)
	c.report("conversation", src, tfs, t, offset, true)
	return h + fmt.Sprintf("\n⟨%d bytes omitted⟩\n", max(0, len(s)-head-tail)) + t
}

// CutError cuts an error or stop text to maxErrorBytes at a UTF-8 boundary,
// marking the cut (the errors section and the conversation's rejected tool
// uses carry the same cut). The text is redacted before it is cut; label
// names the section for the redaction report.
func (c Cutter) CutError(label, src, text string) string {
	if len(text) <= maxErrorBytes {
		return text
	}
	r, fs, _ := c.redactHead(src, text, maxErrorBytes)
	r = withoutOpenKey(r[:runeStart(r, min(len(r), maxErrorBytes))])
	c.report(label, src, fs, r, 0, false)
	return r + "\n… (cut at 8 KiB)"
}

// withoutOpenKey drops, from the end of a kept head, a PEM private key
// whose END line the cut removed: a key longer than SecretReach is not
// matched whole, and its first lines must not pass for text.
func withoutOpenKey(kept string) string {
	i := strings.LastIndex(kept, "-----BEGIN ")
	if i < 0 || !strings.Contains(kept[i:], "PRIVATE KEY-----") || strings.Contains(kept[i:], "-----END ") {
		return kept
	}
	return kept[:i] + "⟨private key cut⟩"
}

// withoutCutKey drops, from the start of a kept tail, the rest of a PEM
// private key whose BEGIN line the cut removed.
func withoutCutKey(kept string) string {
	i := strings.Index(kept, "-----END ")
	if i < 0 || !strings.Contains(kept[i:min(len(kept), i+64)], "PRIVATE KEY-----") || strings.Contains(kept[:i], "-----BEGIN ") {
		return kept
	}
	j := strings.Index(kept[i+len("-----END "):], "-----")
	if j < 0 {
		return "⟨private key cut⟩"
	}
	return "⟨private key cut⟩" + kept[i+len("-----END ")+j+len("-----"):]
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
