package mcp_test

//lint:file-ignore SA1019 the tests give the server roots, as clients before protocol 2026-07-28 do

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recite-dev/recite/engine/mcp"
)

// protocols are the protocol versions the roots tests run at: the SDK
// client's default (2026-07-28: the server asks for roots inside the tool
// call) and two before it (the server sends roots/list itself).
var protocols = []string{"", "2025-11-25", "2025-06-18"}

// TestRootsFindProject starts the server without -C and with a working
// directory outside any project: the project comes from the client's root
// (a folder inside the project, found upward).
func TestRootsFindProject(t *testing.T) {
	for _, pv := range protocols {
		t.Run("protocol "+pv, func(t *testing.T) {
			dir := example(t, "gsd")
			c := sdk.NewClient(&sdk.Implementation{Name: "roots-client", Version: "1"}, nil)
			c.AddRoots(&sdk.Root{URI: fileURI(filepath.Join(dir, ".planning", "phases")), Name: "project"})
			s := connectClient(t, mcp.Options{Fallback: t.TempDir(), NoWatch: true}, c, &sdk.ClientSessionOptions{ProtocolVersion: pv})
			var rec mcp.RecitationOutput
			s.ok("recitation", map[string]any{}, &rec)
			if !strings.Contains(rec.Text, "Phase 2 of 5: HTTP API") {
				t.Errorf("recitation not from the root's project: %q", rec.Text)
			}
			var files mcp.FilesOutput
			s.ok("files", map[string]any{"why": "AGENTS.md"}, &files)
			if files.Why == nil || !files.Why.InContext {
				t.Errorf("files why: %+v", files.Why)
			}
		})
	}
}

// TestRootsOutsideProject gives roots that are in no project: every tool
// answers with an isError result naming the roots, nothing is created
// there, and the server stays up; at 2025-11-25, adding a project root
// (roots/list_changed) makes the tools work.
func TestRootsOutsideProject(t *testing.T) {
	for _, pv := range protocols {
		t.Run("protocol "+pv, func(t *testing.T) {
			nowhere := t.TempDir()
			c := sdk.NewClient(&sdk.Implementation{Name: "roots-client", Version: "1"}, nil)
			c.AddRoots(&sdk.Root{URI: fileURI(nowhere)}, &sdk.Root{URI: "https://example.com/repo"})
			s := connectClient(t, mcp.Options{Fallback: t.TempDir(), NoWatch: true}, c, &sdk.ClientSessionOptions{ProtocolVersion: pv})
			for range 2 {
				res := s.call("stop_signals", map[string]any{})
				if !res.IsError || !strings.Contains(text(res), "no root the client gave is inside a recite project") ||
					!strings.Contains(text(res), fileURI(nowhere)) || !strings.Contains(text(res), "not a file:// URI") {
					t.Fatalf("stop_signals outside a project: %s", text(res))
				}
			}
			if entries, _ := os.ReadDir(nowhere); len(entries) != 0 {
				t.Errorf("the server wrote into a root outside any project: %v", entries)
			}
			if pv != "2025-11-25" {
				return
			}
			dir := example(t, "fire")
			c.AddRoots(&sdk.Root{URI: fileURI(dir)})
			deadline := time.Now().Add(within)
			for {
				res := s.call("recitation", map[string]any{})
				if !res.IsError {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("roots/list_changed not followed: %s", text(res))
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestNoRootsUsesWorkingDirectory: a client without the roots capability
// gets the project at or above the working directory.
func TestNoRootsUsesWorkingDirectory(t *testing.T) {
	dir := example(t, "fire")
	c := sdk.NewClient(&sdk.Implementation{Name: "plain", Version: "1"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	s := connectClient(t, mcp.Options{Fallback: filepath.Join(dir, ".planning", "loops"), NoWatch: true}, c, nil)
	var out mcp.StopSignalsOutput
	s.ok("stop_signals", map[string]any{"kinds": []string{"circuit_breaker"}}, &out)
	if out.Health != "BLOCKED" {
		t.Errorf("stop_signals from the working directory's project: %+v", out)
	}
}

// TestDirNotAProject: -C naming no project ends Run with the reason.
func TestDirNotAProject(t *testing.T) {
	st, _ := sdk.NewInMemoryTransports()
	err := mcp.Run(t.Context(), st, mcp.Options{Dir: t.TempDir(), Open: openEngine})
	if err == nil || !strings.Contains(err.Error(), "no .planning folder") {
		t.Errorf("Run -C outside a project: %v", err)
	}
}
