// Package config reads `.planning/recite.yaml`, recite's configuration.
//
// Parsing is strict: an unknown key is an error naming the file and line, so
// a typo never silently falls back to a default. With no file, Default
// applies: one target "agent" (role implementer; providers markdown,
// anthropic and openai, each with its default model), a 200,000-token
// context window counted with o200k_base, and WARNING/CRITICAL at 70%/85%.
// Each target resolves a model per provider (models.go): its models:, its
// older single model: for the provider whose family it names, the
// top-level models:, then the defaults of engine/prompt.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/markdown"
)

// FileName is the configuration file's path relative to the project root.
const FileName = ".planning/recite.yaml"

// Config is the whole of recite.yaml.
type Config struct {
	// ContextWindow is the model's context window in tokens (default
	// 200000, the limit fire-flow assumes).
	ContextWindow int `yaml:"context_window"`
	// Tokenizer is the BPE encoding used for counts: o200k_base (default)
	// or cl100k_base.
	Tokenizer string `yaml:"tokenizer"`
	// Thresholds are the WARNING and CRITICAL fractions of a budget.
	Thresholds budget.Thresholds `yaml:"thresholds"`
	// Targets are the prompt files to write, one per consumer.
	Targets []Target `yaml:"targets"`
	// Agent is the command `recite conversation run` spawns.
	Agent Agent `yaml:"agent"`
	// History sets how a conversation's history is pruned.
	History History `yaml:"history"`
	// CircuitBreaker sets the loop-health thresholds (breaker.go).
	CircuitBreaker CircuitBreaker `yaml:"circuit_breaker"`
	// Files sets the file sections and task-type exclusions (files.go).
	Files Files `yaml:"files"`
	// Compression sets difficulty routing and context compression
	// (compression.go).
	Compression Compression `yaml:"compression"`
	// Watch sets `recite watch` timing and its history commits (watch.go).
	Watch Watch `yaml:"watch"`
	// Models names a model per provider for every target (models.go); a
	// target's own models win.
	Models Models `yaml:"models"`
	// Hooks sets what the Claude Code hook adds to a session (hooks.go).
	Hooks Hooks `yaml:"hooks"`
}

// Target is one consumer of prompt files.
type Target struct {
	// Name is used in file names: prompts/NAME.md, prompts/NAME.PROVIDER.json.
	// It must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$.
	Name string `yaml:"name"`
	// Role selects the role template (templates/roles/ROLE.md or
	// .planning/templates/roles/ROLE.md): implementer, validator, reviewer…
	Role string `yaml:"role"`
	// System lists project files (relative to the project root) whose text
	// opens the system prompt. Default: AGENTS.md and CLAUDE.md, those that
	// exist.
	System []string `yaml:"system"`
	// Tools is a file with tool instructions, for agents told about tools
	// in text; "" for none.
	Tools string `yaml:"tools"`
	// Skills lists skill files loaded once into the stable prefix.
	Skills []string `yaml:"skills"`
	// Providers are the shapes to write: markdown, anthropic, openai,
	// gemini, ollama, text.
	Providers []string `yaml:"providers"`
	// Budget is the target's token budget; 0 means the smaller of
	// context_window and the provider's max context.
	Budget int `yaml:"budget"`
	// Include lists project files that always enter this target's context
	// (never excluded by .powerignore).
	Include []string `yaml:"include"`
	// Conversation is the id of the conversation whose tail this target
	// carries; "" for none.
	Conversation string `yaml:"conversation"`
	// Models names this target's model per provider, over the top-level
	// models (models.go). After Parse it holds the resolved model of every
	// provider (ModelFor).
	Models Models `yaml:"models"`
	// Model is the single model name of older configurations: it applies
	// to the one provider whose family it names (claude-… anthropic, gpt-…
	// and o1/o3/o4… openai, gemini-… gemini); any other name is an error
	// that asks for models.PROVIDER. It is never written into another
	// provider's body.
	Model string `yaml:"model"`
	// MaxTokens is the reply's length limit in tokens: the anthropic
	// body's max_tokens (which the Messages API requires) and the ollama
	// body's options.num_predict. The prompt is fitted to the model's
	// window less this (default 4096; must be positive).
	MaxTokens int `yaml:"max_tokens"`
	// OpenAISystemRole is "system" or "developer"; "" (default) picks by
	// model: developer for o1 and newer.
	OpenAISystemRole string `yaml:"openai_system_role"`
	// OpenAIAPI is "chat" (Chat Completions, default) or "responses" (the
	// Responses API): the shape of the openai body.
	OpenAIAPI string `yaml:"openai_api"`
	// Prefill lets the anthropic body end on an assistant turn, which the
	// model continues; by default a final assistant turn is followed by a
	// user turn asking to continue.
	Prefill bool `yaml:"prefill"`
	// OllamaStream is the ollama body's "stream" (default false: one JSON
	// reply, as curl and the README expect).
	OllamaStream bool `yaml:"ollama_stream"`
	// Capabilities override the model limits per provider (models.go).
	Capabilities map[string]CapabilityOverride `yaml:"capabilities"`

	// Line is the line of this target's entry in recite.yaml (0 for the
	// default target), for diagnostics about it.
	Line int `yaml:"-"`
}

