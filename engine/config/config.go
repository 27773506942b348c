// Package config reads `.planning/recite.yaml`, recite's configuration.
//
// Parsing is strict: an unknown key is an error naming the file and line
// and the key it most likely meant, so a typo never silently falls back to
// a default; a value of the wrong type or out of range says what the key
// takes, with an example. Check returns every problem of a file, Parse the
// first. The keys are the yaml tags of the config types, read by
// reflection (keys.go); what each accepts beyond its Go type is one table
// (rules.go), from which, with the first paragraph of each field's doc
// comment, this package's tests generate the JSON Schema of recite.yaml
// (templates/recite.schema.json). With no file, Default
// applies: one target "agent" (role implementer; providers markdown,
// anthropic and openai, each with its default model), a 200,000-token
// context window counted with o200k_base, and WARNING/CRITICAL at 70%/85%.
// Each target resolves a model per provider (models.go): its models:, its
// older single model: for the provider whose family it names, the
// top-level models:, then the defaults of engine/prompt.
//
// It imports engine/budget, engine/history, engine/prompt and
// engine/signals (the types and defaults it configures; providers.go the
// capability table's providers of the project's own), markdown (YAML error lines) and templates
// (the built-in roles); no package of the binary imports the schema
// generator or validator its tests use.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/markdown"
)

// FileName is the configuration file's path relative to the project root.
const FileName = ".planning/recite.yaml"

// SchemaFile is where recite keeps a copy of the JSON Schema of
// recite.yaml (templates.Schema), relative to the project root: inside
// .planning/.recite/, which git ignores, rewritten by `recite init` and
// every build, so that it is the schema of the recite that reads the
// file, offline, without a clone of recite.
const SchemaFile = ".planning/.recite/recite.schema.json"

// SchemaModelinePath is SchemaFile relative to the folder of FileName:
// the path the first line of the recite.yaml `recite init` writes gives
// editors ("# yaml-language-server: $schema=…", which yaml-language-server
// resolves relative to the YAML file).
const SchemaModelinePath = ".recite/recite.schema.json"

// Config is the whole of recite.yaml.
type Config struct {
	// ContextWindow is the model's context window in tokens (default
	// 200000, the limit fire-flow assumes).
	ContextWindow int `yaml:"context_window"`
	// Tokenizer is the BPE encoding used for counts: o200k_base (default)
	// or cl100k_base.
	Tokenizer string `yaml:"tokenizer"`
	// Thresholds are the fractions of a target's budget at which its
	// status turns WARNING and CRITICAL.
	Thresholds budget.Thresholds `yaml:"thresholds"`
	// Targets are the prompt files to write, one per consumer.
	Targets []Target `yaml:"targets"`
	// Agent is the command `recite conversation run` spawns.
	Agent Agent `yaml:"agent"`
	// History sets how a conversation's history is pruned.
	History History `yaml:"history"`
	// CircuitBreaker sets the loop-health thresholds of the circuit
	// breaker: a preset, and overrides of its thresholds.
	CircuitBreaker CircuitBreaker `yaml:"circuit_breaker"`
	// Files sets which project files enter a prompt: exclusions by task
	// type, and the limits of the file-tree and files sections.
	Files Files `yaml:"files"`
	// Compression sets difficulty routing and context compression.
	Compression Compression `yaml:"compression"`
	// Watch sets `recite watch` timing and its history commits.
	Watch Watch `yaml:"watch"`
	// Conversations sets how conversation logs are written: whether the
	// raw text of redacted records is kept.
	Conversations Conversations `yaml:"conversations"`
	// Models names a model per provider for every target; a target's own
	// models win.
	Models Models `yaml:"models"`
	// Hooks sets what the Claude Code hook adds to a session: how often
	// the recitation is repeated at a prompt.
	Hooks Hooks `yaml:"hooks"`
	// Providers are providers of the project's own: OpenAI-compatible
	// chat endpoints that targets[].providers may name beside the built-in
	// ones (docs/providers.md#providers-of-your-own).
	Providers []CustomProvider `yaml:"providers"`

	// lines maps every key read from the file, dotted ("targets[0].role"),
	// to its line (KeyLine).
	lines map[string]int
}

// KeyLine returns the line of recite.yaml where the dotted key
// ("targets[0].role", "history.window") was written, or the line of the
// nearest key above it that was, or 0 (a default, or a configuration not
// read from a file).
func (c *Config) KeyLine(key string) int {
	return keyLine(c.lines, key)
}

