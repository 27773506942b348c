package layers

import (
	"slices"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

func TestParseLearnings(t *testing.T) {
	src := "# Learnings\n\n## Patterns\n- Use TypeScript #typescript #types\n- Redis prevents races (tags: Redis, concurrency)\n- General advice\n  across workers\n\n```\n- not an entry #x\n```\n\n## Anti-Patterns\n* Don't hardcode paths [tags: paths]\n"
	got := parseLearnings(src)
	want := []learning{
		{text: "Use TypeScript #typescript #types", tags: []string{"types", "typescript"}, line: 4},
		{text: "Redis prevents races (tags: Redis, concurrency)", tags: []string{"concurrency", "redis"}, line: 5},
		{text: "General advice across workers", line: 6},
		{text: "Don't hardcode paths [tags: paths]", tags: []string{"paths"}, anti: true, line: 14},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.text != w.text || g.anti != w.anti || g.line != w.line || (w.tags != nil && !slices.Equal(g.tags, w.tags)) {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestLearningsSelection(t *testing.T) {
	learnings := `## Patterns
- Use JWT refresh rotation #auth
- Use pagination helpers #api-patterns/pagination
- Keep functions small
- Cache templates #frontend
## Anti-Patterns
- Don't store tokens in localStorage #auth #security
- Avoid global state #go
`
	tests := []struct {
		name     string
		tags     []string
		want     []string
		notWant  []string
		wantNone bool
	}{
		{name: "auth tag", tags: []string{"auth"}, want: []string{"JWT refresh", "localStorage", "Keep functions small"}, notWant: []string{"Cache templates", "pagination", "global state"}},
		{name: "tag part", tags: []string{"pagination"}, want: []string{"pagination helpers"}, notWant: []string{"JWT"}},
		{name: "no tags", want: []string{"Keep functions small"}, notWant: []string{"JWT", "localStorage"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := enginetest.Project(t, "", map[string]string{LearningsFile: learnings})
			c := &conversation.Conversation{ID: "c", Meta: conversation.Meta{Tags: tc.tags}}
			s, d := Learnings(dir, c, projWithTask(""))
			if d != nil {
				t.Fatal(d)
			}
			for _, w := range tc.want {
				if !strings.Contains(s.Body, w) {
					t.Errorf("body lacks %q:\n%s", w, s.Body)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(s.Body, w) {
					t.Errorf("body has %q:\n%s", w, s.Body)
				}
			}
			// Deterministic: the same input gives the same bytes.
			s2, _ := Learnings(dir, c, projWithTask(""))
			if s2.Body != s.Body {
				t.Error("learnings section is not deterministic")
			}
		})
	}
}

// projWithTask is a project whose next task has the given text.
func projWithTask(text string) *planning.Project {
	p := &planning.Project{}
	if text != "" {
		p.NextTask = &planning.Task{Text: text}
	}
	return p
}