// DefaultMaxTokens is a target's max_tokens when unset: the renderers'
// default reply limit, in tokens (prompt.DefaultMaxTokens).
const DefaultMaxTokens = prompt.DefaultMaxTokens

// CapabilityOverride overrides entries of the model limits
// (prompt.Limits) for one provider of one target. A nil field keeps the
// table's value. The request shape itself (conversation, system message,
// tool calls) is fixed by each provider.
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

// Agent is the agent command for `recite conversation run`.
type Agent struct {
	// Command is run through `sh -c`; `{prompt_file}` is replaced by the
	// prompt file's path, otherwise the prompt is written to stdin.
	Command string `yaml:"command"`
	// Timeout bounds one run (default 10m).
	Timeout Duration `yaml:"timeout"`
	// MaxIterations is M in the loop layer's "iteration N of M" for
	// conversations run by `recite conversation run` (one iteration per
	// run); 0 leaves M to the active fire-flow loop's max_iterations, if
	// any. It does not stop a run: the circuit breaker does.
	MaxIterations int `yaml:"max_iterations"`
}

// History configures conversation pruning (engine/history).
type History struct {
	// Strategy is window (default), tokens, summary or importance.
	Strategy string `yaml:"strategy"`
	// Window is the number of messages kept by the window strategy
	// (default 20).
	Window int `yaml:"window"`
	// Tokens is the token budget of the tokens strategy.
	Tokens int `yaml:"tokens"`
	// Keep is the K of the importance strategy and the number of recent
	// messages kept verbatim by the summary strategy.
	Keep int `yaml:"keep"`
	// Summarizer is a command (stdin to stdout) for the summary strategy;
	// "" uses the built-in extractive summary.
	Summarizer string `yaml:"summarizer"`
}

// Duration is a time.Duration written as "30s", "10m" in YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: invalid duration %q", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Providers recite renders.
var knownProviders = map[string]bool{"markdown": true, "anthropic": true, "openai": true, "gemini": true, "ollama": true, "text": true}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Default returns the configuration used when recite.yaml is absent.
func Default() *Config {
	c := &Config{}
	c.fill()
	_ = c.resolveModels(func(string, string, ...any) error { return nil }) // no legacy model: cannot fail
	return c
}

// fill sets defaults for every zero value.
func (c *Config) fill() {
	if c.ContextWindow == 0 {
		c.ContextWindow = 200000
	}
	if c.Tokenizer == "" {
		c.Tokenizer = budget.O200kBase
	}
	if c.Thresholds == (budget.Thresholds{}) {
		c.Thresholds = budget.DefaultThresholds()
	}
	if len(c.Targets) == 0 {
		c.Targets = []Target{{Name: "agent"}}
	}
	for i := range c.Targets {
		t := &c.Targets[i]
		if t.Role == "" {
			t.Role = "implementer"
		}
		if len(t.Providers) == 0 {
			t.Providers = []string{"markdown", "anthropic", "openai"}
		}
		if t.OpenAIAPI == "" {
			t.OpenAIAPI = prompt.OpenAIChat
		}
		if t.MaxTokens == 0 {
			t.MaxTokens = DefaultMaxTokens
		}
	}
	if c.Agent.Timeout == 0 {
		c.Agent.Timeout = Duration(10 * time.Minute)
	}
	if c.History.Strategy == "" {
		c.History.Strategy = "window"
	}
	if c.History.Window == 0 {
		c.History.Window = 20
	}
	c.CircuitBreaker.fill()
	c.Files.fill()
	c.Compression.fill()
	c.Watch.fill()
	c.Hooks.fill()
}

// Error is a configuration error with its position.
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

var unknownFieldRE = regexp.MustCompile(`field (\S+) not found in type (\S+)`)

// Parse reads a configuration from src; path is used in errors. Unknown
// keys, bad values and invalid YAML are *Error values with the line.
func Parse(path string, src []byte) (*Config, error) {
	c := &Config{}
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(path, src, err)
	}
	if err := checkValues(path, src); err != nil {
		return nil, err
	}
	lines := keyLines(src)
	c.fill()
	for i := range c.Targets {
		c.Targets[i].Line = lines[fmt.Sprintf("targets[%d]", i)]
	}
	if err := c.validate(path, lines); err != nil {
		return nil, err
	}
	return c, nil
}

// yamlError is err at the line of src it points to
// (markdown.LocateYAMLError: yaml.v3's parser lines are 0-based, reader
// errors such as control characters carry none).
func yamlError(path string, src []byte, err error) error {
	line, text := markdown.LocateYAMLError(err, src)
	if fm := unknownFieldRE.FindStringSubmatch(text); fm != nil {
		text = fmt.Sprintf("unknown key %q", fm[1])
	}
	return &Error{Path: path, Line: line, Msg: text}
}

