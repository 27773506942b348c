// Package diagnostics remembers which diagnostics the command line has
// printed, so that a command prints a diagnostic the first time it appears
// (or when it changed) and afterwards only counts it
// (docs/formats.md#diagnostics-once).
//
// It owns the memory file's format and the comparison of a command's
// diagnostics with it. It imports markdown (for the Diagnostic type)
// only; the engine decides where the file lives and when a
// command's set is complete.
package diagnostics

import (
	"encoding/json"
	"os"
	"slices"
	"sort"

	"github.com/recite-dev/recite/markdown"
)

// Diagnostic is a problem found in one file, with its 1-based line (0 when
// it concerns the whole file).
type Diagnostic = markdown.Diagnostic

// Shown is one remembered diagnostic and the command that printed it first
// ("build", "status", "watch", "say", "preserve", "run").
type Shown struct {
	Diagnostic
	By string `json:"by"`
}

// News splits the diagnostics a command is about to print into those
// printed before (Known) and those not (New), both in the order the command
// reported them.
type News struct {
	New   []Diagnostic
	Known []Diagnostic
}

// version is the version of the memory file's format.
const version = 1

// maxShown bounds the entries kept; diagnostics past it are printed again
// each time.
const maxShown = 5000

// state is the document in the memory file:
//
//	{"version": 1, "shown": [{"path": ".planning/STATE.md", "line": 2,
//	  "message": "invalid YAML front matter …", "by": "build"}]}
type state struct {
	Version int     `json:"version"`
	Shown   []Shown `json:"shown"`
}

// key identifies a diagnostic across commands and edits: its file and
// message. The line is left out, so a diagnostic whose file gained a line
// above it is still the one already shown; another message for the same
// file is a new diagnostic.
type key struct{ path, message string }

func keyOf(d Diagnostic) key { return key{d.Path, d.Message} }

// Memory is the file that remembers printed diagnostics. A missing, torn
// or otherwise unreadable file counts as empty: the diagnostics are then
// printed again, nothing is lost. It is rewritten whole, without fsync: it
// is a convenience, never a record.
type Memory struct {
	// Path is the file (absolute).
	Path string
	// Prepare, when set, runs before the file is written (it makes the
	// folder and its .gitignore); an error skips the write.
	Prepare func() error
}

// Read returns the remembered diagnostics; nil when the file is missing or
// not a document of the known version.
func (m Memory) Read() []Shown {
	b, err := os.ReadFile(m.Path)
	if err != nil {
		return nil
	}
	var st state
	if json.Unmarshal(b, &st) != nil || st.Version != version {
		return nil
	}
	return st.Shown
}

// Note compares a command's diagnostics with the file and records them
// there. by names the command. complete says diags is the whole project's
// set, as build, status and watch report it: the file then keeps exactly
// diags, so a diagnostic that went away and comes back is new again. A
// command that reports only a part (say, preserve, a conversation run)
// adds its diagnostics to the file. Keys are counted as a multiset: two
// equal diagnostics of one file are two entries. A failure to read or
// write the file is ignored: every diagnostic is then new.
func (m Memory) Note(diags []Diagnostic, complete bool, by string) News {
	old := m.Read()
	left := map[key]int{}
	firstBy := map[key][]string{}
	for _, s := range old {
		k := keyOf(s.Diagnostic)
		left[k]++
		firstBy[k] = append(firstBy[k], s.By)
	}
	var news News
	var next []Shown
	for _, d := range diags {
		k := keyOf(d)
		if left[k] > 0 {
			left[k]--
			news.Known = append(news.Known, d)
			next = append(next, Shown{d, firstBy[k][0]})
			firstBy[k] = firstBy[k][1:]
			continue
		}
		news.New = append(news.New, d)
		next = append(next, Shown{d, by})
	}
	if !complete {
		// Keep what this command did not report.
		for _, s := range old {
			if k := keyOf(s.Diagnostic); left[k] > 0 {
				left[k]--
				next = append(next, s)
			}
		}
	}
	if len(next) > maxShown {
		next = next[:maxShown]
	}
	if !slices.Equal(next, old) {
		m.write(next)
	}
	return news
}

// write rewrites the file; errors are ignored.
func (m Memory) write(shown []Shown) {
	if shown == nil {
		shown = []Shown{}
	}
	b, err := json.Marshal(state{Version: version, Shown: shown})
	if err != nil {
		return
	}
	if m.Prepare != nil && m.Prepare() != nil {
		return
	}
	_ = os.WriteFile(m.Path, append(b, '\n'), 0o644)
}

// Printed returns the remembered diagnostics that are not in tree (as a
// multiset), sorted by path and line: what other commands printed beyond
// the diagnostics read now.
func Printed(tree []Diagnostic, shown []Shown) []Shown {
	left := map[key]int{}
	for _, d := range tree {
		left[keyOf(d)]++
	}
	var out []Shown
	for _, s := range shown {
		if k := keyOf(s.Diagnostic); left[k] > 0 {
			left[k]--
		} else {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Path < b.Path || a.Path == b.Path && a.Line < b.Line
	})
	return out
}

// Sort orders diagnostics by path, then line, keeping the order of equal
// ones.
func Sort(diags []Diagnostic) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i], diags[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
}
