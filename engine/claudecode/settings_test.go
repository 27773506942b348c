package claudecode

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func readSettings(t *testing.T, dir string) (string, map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("settings not JSON: %v\n%s", err, b)
	}
	return string(b), m
}

// reciteGroups returns, per event, the groups that run recite's hook.
func reciteGroups(m map[string]any) map[string]int {
	out := map[string]int{}
	hooks, _ := m["hooks"].(map[string]any)
	for ev, v := range hooks {
		groups, _ := v.([]any)
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			hs, _ := gm["hooks"].([]any)
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				if hm["type"] == "command" && hm["command"] == HookCommand && hm["timeout"] == float64(claudeHookTimeout) {
					out[ev]++
				}
			}
		}
	}
	return out
}

func TestInitClaudeCreates(t *testing.T) {
	dir := t.TempDir()
	res, err := InstallHooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || len(res.Added) != len(HookEvents) {
		t.Errorf("result %+v", res)
	}
	_, m := readSettings(t, dir)
	got := reciteGroups(m)
	for _, ev := range HookEvents {
		if got[ev.Event] != 1 {
			t.Errorf("%s: %d recite groups, want 1", ev.Event, got[ev.Event])
		}
	}
	// Tool events match every tool; the others omit the matcher.
	hooks := m["hooks"].(map[string]any)
	if g := hooks["PostToolUse"].([]any)[0].(map[string]any); g["matcher"] != "*" {
		t.Errorf("PostToolUse group %v", g)
	}
	if g := hooks["SessionStart"].([]any)[0].(map[string]any); g["matcher"] != nil {
		t.Errorf("SessionStart group %v", g)
	}
}

func TestInitClaudeMergesAndIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	user := `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {"allow": ["Bash(npm run lint)"], "deny": ["Read(./.env)"]},
  "env": {"FOO": "<bar> & baz"},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "npx prettier --write \"$FILE\" && echo ok"}]}
    ],
    "SessionStart": [
      {"matcher": "startup", "hooks": [{"type": "command", "command": "recite -C \"$CLAUDE_PROJECT_DIR\" hook claude-code"}]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send claude"}]}]
  },
  "futureSetting": {"nested": [1, 2.50, null]}
}
`
	path := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := InstallHooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	// SessionStart already runs recite (with its own flags): left alone.
	if res.Created || slices.Contains(res.Added, "SessionStart") || len(res.Added) != len(HookEvents)-1 {
		t.Errorf("result %+v", res)
	}
	text, m := readSettings(t, dir)
	var before map[string]any
	if err := json.Unmarshal([]byte(user), &before); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"$schema", "permissions", "env", "futureSetting"} {
		a, _ := json.Marshal(before[k])
		b, _ := json.Marshal(m[k])
		if string(a) != string(b) {
			t.Errorf("%s changed: %s -> %s", k, a, b)
		}
	}
	hooks := m["hooks"].(map[string]any)
	post := hooks["PostToolUse"].([]any)
	if len(post) != 2 || post[0].(map[string]any)["matcher"] != "Write|Edit" {
		t.Errorf("user's PostToolUse group not kept first: %v", post)
	}
	if len(hooks["SessionStart"].([]any)) != 1 || hooks["Notification"] == nil {
		t.Errorf("hooks %v", hooks)
	}
	// Key order and text kept: no HTML escaping, numbers as written.
	for _, want := range []string{`"<bar> & baz"`, `&& echo ok`, `2.50`} {
		if !strings.Contains(text, want) {
			t.Errorf("settings lost %s:\n%s", want, text)
		}
	}
	if i, j := strings.Index(text, `"$schema"`), strings.Index(text, `"futureSetting"`); i < 0 || j < i {
		t.Errorf("key order changed:\n%s", text)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}

	// Twice: nothing changes, the file is not rewritten (its mtime, set an
	// hour back, stays: a rewrite would show whatever the clock's grain).
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	fi1, _ := os.Stat(path)
	res, err = InstallHooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	text2, _ := readSettings(t, dir)
	fi2, _ := os.Stat(path)
	if len(res.Added) != 0 || text2 != text || !fi2.ModTime().Equal(fi1.ModTime()) {
		t.Errorf("second run changed the file: %+v", res)
	}
}

