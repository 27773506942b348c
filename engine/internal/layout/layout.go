// Package layout names the files and folders recite owns inside a
// project, relative to the project root, finds the project root, turns
// paths into project-relative ones, and types the user's input errors
// (InputError): the one place the engine and its subpackages
// (engine/claudecode, engine/scope, engine/agent, engine/layers) take
// these from. It imports the standard library only.
package layout

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Layout of the files the engine owns, relative to the project root,
// slash-separated.
const (
	// PlanningDir is the planning tree.
	PlanningDir = ".planning"
	// PromptsDir holds the rendered prompt files.
	PromptsDir = ".planning/prompts"
	// CacheDir holds the engine's caches (kept out of git).
	CacheDir = ".planning/.recite"
	// LastGoodDir holds a copy of the last good render of every prompt
	// file.
	LastGoodDir = ".planning/.recite/last"
	// ConversationsDir holds the conversation logs.
	ConversationsDir = ".planning/conversations"
	// PreservedFile is the append-only file of preservation blocks.
	PreservedFile = ".planning/context-preserved.md"
)

// InputError is an error in the user's input (a missing or unreadable
// planning tree, a bad recite.yaml, a bad path argument): the CLI exits 2
// on it. Its message is Err's.
type InputError struct{ Err error }

// Error is Err's message.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *InputError) Unwrap() error { return e.Err }

// ConversationLog is the project-relative path of conversation id's log.
func ConversationLog(id string) string { return ConversationsDir + "/" + id + ".jsonl" }

// RelPath turns p (absolute, or relative to the working directory) into a
// slash path relative to the project root dir; false when p is outside
// the project or either path cannot be made absolute.
func RelPath(dir, p string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	ap, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(abs, ap)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// ErrNoPlanning is returned when the project has no `.planning/` folder.
var ErrNoPlanning = errors.New("no .planning folder")

// HasPlanning reports whether dir holds a PlanningDir folder.
func HasPlanning(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, PlanningDir))
	return err == nil && fi.IsDir()
}

// ProjectRoot is the nearest directory at or above dir with a .planning
// folder, as an absolute path. Errors: ErrNoPlanning (wrapped, naming dir)
// when there is none, or dir cannot be made absolute.
func ProjectRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		if HasPlanning(d) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%w at or above %s; nothing to do (run `recite init`)", ErrNoPlanning, abs)
		}
		d = parent
	}
}

// OwnOutput reports whether a project-relative, slash-separated path is
// one recite itself writes (prompt files, caches, conversation logs, the
// preservation file): not part of an agent's working state.
func OwnOutput(p string) bool {
	for _, pre := range []string{PromptsDir + "/", CacheDir + "/", ConversationsDir + "/"} {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return p == PreservedFile
}
