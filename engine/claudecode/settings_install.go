package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// LocalSettingsFile is Claude Code's personal project settings file,
// relative to the project root: not shared with the team, kept out of git
// (https://code.claude.com/docs/en/settings, "Settings files").
const LocalSettingsFile = ".claude/settings.local.json"

// StatusLineCommand is the status line command `recite init --claude
// --statusline` installs.
const StatusLineCommand = "recite statusline"

// SettingsOptions configures InstallSettings.
type SettingsOptions struct {
	// Local writes LocalSettingsFile instead of the team-shared
	// SettingsFile.
	Local bool
	// Program is how the settings run recite: "" for "recite" (found on
	// PATH), else an absolute path, quoted for the shell when it needs it.
	// Given, recite's hooks already in the file are pointed at it too.
	Program string
	// StatusLine installs recite's status line (`statusLine`), unless the
	// file has a status line of the user's; Force replaces that one.
	StatusLine, Force bool
}

// InstallSettings merges recite's hooks (InstallHooks) and, with
// opts.StatusLine, its status line into the project's settings file
// (SettingsFile, or LocalSettingsFile with opts.Local):
//
//	{"statusLine": {"type": "command", "command": "recite statusline"}}
//
// (https://code.claude.com/docs/en/statusline). A statusLine whose command
// is not recite's is left alone (StatusLine "kept") unless opts.Force;
// its other keys (padding) are kept either way. Errors: as InstallHooks; a
// statusLine that is not an object is a *SettingsError, and the file is
// left as the hooks step left it.
func InstallSettings(dir string, opts SettingsOptions) (*SettingsResult, error) {
	file := SettingsFile
	if opts.Local {
		file = LocalSettingsFile
	}
	prog := "recite"
	if opts.Program != "" {
		prog = shellQuote(opts.Program)
	}
	res, err := installHooks(dir, file, prog+" hook claude-code", opts.Program != "")
	if err != nil || !opts.StatusLine {
		return res, err
	}
	command := prog + " statusline"
	path := filepath.Join(dir, filepath.FromSlash(file))
	created, err := MergeJSONFile(path, file, "statusLine", func(sl map[string]json.RawMessage, set func(string, json.RawMessage)) error {
		var cur string
		if raw, ok := sl["command"]; ok {
			if json.Unmarshal(raw, &cur) != nil {
				return &SettingsError{fmt.Errorf("%s: statusLine.command must be a string (left unchanged)", file)}
			}
		}
		switch {
		case cur == command:
			res.StatusLine = "present"
			return nil
		case cur != "" && !isReciteStatusLine(cur) && !opts.Force:
			res.StatusLine, res.StatusLineKept = "kept", cur
			return nil
		case cur != "" && !isReciteStatusLine(cur):
			res.StatusLine = "replaced"
		default:
			res.StatusLine = "installed"
		}
		set("type", json.RawMessage(`"command"`))
		b, err := marshalNoHTML(command)
		if err != nil {
			return err
		}
		set("command", b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Created = res.Created || created
	return res, nil
}

// isReciteStatusLine reports whether a status line command is recite's.
func isReciteStatusLine(command string) bool {
	return strings.HasSuffix(strings.TrimSpace(command), " statusline") && strings.Contains(command, "recite")
}

// retargetHooks points every recite hook command of groups (one
// containing marker, "hook claude-code") at command, in place, keeping
// each group's and hook's other keys and their order; changed reports
// that one differed. Errors: a group or hook that is not a JSON object.
func retargetHooks(groups []json.RawMessage, command, marker string) (changed bool, err error) {
	cb, err := marshalNoHTML(command)
	if err != nil {
		return false, err
	}
	for i, raw := range groups {
		g, err := parseJSONObject(raw)
		if err != nil {
			return false, err
		}
		var hooks []json.RawMessage
		if json.Unmarshal(g.vals["hooks"], &hooks) != nil {
			continue
		}
		touched := false
		for j, hraw := range hooks {
			h, err := parseJSONObject(hraw)
			if err != nil {
				return false, err
			}
			var cur string
			if json.Unmarshal(h.vals["command"], &cur) != nil || !strings.Contains(cur, marker) || cur == command {
				continue
			}
			h.set("command", cb)
			if hooks[j], err = h.marshal(); err != nil {
				return false, err
			}
			touched = true
		}
		if !touched {
			continue
		}
		g.set("hooks", joinArray(hooks))
		if groups[i], err = g.marshal(); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// joinArray is the JSON array of elems, joined by hand: json.Marshal would
// HTML-escape the user's values (`&&` → `\u0026\u0026`).
func joinArray(elems []json.RawMessage) json.RawMessage {
	parts := make([][]byte, len(elems))
	for i, e := range elems {
		parts[i] = e
	}
	return append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']')
}

// marshalNoHTML is v as JSON without HTML escaping.
func marshalNoHTML(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// shellQuote is p as one word of a POSIX shell command (Claude Code runs
// hook and status line commands through the shell): as it is when it is
// made of safe characters, else in single quotes.
func shellQuote(p string) string {
	if p != "" && strings.IndexFunc(p, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%,=", r))
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
