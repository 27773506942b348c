package engine

import (
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/templates"
)

// ConfigProblem is one problem of a recite.yaml, at its line
// (config.Problem).
type ConfigProblem = config.Problem

// ConfigCheck is what CheckConfig found (config.FileCheck).
type ConfigCheck = config.FileCheck

// CheckConfig checks a recite.yaml and returns every problem it has
// (config.CheckFile): file is relative to the working directory; "" checks
// the project's .planning/recite.yaml, whose absence is no problem.
// Errors: a file that cannot be read (*InputError when it does not exist).
func (e *Engine) CheckConfig(file string) (*ConfigCheck, error) { return config.CheckFile(e.dir, file) }

// ConfigSchema returns the JSON Schema (draft-07) of recite.yaml, as this
// recite reads the file: every key with its description, type, enum,
// bounds and an example.
func ConfigSchema() []byte { return templates.Schema() }

// Providers lists the built-in providers from the capability table, in
// its order (prompt.Providers); recite.yaml may add its own (providers:).
func Providers() []string { return prompt.Providers() }
