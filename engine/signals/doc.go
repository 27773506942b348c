// Package signals keeps an agent's stop signals alive across compaction:
// it extracts them from conversation messages and from the planning tree,
// evaluates loop health and the circuit breaker, writes and reads
// preservation blocks, and checks a compacted summary for signals it lost.
//
// # Stop signals
//
// A Signal is something an agent must not lose (DESIGN.md §1): a verbatim
// error, a BLOCKED/STUCK mark, a failed approach, the circuit-breaker state
// or an explicit stop. Extract gathers them from these sources:
//
//   - tool messages (Role "tool", or any message with a ToolName): IsError
//     makes the whole content one error signal, except Claude Code's
//     rejection text ("The user doesn't want to proceed with this tool
//     use…"), which is a stop signal. A tool result that is not flagged as
//     an error still yields one error signal per line that starts with an
//     error marker (`error:`, `Error:`, `ERROR:`, `fatal:`, `panic:`,
//     `FAIL:`, optionally with a `[code]` before the colon, or
//     `Traceback (most recent call last):`), because piped commands exit 0
//     (the chkit and entireio transcripts in /work/shared/transcripts lose
//     failures that way).
//   - user and assistant text: a line containing the word BLOCKED or STUCK
//     written in capitals as a whole word is a blocked signal; a line that
//     starts (after optional list markers, `>` quotes and bold markers) with
//     `STOP:` or `STOP —` is a stop signal. Lower-case "blocked" or "stop"
//     is ordinary prose and ignored. Text inside fenced code is ignored.
//   - loop files (FORMATS.md §2.6): the errors the file quotes verbatim in
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
//   - debug files that are not resolved (FORMATS.md §2.11): the Symptoms
//     errors verbatim (error, unless "none"), and each eliminated
//     hypothesis as a failed_approach whose Detail is its evidence.
//   - open blockers: blocked, with the blocker id (BLOCKER-005) as ID.
//
// Signals are deduplicated by (Kind, Hash); Hash is computed over Normalize
// of the text (FORMATS.md §2.13), so the same error with other line numbers,
// timestamps, addresses or ids counts once with a Count. The first
// occurrence's text is kept verbatim. Extract's order is deterministic:
// by kind (error, blocked, failed_approach, circuit_breaker, stop), then in
// order of first appearance.
//
// # Health and circuit breaker
//
// Evaluate implements FORMATS.md §2.13 and §2.14 with the decisions that
// §4.9 asks for, documented on Evaluate and Thresholds.
//
// # Preservation blocks
//
// RenderBlock writes one canonical format (FORMATS.md §2.8 format 2);
// ParseBlocks reads that and the three other published layouts; Verify and
// ReinjectBlock check a compacted summary.
package signals
