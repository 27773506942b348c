package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/templates"
)

// Problem is one problem of a recite.yaml, at its line.
type Problem struct {
	// File is the file as named in messages: .planning/recite.yaml, or the
	// path given to CheckFile.
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
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Message)
}

// FileCheck is what CheckFile found.
type FileCheck struct {
	// File is the file checked, as named in the problems.
	File string `json:"file"`
	// Found is false when the project has no recite.yaml: the defaults
	// apply, and there is nothing to check.
	Found bool `json:"found"`
	// Problems are every problem of the file, in line order; empty when it
	// is good.
	Problems []Problem `json:"problems"`
	// Providers is the capability table of the file: the built-in
	// providers and the file's own (Config.Catalog); nil when the file is
	// not YAML.
	Providers []prompt.Capabilities `json:"providers,omitempty"`
}

// CheckFile checks a recite.yaml of the project at dir and returns every
// problem it has (Check), and a role no template provides (built in, or
// .planning/templates/roles/ROLE.md of the project). file is the file to
// check, relative to the working directory; "" checks the project's
// .planning/recite.yaml, whose absence is no problem. Errors: a file that
// cannot be read (*InputError when it does not exist).
func CheckFile(dir, file string) (*FileCheck, error) {
	name, path := file, file
	if file == "" {
		name, path = FileName, filepath.Join(dir, filepath.FromSlash(FileName))
	}
	if st, err := os.Stat(dir); file == "" && (err != nil || !st.IsDir()) {
		return nil, &layout.InputError{Err: fmt.Errorf("project directory %s does not exist or is not a directory", dir)}
	}
	res := &FileCheck{File: name, Problems: []Problem{}}
	src, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && file == "":
		return res, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, &layout.InputError{Err: fmt.Errorf("%s does not exist", file)}
	case err != nil:
		return nil, err
	}
	res.Found = true
	cfg, errs := Check(name, src)
	for _, ce := range errs {
		res.Problems = append(res.Problems, Problem{File: ce.Path, Line: ce.Line, Key: ce.Key, Message: ce.Msg})
	}
	if cfg == nil {
		return res, nil
	}
	res.Providers = cfg.Catalog().Table()
	planning := fsutil.DirFS(filepath.Join(dir, layout.PlanningDir))
	for i, tg := range cfg.Targets {
		if _, _, err := templates.Role(planning, tg.Role); err != nil {
			key := fmt.Sprintf("targets[%d].role", i)
			res.Problems = append(res.Problems, Problem{File: name, Line: cfg.KeyLine(key), Key: key,
				Message: fmt.Sprintf("target %q: %v", tg.Name, err)})
		}
	}
	return res, nil
}
