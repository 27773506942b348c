package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recite-dev/recite/engine/mcp"
)

// tree lists every file under dir with its size and modification time, so
// a test can tell that nothing was written.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestBadArguments sends every class of bad tool call through the SDK
// client: each is answered (an unknown tool with JSON-RPC -32602, the
// others with an isError result naming the problem), nothing is written,
// and the server answers the next call.
func TestBadArguments(t *testing.T) {
	dir := example(t, "gsd")
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out": outside, "outfile": filepath.Join(outside, "secret.txt"), "dangling": filepath.Join(outside, "gone")} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	s := connect(t, mcp.Options{Dir: dir, NoWatch: true}, nil, nil)
	var warm mcp.RecitationOutput
	s.ok("recitation", map[string]any{}, &warm) // creates the redaction key and caches once
	before := tree(t, dir)

	_, err := s.CallTool(t.Context(), &sdk.CallToolParams{Name: "no_such_tool"})
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, `unknown tool "no_such_tool"`) {
		t.Errorf("unknown tool: %v", err)
	}
	cases := []struct {
		name, tool string
		args       any
		want       string
	}{
		{"missing required", "record", map[string]any{"conversation": "c", "text": "x"}, `missing properties: ["kind"]`},
		{"unknown property", "recitation", map[string]any{"targt": "agent"}, "targt"},
		{"wrong type", "stop_signals", map[string]any{"limit": "ten"}, "limit"},
		{"negative limit", "files", map[string]any{"limit": -1}, "minimum"},
		{"unknown kind", "stop_signals", map[string]any{"kinds": []string{"warning"}}, "warning"},
		{"unknown enum", "record", map[string]any{"conversation": "c", "kind": "note", "text": "x"}, "note"},
		{"unknown provider", "prompt", map[string]any{"provider": "xml"}, "xml"},
		{"unknown trigger", "preserve", map[string]any{"trigger": "later"}, "later"},
		{"empty summary", "verify_summary", map[string]any{"summary": ""}, "minLength"},
		{"blank summary", "verify_summary", map[string]any{"summary": "  \n"}, "summary: empty"},
		{"id traversal", "record", map[string]any{"conversation": "../x", "kind": "message", "text": "x", "create": true}, "does not match"},
		{"id dot", "record", map[string]any{"conversation": "..", "kind": "message", "text": "x", "create": true}, "does not match"},
		{"id too long", "record", map[string]any{"conversation": strings.Repeat("a", 129), "kind": "message", "text": "x", "create": true}, "does not match"},
		{"role on error", "record", map[string]any{"conversation": "c", "kind": "error", "role": "user", "text": "x", "create": true}, "role"},
		{"command on message", "record", map[string]any{"conversation": "c", "kind": "message", "command": "ls", "text": "x", "create": true}, "only for an error"},
		{"blank text", "record", map[string]any{"conversation": "c", "kind": "message", "text": " ", "create": true}, "text: empty"},
		{"absolute path", "files", map[string]any{"why": "/etc/passwd"}, "outside the project"},
		{"dotdot path", "files", map[string]any{"why": "../x"}, "outside the project"},
		{"dotdot inside", "files", map[string]any{"why": "a/../../x"}, "outside the project"},
		{"include outside", "files", map[string]any{"include": []string{"../x"}}, "outside the project"},
		{"backslash", "files", map[string]any{"why": `a\b`}, "backslash"},
		{"symlinked dir", "files", map[string]any{"why": "out/secret.txt"}, "resolves outside the project through a symbolic link"},
		{"symlinked file", "files", map[string]any{"why": "outfile"}, "resolves outside"},
		{"dangling link", "files", map[string]any{"why": "dangling"}, "resolves outside"},
		{"symlinked include", "files", map[string]any{"include": []string{"out/secret.txt"}}, "resolves outside"},
		{"unknown target", "prompt", map[string]any{"target": "nope", "provider": "markdown"}, `unknown target "nope"`},
		{"unknown recitation target", "recitation", map[string]any{"target": "nope"}, `unknown target "nope"`},
		{"arguments not an object", "recitation", []int{1}, "arguments"},
	}
	for _, c := range cases {
		res := s.call(c.tool, c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s: isError=%v %q, want an error containing %q", c.name, res.IsError, text(res), c.want)
		}
	}
	if after := tree(t, dir); after != before {
		t.Errorf("bad input wrote files:\nbefore\n%s\nafter\n%s", before, after)
	}
	var rec mcp.RecitationOutput
	s.ok("recitation", map[string]any{}, &rec)
	if rec.Text != warm.Text {
		t.Errorf("recitation changed after bad input")
	}
}

// TestBadFrames writes raw lines to the stdio transport: text that is not
// JSON, batches, non-objects, a wrong version, a bad id, an unknown method,
// malformed params and an over-long line each get their JSON-RPC error,
// and the server keeps answering.
func TestBadFrames(t *testing.T) {
	dir := example(t, "gsd")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- mcp.Serve(ctx, inR, outW, mcp.Options{Dir: dir, Open: mcp.OpenProject, NoWatch: true})
		_ = outW.Close()
	}()
	defer func() {
		_ = inW.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	lines := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("server wrote a line that is not JSON: %q", sc.Text())
			}
			lines <- m
		}
		close(lines)
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		select {
		case m := <-lines:
			return m
		case <-time.After(30 * time.Second):
			t.Fatal("no answer")
		}
		return nil
	}
	expect := func(name string, id any, code float64, sub string) {
		t.Helper()
		m := next()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != code || m["id"] != id || !strings.Contains(fmt.Sprint(e["message"]), sub) {
			t.Errorf("%s: got %v, want error %v with id %v containing %q", name, m, code, id, sub)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := next(); m["id"] != 1.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`this is not json`)
	expect("not JSON", nil, -32700, "parse error")
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"`)
	expect("truncated JSON", nil, -32700, "parse error")
	send(`[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`)
	expect("batch", nil, -32600, "batches are not supported")
	send(`42`)
	expect("number", nil, -32600, "JSON object")
	send(`{"id":4,"method":"tools/list"}`)
	expect("no version", 4.0, -32600, `"jsonrpc" must be "2.0"`)
	send(`{"jsonrpc":"1.0","id":"five","method":"tools/list"}`)
	expect("wrong version", "five", -32600, `"jsonrpc" must be "2.0"`)
	send(`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`)
	expect("object id", nil, -32600, "invalid")
	send(`{"jsonrpc":"2.0","id":6,"method":"no/such/method"}`)
	expect("unknown method", 6.0, -32601, "")
	send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"recitation"}`)
	expect("params not an object", 7.0, -32602, "")
	send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope"}}`)
	expect("unknown tool", 8.0, -32602, "unknown tool")
	send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"record","arguments":{"x":` + strings.Repeat(" ", mcp.MaxFrame) + `1}}}`)
	expect("over-long line", nil, -32600, "longer than")
	send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"recitation","arguments":{}}}`)
	m := next()
	res, _ := m["result"].(map[string]any)
	if m["id"] != 10.0 || res == nil || res["isError"] == true {
		t.Errorf("recitation after bad frames: %v", m)
	}
}