// keyLines maps "targets[i].name" style positions: for validation errors we
// only need the line of each target's mapping, found with a yaml.Node pass.
func keyLines(src []byte) map[string]int {
	lines := map[string]int{}
	var root yaml.Node
	if yaml.Unmarshal(src, &root) != nil || len(root.Content) == 0 {
		return lines
	}
	doc := root.Content[0]
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k, v := doc.Content[i], doc.Content[i+1]
		lines[k.Value] = k.Line
		if k.Value == "targets" && v.Kind == yaml.SequenceNode {
			for j, t := range v.Content {
				lines[fmt.Sprintf("targets[%d]", j)] = t.Line
				for m := 0; m+1 < len(t.Content); m += 2 {
					lines[fmt.Sprintf("targets[%d].%s", j, t.Content[m].Value)] = t.Content[m].Line
				}
			}
		}
	}
	return lines
}

func (c *Config) validate(path string, lines map[string]int) error {
	fail := func(key, format string, args ...any) error {
		return &Error{Path: path, Line: lines[key], Msg: fmt.Sprintf(format, args...)}
	}
	if c.ContextWindow < 0 {
		return fail("context_window", "context_window must be a positive number of tokens")
	}
	if c.Tokenizer != budget.O200kBase && c.Tokenizer != budget.Cl100kBase {
		return fail("tokenizer", "tokenizer %q: want %s or %s", c.Tokenizer, budget.O200kBase, budget.Cl100kBase)
	}
	if err := c.Thresholds.Validate(); err != nil {
		return fail("thresholds", "%v", err)
	}
	seen := map[string]bool{}
	for i, t := range c.Targets {
		at := fmt.Sprintf("targets[%d]", i)
		if !nameRE.MatchString(t.Name) {
			return fail(at, "target name %q must match %s", t.Name, nameRE)
		}
		if seen[t.Name] {
			return fail(at, "duplicate target name %q", t.Name)
		}
		seen[t.Name] = true
		for _, p := range t.Providers {
			if !knownProviders[p] {
				return fail(at+".providers", "target %q: unknown provider %q (want markdown, anthropic, openai, gemini, ollama or text)", t.Name, p)
			}
		}
		for p := range t.Capabilities {
			if !knownProviders[p] {
				return fail(at+".capabilities", "target %q: capabilities for unknown provider %q", t.Name, p)
			}
		}
		if t.Budget < 0 {
			return fail(at+".budget", "target %q: budget must be a positive number of tokens", t.Name)
		}
		if t.MaxTokens < 0 {
			return fail(at+".max_tokens", "target %q: max_tokens must be a positive number of tokens", t.Name)
		}
		if t.OpenAISystemRole != "" && t.OpenAISystemRole != "system" && t.OpenAISystemRole != "developer" {
			return fail(at+".openai_system_role", "target %q: openai_system_role must be system or developer", t.Name)
		}
		if t.OpenAIAPI != prompt.OpenAIChat && t.OpenAIAPI != prompt.OpenAIResponses {
			return fail(at+".openai_api", "target %q: openai_api must be chat or responses", t.Name)
		}
		for _, f := range append(append(append([]string{}, t.System...), t.Skills...), t.Include...) {
			if err := checkRel(f); err != nil {
				return fail(at, "target %q: %v", t.Name, err)
			}
		}
		if t.Tools != "" {
			if err := checkRel(t.Tools); err != nil {
				return fail(at+".tools", "target %q: %v", t.Name, err)
			}
		}
	}
	if c.Agent.MaxIterations < 0 {
		return fail("agent", "agent.max_iterations must be 0 (unset) or a positive number of iterations")
	}
	switch c.History.Strategy {
	case "window", "tokens", "summary", "importance":
	default:
		return fail("history", "history.strategy %q: want window, tokens, summary or importance", c.History.Strategy)
	}
	if err := c.resolveModels(fail); err != nil {
		return err
	}
	for _, v := range []func(fail failFunc) error{c.CircuitBreaker.validate, c.Files.validate, c.Compression.validate, c.Watch.validate} {
		if err := v(fail); err != nil {
			return err
		}
	}
	return nil
}

// failFunc builds an *Error at the line of a dotted key ("history",
// "targets[0].providers"), as keyLines records them.
type failFunc func(key, format string, args ...any) error

// checkRel rejects paths that are absolute or leave the project.
func checkRel(p string) error {
	if p == "" || !fs.ValidPath(strings.TrimPrefix(p, "./")) {
		return fmt.Errorf("path %q must be relative to the project and stay inside it", p)
	}
	return nil
}

// Load reads DIR/.planning/recite.yaml; a missing file yields Default and
// found=false.
func Load(dir string) (cfg *Config, found bool, err error) {
	path := dir + "/" + FileName
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), false, nil
	}
	if err != nil {
		return nil, false, err
	}
	c, err := Parse(FileName, src)
	return c, true, err
}

// Target returns the configured target named name. Errors: "unknown
// target" with the names of the configured ones.
func (c *Config) Target(name string) (*Target, error) {
	var names []string
	for i := range c.Targets {
		if c.Targets[i].Name == name {
			return &c.Targets[i], nil
		}
		names = append(names, c.Targets[i].Name)
	}
	return nil, fmt.Errorf("unknown target %q (configured: %s)", name, strings.Join(names, ", "))
}
