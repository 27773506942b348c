// Package layers builds the conversation parts of a conversation target's
// prompt: the context layers of the conversation coordinator (learnings,
// epic and phase, loop and role), the history layer (the replayable
// messages pruned by recite.yaml's history strategy, with a summarizer
// command when configured), the errors and stop signals of the whole log,
// and the cutter that caps long messages and errors after redacting
// around each cut, so no secret is split.
//
// It may import engine/compress (MustHaves), engine/config,
// engine/history, engine/prompt, engine/signals, engine/internal/layout,
// engine/internal/redact, engine/internal/textutil, internal/fsutil,
// planning, planning/conversation and markdown; never engine.
package layers
