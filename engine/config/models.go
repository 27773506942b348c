package config

import (
	"fmt"
	"strings"

	"github.com/recite-dev/recite/engine/prompt"
)

// Models names one model per provider: `models: {anthropic: …, openai: …,
// gemini: …, ollama: …}` at the top level of recite.yaml and per target.
// "" leaves the choice to the next level: the target's models, then the
// target's legacy model (for its family), then the top-level models, then
// prompt.DefaultModel.
type Models struct {
	// Anthropic is the model the anthropic body names (claude-…).
	Anthropic string `yaml:"anthropic"`
	// OpenAI is the model the openai body names (gpt-…, o1…).
	OpenAI string `yaml:"openai"`
	// Gemini is the gemini model, which goes in the request URL
	// (models/NAME:generateContent), not in the body (gemini-…).
	Gemini string `yaml:"gemini"`
	// Ollama is the model the ollama body names: a local model, with an
	// optional :TAG.
	Ollama string `yaml:"ollama"`
	// DeepSeek is the model the deepseek body names (deepseek-chat,
	// deepseek-reasoner).
	DeepSeek string `yaml:"deepseek"`
	// OpenRouter is the model the openrouter body names, as vendor/model
	// (anthropic/claude-sonnet-5.5).
	OpenRouter string `yaml:"openrouter"`
	// HuggingFace is the model the huggingface body names: a Hub model id,
	// with an optional :PROVIDER of the router.
	HuggingFace string `yaml:"huggingface"`
	// Replicate is the model of the replicate prediction, owner/name,
	// which goes in the request URL (/v1/models/OWNER/NAME/predictions).
	Replicate string `yaml:"replicate"`
}

// get returns the model of provider ("" for a provider that names no
// model: markdown, text).
func (m Models) get(provider string) string {
	switch provider {
	case prompt.Anthropic:
		return m.Anthropic
	case prompt.OpenAI:
		return m.OpenAI
	case prompt.Gemini:
		return m.Gemini
	case prompt.Ollama:
		return m.Ollama
	case prompt.DeepSeek:
		return m.DeepSeek
	case prompt.OpenRouter:
		return m.OpenRouter
	case prompt.HuggingFace:
		return m.HuggingFace
	case prompt.Replicate:
		return m.Replicate
	}
	return ""
}

func (m *Models) set(provider, model string) {
	switch provider {
	case prompt.Anthropic:
		m.Anthropic = model
	case prompt.OpenAI:
		m.OpenAI = model
	case prompt.Gemini:
		m.Gemini = model
	case prompt.Ollama:
		m.Ollama = model
	case prompt.DeepSeek:
		m.DeepSeek = model
	case prompt.OpenRouter:
		m.OpenRouter = model
	case prompt.HuggingFace:
		m.HuggingFace = model
	case prompt.Replicate:
		m.Replicate = model
	}
}

// modelProviders are the providers whose bodies name a model.
var modelProviders = []string{prompt.Anthropic, prompt.OpenAI, prompt.Gemini, prompt.Ollama,
	prompt.DeepSeek, prompt.OpenRouter, prompt.HuggingFace, prompt.Replicate}

// familyOf returns the provider a model name belongs to by its family
// prefix, or "" when the name says nothing (local models served by
// Ollama, fine-tunes, gateways' names). A name with an Ollama tag
// ("NAME:TAG") or an open-weight gpt-oss model names no family: Ollama
// serves those.
func familyOf(model string) string {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, ":"), strings.HasPrefix(m, "gpt-oss"):
		return ""
	case strings.HasPrefix(m, "claude-"):
		return prompt.Anthropic
	case strings.HasPrefix(m, "gpt-"), strings.HasPrefix(m, "chatgpt-"),
		len(m) > 1 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9':
		return prompt.OpenAI
	case strings.HasPrefix(m, "gemini-"):
		return prompt.Gemini
	}
	return ""
}

// hasFamily reports whether a provider serves only its own family of
// models (anthropic, openai, gemini), so that another family's name is a
// mistake; Ollama and the gateways (DeepSeek's own names, OpenRouter's
// vendor/model, the Hub, Replicate) serve what they serve.
func hasFamily(provider string) bool {
	return provider == prompt.Anthropic || provider == prompt.OpenAI || provider == prompt.Gemini
}

