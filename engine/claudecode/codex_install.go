package claudecode

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/recite-dev/recite/internal/fsutil"
)

// codexHookTimeout is the per-command timeout `init --codex` writes, in
// seconds (Codex's `timeout`, as Claude Code's).
const codexHookTimeout = 10

// CodexResult is what InstallCodex did.
type CodexResult struct {
	// Hooks is what happened to .codex/hooks.json (as InstallSettings
	// reports a settings file).
	Hooks *SettingsResult `json:"hooks"`
	// Config is .codex/config.toml, project-relative; MCP is what
	// happened to its [mcp_servers.recite] table: "added", "updated"
	// (recite's own table pointed at another program), "kept" (a table
	// of the user's, left alone) or "present".
	Config string `json:"config"`
	MCP    string `json:"mcp"`
	// ConfigCreated reports that config.toml did not exist.
	ConfigCreated bool `json:"config_created"`
}

// CodexOptions configures InstallCodex.
type CodexOptions struct {
	// Program is how Codex runs recite: "" for "recite" on PATH, else an
	// absolute path (`init --absolute`), quoted for the shell in the hook
	// commands.
	Program string
}

// InstallCodex wires recite into Codex CLI for the project at dir
// (docs/agents.md#codex-cli): recite's hooks (CodexHookEvents, each
// running `recite hook codex` with a 10 s timeout) merged into
// .codex/hooks.json in the shape Codex shares with Claude Code's settings
// (installAgentHooks: every other hook and key kept), and recite's MCP
// server added to .codex/config.toml as
//
//	[mcp_servers.recite]
//	command = "recite"
//	args = ["mcp"]
//
// appended to the file as text, so the user's comments and layout stay.
// A table recite wrote (its command a recite program, its args ["mcp"])
// gets the program in its command line when it differs; another table named
// recite is kept. Codex loads both files only in a trusted project and
// runs each hook only once the user has trusted it (CodexTrust). Errors:
// a hooks file recite cannot merge into, or a config.toml that is not
// valid TOML (*SettingsError, with its line and column; the file is left
// untouched).
func InstallCodex(dir string, opts CodexOptions) (*CodexResult, error) {
	prog := "recite"
	if opts.Program != "" {
		prog = shellQuote(opts.Program)
	}
	hooks, err := installAgentHooks(dir, hookInstall{file: CodexHooksFile, marker: codexDialect.marker, events: CodexHookEvents,
		entry: func(command string) any {
			return claudeCommand{Type: "command", Command: command, Timeout: codexHookTimeout}
		}}, prog+" hook codex", opts.Program != "")
	if err != nil {
		return nil, err
	}
	res := &CodexResult{Hooks: hooks, Config: CodexConfigFile}
	program := opts.Program
	if program == "" {
		program = "recite"
	}
	res.MCP, res.ConfigCreated, err = addCodexMCP(filepath.Join(dir, filepath.FromSlash(CodexConfigFile)), program)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// CodexTrust says what Codex CLI 0.169 needs before it runs what
// InstallCodex wrote (docs/agents.md#trust-and-approval): the project's
// .codex/ folder is read only in a trusted project, and each hook runs
// only once its exact definition is trusted (a changed command must be
// trusted again).
const CodexTrust = `Codex reads .codex/ only in a trusted project: trust it when codex asks, or run ` +
	"`codex exec --trust`" + ` once in it. Codex then runs each hook only after you trust it: open ` +
	"`/hooks`" + ` in codex (or answer its "Hooks need review" prompt) and trust recite's; until then they are skipped without a word. For automation that vets the hooks itself, ` +
	"`codex exec --dangerously-bypass-hook-trust`" + ` runs them untrusted.`

// codexTableHeader matches the header line of recite's MCP table:
// [mcp_servers.recite], quoted or not, with a comment after it.
var codexTableHeader = regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*(?:recite|"recite"|'recite')\s*\]\s*(?:#.*)?$`)

// addCodexMCP adds recite's MCP server table to the Codex config at path
// (created when missing) and says what it did.
func addCodexMCP(path, program string) (what string, created bool, err error) {
	src, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		created = true
	case err != nil:
		return "", false, &SettingsError{fmt.Errorf("read %s: %w", CodexConfigFile, err)}
	}
	// A map, not a struct: go-toml matches struct fields without regard
	// to case, and Codex reads keys exactly.
	var cfg map[string]any
	if err := toml.Unmarshal(src, &cfg); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return "", false, &SettingsError{fmt.Errorf("%s:%d:%d: invalid TOML: %s (left unchanged)", CodexConfigFile, line, col, de.Error())}
		}
		return "", false, &SettingsError{fmt.Errorf("%s: %v (left unchanged)", CodexConfigFile, err)}
	}
	table := fmt.Sprintf("[mcp_servers.recite]\ncommand = %s\nargs = [\"mcp\"]\n", tomlQuote(program))
	var out []byte
	cur, ok := codexServer(cfg)
	switch {
	case !ok:
		out = append([]byte(nil), src...)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		if len(bytes.TrimSpace(out)) > 0 {
			out = append(out, '\n')
		}
		out, what = append(out, table...), "added"
	case cur.Command == program && len(cur.Args) == 1 && cur.Args[0] == "mcp":
		return "present", false, nil
	case !reciteProgram(cur.Command) || len(cur.Args) != 1 || cur.Args[0] != "mcp":
		return "kept", false, nil
	default:
		var replaced bool
		if out, replaced = setTOMLCommand(src, codexTableHeader, tomlQuote(program)); !replaced {
			// Defined with dotted keys elsewhere: left as it is.
			return "kept", false, nil
		}
		what = "updated"
	}
	if err := toml.Unmarshal(out, &cfg); err != nil {
		return "", false, fmt.Errorf("%s: the merged file would not be valid TOML (left unchanged): %w", CodexConfigFile, err)
	}
	target, err := resolveLink(path)
	if err != nil {
		return "", false, fmt.Errorf("write %s: %w", CodexConfigFile, err)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return "", false, err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := fsutil.WriteFile(target, out, mode); err != nil {
		return "", false, fmt.Errorf("write %s: %w", CodexConfigFile, err)
	}
	return what, created, nil
}

