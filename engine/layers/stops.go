package layers

import (
	"slices"
	"strings"
	"unicode"

	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning/conversation"
)

// MaxConversationErrors is how many recent distinct failed results enter
// the errors section.
const MaxConversationErrors = 5

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

// maxConversationStops is how many distinct stop signals of a conversation
// enter the errors section (the most recent ones).
const maxConversationStops = 10

// Stops returns the stop signals of the whole log (every
// message that is not internal, pruned or not), verbatim, oldest first, with
// their sources (LOG#ID): BLOCKED/STUCK lines, STOP: lines, rejected tool
// uses and the agent's own words for a block or a failed approach ("I'm
// blocked on …", "this doesn't work", "giving up on this approach"), by the
// rules of signals.FromMessages. Signals are cut at
// maxErrorBytes (Cutter.CutError), deduplicated by their kind and cut text
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
func Stops(c *conversation.Conversation, logPath string, cut Cutter) (stops, srcs []string, results map[string]bool) {
	var msgs []signals.Message
	toolResult := map[string]string{} // source → id of a failed tool result
	cmds := conversation.CallCommands(c.Messages)
	for _, r := range c.Messages {
		if r.Kind != conversation.KindMessage || r.Internal || r.Content == "" {
			continue
		}
		// Only error results (a rejected tool use) and text that may hold
		// a stop (signals.MayHoldStop) can hold a stop signal: skip the
		// line-by-line rules on the rest, which cost 0.3 s on one 10 MB
		// reply.
		if r.Role == conversation.RoleTool || r.ToolName != "" {
			if !r.IsError {
				continue
			}
			toolResult[logPath+"#"+r.ID] = r.ID
		} else if !signals.MayHoldStop(r.Content, r.Role == conversation.RoleAssistant) {
			continue
		}
		msgs = append(msgs, signals.Message{ID: r.ID, Role: r.Role, Content: r.Content, ToolName: r.ToolName, IsError: r.IsError, Timestamp: r.Time,
			Source: logPath + "#" + r.ID, Command: cmds[r.ToolCallID]})
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
		text := cut.Quiet().CutError(prompt.IDErrors, s.Source, s.Text)
		h := string(s.Kind) + "\x00" + strings.Join(strings.Fields(text), " ")
		if seen[h] {
			continue
		}
		seen[h] = true
		cut.CutError(prompt.IDErrors, s.Source, s.Text) // reports what it kept
		stops = append(stops, text)
		srcs = append(srcs, s.Source)
	}
	slices.Reverse(stops)
	slices.Reverse(srcs)
	return stops, srcs, results
}
