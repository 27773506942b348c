package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/recite-dev/recite/internal/fsutil"
)

// SettingsFile is Claude Code's project settings file, relative to
// the project root.
const SettingsFile = ".claude/settings.json"

// HookCommand is the command `recite init --claude` installs.
const HookCommand = "recite hook claude-code"

// claudeHookTimeout is the per-command timeout written into the settings,
// in seconds (Claude Code's `timeout` field); the hook itself finishes
// within HookTimeout.
const claudeHookTimeout = 10

// HookEvents are the events recite handles, in the order they are
// added, with the matcher each group gets ("" omits it: every source,
// trigger or tool).
var HookEvents = []struct{ Event, Matcher string }{
	{"SessionStart", ""},
	{"UserPromptSubmit", ""},
	{"PostToolUse", "*"},
	{"PostToolUseFailure", "*"},
	{"PreCompact", ""},
	{"PostCompact", ""},
	{"Stop", ""},
}

// SettingsError is a settings file recite cannot merge into (unreadable,
// not a JSON object, or hooks of the wrong shape): an error in the user's
// input. Err names the file; the file is left unchanged.
type SettingsError struct{ Err error }

// Error is Err's message.
func (e *SettingsError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *SettingsError) Unwrap() error { return e.Err }

// SettingsResult is what InstallHooks did.
type SettingsResult struct {
	// Path is the settings file, project-relative.
	Path string `json:"path"`
	// Added are the events that gained recite's hook; empty when every
	// event already had it.
	Added []string `json:"added"`
	// Updated are the events whose recite hook was pointed at another
	// command (InstallSettings with Program).
	Updated []string `json:"updated,omitempty"`
	// Created reports that the file did not exist.
	Created bool `json:"created"`
	// StatusLine is what InstallSettings did with the statusLine entry:
	// "installed", "replaced" (a user's, with Force), "kept" (a user's,
	// left alone), "present" (recite's already) or "" (not asked).
	StatusLine string `json:"status_line,omitempty"`
	// StatusLineKept is the command of a user's status line left alone.
	StatusLineKept string `json:"status_line_kept,omitempty"`
}

// InstallHooks merges recite's hooks into the project's .claude/settings.json
// in Claude Code's documented schema:
//
//	{"hooks": {"EVENT": [{"matcher": "*", "hooks": [{"type": "command",
//	  "command": "recite hook claude-code", "timeout": 10}]}]}}
//
// An event whose groups already run a command containing "hook
// claude-code" is left alone, so running it twice changes nothing (the
// file is not rewritten). Every other key and hook, known or not, is kept
// with its value and the top-level and hooks key order; a rewrite
// re-indents with two spaces. A missing or empty file is created. An
// existing file that is not a JSON object, or whose hooks are not an object
// of arrays, is a *SettingsError naming the file, and the file is left
// untouched. Writes are atomic (fsutil.WriteFile); a settings file that is a
// symbolic link stays one, and the file it names is written.
func InstallHooks(dir string) (*SettingsResult, error) {
	return InstallSettings(dir, SettingsOptions{})
}

// installHooks is InstallHooks into the settings file file (relative to
// dir) with command as the hook's command; recite's hooks already there
// with another command are pointed at command (retargetHooks) when
// retarget is set.
func installHooks(dir, file, command string, retarget bool) (*SettingsResult, error) {
	return installAgentHooks(dir, hookInstall{file: file, marker: claudeDialect.marker, events: HookEvents,
		entry: func(command string) any {
			return claudeCommand{Type: "command", Command: command, Timeout: claudeHookTimeout}
		}}, command, retarget)
}

// hookInstall says how an agent's settings file gets recite's hooks: the
// file (project-relative), what a command contains to be recite's, the
// events with their matchers, and the hook object of a command.
type hookInstall struct {
	file   string
	marker string
	events []struct{ Event, Matcher string }
	entry  func(command string) any
}

