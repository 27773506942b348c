package engine

import (
	"fmt"
	"strings"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/layers"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning/conversation"
)

// ConversationsDir is the folder of conversation logs, relative to the
// project root (docs/formats.md#files-recite-writes).
const ConversationsDir = layout.ConversationsDir

// ConversationLog is the project-relative path of conversation id's log.
func ConversationLog(id string) string { return layout.ConversationLog(id) }

// Replayable reports whether a message record is replayed to a model: it is
// a message, not internal (coordinator notes, imported thinking, harness
// output) and not from a side conversation (a subagent's sidechain)
// (layers.Replayable).
func Replayable(r conversation.Record) bool { return layers.Replayable(r) }

// ToPromptMessages converts message records to prompt messages, keeping
// roles, agents, tool calls (arguments verbatim), the tool call id and name
// of tool results, and is_error (layers.ToPromptMessages). Records that are
// not messages are left out; the caller filters internal records (see
// Replayable).
func ToPromptMessages(recs []conversation.Record) []prompt.Message {
	return layers.ToPromptMessages(recs)
}

// LearningsFile holds the project's learnings (layers.LearningsFile).
const LearningsFile = layers.LearningsFile

// MaxMessageBytes caps one message's content in a prompt, in bytes
// (layers.MaxMessageBytes).
const MaxMessageBytes = layers.MaxMessageBytes

// RenderConversation renders the messages of c alone (no other sections) in
// a provider's shape: markdown, anthropic, openai, gemini, ollama or text.
// Internal and sidechain messages are left out unless all is true. C0
// control characters other than tab and line feed are removed
// (prompt.CleanControls); the log keeps them.
func RenderConversation(c *conversation.Conversation, provider string, all bool, opts prompt.RenderOptions) ([]byte, error) {
	if _, err := prompt.CapabilitiesOf(provider); err != nil {
		return nil, &InputError{Err: fmt.Errorf("%v (want one of %s)", err, strings.Join(prompt.Providers(), ", "))}
	}
	var recs []conversation.Record
	for _, r := range c.Messages {
		if all || Replayable(r) {
			recs = append(recs, r)
		}
	}
	msgs := ToPromptMessages(recs)
	for i := range msgs {
		msgs[i].Content = prompt.CleanControls(msgs[i].Content)
	}
	p := &prompt.Prompt{Target: c.ID, Messages: msgs}
	p.Add(prompt.Section{ID: prompt.IDConversation, Heading: "Conversation " + c.ID, Sources: []string{ConversationLog(c.ID)}})
	if opts.OpenAISystemRole == "" {
		opts.OpenAISystemRole = "system"
	}
	return prompt.Render(p, provider, opts)
}

// relPath turns a path under the project into a project-relative,
// slash-separated path.
func (e *Engine) relPath(p string) (string, bool) { return layout.RelPath(e.dir, p) }
