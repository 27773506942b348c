package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ServerName is the name agents list recite's server under.
const ServerName = "recite"

// Command is the program agents start; `recite` must be on their PATH
// (go install ./cmd/recite), as for the Claude Code hook.
const Command = "recite"

// ProjectEntry is recite's entry in a project's .mcp.json, the
// project-scoped server list Claude Code reads
// (https://code.claude.com/docs/en/mcp, "Project scope"): a stdio server
// started in the project, which `recite mcp` finds from Claude Code's roots
// or its working directory, so the committed file names no project path.
// program is the command ("" is Command, found on PATH; `init --absolute`
// passes this executable's absolute path).
func ProjectEntry(program string) json.RawMessage {
	return json.RawMessage(`{"type":"stdio","command":` + jsonString(cmpOr(program, Command)) + `,"args":["mcp"]}`)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Snippet is the configuration another agent needs to start recite's
// server, in that agent's documented format.
type Snippet struct {
	// Agent is the agent's name; File where the snippet goes; Doc the URL
	// of the documentation the format comes from.
	Agent string `json:"agent"`
	File  string `json:"file"`
	Doc   string `json:"doc"`
	// Text is the snippet, ready to paste.
	Text string `json:"text"`
}

// Snippets returns the snippets for Codex CLI, Cursor and Gemini CLI for
// the project at dir (absolute), starting program ("" is Command). Codex
// and Gemini read user-level files too, so their snippets pass -C dir;
// Cursor's project file uses its ${workspaceFolder} variable. (`recite
// init --codex` and `--gemini` write the project files themselves.)
func Snippets(dir, program string) []Snippet {
	program = cmpOr(program, Command)
	return []Snippet{
		{
			Agent: "Codex CLI", File: "~/.codex/config.toml",
			Doc: "https://developers.openai.com/codex/mcp",
			// TOML: a table per server with command and args
			// (https://github.com/openai/codex/blob/main/docs/config.md, "mcp_servers").
			Text: fmt.Sprintf("[mcp_servers.%s]\ncommand = %s\nargs = [%s, %s, %s]\n", ServerName, tomlString(program), tomlString("mcp"), tomlString("-C"), tomlString(dir)),
		},
		{
			Agent: "Cursor", File: ".cursor/mcp.json",
			Doc:  "https://cursor.com/docs/mcp",
			Text: jsonServers(program, `"${workspaceFolder}"`),
		},
		{
			Agent: "Gemini CLI", File: "~/.gemini/settings.json (or .gemini/settings.json in the project)",
			Doc:  "https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md",
			Text: jsonServers(program, jsonString(dir)),
		},
	}
}

// jsonServers is an mcpServers object with recite's stdio entry starting
// program, whose -C argument is project (a JSON string).
func jsonServers(program, project string) string {
	src := fmt.Sprintf(`{"mcpServers":{%s:{"command":%s,"args":["mcp","-C",%s]}}}`, jsonString(ServerName), jsonString(program), project)
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(src), "", "  "); err != nil {
		panic(err) // the parts are valid JSON strings
	}
	return b.String() + "\n"
}

// jsonString is s as a JSON string, without HTML escaping.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// tomlString is s as a TOML basic string: JSON's escapes (\" \\ \n \t
// \uXXXX …) are all TOML basic-string escapes (https://toml.io/en/v1.0.0#string).
func tomlString(s string) string { return jsonString(s) }
