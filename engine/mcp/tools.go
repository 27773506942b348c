package mcp

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// checker is a tool input: what its JSON schema cannot say, check says.
type checker interface{ check() error }

// check has nothing to add to RecitationInput's schema.
func (RecitationInput) check() error { return nil }

// rootsInput names the roots request of a tool call (multi round-trip
// requests, MCP 2026-07-28).
const rootsInput = "roots"

// ToolNames are the tools the server offers, in the order tools/list gives
// them.
var ToolNames = []string{"recitation", "stop_signals", "record", "preserve", "verify_summary", "files", "prompt"}

// addTools registers every tool on s.sdk.
func addTools(s *server) {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	appends := &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	addTool(s, &sdk.Tool{Name: "recitation", Title: "Recitation", Annotations: ro,
		Description: "The current recitation block of a target's prompt: position, current task, loop health and next step (at most 30 lines), secrets redacted."},
		Project.Recitation)
	addTool(s, &sdk.Tool{Name: "stop_signals", Title: "Open stop signals", Annotations: ro,
		Description: "The open stop signals (verbatim errors, BLOCKED/STUCK, failed approaches, circuit breaker, stop requests) of the planning tree and the active conversations, newest first, with kind, key line, command and source, secrets redacted."},
		Project.StopSignals)
	addTool(s, &sdk.Tool{Name: "record", Title: "Record into a conversation", Annotations: appends,
		Description: "Append a message, an error (verbatim, with the tool and command that failed) or a blocker to a conversation log under .planning/conversations/, then rebuild the prompts of the targets that carry it."},
		Project.Record)
	addTool(s, &sdk.Tool{Name: "preserve", Title: "Write a preservation block", Annotations: appends,
		Description: "Append a preservation block of the current stop signals and working state to .planning/context-preserved.md (do it before a compaction)."},
		Project.Preserve)
	addTool(s, &sdk.Tool{Name: "verify_summary", Title: "Check a summary", Annotations: ro,
		Description: "Check a compaction summary for the stop signals it lost; returns them and the block to re-inject after the summary."},
		Project.VerifySummary)
	addTool(s, &sdk.Tool{Name: "files", Title: "Files that may enter context", Annotations: ro,
		Description: "List the project files that may enter an agent's context (as git would decide them, plus .powerignore and the never-exclude list), or explain the verdict on one path with why."},
		Project.Files)
	addTool(s, &sdk.Tool{Name: "prompt", Title: "A target's prompt", Annotations: ro,
		Description: "One target's prompt in one provider's request shape (markdown, anthropic, openai, gemini, ollama or text), as recite build writes it."},
		Project.Prompt)
}

func ptr[T any](v T) *T { return &v }

// addTool registers one tool whose input is In and output *Out, with the
// schemas of InputSchema and OutputSchema. The SDK validates the arguments
// against the input schema (a failure is a result with isError, MCP
// 2025-11-25 server/tools "Error Handling"); check validates the rest; then
// the project is found (projectFor) and call runs.
func addTool[In checker, Out any](s *server, t *sdk.Tool, call func(Project, context.Context, In) (*Out, error)) {
	in, err := InputSchema(t.Name)
	if err != nil {
		panic(err) // a programming error: the types are fixed
	}
	out, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(err)
	}
	t.InputSchema, t.OutputSchema = in, out
	sdk.AddTool(s.sdk, t, func(ctx context.Context, req *sdk.CallToolRequest, args In) (*sdk.CallToolResult, *Out, error) {
		if c, ok := any(&args).(interface{ setClient(string) }); ok {
			if ip := req.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
				c.setClient(ip.ClientInfo.Name)
			}
		}
		if err := args.check(); err != nil {
			return nil, nil, fmt.Errorf("invalid arguments for %s: %w", t.Name, err)
		}
		p, ask, err := s.projectFor(ctx, req)
		if ask != nil || err != nil {
			return ask, nil, err
		}
		o, err := call(p, ctx, args)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", t.Name, err)
		}
		return nil, o, nil
	})
}

// InputSchema is the JSON schema of a tool's arguments: the schema of its
// input type, closed to unknown properties, with the enums, patterns and
// bounds the Go types cannot carry.
func InputSchema(tool string) (*jsonschema.Schema, error) {
	var s *jsonschema.Schema
	var err error
	enum := func(prop string, vals ...string) {
		p := s.Properties[prop]
		if p.Items != nil {
			p = p.Items
		}
		for _, v := range vals {
			p.Enum = append(p.Enum, v)
		}
	}
	switch tool {
	case "recitation":
		s, err = jsonschema.For[RecitationInput](nil)
	case "stop_signals":
		if s, err = jsonschema.For[StopSignalsInput](nil); err == nil {
			enum("kinds", signalKinds...)
			s.Properties["limit"].Minimum = ptr(0.0)
		}
	case "record":
		if s, err = jsonschema.For[RecordInput](nil); err == nil {
			s.Properties["conversation"].Pattern = `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`
			enum("kind", RecordMessage, RecordError, RecordBlocker)
			enum("role", "user", "assistant")
			s.Properties["text"].MinLength = ptr(1)
		}
	case "preserve":
		if s, err = jsonschema.For[PreserveInput](nil); err == nil {
			enum("trigger", "manual", "compaction", "sabbath_rest")
		}
	case "verify_summary":
		if s, err = jsonschema.For[VerifySummaryInput](nil); err == nil {
			s.Properties["summary"].MinLength = ptr(1)
		}
	case "files":
		if s, err = jsonschema.For[FilesInput](nil); err == nil {
			s.Properties["limit"].Minimum = ptr(0.0)
		}
	case "prompt":
		if s, err = jsonschema.For[PromptInput](nil); err == nil {
			enum("provider", providers...)
		}
	default:
		return nil, fmt.Errorf("unknown tool %q", tool)
	}
	return s, err
}
