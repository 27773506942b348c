// Package providertest proves, in its tests only, that every request body
// recite writes is one its provider accepts: each body decodes into the
// provider's official Go SDK request type (github.com/anthropics/anthropic-sdk-go,
// github.com/openai/openai-go (also for the OpenAI-compatible DeepSeek,
// OpenRouter and Hugging Face router bodies, their extensions checked
// apart), google.golang.org/genai, github.com/ollama/ollama/api) without
// losing a field, or, where no Go SDK exists (a Hugging Face
// text-generation body, a Replicate prediction), validates against the
// provider's documented JSON Schema (testdata/schemas), passes
// prompt.Check, and gets a 200 from a fake server per provider that
// checks what the real API checks (required fields, alternating roles,
// every tool call answered, at most 4 cache breakpoints, the prompt within
// the model's window). Its replays (replay_test.go) grow real and
// synthetic sessions turn by turn and measure, per provider, how much of
// each body the next one repeats: what a prompt cache can serve. The SDKs
// are imported by the tests alone, so they stay out of the recite binary.
//
// It may import engine, engine/config, engine/prompt, engine/budget,
// engine/economics, planning/conversation and internal/sharedtest; nothing
// imports it.
package providertest
