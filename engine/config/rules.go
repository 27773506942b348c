package config

import (
	"fmt"
	"maps"
	"regexp"
	"strings"

	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/templates"
)

// The JSON Schema of recite.yaml is generated from the config types and
// these rules by schema_test.go; its test fails until this is run after a
// change.
//go:generate go test -run ^TestSchemaCurrent$ -update .

// rule is what one key of recite.yaml accepts beyond its Go type, and an
// example of a good value. Check enforces it at the key's line; the JSON
// Schema of recite.yaml (templates/recite.schema.json) carries the same
// enums, patterns, bounds and examples, generated from these tables by
// this package's tests.
type rule struct {
	// example is a valid value, as YAML: "0.70", "[markdown, anthropic]".
	example string
	// what says what the key takes, for messages ("a number between 0
	// and 1"); "" uses the words of its kind and enum.
	what string
	// enum lists the values a string, a list's items or a dict's keys may
	// take.
	enum []string
	// open marks an enum of suggestions only: other values are allowed
	// when they match pattern (roles: a project may add its own).
	open bool
	// pattern is what a string, or a dict's keys, must match.
	pattern *regexp.Regexp
	// noun names a dict's keys in messages: "provider", "task type".
	noun string
	// min and max bound a number, inclusively (above: min is excluded);
	// nil for no bound.
	min, max *float64
	above    bool
	// path marks a file path, which must be relative to the project and
	// stay inside it (checkRel).
	path bool
	// required marks a key its mapping must have (a target's name;
	// validate reports it missing).
	required bool
}

// at returns a pointer to f, for rule bounds.
func at(f float64) *float64 { return &f }

// providers are the request shapes recite renders, in the order messages
// list them.
var providers = prompt.Providers()

// historyStrategies are the history.strategy values (engine/history).
var historyStrategies = []string{"window", "tokens", "summary", "importance"}

// breakerPresets are the circuit_breaker.preset values (signals.Preset).
var breakerPresets = []string{"default", "aggressive", "debug"}

// omitSections are the sections a difficulty policy may leave out. The
// system prompt, plan, state, health, preserved signals, errors and
// recitation carry the current task and stop signals, which are never
// forgotten, so they cannot be omitted. directives and rewards name
// fire-flow steps 8.5 and 8.8 for prompts that carry them.
var omitSections = []string{"learnings", "directives", "rewards", "epic", "loop", "file-tree", "files", "skills"}

