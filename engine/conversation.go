package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/internal/redact"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// maxConversationErrors is how many recent distinct failed results enter
// the errors section.
const maxConversationErrors = 5

// errorKey is what makes two errors the same for the errors section: the
// text with each run of digits read as one '#' and each run of white space
// as one space, so an error repeated at another line, column, port or
// duration is one error, while errors naming other modules or values
// (signals.Normalize masks quoted values) stay apart.
func errorKey(text string) string {
	var b strings.Builder
	digit, space := false, false
	for _, r := range strings.TrimSpace(text) {
		switch {
		case unicode.IsDigit(r):
			if !digit {
				b.WriteByte('#')
			}
			digit, space = true, false
		case unicode.IsSpace(r):
			if !space {
				b.WriteByte(' ')
			}
			digit, space = false, true
		default:
			b.WriteRune(r)
			digit, space = false, false
		}
	}
	return b.String()
}

// maxErrorBytes bounds one error's text in the errors section.
const maxErrorBytes = 8 << 10

// MaxMessageBytes caps one message's content in a prompt, in bytes (256
// KiB, about 64k tokens): a longer message keeps its head and tail around a
// "⟨N bytes omitted⟩" line (capMessage). The log keeps the full text (it is
// the record); the cap is applied when a prompt is assembled, where the
// cost is: tokenizing and pruning one 10 MB agent reply took every later
// build about 14 s and 530 MB.
const MaxMessageBytes = 256 << 10

// secretReach is how far past a cut the text is redacted before cutting,
// in bytes: more than the longest secret the rules match (a PEM private
// key of RSA-4096 is about 3.3 KB), so no secret is split by a cut into a
// prefix or suffix the rules no longer match.
const secretReach = 8 << 10

// cutter cuts long conversation texts after redacting around the cut, so
// no secret is split into a piece the rules no longer match. e is nil, or
// has no redactor, when none could be made: then the final redaction of
// the prompt is all there is.
type cutter struct {
	e *Engine
	// quiet cuts without reporting (to compare texts before one is kept).
	quiet bool
}

// newCutter returns a cutter that redacts with the engine's redactor and
// reports what it kept for redactPrompt.
func (e *Engine) newCutter() cutter {
	if e.initRedactor() != nil {
		return cutter{}
	}
	return cutter{e: e}
}

func (c cutter) redact(src, text string) (string, []redact.Finding) {
	if c.e == nil || c.e.redactor == nil {
		return text, nil
	}
	return c.e.redactor.redact(src, text)
}

