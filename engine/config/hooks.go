package config

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// DefaultReciteEvery is hooks.recite_every when unset: the Claude Code
// hook repeats an unchanged recitation at every fifth prompt.
const DefaultReciteEvery = 5

// Hooks is the `hooks` block of recite.yaml: what the Claude Code hook
// (`recite hook claude-code`) adds to the session.
//
//	hooks:
//	  recite_every: 5   # the recitation at a prompt when it changed, or after 5 prompts; 0: never
type Hooks struct {
	// ReciteEvery is how often the UserPromptSubmit hook returns the
	// recitation block as additional context: whenever it differs from
	// the last one injected in the session (SessionStart's included), and
	// otherwise once every ReciteEvery prompts; 0 turns it off. nil until
	// the defaults are filled in (DefaultReciteEvery); read it with
	// Every.
	ReciteEvery *PromptCount `yaml:"recite_every"`
}

// PromptCount is a number of prompts, a whole number that is not
// negative. Its YAML decoding rejects anything else at the value's line,
// with an example.
type PromptCount int

// UnmarshalYAML reads a whole number of prompts. Errors (at the value's
// line): not a whole number, or a negative one.
func (p *PromptCount) UnmarshalYAML(n *yaml.Node) error {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return fmt.Errorf("line %d: hooks.recite_every %q: want a whole number of prompts, e.g. `recite_every: 5` (0 turns the recitation at prompts off)", n.Line, n.Value)
	}
	if v < 0 {
		return fmt.Errorf("line %d: hooks.recite_every must not be negative (got %d); 0 turns the recitation at prompts off", n.Line, v)
	}
	*p = PromptCount(v)
	return nil
}

// fill sets the default of an unset recite_every.
func (h *Hooks) fill() {
	if h.ReciteEvery == nil {
		d := PromptCount(DefaultReciteEvery)
		h.ReciteEvery = &d
	}
}

// Every is recite_every as a number of prompts: DefaultReciteEvery when
// unset, 0 when turned off.
func (h Hooks) Every() int {
	if h.ReciteEvery == nil {
		return DefaultReciteEvery
	}
	return int(*h.ReciteEvery)
}
