package mcp_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recite-dev/recite/engine/mcp"
	"github.com/recite-dev/recite/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// example copies examples/NAME (without generated prompts and caches) into
// a temp dir and returns its root.
func example(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	if err := sharedtest.CopyTree(filepath.Join(sharedtest.ModuleRoot(), "examples", name), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// session is a client connected in process to a server running Run over
// the SDK's in-memory transport.
type session struct {
	*sdk.ClientSession
	t *testing.T
}

// connect starts the server with opts (Open defaults to mcp.OpenProject)
// and connects a client with copts and sopts; both end with the test.
func connect(t *testing.T, opts mcp.Options, copts *sdk.ClientOptions, sopts *sdk.ClientSessionOptions) *session {
	t.Helper()
	return connectClient(t, opts, sdk.NewClient(&sdk.Implementation{Name: "recite-test", Version: "1"}, copts), sopts)
}

// connectClient is connect with a client built by the caller (with roots).
func connectClient(t *testing.T, opts mcp.Options, c *sdk.Client, sopts *sdk.ClientSessionOptions) *session {
	t.Helper()
	if opts.Open == nil {
		opts.Open = openEngine
	}
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcp.Run(ctx, st, opts) }()
	cs, err := c.Connect(ctx, ct, sopts)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v (server: %v)", err, <-done)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server ended with %v", err)
		}
	})
	return &session{ClientSession: cs, t: t}
}

// call calls tool with args (any JSON value) and returns the result; a
// JSON-RPC error fails the test.
func (s *session) call(tool string, args any) *sdk.CallToolResult {
	s.t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// ok calls tool, fails the test on an isError result, and decodes the
// structured content into out.
func (s *session) ok(tool string, args, out any) {
	s.t.Helper()
	res := s.call(tool, args)
	if res.IsError {
		s.t.Fatalf("%s(%v): isError: %s", tool, args, text(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		s.t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
}

// text joins a result's text contents.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// fileURI is the URI the server gives a file.
func fileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

var (
	reStamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	reULID  = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)
	// A placeholder's hash depends on the project's random redaction key.
	reSecret = regexp.MustCompile(`⟨secret:([a-z0-9-]+):[0-9a-f]{8}⟩`)
)

// normalize makes a tool result comparable across runs: the project
// root becomes $PROJECT, times <time>, record ids <ulid>, secret
// placeholders ⟨secret:KIND:hash⟩.
func normalize(dir string, b []byte) []byte {
	s := strings.ReplaceAll(string(b), dir, "$PROJECT")
	s = reStamp.ReplaceAllString(s, "<time>")
	s = reULID.ReplaceAllString(s, "<ulid>")
	s = reSecret.ReplaceAllString(s, "⟨secret:$1:hash⟩")
	return []byte(s)
}

// golden compares got (indented JSON) with testdata/golden/NAME, or
// rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// openEngine is the engine's Opener, the one `recite mcp` uses.
var openEngine mcp.Opener = mcp.OpenProject
