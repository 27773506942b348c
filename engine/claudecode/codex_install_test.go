package claudecode_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/recite-dev/recite/engine/claudecode"
)

// FuzzInstallCodex: whatever .codex/config.toml holds, InstallCodex either
// refuses it and leaves it untouched, or leaves valid TOML that starts
// recite's MCP server (or keeps a server of the user's named recite), and
// every line of the file before stays.
func FuzzInstallCodex(f *testing.F) {
	for _, s := range []string{
		"", "# mine\nmodel = \"o3\"\n", "[mcp_servers.recite]\ncommand = \"/old/recite\"\nargs = [\"mcp\"]\nenv = { A = \"1\" }\n",
		"[mcp_servers.recite]\ncommand = \"node\"\nargs = [\"x\"]\n", "[mcp_servers]\nrecite = { command = \"recite\", args = [\"mcp\"] }\n",
		"model = \"o3\"\n[mcp_servers\n", "[mcp_servers.'recite'] # ours\n\"command\" = 'recite'\nargs = ['mcp']\n[other]\nx = 1\n",
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, src string, absolute bool) {
		dir := t.TempDir()
		p := filepath.Join(dir, ".codex", "config.toml")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		opts := claudecode.CodexOptions{}
		if absolute {
			opts.Program = "/opt/bin/recite"
		}
		res, err := claudecode.InstallCodex(dir, opts)
		got, rerr := os.ReadFile(p)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			if string(got) != src {
				t.Fatalf("refused (%v) but changed the file:\n%s", err, got)
			}
			return
		}
		var cfg map[string]any
		if err := toml.Unmarshal(got, &cfg); err != nil {
			t.Fatalf("left invalid TOML (%s): %v\n%s", res.MCP, err, got)
		}
		for _, l := range strings.Split(src, "\n") {
			if !strings.Contains(string(got), strings.TrimSpace(l)) && !strings.Contains(l, "command") {
				t.Fatalf("line %q lost:\n%s", l, got)
			}
		}
		servers, _ := cfg["mcp_servers"].(map[string]any)
		if _, ok := servers["recite"]; !ok {
			t.Fatalf("no recite server (%s):\n%s", res.MCP, got)
		}
	})
}
