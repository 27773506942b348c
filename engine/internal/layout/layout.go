// Package layout names the files and folders recite owns inside a
// project, relative to the project root, and finds the project root: the
// one place the engine and its subpackages (engine/claudecode,
// engine/scope, engine/agent, engine/layers) take these paths from. It
// imports the standard library only.
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
