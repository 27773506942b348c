package planning

import (
	"strings"

	"github.com/recite-dev/recite/markdown"
	"go.yaml.in/yaml/v3"
)

// parseTodo reads one todo file `todos/pending/YYYY-MM-DD-slug.md` or
// `todos/done/…` (docs/formats.md#todos): the title is the front matter title,
// else the document title, else the file name without date prefix and
// extension; area and files come from the front matter. Done is true for a
// file under a `done/` folder.
func parseTodo(path string, doc *markdown.Document) Todo {
	t := Todo{Path: path, Done: strings.Contains("/"+path, "/done/")}
	if doc != nil {
		t.Title = metaString(doc, "title")
		t.Area = metaString(doc, "area")
		if v, ok := doc.Meta("files"); ok {
			t.Files = yamlStrings(v)
		}
		if t.Title == "" {
			t.Title = cleanInline(doc.Title())
		}
	}
	if t.Title == "" {
		name := strings.TrimSuffix(pathBase(path), ".md")
		if len(name) > 11 && name[4] == '-' && name[7] == '-' && name[10] == '-' {
			name = name[11:]
		}
		t.Title = strings.ReplaceAll(name, "-", " ")
	}
	return t
}

// parseTodoList reads the checkboxes of `.planning/todos.md` (the list the
// fire-loop recitation reads, docs/formats.md#todos): one Todo per checkbox,
// in file order, Done for `[x]`/`[X]`. Checkboxes in fenced code are not todos
// (the markdown package already skips them).
func parseTodoList(path string, doc *markdown.Document) []Todo {
	if doc == nil {
		return nil
	}
	var out []Todo
	for _, c := range doc.Checkboxes {
		if strings.TrimSpace(c.Text) == "" {
			continue
		}
		out = append(out, Todo{Path: path, Title: cleanInline(c.Text), Done: c.Checked(), Line: c.Line})
	}
	return out
}

// yamlStrings decodes a YAML list (block or flow) of scalars; a single
// scalar gives a one-element list; undecodable text gives nil.
func yamlStrings(src string) []string {
	var list []string
	if err := yaml.Unmarshal([]byte(src), &list); err == nil {
		return list
	}
	var one string
	if err := yaml.Unmarshal([]byte(src), &one); err == nil && strings.TrimSpace(one) != "" {
		return []string{strings.TrimSpace(one)}
	}
	return nil
}
