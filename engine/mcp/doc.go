// Package mcp is recite's Model Context Protocol server: it offers one
// project's recitation, stop signals, context files and prompts to any MCP
// client (Claude Code, Codex CLI, Cursor, Gemini CLI, the MCP Inspector)
// over stdio, as tools with JSON schemas and structured results, and the
// prompt files and the latest preservation block as resources with change
// notifications. It is built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// # What it owns and imports
//
// The package owns the wire side: the tool and resource definitions, their
// input and output types (whose Go types give the JSON schemas), the
// line-delimited stdio framing (stdio.go) with its answers to malformed
// frames, and how the project is found (-C, else the client's roots, else
// the working directory). It is a front end beside the CLI
// (docs/architecture.md#import-rules): the SDK-facing half (server.go,
// tools.go) talks to [Project], the consumer-side interface declared here,
// and project.go implements it on the engine's exported API
// ([OpenProject]). It imports the engine, the SDK, its JSON schema library,
// engine/claudecode (the .mcp.json merge), engine/scope, engine/signals and
// planning/conversation; the engine must not import it.
//
// # Errors
//
// Following the MCP specification (2025-11-25, server/tools "Error
// Handling"), protocol errors are JSON-RPC errors and tool execution errors
// are tool results with isError set, so the model can read and correct
// them:
//
//   - a line that is not JSON: -32700 parse error (id null);
//   - JSON that is not one JSON-RPC 2.0 message (a batch, an array, a
//     number, a message without "jsonrpc": "2.0"): -32600 invalid request;
//   - an unknown method: -32601; an unknown tool or malformed params:
//     -32602 (the SDK);
//   - arguments that fail a tool's input schema, an invalid conversation
//     id, a path outside the project (or resolving outside it through a
//     symbolic link), an unknown target or provider, a project that cannot
//     be found: a result with isError and the reason. Nothing is written.
//
// The server stays up after each of them.
package mcp
