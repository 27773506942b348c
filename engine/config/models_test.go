package config

import (
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/templates"
)

func TestModelsResolve(t *testing.T) {
	src := `models:
  anthropic: claude-opus-5-5
  ollama: qwen3-coder:30b
targets:
  - name: a
  - name: b
    models: {anthropic: claude-haiku-4-5, openai: gpt-5.5}
  - name: legacy
    model: claude-sonnet-4-6
  - name: legacy-openai
    model: o3-mini
    openai_api: responses
`
	c, err := Parse("recite.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][4]string{ // anthropic, openai, gemini, ollama
		"a":             {"claude-opus-5-5", prompt.DefaultOpenAIModel, prompt.DefaultGeminiModel, "qwen3-coder:30b"},
		"b":             {"claude-haiku-4-5", "gpt-5.5", prompt.DefaultGeminiModel, "qwen3-coder:30b"},
		"legacy":        {"claude-sonnet-4-6", prompt.DefaultOpenAIModel, prompt.DefaultGeminiModel, "qwen3-coder:30b"},
		"legacy-openai": {"claude-opus-5-5", "o3-mini", prompt.DefaultGeminiModel, "qwen3-coder:30b"},
	}
	for i := range c.Targets {
		tg := &c.Targets[i]
		var got [4]string
		for k, p := range []string{prompt.Anthropic, prompt.OpenAI, prompt.Gemini, prompt.Ollama} {
			got[k] = tg.ModelFor(p)
		}
		if got != want[tg.Name] {
			t.Errorf("target %s models %v, want %v", tg.Name, got, want[tg.Name])
		}
		if tg.ModelFor(prompt.Markdown) != "" {
			t.Errorf("markdown names a model")
		}
	}
	if o := c.Targets[3].RenderOptions(prompt.OpenAI); o.OpenAIAPI != prompt.OpenAIResponses || o.Model != "o3-mini" {
		t.Errorf("render options %+v", o)
	}
	if o := c.Targets[2].RenderOptions(prompt.Ollama); o.Model != "qwen3-coder:30b" {
		t.Errorf("the legacy anthropic model reached the ollama body: %+v", o)
	}
}

func TestModelsErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"legacy model of no family", "targets:\n  - name: a\n    model: llama3.1\n", `recite.yaml:3: target "a": model "llama3.1" names no provider's family`},
		{"legacy ollama tag", "targets:\n  - name: a\n    model: gpt-oss:20b\n", `model "gpt-oss:20b" names no provider's family`},
		{"legacy and models disagree", "targets:\n  - name: a\n    model: claude-opus-5\n    models: {anthropic: claude-sonnet-5}\n", `recite.yaml:3: target "a": model "claude-opus-5" and models.anthropic "claude-sonnet-5" both set`},
		{"wrong family", "models:\n  openai: claude-opus-5\n", `recite.yaml:2: models.openai: "claude-opus-5" is a model of anthropic`},
		{"unknown provider key", "models:\n  mistral: large\n", `recite.yaml:2: unknown key "mistral"`},
		{"bad openai_api", "targets:\n  - name: a\n    openai_api: assistants\n", `recite.yaml:3: targets[0].openai_api: expected chat or responses, got "assistants"`},
		{"negative window", "targets:\n  - name: a\n    capabilities: {ollama: {max_context: -1}}\n", `recite.yaml:3: targets[0].capabilities.ollama.max_context: expected a positive whole number of tokens, got -1 (example: max_context: 32768)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("recite.yaml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestTargetLimits(t *testing.T) {
	c, err := Parse("recite.yaml", []byte("targets:\n  - name: a\n    max_tokens: 1000\n    capabilities:\n      ollama: {max_context: 8192}\n      anthropic: {min_cacheable: 0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tg := &c.Targets[0]
	if l := tg.Limits(prompt.Ollama); l.ContextWindow != 8192 || l.PromptLimit(tg.MaxTokens) != 7192 {
		t.Errorf("ollama limit %+v", l)
	}
	if l := tg.Limits(prompt.Anthropic); l.MinCacheable != 0 || l.Model != prompt.DefaultAnthropicModel {
		t.Errorf("anthropic limit %+v", l)
	}
	if d := Default().Targets[0]; d.ModelFor(prompt.Anthropic) != prompt.DefaultAnthropicModel {
		t.Errorf("default target models %+v", d.Models)
	}
}

// TestInitScaffoldNamesTheDefaults: the recite.yaml that `recite init`
// writes names every default model and the date it was current, and parses
// with the models block uncommented.
func TestInitScaffoldNamesTheDefaults(t *testing.T) {
	src, err := templates.Init("recite.yaml", "gsd")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{prompt.DefaultAnthropicModel, prompt.DefaultOpenAIModel, prompt.DefaultGeminiModel, prompt.DefaultOllamaModel, prompt.ModelsCurrentOn} {
		if !strings.Contains(src, want) {
			t.Errorf("the scaffold does not name %q", want)
		}
	}
	on := src
	for _, k := range []string{"models:\n", "  anthropic:", "  openai:", "  gemini:", "  ollama:"} {
		on = strings.ReplaceAll(on, "\n# "+k, "\n"+k)
	}
	c, err := Parse("recite.yaml", []byte(on))
	if err != nil {
		t.Fatal(err)
	}
	if c.Models.Anthropic != prompt.DefaultAnthropicModel || c.Models.Ollama != prompt.DefaultOllamaModel {
		t.Errorf("uncommented models %+v", c.Models)
	}
}