// report records the findings of a redacted window that survive in kept,
// the part of the window a cut keeps, as redactPrompt would for label (the
// section) and src, with lines counted from the message's start (offset
// lines before the window). A placeholder kept k times stands for the
// first k findings with it when kept is the window's head, the last k
// when it is the tail.
func (c cutter) report(label, src string, fs []redact.Finding, kept string, offset int, tail bool) {
	if c.e == nil || c.quiet {
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
	c.e.fileRedactions = append(c.e.fileRedactions, out...)
}

// redactHead redacts a prefix of text that, redacted, reaches at least
// secretReach bytes past keep (or is the whole text): placeholders shorten
// what they replace, so a fixed window could end, after redaction, inside
// the part that is kept, with a secret split at its edge. The window
// doubles until it does, so the work stays linear in what is read.
func (c cutter) redactHead(src, text string, keep int) (r string, fs []redact.Finding, end int) {
	end = min(len(text), keep+secretReach)
	for {
		r, fs = c.redact(src, text[:end])
		if end == len(text) || len(r) >= keep+secretReach {
			return r, fs, end
		}
		end = min(len(text), 2*end)
	}
}

// redactTail is redactHead for a suffix; start is where its window
// begins, offset the number of lines before it.
func (c cutter) redactTail(src, text string, keep int) (r string, fs []redact.Finding, start, offset int) {
	start = max(0, len(text)-keep-secretReach)
	for {
		r, fs = c.redact(src, text[start:])
		if start == 0 || len(r) >= keep+secretReach {
			return r, fs, start, strings.Count(text[:start], "\n")
		}
		start = max(0, len(text)-2*(len(text)-start))
	}
}

// capMessage cuts s, a message of the conversation, to about
// MaxMessageBytes of redacted text: two thirds from the head, one third
// from the tail, at UTF-8 boundaries, around "\n⟨N bytes omitted⟩\n" (N
// counts the original's bytes between the two windows' kept parts, so it
// is approximate when redaction changed lengths). Each side is redacted
// before it is cut; when the two windows meet, the whole message is
// redacted once and kept whole if it then fits, so head and tail never
// overlap.
func (c cutter) capMessage(src, s string) string {
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

// cutError cuts an error or stop text to maxErrorBytes at a UTF-8 boundary,
// marking the cut (the errors section and the conversation's rejected tool
// uses carry the same cut). The text is redacted before it is cut; label
// names the section for the redaction report.
func (c cutter) cutError(label, src, text string) string {
	if len(text) <= maxErrorBytes {
		return text
	}
	r, fs, _ := c.redactHead(src, text, maxErrorBytes)
	r = withoutOpenKey(r[:runeStart(r, min(len(r), maxErrorBytes))])
	c.report(label, src, fs, r, 0, false)
	return r + "\n… (cut at 8 KiB)"
}

// withoutOpenKey drops, from the end of a kept head, a PEM private key
// whose END line the cut removed: a key longer than secretReach is not
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

// maxConversationStops is how many distinct stop signals of a conversation
// enter the errors section (the most recent ones).
const maxConversationStops = 10

// conversationStops returns the stop signals of the whole log (every
// message that is not internal, pruned or not), verbatim, oldest first, with
// their sources (LOG#ID): BLOCKED/STUCK lines, STOP: lines and rejected tool
// uses, by the rules of signals.FromMessages. Signals are cut at
// maxErrorBytes (cutter.cutError), deduplicated by their kind and cut text
// with white space folded, keeping the latest occurrence (instructions
// that differ in a name, an address or a number are different
// instructions), and the most recent maxConversationStops are kept.
//
// results are the ids of the failed tool results that are stop signals
// (rejected tool uses with the user's words), all of them: they are stops,
// not errors, so the errors list leaves them out (Fit may cut errors, never
// a stop), and their conversation copies are cut like the section's.
//
// The whole log, not only the pruned part, is searched: a message in the
// window can still be dropped by Fit or shortened by a compression pass,
// and a section that does not change when a message leaves the window keeps
// the prompt cache warm.
func conversationStops(c *conversation.Conversation, logPath string, cut cutter) (stops, srcs []string, results map[string]bool) {
	var msgs []signals.Message
	toolResult := map[string]string{} // source → id of a failed tool result
	for _, r := range c.Messages {
		if r.Kind != conversation.KindMessage || r.Internal || r.Content == "" {
			continue
		}
		// Only error results (a rejected tool use) and text naming a stop
		// word can hold a stop signal: skip the line-by-line rules on the
		// rest, which cost 0.3 s on one 10 MB reply.
		if r.Role == conversation.RoleTool || r.ToolName != "" {
			if !r.IsError {
				continue
			}
			toolResult[logPath+"#"+r.ID] = r.ID
		} else if !strings.Contains(r.Content, "BLOCKED") && !strings.Contains(r.Content, "STUCK") && !strings.Contains(r.Content, "STOP") {
			continue
		}
		msgs = append(msgs, signals.Message{ID: r.ID, Role: r.Role, Content: r.Content, ToolName: r.ToolName, IsError: r.IsError, Timestamp: r.Time, Source: logPath + "#" + r.ID})
	}
	found := signals.FromMessages(msgs)
	results = map[string]bool{}
	for _, s := range found {
		if id, ok := toolResult[s.Source]; ok && s.Kind != signals.KindError {
			results[id] = true
		}
	}
	seen := map[string]bool{}
	for i := len(found) - 1; i >= 0 && len(stops) < maxConversationStops; i-- {
		s := found[i]
		if s.Kind == signals.KindError {
			continue
		}
		quiet := cut
		quiet.quiet = true
		text := quiet.cutError(prompt.IDErrors, s.Source, s.Text)
		h := string(s.Kind) + "\x00" + strings.Join(strings.Fields(text), " ")
		if seen[h] {
			continue
		}
		seen[h] = true
		cut.cutError(prompt.IDErrors, s.Source, s.Text) // reports what it kept
		stops = append(stops, text)
		srcs = append(srcs, s.Source)
	}
	slices.Reverse(stops)
	slices.Reverse(srcs)
	return stops, srcs, results
}

// conversationInput fills the conversation parts of a target's prompt
// input: the pruned history tail and the coordinator's context layers
// (seeds/000 "Context Assembly": learnings, loop and role, epic and phase,
// history).
//
// The history is the conversation's replayable messages (Replayable) pruned
// by the configured strategy (recite.yaml history:); a summary strategy
// whose summarizer fails falls back to the window strategy with a
// diagnostic. The errors section gets the verbatim text of the last five
// failed messages (tool results with is_error, and failed agent runs) of the
// whole log, pruned or not, so pruning never hides an error, and the stop
// signals of the whole log (conversationStops), which Fit never cuts. It
// returns the conversation it read, for compression. A missing or
// unreadable conversation is a diagnostic and a nil conversation: the
// prompt is built without it.
func (e *Engine) conversationInput(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project, in *prompt.Input) (*conversation.Conversation, []Diagnostic) {
	id := tg.Conversation
	logPath := ConversationLog(id)
	var diags []Diagnostic
	diag := func(format string, args ...any) {
		diags = append(diags, Diagnostic{Path: config.FileName, Line: tg.Line, Message: fmt.Sprintf("target %q: ", tg.Name) + fmt.Sprintf(format, args...)})
	}
	store, err := e.OpenConversations()
	if err != nil {
		diag("%v", err)
		return nil, diags
	}
	c, rdiags, err := store.Read(id)
	for _, d := range rdiags {
		if rel, ok := e.relPath(d.Path); ok {
			d.Path = rel
		}
		diags = append(diags, d)
	}
	if err != nil {
		if errors.Is(err, conversation.ErrNotFound) {
			diag("conversation %q not found (create it with `recite conversation new %s`)", id, id)
		} else {
			diag("conversation %q: %v", id, err)
		}
		return nil, diags
	}
	if len(in.Health) == 0 {
		// No loop file: the conversation's iteration records give health.
		in.Health = conversationHealth(cfg, c)
	}

	var stopResults map[string]bool
	cut := e.newCutter()
	in.Stops, in.StopSources, stopResults = conversationStops(c, logPath, cut)
	var replay []conversation.Record
	for _, r := range c.Messages {
		if Replayable(r) {
			if stopResults[r.ID] {
				// A rejected tool use is a stop signal, which nothing may
				// cut later: it is cut now, as the section cuts it.
				r.Content = cut.cutError("conversation", r.ID, r.Content)
			} else {
				r.Content = cut.capMessage(r.ID, r.Content)
			}
			replay = append(replay, r)
		}
	}
	count := func(s string) int { return len(s) / 4 }
	if counter, err := e.Counter(cfg.Tokenizer); err == nil {
		count = counter.Count
	}
	strategy := e.historyStrategy(cfg, count)
	kept, err := strategy.Prune(ctx, replay)
	if err != nil {
		diag("history %s: %v; kept the last %d messages instead", cfg.History.Strategy, err, cfg.History.Window)
		kept, _ = history.Window{N: cfg.History.Window}.Prune(ctx, replay)
	}
	in.Messages = ToPromptMessages(kept)
	in.Conversation = logPath

	var errs, srcs []string
	seen := map[string]bool{}
	for i := len(c.Messages) - 1; i >= 0 && len(errs) < maxConversationErrors; i-- {
		r := c.Messages[i]
		if !r.IsError || r.Internal || r.Content == "" || stopResults[r.ID] {
			continue
		}
		quiet := cut
		quiet.quiet = true
		text := quiet.cutError(prompt.IDErrors, logPath+"#"+r.ID, r.Content)
		// The same error enters once, as its newest occurrence: a loop
		// repeating one failure would otherwise fill the section with
		// copies and push older distinct errors out.
		k := errorKey(text)
		if seen[k] {
			continue
		}
		seen[k] = true
		cut.cutError(prompt.IDErrors, logPath+"#"+r.ID, r.Content) // reports what it kept
		errs = append(errs, text)
		srcs = append(srcs, logPath+"#"+r.ID)
	}
	for i := len(errs) - 1; i >= 0; i-- {
		in.Errors = append(in.Errors, errs[i])
		in.ErrorSources = append(in.ErrorSources, srcs[i])
	}

	layers, ldiags := e.contextLayers(c, cfg, tg, proj)
	diags = append(diags, ldiags...)
	in.Extra = append(in.Extra, layers...)
	return c, diags
}
