package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recite-dev/recite/engine/mcp"
)

// within bounds every wait for the watcher: a failure bound, never a speed
// target.
const within = 60 * time.Second

// waitFor polls cond until it holds or within passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// read returns a resource's text.
func (s *session) read(uri string) string {
	s.t.Helper()
	res, err := s.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		s.t.Fatalf("read %s: %v", uri, err)
	}
	return res.Contents[0].Text
}

// uris lists the resources' URIs.
func (s *session) uris() []string {
	s.t.Helper()
	res, err := s.ListResources(context.Background(), nil)
	if err != nil {
		s.t.Fatal(err)
	}
	var out []string
	for _, r := range res.Resources {
		out = append(out, r.URI)
	}
	return out
}

// TestResourcesAndNotifications lists and reads the resources, then edits
// the planning tree while the server runs: the watcher rebuilds, the
// subscriber of agent.md gets resources/updated, a first preservation block
// adds a resource (resources/list_changed) and a second one updates it. It
// runs at the SDK client's default protocol (2026-07-28, subscriptions/listen)
// and at 2025-11-25 (resources/subscribe).
func TestResourcesAndNotifications(t *testing.T) {
	for _, pv := range []string{"", "2025-11-25"} {
		t.Run("protocol "+pv, func(t *testing.T) {
			dir := example(t, "gsd")
			updated := make(chan string, 256)
			listed := make(chan struct{}, 256)
			copts := &sdk.ClientOptions{
				ResourceUpdatedHandler:     func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) { updated <- r.Params.URI },
				ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { listed <- struct{}{} },
			}
			s := connect(t, mcp.Options{Dir: dir}, copts, &sdk.ClientSessionOptions{ProtocolVersion: pv})
			agentMD := fileURI(filepath.Join(dir, ".planning", "prompts", "agent.md"))
			want := []string{fileURI(filepath.Join(dir, ".planning", "prompts", "agent.anthropic.json")), agentMD,
				fileURI(filepath.Join(dir, ".planning", "prompts", "agent.openai.json"))}
			if got := s.uris(); !slices.Equal(got, want) {
				t.Fatalf("resources %v, want %v", got, want)
			}
			if err := s.Subscribe(t.Context(), &sdk.SubscribeParams{URI: agentMD}); err != nil {
				t.Fatal(err)
			}
			// The watcher's first render writes the prompt files once its
			// watches exist.
			waitFor(t, "the first build", func() bool {
				_, err := os.Stat(filepath.Join(dir, ".planning", "prompts", "agent.md"))
				return err == nil
			})
			if !strings.Contains(s.read(agentMD), "## Recitation") {
				t.Fatalf("agent.md: %.200s", s.read(agentMD))
			}

			// An edit of the state file: agent.md is rebuilt and its
			// subscriber told.
			state := filepath.Join(dir, ".planning", "STATE.md")
			b, err := os.ReadFile(state)
			if err != nil {
				t.Fatal(err)
			}
			b = []byte(strings.Replace(string(b), "## Blockers", "## Blockers\n\n- BLOCKED: the staging database is read-only", 1))
			if err := os.WriteFile(state, b, 0o644); err != nil {
				t.Fatal(err)
			}
			awaitUpdate(t, s, updated, agentMD, "the staging database is read-only")

			// The first preservation block adds a resource.
			if slices.Contains(s.uris(), mcp.PreservedURI) {
				t.Fatal("a preservation block resource before any block")
			}
			var p mcp.PreserveOutput
			s.ok("preserve", map[string]any{}, &p)
			deadline := time.After(within)
			for !slices.Contains(s.uris(), mcp.PreservedURI) {
				select {
				case <-listed:
				case <-deadline:
					t.Fatal("no resources/list_changed with the preservation block")
				}
			}
			if err := s.Subscribe(t.Context(), &sdk.SubscribeParams{URI: mcp.PreservedURI}); err != nil {
				t.Fatal(err)
			}
			s.ok("preserve", map[string]any{"trigger": "compaction"}, &p)
			awaitUpdate(t, s, updated, mcp.PreservedURI, "trigger: compaction")
		})
	}
}

// awaitUpdate reads uri at each resources/updated for it until its text
// holds want.
func awaitUpdate(t *testing.T, s *session, updated <-chan string, uri, want string) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case u := <-updated:
			if u == uri && strings.Contains(s.read(uri), want) {
				return
			}
		case <-deadline:
			t.Fatalf("no resources/updated for %s holding %q; it holds %.300s", uri, want, s.read(uri))
		}
	}
}

// TestResourceErrors reads and subscribes to URIs the server does not
// offer (resources/subscribe is the 2025-11-25 request).
func TestResourceErrors(t *testing.T) {
	s := connect(t, mcp.Options{Dir: example(t, "fire"), NoWatch: true}, nil, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	for _, u := range []string{"file:///etc/passwd", mcp.PreservedURI, "recite://nope"} {
		if _, err := s.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: u}); err == nil {
			t.Errorf("read %s: no error", u)
		}
	}
	if err := s.Subscribe(t.Context(), &sdk.SubscribeParams{URI: "file:///etc/passwd"}); err == nil {
		t.Error("subscribe to an unknown resource: no error")
	}
}