// setTOMLCommand rewrites the command key of the table whose header
// line matches header to command (a TOML value), leaving every other line
// as it is; false when the header or its command line is not found.
func setTOMLCommand(src []byte, header *regexp.Regexp, command string) ([]byte, bool) {
	lines := strings.SplitAfter(string(src), "\n")
	in := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case header.MatchString(strings.TrimRight(l, "\r\n")):
			in = true
		case strings.HasPrefix(t, "["):
			in = false
		case in && codexCommandKey.MatchString(t):
			nl := l[len(strings.TrimRight(l, "\r\n")):]
			lines[i] = "command = " + command + nl
			return []byte(strings.Join(lines, "")), true
		}
	}
	return nil, false
}

// codexCommandKey matches a table's command key line.
var codexCommandKey = regexp.MustCompile(`^(?:command|"command"|'command')\s*=`)

// reciteProgram reports a command that is recite: bare, or a path whose
// last element is recite (or recite.exe).
func reciteProgram(cmd string) bool {
	base := cmd[strings.LastIndexAny(cmd, `/\`)+1:]
	return strings.TrimSuffix(base, ".exe") == "recite"
}

// tomlQuote is s as a TOML basic string: JSON's escapes are all TOML
// basic-string escapes (https://toml.io/en/v1.0.0#string).
func tomlQuote(s string) string {
	b, err := marshalNoHTML(s)
	if err != nil {
		return `""`
	}
	return string(b)
}

// codexMCPEntry is the part of an [mcp_servers.recite] table recite reads.
type codexMCPEntry struct {
	Command string
	Args    []string
}

// codexServer is the recite entry of a parsed Codex configuration; ok is
// false when it has none.
func codexServer(cfg map[string]any) (codexMCPEntry, bool) {
	servers, _ := cfg["mcp_servers"].(map[string]any)
	raw, ok := servers["recite"]
	if !ok {
		return codexMCPEntry{}, false
	}
	var e codexMCPEntry
	t, _ := raw.(map[string]any)
	e.Command, _ = t["command"].(string)
	args, _ := t["args"].([]any)
	for _, a := range args {
		s, _ := a.(string)
		e.Args = append(e.Args, s)
	}
	return e, true
}
