package prompt

import (
	"fmt"
	"slices"
	"strings"
)

// Custom is a provider recite.yaml defines (providers:): any endpoint that
// takes OpenAI Chat Completions bodies, with its name, model, window and
// cache rule (docs/providers.md#providers-of-your-own). Its body is the
// OpenAI-compatible one (compatBody) sent to BaseURL + "/chat/completions".
type Custom struct {
	// Name is the provider's name in targets[].providers and in file
	// names; it is not a built-in provider's.
	Name string
	// BaseURL is the API's base, e.g. https://api.together.xyz/v1.
	BaseURL string
	// Model is the model the body names.
	Model string
	// MaxContext and MaxOutput are the model's window and longest reply,
	// in tokens (0: 128,000 and 16,384, the conservative numbers of an
	// unknown OpenAI model).
	MaxContext, MaxOutput int
	// Cache is CacheAutomatic (a repeated prefix of MinCacheable tokens or
	// more is cached) or CacheNone.
	Cache string
	// MinCacheable is the shortest cached prefix in tokens (automatic
	// caching; 0: 1024, OpenAI's).
	MinCacheable int
}

// Capabilities returns the custom provider's row of the table.
func (c Custom) Capabilities() Capabilities {
	window := c.MaxContext
	if window <= 0 {
		window = 128_000
	}
	cache := c.Cache
	if cache == "" {
		cache = CacheNone
	}
	return Capabilities{Name: c.Name, Conversation: true, SystemMessage: true, ToolCalls: true, Cache: cache,
		Shape: ShapeOpenAIChat, Format: "json", MaxContext: window,
		Endpoint: strings.TrimRight(c.BaseURL, "/") + "/chat/completions", Ext: "." + c.Name + ".json", Custom: true}
}

// CustomLimit returns the Limit of a provider recite.yaml defines: its
// window and longest reply (128,000 and 16,384 tokens when unset), and for
// automatic caching its minimum cacheable prefix (1024 when unset).
func CustomLimit(c Custom) Limit { return c.limit() }

// limit is CustomLimit.
func (c Custom) limit() Limit {
	l := Limit{Provider: c.Name, Model: c.Model, ContextWindow: c.MaxContext, MaxOutput: c.MaxOutput, Known: true}
	if l.ContextWindow <= 0 {
		l.ContextWindow = 128_000
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = 16_384
	}
	if c.Cache == CacheAutomatic {
		l.MinCacheable = c.MinCacheable
		if l.MinCacheable <= 0 {
			l.MinCacheable = 1024
		}
	}
	return l
}

// Catalog is the capability table of one configuration: the built-in
// providers and those recite.yaml defines. `recite render --provider` and
// `recite config check` list providers from it.
type Catalog struct {
	custom []Custom
}

// NewCatalog returns the table with the custom providers added, in their
// order.
func NewCatalog(custom []Custom) Catalog { return Catalog{custom: slices.Clone(custom)} }

// Lookup returns a provider's capabilities, or an error naming the
// providers there are.
func (c Catalog) Lookup(name string) (Capabilities, error) {
	if caps, ok := capabilityTable(name); ok {
		return caps, nil
	}
	if cu, ok := c.Custom(name); ok {
		return cu.Capabilities(), nil
	}
	return Capabilities{}, fmt.Errorf("unknown provider %q (want one of %s)", name, strings.Join(c.Names(), ", "))
}

// Custom returns the custom provider of that name.
func (c Catalog) Custom(name string) (Custom, bool) {
	for _, cu := range c.custom {
		if cu.Name == name {
			return cu, true
		}
	}
	return Custom{}, false
}

// Names lists the providers: the built-in ones (Providers), then the
// custom ones.
func (c Catalog) Names() []string {
	out := Providers()
	for _, cu := range c.custom {
		out = append(out, cu.Name)
	}
	return out
}

// Table returns every provider's row, in Names order.
func (c Catalog) Table() []Capabilities {
	out := Table()
	for _, cu := range c.custom {
		out = append(out, cu.Capabilities())
	}
	return out
}
