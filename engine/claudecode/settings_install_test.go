package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s not JSON: %v\n%s", path, err, b)
	}
	return m
}

// TestInstallSettingsLocal: --local writes the personal settings file and
// leaves the shared one alone.
func TestInstallSettingsLocal(t *testing.T) {
	dir := t.TempDir()
	res, err := InstallSettings(dir, SettingsOptions{Local: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != LocalSettingsFile || !res.Created || len(res.Added) != len(HookEvents) {
		t.Errorf("result %+v", res)
	}
	if got := reciteGroups(readJSON(t, filepath.Join(dir, ".claude", "settings.local.json"))); len(got) != len(HookEvents) {
		t.Errorf("recite groups %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, SettingsFile)); !os.IsNotExist(err) {
		t.Errorf("the shared settings were written: %v", err)
	}
}

// TestInstallSettingsStatusLine: the status line is installed beside the
// hooks; a user's own is kept unless Force, its other keys kept either
// way; a second run changes nothing.
func TestInstallSettingsStatusLine(t *testing.T) {
	statusLine := func(t *testing.T, dir string) map[string]any {
		sl, _ := readJSON(t, filepath.Join(dir, SettingsFile))["statusLine"].(map[string]any)
		return sl
	}
	t.Run("installed, then present", func(t *testing.T) {
		dir := t.TempDir()
		res, err := InstallSettings(dir, SettingsOptions{StatusLine: true})
		if err != nil || res.StatusLine != "installed" || !res.Created {
			t.Fatalf("result %+v, %v", res, err)
		}
		if sl := statusLine(t, dir); sl["type"] != "command" || sl["command"] != StatusLineCommand {
			t.Errorf("statusLine %v", sl)
		}
		before, _ := os.ReadFile(filepath.Join(dir, SettingsFile))
		res, err = InstallSettings(dir, SettingsOptions{StatusLine: true})
		if err != nil || res.StatusLine != "present" || len(res.Added) != 0 {
			t.Fatalf("second run %+v, %v", res, err)
		}
		after, _ := os.ReadFile(filepath.Join(dir, SettingsFile))
		if string(before) != string(after) {
			t.Error("a second run rewrote the file")
		}
	})
	user := `{"statusLine": {"type": "command", "command": "~/.claude/statusline.sh && echo ok", "padding": 2}}`
	t.Run("a user's kept", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, SettingsFile), user)
		res, err := InstallSettings(dir, SettingsOptions{StatusLine: true})
		if err != nil || res.StatusLine != "kept" || res.StatusLineKept != "~/.claude/statusline.sh && echo ok" {
			t.Fatalf("result %+v, %v", res, err)
		}
		if sl := statusLine(t, dir); sl["command"] != "~/.claude/statusline.sh && echo ok" {
			t.Errorf("statusLine %v", sl)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, SettingsFile)); !strings.Contains(string(b), "&& echo ok") {
			t.Errorf("the user's command was escaped:\n%s", b)
		}
	})
	t.Run("a user's replaced with Force", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, SettingsFile), user)
		res, err := InstallSettings(dir, SettingsOptions{StatusLine: true, Force: true})
		if err != nil || res.StatusLine != "replaced" {
			t.Fatalf("result %+v, %v", res, err)
		}
		if sl := statusLine(t, dir); sl["command"] != StatusLineCommand || sl["padding"] != float64(2) {
			t.Errorf("statusLine %v", sl)
		}
	})
	t.Run("not an object", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, SettingsFile), `{"statusLine": "echo hi"}`)
		if _, err := InstallSettings(dir, SettingsOptions{StatusLine: true}); err == nil || !strings.Contains(err.Error(), `"statusLine"`) {
			t.Errorf("error %v", err)
		}
	})
}

// TestInstallSettingsProgram: an absolute program path names every
// command, quoted when it needs it, and points recite's existing hooks
// at it, keeping the other keys of their groups.
func TestInstallSettingsProgram(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, SettingsFile), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "recite hook claude-code", "timeout": 5}], "matcher": ""}]}}`)
	prog := "/opt/my tools/recite"
	res, err := InstallSettings(dir, SettingsOptions{Program: prog, StatusLine: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Updated, []string{"Stop"}) || len(res.Added) != len(HookEvents)-1 {
		t.Errorf("result %+v", res)
	}
	b, _ := os.ReadFile(filepath.Join(dir, SettingsFile))
	want := `'/opt/my tools/recite' hook claude-code`
	if n := strings.Count(string(b), `"command": "`+want+`"`); n != len(HookEvents) {
		t.Errorf("%d commands %q, want %d:\n%s", n, want, len(HookEvents), b)
	}
	if !strings.Contains(string(b), `"timeout": 5`) || !strings.Contains(string(b), `"command": "'/opt/my tools/recite' statusline"`) {
		t.Errorf("settings:\n%s", b)
	}
	if got := shellQuote("/usr/local/bin/recite"); got != "/usr/local/bin/recite" {
		t.Errorf("shellQuote %q", got)
	}
	if got := shellQuote("/it's/recite"); got != `'/it'\''s/recite'` {
		t.Errorf("shellQuote %q", got)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
