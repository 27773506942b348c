package config

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/recite-dev/recite/engine/internal/ignore"
)

// Files is the `files` block of recite.yaml: which project files enter a
// prompt and how much of them.
//
//	files:
//	  task_types:            # exclude globs per task type (gitignore syntax)
//	    frontend: [src/api/**, prisma/**, src/models/**]
//	    backend: [src/components/**, src/app/**, public/**]
//	    testing: []          # testing includes everything
//	  task_keywords:         # words of the current task that pick its type
//	    frontend: [frontend, ui, component, css, page]
//	  tree_depth: 3
//	  tree_max_entries: 200
//	  file_max_lines: 400
//	  max_files: 12
//
// Task types (fire-flow's dynamic exclusion): while the
// current plan's task type is T, the globs of task_types.T are excluded on
// top of .powerignore, .gitignore and .git/info/exclude; never-exclude files
// still enter. The type "testing" includes everything and takes no globs.
// There is no built-in table: without task_types nothing is excluded by
// task type (no hidden defaults: what is excluded is what the files
// say); `recite init` writes fire-flow's table (DefaultTaskTypes)
// into recite.yaml, where it can be read and changed.
type Files struct {
	// TaskTypes maps a task type to the gitignore patterns it excludes
	// (default: none).
	TaskTypes map[string][]string `yaml:"task_types"`
	// TaskKeywords maps a task type to words that select it when the plan's
	// front matter names no type: a word of the current task's name or
	// action, matched whole and case-insensitively. A type without keywords
	// is selected by its own name. Default: the built-in lists of
	// DefaultTaskKeywords for frontend, backend and testing.
	TaskKeywords map[string][]string `yaml:"task_keywords"`
	// TreeDepth is how many directory levels the file-tree section shows
	// (default 3; -1 leaves the section out).
	TreeDepth int `yaml:"tree_depth"`
	// TreeMaxEntries bounds the lines of the file-tree section, not
	// counting the "… N more" lines (default 200).
	TreeMaxEntries int `yaml:"tree_max_entries"`
	// FileMaxLines is the most lines of one file in the files section;
	// longer files keep their head and tail around a pointer
	// "⟨path: lines a–b omitted⟩" (default 400).
	FileMaxLines int `yaml:"file_max_lines"`
	// MaxFiles bounds how many files the files section carries (default
	// 12; -1 leaves the section out).
	MaxFiles int `yaml:"max_files"`

	// line records where each task-type glob was written, for
	// PatternsFor and error messages: "frontend[0]" → line.
	lines map[string]int
	// keywordsSet: task_keywords was written in the file.
	keywordsSet bool
}

// TypeTesting is the task type that includes everything.
const TypeTesting = "testing"

// DefaultTaskTypes returns fire-flow's dynamic-exclusion table
// (its context-engineering reference), the one the recite.yaml of
// `recite init` holds. It is not applied when recite.yaml has no
// task_types.
func DefaultTaskTypes() map[string][]string {
	return map[string][]string{
		"frontend":  {"src/api/**", "prisma/**", "src/models/**"},
		"backend":   {"src/components/**", "src/app/**", "public/**"},
		TypeTesting: {},
	}
}

// DefaultTaskKeywords returns the words that select the default task types
// when a plan names none.
func DefaultTaskKeywords() map[string][]string {
	return map[string][]string{
		"frontend":  {"frontend", "front-end", "ui", "component", "components", "css", "page", "layout", "react", "style", "styles"},
		"backend":   {"backend", "back-end", "api", "endpoint", "handler", "server", "database", "migration", "schema", "prisma"},
		TypeTesting: {"test", "tests", "testing", "spec", "specs", "coverage", "tdd"},
	}
}

// UnmarshalYAML reads the block, keeping the line of every task-type
// glob so that PatternsFor and a bad glob can name it. A glob that is no
// usable gitignore pattern, and a glob of the testing type, are
// *yaml.TypeError entries ("line N: …"), so the rest still decodes. Check
// has already removed unknown keys and values of the wrong type.
func (x *Files) UnmarshalYAML(n *yaml.Node) error {
	type plain Files
	if err := n.Decode((*plain)(x)); err != nil {
		return err
	}
	x.lines = map[string]int{}
	var errs []string
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Value == "task_keywords" && v.Kind == yaml.MappingNode:
			x.keywordsSet = true
		case k.Value == "task_types" && v.Kind == yaml.MappingNode:
			errs = append(errs, x.readGlobs(v)...)
		}
	}
	for t, globs := range x.TaskTypes {
		if globs == nil {
			x.TaskTypes[t] = []string{}
		}
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}

// readGlobs records the line of each glob of task_types (v) and returns
// the problems of the bad ones, which it removes.
func (x *Files) readGlobs(v *yaml.Node) []string {
	var errs []string
	for i := 0; i+1 < len(v.Content); i += 2 {
		tk, tv := v.Content[i], v.Content[i+1]
		if tk.Value == TypeTesting && len(tv.Content) > 0 {
			errs = append(errs, fmt.Sprintf("line %d: files.task_types.testing takes no globs: testing includes everything", tk.Line))
			x.TaskTypes[TypeTesting] = []string{}
			continue
		}
		var good []string
		for _, it := range tv.Content {
			if err := ignore.CheckPattern(it.Value); err != nil {
				errs = append(errs, fmt.Sprintf("line %d: files.task_types.%s: %v", it.Line, tk.Value, err))
				continue
			}
			x.lines[fmt.Sprintf("%s[%d]", tk.Value, len(good))] = it.Line
			good = append(good, it.Value)
		}
		if len(good) < len(tv.Content) {
			x.TaskTypes[tk.Value] = good
		}
	}
	return errs
}

// fill sets defaults for zero values.
func (x *Files) fill() {
	if x.TaskTypes == nil {
		x.TaskTypes = map[string][]string{}
	}
	if x.TaskKeywords == nil {
		x.TaskKeywords = DefaultTaskKeywords()
	}
	if x.TreeDepth == 0 {
		x.TreeDepth = 3
	}
	if x.TreeMaxEntries == 0 {
		x.TreeMaxEntries = 200
	}
	if x.FileMaxLines == 0 {
		x.FileMaxLines = 400
	}
	if x.MaxFiles == 0 {
		x.MaxFiles = 12
	}
}

// validate reports task_keywords of a type task_types does not have, at
// the line of task_keywords (task types, globs and each value's range are
// checked where they are written: rules, UnmarshalYAML).
func (x *Files) validate(fail failFunc) {
	if !x.keywordsSet {
		return
	}
	for _, t := range slices.Sorted(maps.Keys(x.TaskKeywords)) {
		if _, ok := x.TaskTypes[t]; !ok && t != TypeTesting {
			fail("files.task_keywords", "files.task_keywords: %q is not a task type of files.task_types", t)
		}
	}
}

// Types returns the configured task types, sorted.
func (x *Files) Types() []string {
	out := make([]string, 0, len(x.TaskTypes))
	for t := range x.TaskTypes {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Line returns the recite.yaml line of glob i of task type t, or 0 when
// the block was not read from a file (defaults).
func (x *Files) Line(t string, i int) int {
	return x.lines[fmt.Sprintf("%s[%d]", t, i)]
}
