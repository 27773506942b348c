// Package prompt assembles prompts from sections ordered for prompt caching
// and renders them in the request shapes of the main providers.
//
// A prompt is a list of sections in three tiers: the stable prefix (system
// prompt, tool instructions, project brief, skills, the current plan), the
// semi-stable middle (state snapshot, health) and the dynamic suffix (the
// conversation tail, the latest preservation block, recent errors, and the
// recitation block last). Tier order is fixed and the order inside a tier
// is fixed by section id, so an edit to a section never changes the bytes
// of an earlier tier; nothing here reads a clock or iterates a map, so the
// same input always renders to the same bytes.
//
// Assembly is pure: the engine reads files and hands their text in; this
// package never touches the file system.
//
// It also owns the request bodies: Render writes each provider's shape
// (Anthropic Messages, OpenAI Chat Completions or Responses, Gemini
// generateContent, Ollama /api/chat) for the model a target names, Limits
// holds the documented limits of those models (models.go), and Check
// validates a body as its provider would before answering.
//
// It imports planning (the planning-tree model) and goldmark (to find the
// headings of embedded documents); the engine and its packages
// (engine/config, engine/economics, engine/layers, engine/scope,
// engine/compress) import it, never cmd/recite.
package prompt

import (
	"strings"
)

// Tier is a section's stability class.
type Tier int

// The tiers, from most to least stable.
const (
	Stable Tier = iota
	Semi
	Dynamic
)

// String returns "stable", "semi" or "dynamic".
func (t Tier) String() string {
	switch t {
	case Stable:
		return "stable"
	case Semi:
		return "semi"
	default:
		return "dynamic"
	}
}

// Section ids, in the order they appear inside their tier.
const (
	IDSystem       = "system"
	IDTools        = "tools"
	IDBrief        = "brief"
	IDSkills       = "skills"
	IDLearnings    = "learnings"
	IDFileTree     = "file-tree"
	IDPlan         = "plan"
	IDEpic         = "epic"
	IDFiles        = "files"
	IDState        = "state"
	IDHealth       = "health"
	IDConversation = "conversation"
	IDLoop         = "loop"
	IDPreserved    = "preserved"
	IDErrors       = "errors"
	IDRecitation   = "recitation"
)

// order gives each section id its fixed rank. Inside the semi tier the
// sections go from the slowest-changing to the fastest (epic per phase, files
// per task, state per edit, health per iteration), so an edit to STATE.md
// leaves the task's file contents in the cached prefix. The loop and role
// layer ("This iteration: N of M", what failed last) changes with every
// iteration, so it sits in the dynamic tier after the conversation: placed
// before it, each iteration would re-send the whole conversation uncached.
var order = map[string]int{
	IDSystem: 0, IDTools: 1, IDBrief: 2, IDSkills: 3, IDLearnings: 4, IDFileTree: 5, IDPlan: 6,
	IDEpic: 10, IDFiles: 11, IDState: 12, IDHealth: 13,
	IDConversation: 20, IDLoop: 21, IDPreserved: 22, IDErrors: 23, IDRecitation: 24,
}

// TierOf returns the tier of a section id.
func TierOf(id string) Tier {
	switch r := order[id]; {
	case r < 10:
		return Stable
	case r < 20:
		return Semi
	default:
		return Dynamic
	}
}

// Section is one named, sourced piece of a prompt.
type Section struct {
	// ID is the stable identifier (one of the ID constants).
	ID string `json:"id"`
	// Heading is the human title shown above the section.
	Heading string `json:"heading"`
	// Tier is derived from ID.
	Tier Tier `json:"-"`
	// Sources are the files (project-relative, slash-separated) or record
	// ids the section was built from.
	Sources []string `json:"sources"`
	// Body is the section's text (markdown, LF line endings, no trailing
	// newline). Empty for the conversation section, whose content is
	// Messages.
	Body string `json:"-"`
	// Tokens is the section's token count, set by the budget pass.
	Tokens int `json:"tokens"`
	// Pinned sections are never shortened or dropped to meet a budget: the
	// stable tier, the recitation and preserved signals.
	Pinned bool `json:"pinned"`
	// Shorter are progressively shorter alternative bodies, tried in order
	// when the prompt is over budget; ShorterNotes say what each one cut.
	Shorter      []string `json:"-"`
	ShorterNotes []string `json:"-"`
}

