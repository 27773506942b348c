package config

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"

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
// Task types (FORMATS.md §2.10 "Dynamic exclusion", seeds/002 §3): while the
// current plan's task type is T, the globs of task_types.T are excluded on
// top of .powerignore, .gitignore and .git/info/exclude; never-exclude files
// still enter. The type "testing" includes everything and takes no globs.
// There is no built-in table: without task_types nothing is excluded by
// task type (DESIGN.md "No hidden defaults": what is excluded is what the
// files say); `recite init` writes fire-flow's table (DefaultTaskTypes)
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

// TypeTesting is the task type that includes everything (seeds/002 §3).
const TypeTesting = "testing"

// DefaultTaskTypes returns fire-flow's dynamic-exclusion table
// (context-engineering.md §3, FORMATS.md §2.10), the one the recite.yaml of
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

var taskTypeRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// UnmarshalYAML reads the block strictly, keeping the line of every glob
// so that a bad one is reported where it was written.
func (x *Files) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		if n.Tag == "!!null" {
			return nil
		}
		return fmt.Errorf("line %d: files must be a mapping", n.Line)
	}
	x.lines = map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var err error
		switch k.Value {
		case "task_types":
			x.TaskTypes, err = globMap(k.Value, v, x.lines, true)
		case "task_keywords":
			x.TaskKeywords, err = globMap(k.Value, v, nil, false)
			x.keywordsSet = true
		case "tree_depth":
			x.TreeDepth, err = intValue(k.Value, v)
		case "tree_max_entries":
			x.TreeMaxEntries, err = intValue(k.Value, v)
		case "file_max_lines":
			x.FileMaxLines, err = intValue(k.Value, v)
		case "max_files":
			x.MaxFiles, err = intValue(k.Value, v)
		default:
			err = fmt.Errorf("line %d: unknown key %q in files (want task_types, task_keywords, tree_depth, tree_max_entries, file_max_lines or max_files)", k.Line, k.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func intValue(key string, v *yaml.Node) (int, error) {
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil {
		return 0, fmt.Errorf("line %d: files.%s must be a whole number, not %q", v.Line, key, v.Value)
	}
	return n, nil
}

// globMap reads `type: [item, …]`; with patterns set, every item must be a
// usable gitignore pattern and lines gets "type[i]" → line.
func globMap(key string, v *yaml.Node, lines map[string]int, patterns bool) (map[string][]string, error) {
	if v.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: files.%s must map task types to lists", v.Line, key)
	}
	out := map[string][]string{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		tk, tv := v.Content[i], v.Content[i+1]
		if !taskTypeRE.MatchString(tk.Value) {
			return nil, fmt.Errorf("line %d: files.%s: task type %q must match %s", tk.Line, key, tk.Value, taskTypeRE)
		}
		if _, dup := out[tk.Value]; dup {
			return nil, fmt.Errorf("line %d: files.%s: duplicate task type %q", tk.Line, key, tk.Value)
		}
		if tv.Kind != yaml.SequenceNode && !(tv.Kind == yaml.ScalarNode && tv.Tag == "!!null") {
			return nil, fmt.Errorf("line %d: files.%s.%s must be a list", tv.Line, key, tk.Value)
		}
		items := []string{}
		for j, it := range tv.Content {
			if it.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: files.%s.%s: each item must be a string", it.Line, key, tk.Value)
			}
			if patterns {
				if err := ignore.CheckPattern(it.Value); err != nil {
					return nil, fmt.Errorf("line %d: files.%s.%s: %v", it.Line, key, tk.Value, err)
				}
				lines[fmt.Sprintf("%s[%d]", tk.Value, j)] = it.Line
			}
			items = append(items, it.Value)
		}
		if patterns && tk.Value == TypeTesting && len(items) > 0 {
			return nil, fmt.Errorf("line %d: files.task_types.testing takes no globs: testing includes everything", tk.Line)
		}
		out[tk.Value] = items
	}
	return out, nil
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

// validate reports a bad value with its line (the line of `files:`; glob
// errors found while reading carry their own line).
func (x *Files) validate(fail failFunc) error {
	for _, t := range x.Types() {
		if !taskTypeRE.MatchString(t) {
			return fail("files", "files.task_types: task type %q must match %s", t, taskTypeRE)
		}
		if t == TypeTesting && len(x.TaskTypes[t]) > 0 {
			return fail("files", "files.task_types.testing takes no globs: testing includes everything")
		}
		for _, g := range x.TaskTypes[t] {
			if err := ignore.CheckPattern(g); err != nil {
				return fail("files", "files.task_types.%s: %v", t, err)
			}
		}
	}
	if x.keywordsSet {
		for t := range x.TaskKeywords {
			if _, ok := x.TaskTypes[t]; !ok && t != TypeTesting {
				return fail("files", "files.task_keywords: %q is not a task type of files.task_types", t)
			}
		}
	}
	if x.TreeDepth < -1 || x.TreeDepth > 20 {
		return fail("files", "files.tree_depth must be between 1 and 20, or -1 for no file tree")
	}
	if x.TreeMaxEntries < 1 {
		return fail("files", "files.tree_max_entries must be a positive number of entries")
	}
	if x.FileMaxLines < 10 {
		return fail("files", "files.file_max_lines must be at least 10 lines")
	}
	if x.MaxFiles < -1 {
		return fail("files", "files.max_files must be a positive number of files, or -1 for no files section")
	}
	return nil
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