// keyLine looks key up in lines, then each key above it.
func keyLine(lines map[string]int, key string) int {
	for key != "" {
		if l, ok := lines[key]; ok {
			return l
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return 0
}

// Target is one consumer of prompt files.
type Target struct {
	// Name names the target's prompt files, prompts/NAME.md and
	// prompts/NAME.PROVIDER.json: up to 64 letters, digits, '.', '_' or
	// '-', starting with a letter or digit. Required.
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
	// Workstream names the GSD workstream (a folder of
	// .planning/workstreams/) whose state, roadmap and phases this target
	// carries, whatever GSD_WORKSTREAM or .planning/active-workstream say;
	// "" follows them (docs/formats.md#workstreams). A name without a
	// folder keeps the target's last good render.
	Workstream string `yaml:"workstream"`
	// Models names this target's model per provider, over the top-level
	// models.
	//
	// After Parse it holds the resolved model of every provider
	// (ModelFor).
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
	// ToolSet names the tools the target's conversation may call, in the
	// order the tools block lists them (anthropic, openrouter): a stable
	// tools block from the first turn on. Without it the block holds every
	// tool the conversation had called at its latest eviction, sorted, and
	// a call to a tool outside the block is written as text
	// (docs/providers.md#a-stable-tools-block).
	ToolSet []string `yaml:"tool_set"`
	// OllamaStream is the ollama body's "stream" (default false: one JSON
	// reply, as curl and the README expect).
	OllamaStream bool `yaml:"ollama_stream"`
	// Capabilities override the limits of the target's model, per
	// provider: its context window, longest reply, minimum cacheable
	// prefix, and whether it takes the developer role.
	Capabilities map[string]CapabilityOverride `yaml:"capabilities"`

	// HuggingFaceAPI is "chat" (the router's Chat Completions, default) or
	// "text-generation" (inputs and parameters, for a text-generation
	// endpoint): the shape of the huggingface body.
	HuggingFaceAPI string `yaml:"huggingface_api"`

	// Line is the line of this target's entry in recite.yaml (0 for the
	// default target), for diagnostics about it.
	Line int `yaml:"-"`
	// customs are the configuration's own providers (Config.Providers).
	customs []prompt.Custom
}

// Agent is the agent command for `recite conversation run`.
type Agent struct {
	// Command is run through `sh -c`; `{prompt_file}` is replaced by the
	// prompt file's path, otherwise the prompt is written to stdin.
	Command string `yaml:"command"`
	// Timeout bounds one run, as a Go duration (default 10m).
	Timeout Duration `yaml:"timeout"`
	// MaxIterations is M in the loop layer's "iteration N of M" for
	// conversations run by `recite conversation run` (one iteration per
	// run); 0 leaves M to the active fire-flow loop's max_iterations, if
	// any. It does not stop a run: the circuit breaker does.
	MaxIterations int `yaml:"max_iterations"`
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

// Default returns the configuration used when recite.yaml is absent.
func Default() *Config {
	c := &Config{}
	c.fill()
	c.resolveModels(func(string, string, ...any) {}) // no legacy model: cannot fail
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
	if c.Thresholds.Warning == 0 {
		c.Thresholds.Warning = budget.DefaultThresholds().Warning
	}
	if c.Thresholds.Critical == 0 {
		c.Thresholds.Critical = budget.DefaultThresholds().Critical
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
		c.History.Window = DefaultWindow
	}
	if c.History.HighWater == 0 {
		c.History.HighWater = DefaultHighWater
	}
	if c.History.LowWater == 0 {
		c.History.LowWater = DefaultLowWater
	}
	c.CircuitBreaker.fill()
	c.Files.fill()
	c.Compression.fill()
	c.Watch.fill()
	c.Hooks.fill()
}

// Error is a problem of a configuration file with its position.
type Error struct {
	// Path is the file as named in messages (FileName).
	Path string
	// Line is the 1-based line of the problem, 0 when it has none (a
	// check of the defaults).
	Line int
	// Key is the dotted key the problem is about ("thresholds.warning",
	// "targets[0].providers[1]"), "" for the file as a whole.
	Key string
	// Msg is the problem, starting with the key when there is one.
	Msg string
	// More is how many further problems the file has (Parse reports the
	// first one only; Check returns them all).
	More int

	// beyondSchema marks a check the JSON Schema of recite.yaml does not
	// express: one across keys, or a glob's gitignore syntax.
	beyondSchema bool
}

// Error returns "PATH:LINE: MSG", and a second line counting the other
// problems when there are any.
func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s", e.Path, e.Msg)
	if e.Line > 0 {
		s = fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	if e.More > 0 {
		s += fmt.Sprintf("\n%s: %d more %s; `recite config check` lists them all", e.Path, e.More, map[bool]string{true: "problem", false: "problems"}[e.More == 1])
	}
	return s
}

// Parse reads a configuration from src; path is used in errors. The
// error is the first problem Check finds, an *Error whose More counts
// the others.
func Parse(path string, src []byte) (*Config, error) {
	c, errs := Check(path, src)
	if len(errs) > 0 {
		first := *errs[0]
		first.More = len(errs) - 1
		return nil, &first
	}
	return c, nil
}

// Check reads a configuration from src and returns it with every problem
// it has, in line order (path names the file in them): invalid YAML (the
// one problem then), unknown keys with the key they most likely meant,
// values of the wrong type or out of range with what the key takes and an
// example, and the checks across keys (validate). The configuration is
// nil when src is not YAML; otherwise it holds the good values, with
// defaults for the rest.
func Check(path string, src []byte) (*Config, []*Error) {
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, []*Error{yamlError(path, src, err)}
	}
	ch := newChecker(path)
	c := &Config{}
	if len(doc.Content) > 0 {
		root := doc.Content[0]
		if ch.value(ch.root, root.Line, root, "") {
			if err := root.Decode(c); err != nil {
				ch.decodeErrors(src, err)
			}
		}
	}
	c.fill()
	c.lines = ch.lines
	for i := range c.Targets {
		c.Targets[i].Line = ch.lines[fmt.Sprintf("targets[%d]", i)]
	}
	c.validate(ch.fail)
	// yaml.v3 counts a lone \r as a line break; recite's lines count \n
	// only: a line past the last is the last (markdown.LocateYAMLError).
	last := bytes.Count(bytes.TrimSuffix(src, []byte{'\n'}), []byte{'\n'}) + 1
	for _, e := range ch.errs {
		e.Line = min(e.Line, last)
	}
	slices.SortStableFunc(ch.errs, func(a, b *Error) int { return a.Line - b.Line })
	return c, ch.errs
}

// yamlError is err at the line of src it points to
// (markdown.LocateYAMLError: yaml.v3's parser lines are 0-based, reader
// errors such as control characters carry none).
func yamlError(path string, src []byte, err error) *Error {
	line, text := markdown.LocateYAMLError(err, src)
	return &Error{Path: path, Line: line, Msg: text}
}

// decodeErrors records the errors of decoding the checked document: the
// checks of the files block's globs (Files.UnmarshalYAML), one per
// "line N: …" entry.
func (ch *checker) decodeErrors(src []byte, err error) {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		e := yamlError(ch.path, src, err)
		ch.record(e.Line, "", e.Msg).beyondSchema = true
		return
	}
	for _, s := range te.Errors {
		e := yamlError(ch.path, src, &yaml.TypeError{Errors: []string{s}})
		ch.record(e.Line, "files", e.Msg).beyondSchema = true
	}
}

// fail records a problem of a check across keys at the line of the dotted
// key (or of the nearest key above it that was written), unless a value
// under that key was already reported.
func (ch *checker) fail(key, format string, args ...any) {
	if ch.reported(key) {
		return
	}
	ch.record(keyLine(ch.lines, key), key, fmt.Sprintf(format, args...)).beyondSchema = true
}

// failFunc records a problem at the line of a dotted key ("history",
// "targets[0].providers").
type failFunc func(key, format string, args ...any)

// validate runs the checks that need more than one value, or the values
// with their defaults: target names present and unique, thresholds in
// order, the models of each provider, and the blocks' own checks.
func (c *Config) validate(fail failFunc) {
	if err := c.Thresholds.Validate(); err != nil {
		fail("thresholds", "%v", err)
	}
	seen := map[string]int{}
	for i, t := range c.Targets {
		at := fmt.Sprintf("targets[%d]", i)
		switch {
		case t.Name == "":
			fail(at+".name", "a target needs a name (example: name: agent)")
		case seen[t.Name] > 0:
			fail(at+".name", "duplicate target name %q (the first is at line %d)", t.Name, seen[t.Name])
		default:
			seen[t.Name] = max(t.Line, 1)
		}
	}
	c.validateProviders(fail)
	c.resolveModels(fail)
	c.CircuitBreaker.validate(fail)
	c.Files.validate(fail)
	c.Watch.validate(fail)
}

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