var (
	nameRE     = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	taskTypeRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)
	// roleRE is a role name templates.Role accepts: no path separator,
	// not hidden, not empty.
	roleRE = regexp.MustCompile(`^[^./\\][^/\\]*$`)
	// workstreamRE is a GSD workstream name (planning.ValidWorkstreamName):
	// a letter or digit, then letters, digits, '.', '_' or '-', never "..".
	workstreamRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9_-]|\.[A-Za-z0-9_-])*\.?$`)
)

// workstreamWhat says what targets[].workstream takes.
const workstreamWhat = "a GSD workstream name: letters, digits, '.', '_' or '-', starting with a letter or digit"

// rules returns the rule of every key of recite.yaml by rule path (see
// key.rule). Check and the schema tests fail on a key without a rule, so
// every key has an example.
func rules() map[string]rule {
	r := map[string]rule{
		"":               {example: "{context_window: 200000}"},
		"context_window": {example: "200000", what: "a whole number of tokens, 0 or more", min: at(0)},
		"tokenizer":      {example: budget.O200kBase, enum: []string{budget.O200kBase, budget.Cl100kBase}},
		"thresholds":     {example: "{warning: 0.70, critical: 0.85}"},
		"thresholds.warning": {example: "0.70", what: "a number between 0 and 1",
			min: at(0), above: true, max: at(1)},
		"thresholds.critical": {example: "0.85", what: "a number between 0 and 1",
			min: at(0), above: true, max: at(1)},
		"targets":              {example: "[{name: agent, role: implementer}]"},
		"agent":                {example: "{command: claude -p, timeout: 10m}"},
		"agent.command":        {example: "claude -p"},
		"agent.timeout":        {example: "10m"},
		"agent.max_iterations": {example: "10", what: "a whole number of iterations, 0 or more", min: at(0)},
		"history":              {example: "{strategy: window, window: 20}"},
		"history.strategy":     {example: "window", enum: historyStrategies},
		"history.window":       {example: "20", what: "a whole number of messages, 0 or more", min: at(0)},
		"history.tokens":       {example: "20000", what: "a whole number of tokens, 0 or more", min: at(0)},
		"history.keep":         {example: "5", what: "a whole number of messages, 0 or more", min: at(0)},
		"history.summarizer":   {example: "./scripts/summarize.sh"},
		"history.high_water": {example: "1.0", what: "a share of the strategy's size, above 0 and at most 1",
			min: at(0), above: true, max: at(1)},
		"history.low_water": {example: "0.5", what: "a share of the high-water mark, above 0 and at most 1",
			min: at(0), above: true, max: at(1)},
		"watch":                  {example: "{quiet: 20ms, max_wait: 250ms}"},
		"watch.quiet":            {example: "20ms"},
		"watch.max_wait":         {example: "250ms"},
		"watch.commit_interval":  {example: "1m"},
		"hooks":                  {example: "{recite_every: 5}"},
		"hooks.recite_every":     {example: "5", what: "a whole number of prompts, 0 or more (0 turns the recitation at prompts off)", min: at(0)},
		"conversations":          {example: "{keep_raw: false}"},
		"conversations.keep_raw": {example: "false"},
		"providers":              {example: "[{name: together, base_url: https://api.together.xyz/v1, model: meta-llama/Llama-3.3-70B-Instruct-Turbo}]"},
		"providers[]":            {example: "{name: together, base_url: https://api.together.xyz/v1, model: meta-llama/Llama-3.3-70B-Instruct-Turbo}"},
		"providers[].name": {example: "together", pattern: nameRE, required: true,
			what: "a name of up to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"},
		"providers[].base_url":      {example: "https://api.together.xyz/v1", required: true},
		"providers[].model":         {example: "meta-llama/Llama-3.3-70B-Instruct-Turbo", required: true},
		"providers[].max_context":   {example: "131072", what: "a positive whole number of tokens", min: at(1)},
		"providers[].max_output":    {example: "8192", what: "a positive whole number of tokens", min: at(1)},
		"providers[].cache":         {example: "automatic", enum: []string{prompt.CacheAutomatic, prompt.CacheNone}},
		"providers[].min_cacheable": {example: "1024", what: "a whole number of tokens, 0 or more", min: at(0)},
	}
	maps.Copy(r, targetRules())
	maps.Copy(r, blockRules())
	modelRules(r, "models")
	modelRules(r, "targets[].models")
	return r
}

// targetRules are the rules of a target's keys.
func targetRules() map[string]rule {
	count := func(ex, unit string, min float64) rule {
		what := fmt.Sprintf("a whole number of %s, %v or more", unit, min)
		if min == 1 {
			what = "a positive whole number of " + unit
		}
		return rule{example: ex, what: what, min: at(min)}
	}
	return map[string]rule{
		"targets[]": {example: "{name: agent}"},
		"targets[].name": {example: "agent", pattern: nameRE, required: true,
			what: "a name of up to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"},
		"targets[].role": {example: "implementer", enum: templates.Roles(), open: true, pattern: roleRE,
			what: "a role: " + orList(templates.Roles()) + ", or one of .planning/templates/roles/"},
		"targets[].system":     {example: "[AGENTS.md, CLAUDE.md]"},
		"targets[].system[]":   {example: "AGENTS.md", path: true},
		"targets[].tools":      {example: "docs/tools.md", path: true},
		"targets[].skills":     {example: "[skills/testing.md]"},
		"targets[].skills[]":   {example: "skills/testing.md", path: true},
		"targets[].tool_set":   {example: "[Read, Edit, Bash]"},
		"targets[].tool_set[]": {example: "Read"},
		"targets[].providers":  {example: "[markdown, anthropic, openai]", enum: providers, open: true, pattern: nameRE},
		"targets[].providers[]": {example: "markdown", enum: providers, open: true, pattern: nameRE,
			what: "a provider: " + orList(providers) + ", or one of providers:"},
		"targets[].huggingface_api":               {example: "chat", enum: []string{prompt.HuggingFaceChat, prompt.HuggingFaceTextGeneration}},
		"targets[].budget":                        count("50000", "tokens", 0),
		"targets[].include":                       {example: "[README.md]"},
		"targets[].include[]":                     {example: "README.md", path: true},
		"targets[].conversation":                  {example: "main"},
		"targets[].workstream":                    {example: "api-v2", pattern: workstreamRE, what: workstreamWhat},
		"targets[].model":                         {example: prompt.DefaultAnthropicModel},
		"targets[].max_tokens":                    count("4096", "tokens", 0),
		"targets[].openai_system_role":            {example: "developer", enum: []string{"system", "developer"}},
		"targets[].openai_api":                    {example: prompt.OpenAIChat, enum: []string{prompt.OpenAIChat, prompt.OpenAIResponses}},
		"targets[].prefill":                       {example: "false"},
		"targets[].ollama_stream":                 {example: "false"},
		"targets[].capabilities":                  {example: "{ollama: {max_context: 32768}}", enum: providers, open: true, pattern: nameRE, noun: "provider"},
		"targets[].capabilities.*":                {example: "{max_context: 32768}"},
		"targets[].capabilities.*.max_context":    count("32768", "tokens", 1),
		"targets[].capabilities.*.max_output":     count("8192", "tokens", 1),
		"targets[].capabilities.*.min_cacheable":  count("1024", "tokens", 0),
		"targets[].capabilities.*.developer_role": {example: "true"},
	}
}

// blockRules are the rules of the circuit_breaker, files and compression
// blocks.
func blockRules() map[string]rule {
	count := func(ex, unit string) rule {
		return rule{example: ex, what: "a whole number of " + unit + ", 0 or more", min: at(0)}
	}
	pct := func(ex string) rule {
		return rule{example: ex, what: "a whole number of percent from 0 to 100", min: at(0), max: at(100)}
	}
	r := map[string]rule{
		"circuit_breaker":                     {example: "{preset: default}"},
		"circuit_breaker.preset":              {example: "default", enum: breakerPresets},
		"circuit_breaker.stall_warning":       count("3", "iterations"),
		"circuit_breaker.stall_break":         count("5", "iterations"),
		"circuit_breaker.spin_warning":        count("3", "occurrences"),
		"circuit_breaker.spin_break":          count("5", "occurrences"),
		"circuit_breaker.decline_warning_pct": pct("50"),
		"circuit_breaker.decline_break_pct":   pct("70"),
		"circuit_breaker.baseline_iterations": count("3", "iterations"),

		"files": {example: "{max_files: 12}"},
		"files.task_types": {example: "{frontend: [src/api/**, prisma/**]}", pattern: taskTypeRE, noun: "task type",
			what: "a task type of up to 32 lowercase letters, digits, '_' or '-', starting with a letter"},
		"files.task_types.*":   {example: "[src/api/**, prisma/**]"},
		"files.task_types.*[]": {example: "src/api/**"},
		"files.task_keywords": {example: "{testing: [test, spec]}", pattern: taskTypeRE, noun: "task type",
			what: "a task type of up to 32 lowercase letters, digits, '_' or '-', starting with a letter"},
		"files.task_keywords.*":   {example: "[test, spec]"},
		"files.task_keywords.*[]": {example: "spec"},
		"files.tree_depth": {example: "3", min: at(-1), max: at(20),
			what: "a whole number of directory levels up to 20, or -1 for no file tree"},
		"files.tree_max_entries": count("200", "entries"),
		"files.file_max_lines":   {example: "400", what: "a whole number of lines, at least 10", min: at(10)},
		"files.max_files": {example: "12", min: at(-1),
			what: "a whole number of files, 0 or more, or -1 for no files section"},

		"compression":            {example: "{enabled: true, every: 3}"},
		"compression.enabled":    {example: "true"},
		"compression.every":      {example: "3", what: "a positive whole number of iterations", min: at(1)},
		"compression.summarizer": {example: "./scripts/shorten.sh"},
		"compression.difficulty": {example: "{simple: {omit: [learnings, directives, rewards]}}"},
	}
	for _, lv := range []string{"simple", "moderate", "complex"} {
		level := "compression.difficulty." + lv
		r[level] = rule{example: "{omit: [learnings], double_check: true}"}
		r[level+".omit"] = rule{example: "[learnings, directives, rewards]", enum: omitSections}
		r[level+".omit[]"] = rule{example: "learnings", enum: omitSections}
		r[level+".double_check"] = rule{example: "true"}
	}
	return r
}

// modelRules adds the rules of a models block at rule path at.
func modelRules(r map[string]rule, at string) {
	r[at] = rule{example: fmt.Sprintf("{anthropic: %s, ollama: %s}", prompt.DefaultAnthropicModel, prompt.DefaultOllamaModel)}
	for _, p := range modelProviders {
		r[at+"."+p] = rule{example: prompt.DefaultModel(p)}
	}
}

// orList writes items as "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}