// installAgentHooks merges recite's hooks into spec.file as installHooks
// describes, for any agent whose settings have Claude Code's shape
// ({"hooks": {EVENT: [{"matcher", "hooks": [...]}]}}: Codex CLI's
// hooks.json, Gemini CLI's settings.json).
func installAgentHooks(dir string, spec hookInstall, command string, retarget bool) (*SettingsResult, error) {
	file := spec.file
	path := filepath.Join(dir, filepath.FromSlash(file))
	res := &SettingsResult{Path: file, Added: []string{}}
	created, err := MergeJSONFile(path, file, "hooks", func(hooks map[string]json.RawMessage, set func(string, json.RawMessage)) error {
		for _, ev := range spec.events {
			var groups []json.RawMessage
			if raw, ok := hooks[ev.Event]; ok && string(bytes.TrimSpace(raw)) != "null" {
				if err := json.Unmarshal(raw, &groups); err != nil {
					return &SettingsError{fmt.Errorf("%s: hooks.%s must be an array of matcher groups (left unchanged)", file, ev.Event)}
				}
			}
			if hasReciteHook(groups, spec.marker) {
				if retarget {
					if changed, err := retargetHooks(groups, command, spec.marker); err != nil {
						return &SettingsError{fmt.Errorf("%s: hooks.%s: %v (left unchanged)", file, ev.Event, err)}
					} else if changed {
						set(ev.Event, joinArray(groups))
						res.Updated = append(res.Updated, ev.Event)
					}
				}
				continue
			}
			g := claudeGroup{Matcher: ev.Matcher, Hooks: []any{spec.entry(command)}}
			b, err := json.Marshal(g)
			if err != nil {
				return err
			}
			// Join by hand: json.Marshal would HTML-escape the user's
			// groups (`&&` → `\u0026\u0026`).
			groups = append(groups, b)
			set(ev.Event, joinArray(groups))
			res.Added = append(res.Added, ev.Event)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Created = created
	return res, nil
}

// MergeJSONFile merges into the object at key of the JSON settings file
// at path (name is how errors name the file, e.g. ".claude/settings.json"):
// edit gets that object's members and calls set for each member to add or
// replace; a replaced member keeps its position, a new one goes last.
// Every other key and value, known or not, is kept with its value and the
// key order of both objects; a rewrite re-indents with two spaces. When
// edit sets nothing the file is not rewritten. A missing or empty file,
// and a missing or null key, are an empty object; created reports the file
// did not exist.
//
// Errors: a file that cannot be read, that is not one JSON object (with
// line and column for invalid JSON), or whose key is not an object, is a
// *SettingsError naming the file, and the file is left untouched; edit's
// error is returned as it is, and nothing is written. Writes are atomic
// (fsutil.WriteFile) and keep the file's mode (0644 for a new file); a
// file that is a symbolic link stays one, and the file it names is
// written.
func MergeJSONFile(path, name, key string, edit func(members map[string]json.RawMessage, set func(string, json.RawMessage)) error) (created bool, err error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		created = true
	} else if err != nil {
		return false, &SettingsError{fmt.Errorf("read %s: %w", name, err)}
	}
	top := &jsonObject{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(src)) > 0 {
		top, err = parseJSONObject(src)
		if err != nil {
			if line, col, msg, ok := jsonSyntaxError(src); ok {
				return false, &SettingsError{fmt.Errorf("%s:%d:%d: invalid JSON: %s (left unchanged)", name, line, col, msg)}
			}
			return false, &SettingsError{fmt.Errorf("%s: %v (left unchanged)", name, err)}
		}
	}
	inner := &jsonObject{vals: map[string]json.RawMessage{}}
	if raw, ok := top.vals[key]; ok && string(bytes.TrimSpace(raw)) != "null" {
		inner, err = parseJSONObject(raw)
		if err != nil {
			return false, &SettingsError{fmt.Errorf("%s: %q: %v (left unchanged)", name, key, err)}
		}
	}
	changed := false
	if err := edit(maps.Clone(inner.vals), func(k string, v json.RawMessage) { inner.set(k, v); changed = true }); err != nil {
		return false, err
	}
	if !changed {
		return created, nil
	}
	ib, err := inner.marshal()
	if err != nil {
		return false, err
	}
	top.set(key, ib)
	out, err := top.marshal()
	if err != nil {
		return false, err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out, "", "  "); err != nil {
		return false, err
	}
	pretty.WriteByte('\n')
	// A symlinked settings file (dotfiles) stays a link: its target is
	// written, atomically in the target's own folder.
	target, err := resolveLink(path)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return false, err
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := fsutil.WriteFile(target, pretty.Bytes(), mode); err != nil {
		return false, fmt.Errorf("write %s: %w", name, err)
	}
	return created, nil
}

// resolveLink follows path's symbolic links (at most 40, as Linux does) to
// the file they name, which may not exist yet; a path that is not a link
// is returned as is. Errors: a link loop or an unreadable link.
func resolveLink(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		t, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(path), t)
		}
		path = t
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// claudeGroup and claudeCommand are Claude Code's matcher group and hook
// command (hooks reference, "Configuration").
type claudeGroup struct {
	Matcher string `json:"matcher,omitempty"`
	Hooks   []any  `json:"hooks"`
}

type claudeCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// hasReciteHook reports whether a group already runs recite's hook (a
// command containing marker).
func hasReciteHook(groups []json.RawMessage, marker string) bool {
	for _, raw := range groups {
		var g struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(raw, &g) != nil {
			continue
		}
		for _, h := range g.Hooks {
			if strings.Contains(h.Command, marker) {
				return true
			}
		}
	}
	return false
}

// jsonSyntaxError reports where src stops being valid JSON: the 1-based
// line and column (in characters; a CR LF ends a line once) of the
// offending character, from json.SyntaxError.Offset (the bytes read up to
// and including it), or the end of the input for a truncated document,
// and the decoder's message. ok is false when src is valid JSON.
func jsonSyntaxError(src []byte) (line, col int, msg string, ok bool) {
	var raw json.RawMessage
	err := json.Unmarshal(src, &raw)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return 0, 0, "", false
	}
	pos := int(se.Offset) - 1 // the offending byte
	if pos < 0 || pos >= len(src) || se.Offset >= int64(len(src)) && bytes.HasPrefix([]byte(se.Error()), []byte("unexpected end")) {
		// Truncated: just after the last character that is not space.
		pos = len(bytes.TrimRight(src, " \t\r\n"))
	}
	before := src[:pos]
	line = bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	col = utf8.RuneCount(before[start:]) + 1
	return line, col, se.Error(), true
}

// jsonObject is a JSON object that remembers its key order.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseJSONObject reads one JSON object (and nothing after it), keeping
// key order; a duplicate key keeps its first position and last value, as
// encoding/json would.
func parseJSONObject(src []byte) (*jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &jsonObject{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("invalid JSON: object key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("invalid JSON at key %q: %w", key, err)
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: data after the object")
	}
	return o, nil
}

func (o *jsonObject) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// marshal writes the object compactly in key order.
func (o *jsonObject) marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		var kb bytes.Buffer
		enc := json.NewEncoder(&kb)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(k); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(kb.Bytes(), "\n"))
		b.WriteByte(':')
		if err := json.Compact(&b, o.vals[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
