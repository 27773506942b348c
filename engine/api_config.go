package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/templates"
)

// ConfigProblem is one problem of a recite.yaml, at its line.
type ConfigProblem struct {
	// File is the file as named in messages: .planning/recite.yaml, or the
	// path given to CheckConfig.
	File string `json:"file"`
	// Line is the 1-based line of the problem (0: none).
	Line int `json:"line"`
	// Key is the dotted key ("thresholds.warning", "targets[0].role"); ""
	// for the file as a whole.
	Key string `json:"key,omitempty"`
	// Message is the problem, starting with the key when there is one.
	Message string `json:"message"`
}

// String is "FILE:LINE: MESSAGE", as every file:line diagnostic.
func (p ConfigProblem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Message)
}

// ConfigCheck is what CheckConfig found.
type ConfigCheck struct {
	// File is the file checked, as named in the problems.
	File string `json:"file"`
	// Found is false when the project has no recite.yaml: the defaults
	// apply, and there is nothing to check.
	Found bool `json:"found"`
	// Problems are every problem of the file, in line order; empty when it
	// is good.
	Problems []ConfigProblem `json:"problems"`
}

// CheckConfig checks a recite.yaml and returns every problem it has
// (config.Check), and a role no template provides (built in, or
// .planning/templates/roles/ROLE.md of the project). file is the file to
// check, relative to the working directory; "" checks the project's
// .planning/recite.yaml, whose absence is no problem. Errors: a file that
// cannot be read (*InputError when it does not exist).
func (e *Engine) CheckConfig(file string) (*ConfigCheck, error) {
	name, path := file, file
	if file == "" {
		name, path = config.FileName, filepath.Join(e.dir, filepath.FromSlash(config.FileName))
	}
	if st, err := os.Stat(e.dir); file == "" && (err != nil || !st.IsDir()) {
		return nil, &InputError{Err: fmt.Errorf("project directory %s does not exist or is not a directory", e.dir)}
	}
	res := &ConfigCheck{File: name, Problems: []ConfigProblem{}}
	src, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && file == "":
		return res, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, &InputError{Err: fmt.Errorf("%s does not exist", file)}
	case err != nil:
		return nil, err
	}
	res.Found = true
	cfg, errs := config.Check(name, src)
	for _, ce := range errs {
		res.Problems = append(res.Problems, ConfigProblem{File: ce.Path, Line: ce.Line, Key: ce.Key, Message: ce.Msg})
	}
	if cfg == nil {
		return res, nil
	}
	planning := os.DirFS(filepath.Join(e.dir, PlanningDir))
	for i, tg := range cfg.Targets {
		if _, _, err := templates.Role(planning, tg.Role); err != nil {
			key := fmt.Sprintf("targets[%d].role", i)
			res.Problems = append(res.Problems, ConfigProblem{File: name, Line: cfg.KeyLine(key), Key: key,
				Message: fmt.Sprintf("target %q: %v", tg.Name, err)})
		}
	}
	return res, nil
}

// ConfigSchema returns the JSON Schema (draft-07) of recite.yaml, as this
// recite reads the file: every key with its description, type, enum,
// bounds and an example.
func ConfigSchema() []byte { return templates.Schema() }

// writeSchemaCopy keeps config.SchemaFile, the copy of recite.yaml's JSON
// Schema that the yaml-language-server line of the recite.yaml `recite
// init` writes points editors to, equal to this recite's schema
// (templates.Schema): it writes the file when it is missing or differs,
// with the .gitignore that keeps .planning/.recite/ out of git. It
// reports whether it wrote the copy.
func writeSchemaCopy(dir string) (bool, error) {
	path := filepath.Join(dir, filepath.FromSlash(config.SchemaFile))
	want := templates.Schema()
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, want) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	gi := filepath.Join(dir, CacheDir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, fs.ErrNotExist) {
		body, err := templates.Init("prompts.gitignore", "")
		if err != nil {
			return false, err
		}
		if err := fsutil.WriteFile(gi, []byte(body), 0o644); err != nil {
			return false, err
		}
	}
	if err := fsutil.WriteFile(path, want, 0o644); err != nil {
		return false, fmt.Errorf("write %s: %w", config.SchemaFile, err)
	}
	return true, nil
}
