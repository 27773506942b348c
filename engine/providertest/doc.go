// Package providertest proves, in its tests only, that every request body
// recite writes is one its provider accepts: each body decodes into the
// provider's official Go SDK request type (github.com/anthropics/anthropic-sdk-go,
// github.com/openai/openai-go, google.golang.org/genai,
// github.com/ollama/ollama/api) without losing a field, passes
// prompt.Check, and gets a 200 from a fake server per provider that
// checks what the real API checks (required fields, alternating roles,
// every tool call answered, at most 4 cache breakpoints, the prompt within
// the model's window). The SDKs are imported by the tests alone, so they
// stay out of the recite binary.
//
// It may import engine, engine/config, engine/prompt, engine/budget,
// planning/conversation and internal/sharedtest; nothing imports it.
package providertest
