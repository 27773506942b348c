// Package signals keeps an agent's stop signals alive across compaction:
// it extracts them from conversation messages and from the planning tree,
// evaluates loop health and the circuit breaker, writes and reads
// preservation blocks, and checks a compacted summary for signals it lost.
//
// # Stop signals
//
// A Signal is something an agent must not lose (docs/architecture.md#words): a verbatim
// error, a BLOCKED/STUCK mark, a failed approach, the circuit-breaker state
// or an explicit stop. Extract gathers them from these sources:
//
//   - tool messages (Role "tool", or any message with a ToolName): Claude
//     Code's rejection text ("The user doesn't want to proceed with this
//     tool use…") is a stop signal. Otherwise the output is scanned with
//     the failure-line table (failureRules in rules.go: one row per
//     failure line of Go, TypeScript, node/npm/pnpm/yarn, jest/vitest/bun,
//     Python/pytest/mypy/ruff, Rust/cargo, Swift/xcodebuild/clang,
//     Java/Gradle/Maven, eslint, make, the shell, git, cobra-based CLIs
//     and GitHub Actions, each row with a real example), wherever the
//     line stands, after removing ANSI colours and CI log prefixes
//     (`gh run view --log`, turbo's "pkg:task: "). Each distinct cause
//     line is one error (at most five an output); a line that only says a
//     run failed (`FAIL\tpkg`, `npm ERR! code ELIFECYCLE`, `** BUILD
//     FAILED **`) counts only when no cause line stands. A failed call
//     (IsError) whose output matches no row is one error all the same.
//     This finds errors in output that exited 0 (`cmd 2>&1 | tail`),
//     nginx's, systemd's, docker's, kubectl's, terraform's, the package
//     managers' and the databases' among them; output that exited 0 with
//     no failure line is no error (docs/signals.md#errors-that-exit-0).
//     The successful output of tools that do not run commands (Read, Grep,
//     Glob, WebFetch, Task, MCP tools…) is not scanned. A process the agent
//     stopped itself (a follow command ended by a signal, pkill ending its
//     own shell, a task killed after a KillShell) is no error
//     (docs/signals.md#noise-left-out).
//   - every error has a key line (Signal.KeyLine, see KeyLine): the line
//     a person would quote — the exception line that ends a Python
//     traceback, the first error line of tsc, cargo or go, a failing
//     test's assertion (`expect(received).toBe(expected)`, pytest's
//     `FAILED tests/x.py::test_y - …`, the message under go's `--- FAIL`)
//     — never the traceback header, a warning, a passing test or a usage
//     banner; the line after a generic header ("Parameter validation
//     failed:"); "Exit code N" when the command printed nothing else. Its
//     text is the whole output of a failed call with one error, else the
//     lines around its key line; it carries the call's command
//     (Message.Command).
//   - harmless probes (a glob or grep finding nothing, ls or test on a
//     missing path, diff or cmp finding a difference, gh pr checks while
//     checks are pending, which not finding a program, Read of a missing
//     file) are errors marked Probe (isProbe) until the agent's next words
//     call them a failure; resolved errors carry ResolvedBy (Resolve).
//   - a user message holding a failed background task's
//     <task-notification> is an error keyed by its summary; any other
//     prompt is read against the failure-line table for errors the user
//     pasted (what a harness adds to a prompt aside).
//   - user and assistant text: a line containing the word BLOCKED or STUCK
//     written in capitals as a whole word is a blocked signal; a line that
//     starts (after optional list markers, `>` quotes and bold markers) with
//     `STOP:` or `STOP —` is a stop signal. In the agent's own text
//     (assistant messages), its lower-case words are signals too: "I'm
//     blocked", "this is blocked on …", "I'm stuck" (blocked); "this
//     doesn't work", "giving up on this approach", "which is why it's
//     still failing" (failed_approach), work blocked by other work ("my
//     UI tasks are all blocked by #7") — not when negated ("not
//     blocked"), conditional ("if this doesn't work"), asked, or about a
//     thing ("the request is blocked by CORS"), and not inside inline
//     code. Text inside fenced code is ignored. MayHoldStop
//     is a cheap gate for callers scanning many long messages.
//   - loop files (docs/formats.md#loop-files): the errors the file quotes verbatim in
//     fenced blocks (`### Last Error (verbatim)`; the last one counted once
//     per Loop Progress row carrying the latest error hash), Error Hash
//     cells that hold an error text rather than a hash (a hash such as
//     a41c9e07 is not an error text and yields no signal), Loop Progress
//     rows whose Health is BLOCKED or whose Action or Result carries a
//     BLOCKED/STUCK/STOP mark, the last Circuit Breaker State row when it
//     is not HEALTHY (circuit_breaker), Approaches Tried (failed_approach),
//     and Sabbath snapshot Preserved Stop Signals by label (ERROR/ERRORS →
//     error, unless the loop already quotes it; BLOCKED → blocked; FAILED
//     ATTEMPTS → one failed_approach per listed approach, its count being a
//     counter; TRIED AND FAILED → failed_approach; CIRCUIT BREAKER →
//     circuit_breaker; anything else → stop).
//   - debug files that are not resolved (docs/formats.md#debug-files): the Symptoms
//     errors verbatim (error, unless "none"), and each eliminated
//     hypothesis as a failed_approach whose Detail is its evidence.
//   - open blockers: blocked, with the blocker id (BLOCKER-005) as ID.
//
// Signals are deduplicated by (Kind, Hash). An error's Hash is that of
// its normalised key line (with its command when the key line is a bare
// exit code), another signal's that of its normalised text: what varies
// from run to run (timestamps, temporary paths, durations, process ids,
// addresses, line and column numbers) is normalised away and what names
// the thing is kept (quoted values, project paths, identifiers, exit
// codes), so the same error seen in two runs counts once with a Count
// while `Cannot find module 'react'` and `… 'left-pad'` stay two. The
// first occurrence's text is kept verbatim. Extract's order is
// deterministic: by kind (error, blocked, failed_approach,
// circuit_breaker, stop), then in order of first appearance.
//
// # Resolution, verification and re-injection
//
// Resolve marks an error resolved when a later run of the same steps
// succeeds (filters and wrappers such as timeout, sudo, ssh HOST and bash
// -c aside, the same targets) or its tests pass by name; what the agent
// says resolves nothing (docs/signals.md#resolution). Verify checks a
// summary for each signal's key line (whitespace folded), or what names
// it (its failing test, error code, file and line); a resolved signal is
// checked like any other, a probe never reported lost
// (docs/signals.md#verification). Fit fits lost signals into a character
// limit: every key line first, newest first, resolved errors as one line
// each, then context, then head and tail (docs/signals.md#re-injection).
//
// # Incremental extraction
//
// ScanMessage scans one message (Scanned), ExtractScanned puts scans
// together as Extract does, and ScanCache keeps a conversation's scans on
// disk so each prompt scans only the messages added since the last one
// (docs/signals.md#incremental-extraction).
//
// # Health and circuit breaker
//
// Evaluate implements fire-flow's circuit breaker and health states with
// the decisions documented on Evaluate and Thresholds. ChangeAttempt says
// which tool calls try to change the project, what makes an agent's turn
// an iteration (a turn that only answered or only read is none).
//
// # Preservation blocks
//
// RenderBlock writes one canonical format (docs/formats.md#preservation-blocks);
// ParseBlocks reads that and the three other published layouts; Verify and
// ReinjectBlock check a compacted summary. An error's block entry carries
// its command, key line, probe mark and resolution (see RenderBlock);
// blocks written before them still read.
//
// # Dependencies
//
// The package imports planning (the parsed planning tree),
// planning/conversation (Claude Code's task notifications), markdown and
// internal/fsutil (the block's and the scan cache's writes), and nothing
// of the engine.
package signals
