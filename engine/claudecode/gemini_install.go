package claudecode

import (
	"encoding/json"
	"path/filepath"
)

// geminiCommand is a Gemini CLI hook command (its hooks reference,
// "Hook configuration"): a name, and the timeout in milliseconds.
type geminiCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Name    string `json:"name,omitempty"`
	Timeout int    `json:"timeout,omitempty"`
}

// GeminiResult is what InstallGemini did.
type GeminiResult struct {
	// Hooks is what happened to the hooks of .gemini/settings.json.
	Hooks *SettingsResult `json:"hooks"`
	// MCP is what happened to its mcpServers.recite: "added", "updated"
	// (recite's own entry pointed at another program), "kept" (an entry
	// of the user's) or "present".
	MCP string `json:"mcp"`
}

// GeminiOptions configures InstallGemini.
type GeminiOptions struct {
	// Program is how Gemini CLI runs recite: "" for "recite" on PATH,
	// else an absolute path (`init --absolute`).
	Program string
}

// InstallGemini wires recite into Gemini CLI for the project at dir
// (docs/agents.md#gemini-cli): recite's hooks (GeminiHookEvents, each
// running `recite hook gemini`, named "recite", with a 10,000 ms timeout)
// and its MCP server ({"command": "recite", "args": ["mcp"]} under
// mcpServers.recite) merged into .gemini/settings.json with the
// order-keeping merge of .claude/settings.json (MergeJSONFile): every
// other key, hook and server is kept. Gemini CLI runs a project's hooks
// only in a trusted folder (GeminiTrust). Errors: a settings file recite
// cannot merge into (*SettingsError naming it; the file is left
// untouched).
func InstallGemini(dir string, opts GeminiOptions) (*GeminiResult, error) {
	prog := "recite"
	if opts.Program != "" {
		prog = shellQuote(opts.Program)
	}
	hooks, err := installAgentHooks(dir, hookInstall{file: GeminiSettingsFile, marker: geminiDialect.marker, events: GeminiHookEvents,
		entry: func(command string) any {
			return geminiCommand{Type: "command", Command: command, Name: "recite", Timeout: geminiHookTimeout}
		}}, prog+" hook gemini", opts.Program != "")
	if err != nil {
		return nil, err
	}
	res := &GeminiResult{Hooks: hooks}
	program := opts.Program
	if program == "" {
		program = "recite"
	}
	want, err := marshalNoHTML(map[string]any{"command": program, "args": []string{"mcp"}})
	if err != nil {
		return nil, err
	}
	created, err := MergeJSONFile(filepath.Join(dir, filepath.FromSlash(GeminiSettingsFile)), GeminiSettingsFile, "mcpServers",
		func(servers map[string]json.RawMessage, set func(string, json.RawMessage)) error {
			cur, ok := servers["recite"]
			var e struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}
			own := ok && json.Unmarshal(cur, &e) == nil && reciteProgram(e.Command) && len(e.Args) == 1 && e.Args[0] == "mcp"
			switch {
			case !ok:
				set("recite", want)
				res.MCP = "added"
			case own && e.Command == program:
				res.MCP = "present"
			case own:
				set("recite", want)
				res.MCP = "updated"
			default:
				res.MCP = "kept"
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	res.Hooks.Created = res.Hooks.Created || created
	return res, nil
}

// GeminiTrust says what Gemini CLI 0.61 needs before it runs what
// InstallGemini wrote (docs/agents.md#trust-and-approval).
const GeminiTrust = "Gemini CLI runs a project's hooks and MCP servers only in a trusted folder: trust it when gemini asks (or add it to ~/.gemini/trustedFolders.json as TRUST_FOLDER; GEMINI_CLI_TRUST_WORKSPACE=true trusts it for one run). " +
	"The first run then warns once that the project's hooks are new and records them in ~/.gemini/trusted_hooks.json. Timeouts in " + GeminiSettingsFile + " are in milliseconds."
