package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/recite-dev/recite/engine/prompt"
)

// CustomProvider is a provider of the project's own in recite.yaml: any
// endpoint that takes OpenAI Chat Completions bodies.
type CustomProvider struct {
	// Name names the provider in targets[].providers and its prompt file
	// (prompts/TARGET.NAME.json); not a built-in provider's name.
	// Required.
	Name string `yaml:"name"`
	// BaseURL is the API's base URL; the body goes to BASE/chat/completions.
	BaseURL string `yaml:"base_url"`
	// Model is the model the body names. Required.
	Model string `yaml:"model"`
	// MaxContext is the model's context window in tokens (default
	// 128000).
	MaxContext int `yaml:"max_context"`
	// MaxOutput is the model's longest reply in tokens (default 16384).
	MaxOutput int `yaml:"max_output"`
	// Cache is the endpoint's prompt caching: automatic (a repeated prefix
	// is cached without a marker) or none (default).
	Cache string `yaml:"cache"`
	// MinCacheable is the shortest prefix the endpoint caches, in tokens
	// (default 1024).
	MinCacheable int `yaml:"min_cacheable"`
}

// Catalog returns the capability table of the configuration: the built-in
// providers and recite.yaml's own.
func (c *Config) Catalog() prompt.Catalog {
	var cs []prompt.Custom
	for _, p := range c.Providers {
		cs = append(cs, p.custom())
	}
	return prompt.NewCatalog(cs)
}

func (p CustomProvider) custom() prompt.Custom {
	return prompt.Custom{Name: p.Name, BaseURL: p.BaseURL, Model: p.Model, MaxContext: p.MaxContext, MaxOutput: p.MaxOutput, Cache: p.Cache, MinCacheable: p.MinCacheable}
}

// DefaultMaxTokens is a target's max_tokens when unset: the renderers'
// default reply limit, in tokens (prompt.DefaultMaxTokens).
const DefaultMaxTokens = prompt.DefaultMaxTokens

// CapabilityOverride overrides the limits of a target's model for one
// provider; a key left out keeps the model's own limit.
//
// A nil field keeps the value of prompt.Limits. The request shape itself
// (conversation, system message, tool calls) is fixed by each provider.
type CapabilityOverride struct {
	// MaxContext replaces the model's context window, in tokens.
	MaxContext *int `yaml:"max_context"`
	// MaxOutput replaces the model's longest reply, in tokens.
	MaxOutput *int `yaml:"max_output"`
	// MinCacheable replaces the minimum cacheable prefix, in tokens
	// (Anthropic cache breakpoints go only where a prefix reaches it).
	MinCacheable *int `yaml:"min_cacheable"`
	// DeveloperRole says whether the OpenAI model takes the developer role.
	DeveloperRole *bool `yaml:"developer_role"`
}

// validateProviders checks recite.yaml's own providers (a name that is
// not a built-in provider's and not taken twice, a model, a base URL) and
// that every target names only providers of the catalog, and gives every
// target the definitions.
func (c *Config) validateProviders(fail failFunc) {
	seen := map[string]bool{}
	var customs []prompt.Custom
	for i, p := range c.Providers {
		at := fmt.Sprintf("providers[%d]", i)
		_, builtin := prompt.CapabilitiesOf(p.Name)
		switch {
		case p.Name == "":
			fail(at+".name", "a provider needs a name (example: name: together)")
			continue
		case builtin == nil:
			fail(at+".name", "%q is a built-in provider; give yours another name", p.Name)
			continue
		case seen[p.Name]:
			fail(at+".name", "duplicate provider name %q", p.Name)
			continue
		}
		seen[p.Name] = true
		if p.Model == "" {
			fail(at+".model", "provider %q needs the model its body names (example: model: meta-llama/Llama-3.3-70B-Instruct-Turbo)", p.Name)
		}
		if !strings.HasPrefix(p.BaseURL, "https://") && !strings.HasPrefix(p.BaseURL, "http://") {
			fail(at+".base_url", "provider %q needs an http(s) base URL (example: base_url: https://api.together.xyz/v1)", p.Name)
		}
		customs = append(customs, p.custom())
	}
	cat := prompt.NewCatalog(customs)
	names := cat.Names()
	for i := range c.Targets {
		t := &c.Targets[i]
		t.customs = customs
		var good []string
		for j, p := range t.Providers {
			if _, err := cat.Lookup(p); err != nil {
				key := fmt.Sprintf("targets[%d].providers[%d]", i, j)
				fail(key, "%s: expected %s, got %q%s", key, orList(names), p, suggestion(p, names))
				continue
			}
			good = append(good, p)
		}
		if len(good) < len(t.Providers) {
			t.Providers = good
		}
		for _, p := range slices.Sorted(maps.Keys(t.Capabilities)) {
			if _, err := cat.Lookup(p); err == nil {
				continue
			}
			key := fmt.Sprintf("targets[%d].capabilities", i)
			hint := suggestion(p, names)
			if hint == "" {
				hint = " (want " + orList(names) + ")"
			}
			fail(key+"."+p, "%s: unknown provider %q%s", key, p, hint)
			delete(t.Capabilities, p)
		}
	}
}
