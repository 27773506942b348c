// Package enginetest holds test helpers shared by the tests of package
// engine and its subpackages: test projects copied from examples/ with a
// fixed redaction key, a Claude Code session log of any length, and a
// project holding a planted secret. It is for tests only and imports no
// package of this module that imports engine.
package enginetest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/internal/gitstore/gittest"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// TestRedactKey is the placeholder key CopyTree gives every test project,
// so golden prompt files do not change with a random key.
const TestRedactKey = "7265636974652d676f6c64656e2d6b65792d3031323334353637383961626364\n"

// WriteTestRedactKey writes TestRedactKey as dir's redaction key file
// (.planning/.recite/redact.key, mode 0600).
func WriteTestRedactKey(tb testing.TB, dir string) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(layout.CacheDir+"/redact.key"))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(TestRedactKey), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// CopyTree copies src into a new temp dir and returns it. Generated prompt
// files and caches are left out; the copy gets TestRedactKey.
func CopyTree(tb testing.TB, src string) string {
	tb.Helper()
	dst := tb.TempDir()
	if err := sharedtest.CopyTree(src, dst); err != nil {
		tb.Fatal(err)
	}
	WriteTestRedactKey(tb, dst)
	return dst
}

// Example is the path of examples/NAME in this module.
func Example(name string) string {
	return filepath.Join(sharedtest.ModuleRoot(), "examples", name)
}

// Project writes a project with .planning/recite.yaml holding yaml and the
// given extra files (project-relative slash path → content) into a temp
// dir and returns it.
func Project(tb testing.TB, yaml string, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	write(".planning/recite.yaml", yaml)
	for rel, text := range files {
		write(rel, text)
	}
	return dir
}

// HookProject copies examples/fire into a temp dir and makes it a git
// repository with everything committed.
func HookProject(tb testing.TB) string {
	tb.Helper()
	dir := CopyTree(tb, Example("fire"))
	gittest.CommitAll(tb, dir)
	return dir
}

// WriteBigLog appends a generated conversation of n records (prompts, tool
// calls, tool results of which a third are errors, assistant text and
// iteration records; about 260 bytes a line) to the hook session's log in
// dir, as a long Claude Code session leaves it.
func WriteBigLog(t testing.TB, dir string, n int) {
	t.Helper()
	p := filepath.Join(dir, ".planning", "conversations", "cc-abc123.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString(`{"id":"00META","conversation":"cc-abc123","kind":"meta","ts":"2026-01-01T00:00:00Z","meta":{"agent_type":"claude-code","title":"big"}}` + "\n")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	enc := func(r conversation.Record) {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	for i := range n {
		r := conversation.Record{ID: "01BIG" + strconv.Itoa(100000000+i), Conversation: "cc-abc123", Time: t0.Add(time.Duration(i) * time.Second), Agent: "claude-code"}
		switch i % 5 {
		case 0:
			r.Kind, r.Role, r.Content = conversation.KindMessage, conversation.RoleUser, "Please fix the failing test number "+strconv.Itoa(i)+" and run the suite again, carefully, then report back"
		case 1:
			r.Kind, r.Role, r.Provider = conversation.KindMessage, conversation.RoleAssistant, "anthropic"
			r.ToolCalls = []conversation.ToolCall{{ID: "t" + strconv.Itoa(i), Name: "Bash", Arguments: `{"command":"npm test -- --grep case` + strconv.Itoa(i) + `"}`}}
		case 2:
			r.Kind, r.Role, r.ToolName, r.ToolCallID = conversation.KindMessage, conversation.RoleTool, "Bash", "t"+strconv.Itoa(i-1)
			r.Content = "Error: connect ECONNREFUSED 127.0.0.1:" + strconv.Itoa(5000+i%50) + "\n    at TCPConnectWrap.afterConnect (node:net:1555:16)"
			r.IsError = i%3 == 0
		case 3:
			r.Kind, r.Role, r.Provider = conversation.KindMessage, conversation.RoleAssistant, "anthropic"
			r.Content = "I looked at the output; the database is not reachable on that port. Trying again with setting " + strconv.Itoa(i) + "."
		default:
			f := "src/file" + strconv.Itoa(i%40) + ".ts"
			r.Kind, r.Content, r.FilesModified = conversation.KindIteration, "Edit: "+f, []string{f}
		}
		enc(r)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSecret is a Stripe live key of the documented form (Stripe's own
// example), planted to check that no secret leaves recite.
const TestSecret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"

// SecretProject is a copy of examples/gsd whose STATE.md blocker names
// TestSecret, as in the review's repro.
func SecretProject(t *testing.T) string {
	t.Helper()
	dir := CopyTree(t, Example("gsd"))
	p := filepath.Join(dir, ".planning", "STATE.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "Redirect test fails", "Redirect test fails (key "+TestSecret+")", 1)
	if s == string(b) {
		t.Fatal("examples/gsd STATE.md no longer says \"Redirect test fails\"")
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// NoSecret fails when text holds TestSecret.
func NoSecret(t *testing.T, what, text string) {
	t.Helper()
	if strings.Contains(text, TestSecret) {
		t.Errorf("%s holds the secret:\n%s", what, text)
	}
}
