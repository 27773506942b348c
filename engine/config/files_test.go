package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/recite-dev/recite/templates"
)

func TestFilesBlock(t *testing.T) {
	c, err := Parse(FileName, []byte("files:\n  task_types:\n    frontend: [\"src/api/**\", \"!src/api/types.ts\"]\n    testing: []\n  tree_depth: 2\n  max_files: -1\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := c.Files
	if want := map[string][]string{"frontend": {"src/api/**", "!src/api/types.ts"}, "testing": {}}; !reflect.DeepEqual(f.TaskTypes, want) {
		t.Errorf("TaskTypes = %v, want %v", f.TaskTypes, want)
	}
	if f.TreeDepth != 2 || f.MaxFiles != -1 || f.TreeMaxEntries != 200 || f.FileMaxLines != 400 {
		t.Errorf("limits = %+v", f)
	}
	if got := f.Line("frontend", 1); got != 3 {
		t.Errorf("Line(frontend, 1) = %d, want 3", got)
	}
	if !reflect.DeepEqual(f.TaskKeywords, DefaultTaskKeywords()) {
		t.Errorf("TaskKeywords = %v, want defaults", f.TaskKeywords)
	}

	if d := Default().Files; len(d.TaskTypes) != 0 || d.Line("frontend", 0) != 0 {
		t.Errorf("default TaskTypes = %v", d.TaskTypes)
	}
	off, err := Parse(FileName, []byte("files:\n  task_types: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(off.Files.TaskTypes) != 0 {
		t.Errorf("task_types: {} gave %v", off.Files.TaskTypes)
	}
}

func TestFilesBlockErrors(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"unknown key", "files:\n  tree_dept: 2\n", 2, `unknown key "tree_dept" in files`},
		{"unclosed bracket", "files:\n  task_types:\n    frontend:\n      - ok/**\n      - \"src/[ab\"\n", 5, `unclosed "["`},
		{"dotdot", "files:\n  task_types:\n    backend: [../x]\n", 3, `".." element`},
		{"comment", "files:\n  task_types:\n    backend: [\"#x\"]\n", 3, `starts with "#"`},
		{"empty", "files:\n  task_types:\n    backend: [\"  \"]\n", 3, "empty pattern"},
		{"lone bang", "files:\n  task_types:\n    backend: [\"!\"]\n", 3, "matches nothing"},
		{"trailing backslash", "files:\n  task_types:\n    backend: ['a\\']\n", 3, "unescaped backslash"},
		{"testing globs", "files:\n  task_types:\n    testing: [x]\n", 3, "testing takes no globs"},
		{"bad type", "files:\n  task_types:\n    Front End: [x]\n", 3, `files.task_types: task type "Front End": expected a task type of up to 32 lowercase letters`},
		{"not a list", "files:\n  task_types:\n    frontend: src/**\n", 3, `files.task_types.frontend: expected a list, got "src/**" (example: frontend: [src/api/**, prisma/**])`},
		{"not a number", "files:\n  tree_depth: deep\n", 2, `files.tree_depth: expected a whole number of directory levels up to 20, or -1 for no file tree, got "deep"`},
		{"depth", "files:\n  tree_depth: -3\n", 2, "tree_depth"},
		{"entries", "files:\n  tree_max_entries: -1\n", 2, "tree_max_entries"},
		{"lines", "files:\n  file_max_lines: 3\n", 2, "files.file_max_lines: expected a whole number of lines, at least 10, got 3 (example: file_max_lines: 400)"},
		{"keyword type", "files:\n  task_types: {frontend: [x]}\n  task_keywords: {backend: [api]}\n", 3, `files.task_keywords: "backend" is not a task type`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(FileName, []byte(tt.src))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if ce.Line != tt.line || !strings.Contains(ce.Msg, tt.msg) || ce.Path != FileName {
				t.Errorf("err = %q (line %d), want line %d and %q", err, ce.Line, tt.line, tt.msg)
			}
		})
	}
}

// TestFilesTemplateBlock parses the recite.yaml `recite init` writes, with
// its commented limits uncommented: fire-flow's task-type table and the
// default limits.
func TestFilesTemplateBlock(t *testing.T) {
	src, err := templates.Init("recite.yaml", "gsd")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tree_depth", "tree_max_entries", "file_max_lines", "max_files"} {
		if !strings.Contains(src, "  # "+k+": ") {
			t.Fatalf("no commented %s in templates/init/recite.yaml", k)
		}
		src = strings.Replace(src, "  # "+k+": ", "  "+k+": ", 1)
	}
	c, err := Parse(FileName, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d := Default().Files
	if !reflect.DeepEqual(c.Files.TaskTypes, DefaultTaskTypes()) || c.Files.TreeDepth != d.TreeDepth || c.Files.MaxFiles != d.MaxFiles || c.Files.FileMaxLines != d.FileMaxLines || c.Files.TreeMaxEntries != d.TreeMaxEntries {
		t.Errorf("template block = %+v, defaults %+v", c.Files, d)
	}
	if len(d.TaskTypes) != 0 {
		t.Errorf("built-in task types %v: there must be none", d.TaskTypes)
	}
}
