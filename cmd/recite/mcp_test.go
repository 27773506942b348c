package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// reciteBin is the recite command testscript.Main put on PATH: this test
// binary, which runs run() when started as "recite".
func reciteBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("recite")
	if err != nil {
		t.Fatalf("recite is not on PATH (testscript.Main puts it there): %v", err)
	}
	return bin
}

// copyExample copies examples/NAME into a temp dir.
func copyExample(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	if err := sharedtest.CopyTree(filepath.Join(sharedtest.ModuleRoot(), "examples", name), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestMCPSubprocess starts `recite mcp -C DIR` as a process and talks to
// it over its stdin and stdout with the SDK client: it lists the tools,
// calls recitation and stop_signals, and reads a resource.
func TestMCPSubprocess(t *testing.T) {
	dir := copyExample(t, "fire")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(reciteBin(t), "mcp", "-C", dir)
	c := sdk.NewClient(&sdk.Implementation{Name: "subprocess-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close() }()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "files preserve prompt recitation record stop_signals verify_summary" {
		t.Errorf("tools: %v", names)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "stop_signals", Arguments: map[string]any{"kinds": []string{"circuit_breaker"}}})
	if err != nil || res.IsError {
		t.Fatalf("stop_signals: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `"kind":"circuit_breaker"`) || !strings.Contains(string(b), `"health":"BLOCKED"`) {
		t.Errorf("stop_signals: %s", b)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "recitation", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("recitation: %v %+v", err, res)
	}
	uri := "file://" + filepath.ToSlash(filepath.Join(dir, ".planning", "prompts", "agent.md"))
	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "## Recitation") {
		t.Fatalf("read %s: %v", uri, err)
	}
}

// TestMCPSubprocessBadInput writes raw lines to the process: a line that
// is not JSON gets a parse error, the server answers the next request, and
// it exits 0 when stdin closes.
func TestMCPSubprocessBadInput(t *testing.T) {
	dir := copyExample(t, "gsd")
	cmd := exec.Command(reciteBin(t), "mcp", "-C", dir, "--no-watch")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	next := func() map[string]any {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("no answer: %v", sc.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %q", sc.Text())
		}
		return m
	}
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	if m := next(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	_, _ = io.WriteString(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n{oops\n")
	if m := next(); m["error"].(map[string]any)["code"] != -32700.0 {
		t.Errorf("parse error: %v", m)
	}
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"files","arguments":{"why":"../../etc/passwd"}}}`+"\n")
	if m := next(); m["result"].(map[string]any)["isError"] != true {
		t.Errorf("path outside the project: %v", m)
	}
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n")
	if m := next(); m["id"] != 3.0 || m["error"] != nil {
		t.Errorf("ping after bad input: %v", m)
	}
	_ = in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("recite mcp after stdin closed: %v", err)
	}
}

// inspectorVersion is the MCP Inspector release .ci/run installs.
const inspectorVersion = "0.22.0"

// TestMCPInspector drives `recite mcp` with a client nobody here wrote, the
// MCP Inspector's CLI mode, on a copy of a real planning tree: it lists the
// tools and calls each of them. It needs node and the
// Inspector: MCP_INSPECTOR names its mcp-inspector script (.ci/run sets it),
// else mcp-inspector on PATH.
func TestMCPInspector(t *testing.T) {
	insp := os.Getenv("MCP_INSPECTOR")
	if insp == "" {
		insp, _ = exec.LookPath("mcp-inspector")
	}
	if insp == "" {
		t.Skip("the MCP Inspector is not installed: npm install --prefix DIR @modelcontextprotocol/inspector@" + inspectorVersion + " and set MCP_INSPECTOR=DIR/node_modules/.bin/mcp-inspector (.ci/run does)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed; the MCP Inspector needs it")
	}
	// ServicImmo's planning tree holds open stop signals (40 when this
	// was written), so stop_signals has something to return.
	const withSignals = "calhotellier-dot__ServicImmo"
	trees := sharedtest.Trees(t)
	tree := trees[0]
	for _, tr := range trees {
		if tr.Name == withSignals {
			tree = tr
		}
	}
	dir := t.TempDir()
	if err := sharedtest.CopyTree(tree.Root, dir); err != nil {
		t.Fatal(err)
	}
	bin := reciteBin(t)
	inspect := func(args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, insp, append([]string{"--cli", bin, "mcp", "-C", dir, "--no-watch"}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("mcp-inspector %v: %v\n%s\n%s", args, err, out, stderr)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("mcp-inspector %v printed %q: %v", args, out, err)
		}
		return m
	}
	var names []string
	for _, tool := range inspect("--method", "tools/list")["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "files preserve prompt recitation record stop_signals verify_summary" {
		t.Errorf("%s: tools %v", tree.Name, names)
	}
	rec := inspect("--method", "tools/call", "--tool-name", "recitation")
	if rec["isError"] == true || !strings.Contains(rec["structuredContent"].(map[string]any)["text"].(string), "### Task") {
		t.Errorf("%s: recitation: %v", tree.Name, rec)
	}
	sig := inspect("--method", "tools/call", "--tool-name", "stop_signals", "--tool-arg", "limit=5")
	sc, _ := sig["structuredContent"].(map[string]any)
	if sig["isError"] == true || sc == nil || sc["health"] == "" || sc["signals"] == nil {
		t.Fatalf("%s: stop_signals: %v", tree.Name, sig)
	}
	if n := len(sc["signals"].([]any)); tree.Name == withSignals && (n != 5 || sc["total"].(float64) <= 5) {
		t.Errorf("%s: stop_signals limit=5 gave %d of %v", tree.Name, n, sc["total"])
	}
	// The other tools, each with the fields its result must carry.
	for _, call := range []struct {
		args []string
		want []string
	}{
		{[]string{"--tool-name", "files", "--tool-arg", "limit=3"}, []string{"files", "total"}},
		{[]string{"--tool-name", "prompt", "--tool-arg", "provider=anthropic"}, []string{"body", "bytes", "target"}},
		{[]string{"--tool-name", "record", "--tool-arg", "conversation=inspector", "--tool-arg", "kind=error",
			"--tool-arg", "text=make: *** [all] Error 2", "--tool-arg", "command=make", "--tool-arg", "create=true"}, []string{"conversation", "records", "created"}},
		{[]string{"--tool-name", "preserve"}, []string{"block", "path", "signals"}},
		{[]string{"--tool-name", "verify_summary", "--tool-arg", "summary=We fixed everything."}, []string{"checked", "lost", "reinject"}},
	} {
		res := inspect(append([]string{"--method", "tools/call"}, call.args...)...)
		sc, _ := res["structuredContent"].(map[string]any)
		for _, k := range call.want {
			if _, ok := sc[k]; res["isError"] == true || !ok {
				t.Errorf("%s: %s: no %q in %v", tree.Name, call.args[1], k, res)
				break
			}
		}
	}
}
