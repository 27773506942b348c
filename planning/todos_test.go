package planning

import (
	"reflect"
	"testing"

	"github.com/recite-dev/recite/markdown"
)

func TestParseTodo(t *testing.T) {
	tests := []struct {
		name, path, src string
		want            Todo
	}{
		{
			name: "front matter",
			path: "todos/pending/2026-01-02-retry.md",
			src:  "---\ntitle: Retry Stripe 429s\narea: sync\nfiles: [src/sync.ts, src/stripe.ts]\n---\n# Other\n",
			want: Todo{Path: "todos/pending/2026-01-02-retry.md", Title: "Retry Stripe 429s", Area: "sync", Files: []string{"src/sync.ts", "src/stripe.ts"}},
		},
		{
			name: "heading title, done folder",
			path: "todos/done/2026-01-02-x.md",
			src:  "# Pin the **Postgres** image\n\nbody\n",
			want: Todo{Path: "todos/done/2026-01-02-x.md", Title: "Pin the Postgres image", Done: true},
		},
		{
			name: "file name fallback",
			path: "todos/pending/2026-01-02-add-health-check.md",
			src:  "no heading at all\n",
			want: Todo{Path: "todos/pending/2026-01-02-add-health-check.md", Title: "add health check"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseTodo(tt.path, markdown.Parse(tt.path, []byte(tt.src)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseTodoList(t *testing.T) {
	src := "# Todos\n\n- [x] Ship it\n- [ ] Write **docs**\n  - [~] nested draft\n\n```markdown\n- [ ] example in a fence\n```\n1. [X] numbered\n"
	got := parseTodoList("todos.md", markdown.Parse("todos.md", []byte(src)))
	want := []Todo{
		{Path: "todos.md", Title: "Ship it", Done: true, Line: 3},
		{Path: "todos.md", Title: "Write docs", Line: 4},
		{Path: "todos.md", Title: "nested draft", Line: 5},
		{Path: "todos.md", Title: "numbered", Done: true, Line: 10},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("\n got %+v\nwant %+v", got, want)
	}
}