// Message is one conversation message carried by a prompt.
type Message struct {
	ID      string
	Role    string // system, user, assistant, tool
	Content string
	// Agent names who wrote an assistant message (developer, tester…).
	Agent string
	// ToolCalls are the calls an assistant message makes.
	ToolCalls []ToolCall
	// ToolCallID and ToolName identify the call a tool message answers.
	ToolCallID string
	ToolName   string
	// IsError marks a failed tool result.
	IsError bool
	// Tokens is the message's count, set by Prompt.Count.
	Tokens int

	// placeholder marks the result pairTools writes for a call whose
	// result is not recorded (yet): it changes when the result comes, so
	// no cache breakpoint goes on it.
	placeholder bool
}

// ToolCall is one tool invocation. Arguments is the JSON text exactly as the
// model produced it (it may be invalid, so it is stored verbatim).
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
	// Signature is the Gemini thoughtSignature the call was returned with
	// (base64, replayed byte for byte); "" when none was recorded.
	Signature string
}

// Prompt is an assembled prompt for one target.
type Prompt struct {
	// Target is the target's name.
	Target string
	// Sections in render order.
	Sections []Section
	// Messages are the conversation tail (the conversation section's
	// content), oldest first.
	Messages []Message
	// Cuts say what the budget pass shortened or dropped, in order.
	Cuts []string
	// Conversation names the conversation's log ("" for none): with the
	// target it keys the OpenAI prompt_cache_key (PromptCacheKey).
	Conversation string
	// Tools is the tools block of the bodies that declare tools
	// (anthropic, openrouter), in its order, when FixedTools is set: a
	// call to another tool is written as text
	// (docs/providers.md#a-stable-tools-block). Without FixedTools the
	// block lists the tools the messages call, in order of first use.
	Tools      []string
	FixedTools bool
	// LowWater is the share of the room left for messages that Fit keeps
	// when it must drop some (docs/formats.md#cache-aware-eviction); 0
	// means 0.5.
	LowWater float64
}

// Add inserts s in its fixed position. A section with an empty body (and,
// for the conversation, no messages) is left out. The body and its shorter
// forms lose their C0 control characters (CleanControls). Assemble moves
// the headings of the documents it embeds below the section's own
// level-2 heading (demote).
func (p *Prompt) Add(s Section) {
	s.Body = CleanControls(s.Body)
	if len(s.Shorter) > 0 {
		s.Shorter = append([]string(nil), s.Shorter...)
		for i := range s.Shorter {
			s.Shorter[i] = CleanControls(s.Shorter[i])
		}
	}
	if strings.TrimSpace(s.Body) == "" && s.ID != IDConversation {
		return
	}
	s.Tier = TierOf(s.ID)
	if s.Tier == Stable || s.ID == IDRecitation || s.ID == IDPreserved {
		s.Pinned = true
	}
	i := len(p.Sections)
	for i > 0 && order[p.Sections[i-1].ID] > order[s.ID] {
		i--
	}
	p.Sections = append(p.Sections, Section{})
	copy(p.Sections[i+1:], p.Sections[i:])
	p.Sections[i] = s
}

// Section returns the section with the given id, or nil.
func (p *Prompt) Section(id string) *Section {
	for i := range p.Sections {
		if p.Sections[i].ID == id {
			return &p.Sections[i]
		}
	}
	return nil
}

// Text renders one section as markdown: a level-2 heading and the body.
func (s *Section) Text() string {
	return "## " + s.Heading + "\n\n" + s.Body + "\n"
}

// TierText renders every non-conversation section of tier t, joined by
// blank lines.
func (p *Prompt) TierText(t Tier) string {
	var b strings.Builder
	for i := range p.Sections {
		s := &p.Sections[i]
		if s.Tier != t || s.ID == IDConversation {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s.Text())
	}
	return b.String()
}

// DynamicContext renders the dynamic sections other than the conversation:
// the text that follows the conversation in chat-shaped bodies.
func (p *Prompt) DynamicContext() string { return p.TierText(Dynamic) }

// Clone returns a copy of p that can be fitted or changed without touching
// p.
func (p *Prompt) Clone() *Prompt {
	c := *p
	c.Sections = append([]Section(nil), p.Sections...)
	c.Messages = append([]Message(nil), p.Messages...)
	c.Cuts = append([]string(nil), p.Cuts...)
	c.Tools = append([]string(nil), p.Tools...)
	return &c
}