// resolveModels fills every target's Models with the model of each
// provider (target models, then the legacy model for its family, then the
// top-level models, then prompt.DefaultModel). A legacy model of no known
// family, or one that a target's models already set for its provider, is
// a problem at its line.
func (c *Config) resolveModels(fail failFunc) {
	for _, p := range modelProviders {
		if fam := familyOf(c.Models.get(p)); fam != "" && fam != p && hasFamily(p) {
			fail("models."+p, "models.%s: %q is a model of %s", p, c.Models.get(p), fam)
		}
	}
	for i := range c.Targets {
		t := &c.Targets[i]
		at := fmt.Sprintf("targets[%d]", i)
		own := t.Models
		if t.Model != "" {
			prov := familyOf(t.Model)
			switch {
			case prov == "":
				fail(at+".model", "target %q: model %q names no provider's family (claude-…, gpt-…, o1…, gemini-…); write models: {PROVIDER: %s} (for example models: {ollama: %s})", t.Name, t.Model, t.Model, t.Model)
			case own.get(prov) != "" && own.get(prov) != t.Model:
				fail(at+".model", "target %q: model %q and models.%s %q both set the %s model; keep models.%s", t.Name, t.Model, prov, own.get(prov), prov, prov)
			default:
				own.set(prov, t.Model)
			}
		}
		for _, p := range modelProviders {
			m := own.get(p)
			if fam := familyOf(m); fam != "" && fam != p && hasFamily(p) {
				fail(at+".models."+p, "target %q: the %s model %q is a model of %s", t.Name, p, m, fam)
			}
			if m == "" {
				m = c.Models.get(p)
			}
			if m == "" {
				m = prompt.DefaultModel(p)
			}
			t.Models.set(p, m)
		}
	}
}

// ModelFor returns the model the target's body for provider names: the
// resolved models (Parse, Default), or prompt.DefaultModel for a Target
// built by hand. "" for markdown and text.
func (t *Target) ModelFor(provider string) string {
	if m := t.Models.get(provider); m != "" {
		return m
	}
	if cu, ok := t.custom(provider); ok {
		return cu.Model
	}
	return prompt.DefaultModel(provider)
}

// custom returns the provider recite.yaml defines under that name, as
// Parse gave it to the target.
func (t *Target) custom(provider string) (*prompt.Custom, bool) {
	for i := range t.customs {
		if t.customs[i].Name == provider {
			return &t.customs[i], true
		}
	}
	return nil, false
}

// LimitOverride returns the target's capabilities for provider as a
// prompt.LimitOverride.
func (t *Target) LimitOverride(provider string) prompt.LimitOverride {
	o := t.Capabilities[provider]
	return prompt.LimitOverride{ContextWindow: o.MaxContext, MaxOutput: o.MaxOutput, MinCacheable: o.MinCacheable, DeveloperRole: o.DeveloperRole}
}

// Limits returns the limits of the target's model for provider, with the
// target's capabilities applied; a provider recite.yaml defines has the
// window and cache rule of its definition.
func (t *Target) Limits(provider string) prompt.Limit {
	if cu, ok := t.custom(provider); ok {
		c := *cu
		o := t.LimitOverride(provider)
		if o.ContextWindow != nil {
			c.MaxContext = *o.ContextWindow
		}
		if o.MaxOutput != nil {
			c.MaxOutput = *o.MaxOutput
		}
		if o.MinCacheable != nil {
			c.MinCacheable = *o.MinCacheable
		}
		return prompt.CustomLimit(c)
	}
	return prompt.Limits(provider, t.ModelFor(provider), t.LimitOverride(provider))
}

// RenderOptions returns the options the target's body for provider is
// rendered with. The engine adds NumCtx for ollama, once the prompt is
// fitted.
func (t *Target) RenderOptions(provider string) prompt.RenderOptions {
	o := prompt.RenderOptions{
		Model: t.ModelFor(provider), MaxTokens: t.MaxTokens, Override: t.LimitOverride(provider),
		OpenAISystemRole: t.OpenAISystemRole, OpenAIAPI: t.OpenAIAPI, HuggingFaceAPI: t.HuggingFaceAPI,
		Stream: t.OllamaStream, Prefill: t.Prefill,
	}
	if cu, ok := t.custom(provider); ok {
		o.Custom = cu
	}
	return o
}

// CheckOptions returns the options prompt.Check validates the target's
// body for provider with: the model the body names and the target's
// capabilities, counting tokens with count.
func (t *Target) CheckOptions(provider string, count prompt.Counter) prompt.CheckOptions {
	o := prompt.CheckOptions{Count: count, Model: t.ModelFor(provider), Override: t.LimitOverride(provider)}
	if cu, ok := t.custom(provider); ok {
		o.Custom = cu
	}
	return o
}