func TestInitClaudeBadFiles(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"invalid JSON", `{"hooks": {`, "invalid JSON"},
		{"trailing data", `{} {}`, ".claude/settings.json:1:4: invalid JSON: invalid character '{' after top-level value"},
		{"not an object", `[1, 2]`, "not a JSON object"},
		{"hooks not an object", `{"hooks": []}`, `"hooks": not a JSON object`},
		{"event not an array", `{"hooks": {"Stop": {"command": "x"}}}`, "hooks.Stop must be an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ".claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := InstallHooks(dir)
			var ie *SettingsError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), ".claude/settings.json") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want a SettingsError naming the file with %q", err, tt.want)
			}
			if b, _ := os.ReadFile(path); string(b) != tt.src {
				t.Errorf("file changed to %q", b)
			}
		})
	}
}

// TestInitClaudeEmptyFile: an empty settings file is filled in.
func TestInitClaudeEmptyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := InstallHooks(dir)
	if err != nil || len(res.Added) != len(HookEvents) {
		t.Fatalf("%+v %v", res, err)
	}
	_, m := readSettings(t, dir)
	if len(reciteGroups(m)) != len(HookEvents) {
		t.Errorf("%v", m)
	}
}

// TestInitClaudeSymlink: a settings file that is a symbolic link (a
// dotfiles repository) stays a link; the file it names gets the hooks.
func TestInitClaudeSymlink(t *testing.T) {
	dir := t.TempDir()
	dots := filepath.Join(dir, "dotfiles")
	if err := os.MkdirAll(dots, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dots, "claude-settings.json")
	if err := os.WriteFile(target, []byte(`{"model": "opus"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	// A relative link, resolved from the link's folder.
	if err := os.Symlink("../dotfiles/claude-settings.json", link); err != nil {
		t.Fatal(err)
	}
	res, err := InstallHooks(dir)
	if err != nil || len(res.Added) != len(HookEvents) {
		t.Fatalf("%+v, %v", res, err)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a link: %v %v", fi.Mode(), err)
	}
	b, _ := os.ReadFile(target)
	if !strings.Contains(string(b), `"model": "opus"`) || !strings.Contains(string(b), HookCommand) {
		t.Errorf("target:\n%s", b)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v, want 0600 kept", st.Mode().Perm())
	}
	// A link to a file that does not exist yet: the file is created.
	dir2 := t.TempDir()
	target2 := filepath.Join(t.TempDir(), "new.json")
	if err := os.MkdirAll(filepath.Join(dir2, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target2, filepath.Join(dir2, ".claude", "settings.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallHooks(dir2); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(target2); err != nil || !strings.Contains(string(b), HookCommand) {
		t.Errorf("dangling link's target: %v\n%s", err, b)
	}
}

// TestInitClaudeSyntaxErrorPosition: invalid JSON is reported as
// `.claude/settings.json:LINE:COL: invalid JSON: …` at the offending
// character (columns count characters, not bytes; the end of the input for
// a truncated file), and the file is left unchanged.
func TestInitClaudeSyntaxErrorPosition(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"trailing comma", "{\n  \"model\": \"opus\",\n}\n", ".claude/settings.json:3:1: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{"double comma", `{"a": [1, 2,, 3]}`, ".claude/settings.json:1:13: invalid JSON: invalid character ',' looking for beginning of value"},
		{"truncated", "{\"hooks\": {\n", ".claude/settings.json:1:12: invalid JSON: unexpected end of JSON input"},
		{"multibyte key", `{"é": 1 "b": 2}`, `.claude/settings.json:1:9: invalid JSON: invalid character '"' after object key:value pair`},
		{"trailing data", "{}\n {}", ".claude/settings.json:2:2: invalid JSON: invalid character '{' after top-level value"},
		{"CRLF", "{\r\n\"a\": 1,\r\n}", ".claude/settings.json:3:1: invalid JSON: invalid character '}' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ".claude", "settings.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := InstallHooks(dir)
			var ie *SettingsError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant prefix %s", err, tt.want)
			}
			if b, _ := os.ReadFile(path); string(b) != tt.src {
				t.Errorf("file changed to %q", b)
			}
		})
	}
}
