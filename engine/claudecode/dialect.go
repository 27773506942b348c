package claudecode

import (
	"strings"
	"time"
)

// The agents whose hooks recite handles (docs/agents.md). Claude Code's
// hook protocol is the base; Codex CLI speaks it with a few differences
// (codex.go), and Gemini CLI's events map onto it (gemini.go).
const (
	// AgentCodex names Codex CLI on the records its hook appends.
	AgentCodex = "codex"
	// AgentGemini names Gemini CLI on the records its hook appends.
	AgentGemini = "gemini"
)

// HookAgents are the agents whose hook records recite writes (Agent,
// AgentCodex, AgentGemini): their turn records carry the hash of an error
// the session's tool messages already hold verbatim.
var HookAgents = []string{Agent, AgentCodex, AgentGemini}

// dialect is what differs between the agents that run recite's hook: how
// records and conversations are named, which settings files install the
// hook and in what unit their timeouts are, and how context is printed.
type dialect struct {
	// agent is the records' Agent and the conversation's agent type;
	// name the agent's name for people; prefix the conversation id's.
	agent, name, prefix string
	// provider is the assistant records' provider.
	provider string
	// command is the hook subcommand ("claude-code"), marker what a
	// settings entry's command contains to be recite's ("hook
	// claude-code").
	command, marker string
	// settings are the project-relative files whose hook entries give the
	// timeout (ConfiguredTimeout), unit the unit of their `timeout`, and
	// entryDefault the timeout of an entry without one.
	settings     []string
	unit         time.Duration
	entryDefault time.Duration
	// jsonOnly: the agent reads stdout as JSON only (Gemini CLI): every
	// output is one JSON object, `{}` when there is nothing to say.
	jsonOnly bool
}

var (
	claudeDialect = &dialect{agent: Agent, name: "Claude Code", prefix: "cc-", provider: "anthropic",
		command: "claude-code", marker: "hook claude-code", settings: []string{SettingsLocalFile, SettingsFile},
		unit: time.Second, entryDefault: ClaudeDefaultTimeout}
	codexDialect = &dialect{agent: AgentCodex, name: "Codex CLI", prefix: "codex-", provider: "openai",
		command: "codex", marker: "hook codex", settings: []string{CodexHooksFile},
		unit: time.Second, entryDefault: codexDefaultTimeout}
	geminiDialect = &dialect{agent: AgentGemini, name: "Gemini CLI", prefix: "gemini-", provider: "google",
		command: "gemini", marker: "hook gemini", settings: []string{GeminiSettingsFile},
		unit: time.Millisecond, entryDefault: geminiDefaultTimeout, jsonOnly: true}
)

// dialectOf is the dialect of an agent name ("" and unknown names are
// Claude Code's).
func dialectOf(agent string) *dialect {
	switch agent {
	case AgentCodex:
		return codexDialect
	case AgentGemini:
		return geminiDialect
	}
	return claudeDialect
}

// conversationID is the conversation of a session of d: d.prefix + the
// session id, every character outside [A-Za-z0-9._-] replaced by "-", cut
// to the 128 characters a conversation id may have; "" for an empty
// session id.
func (d *dialect) conversationID(sessionID string) string {
	if sessionID == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(d.prefix)
	for _, r := range sessionID {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
		if b.Len() >= 128 {
			break
		}
	}
	return b.String()
}

// canonicalTools are other agents' tool names for Claude Code's, for
// what the hook decides from a tool's name (edits, reads, change
// attempts). The records keep the agent's own name.
var canonicalTools = map[string]string{
	// Gemini CLI (docs/tools of google-gemini/gemini-cli).
	"run_shell_command": "Bash", "write_file": "Write", "replace": "Edit",
	"read_file": "Read", "read_many_files": "Read", "list_directory": "LS", "glob": "Glob",
	"search_file_content": "Grep", "grep_search": "Grep", "google_web_search": "WebSearch", "web_fetch": "WebFetch",
	"save_memory": "TodoWrite", "write_todos": "TodoWrite",
	// Codex CLI's own names, as its transcripts give them (its hooks say
	// Bash).
	"exec_command": "Bash", "shell": "Bash",
}

// canonicalTool is Claude Code's name for an agent's tool name (name
// itself when it has none).
func canonicalTool(name string) string {
	if c, ok := canonicalTools[name]; ok {
		return c
	}
	return name
}
