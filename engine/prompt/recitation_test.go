package prompt

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func checkRecitation(t *testing.T, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) > RecitationMaxLines {
		t.Fatalf("%d lines, want at most %d:\n%s", len(lines), RecitationMaxLines, out)
	}
	budgets := map[string]int{"### Task": recTaskLines, "### Progress": recProgressLines, "### Approach": recApproachLines, "### Decisions": recDecisionLines, "### Blockers": recBlockerLines, "### Health": recHealthLines}
	part, n := "", 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "---" || strings.HasPrefix(l, "---") {
			t.Fatalf("a --- line reads as front matter: %q", l)
		}
		if utf8.RuneCountInString(l) > RecitationWidth {
			t.Fatalf("line of %d runes: %q", utf8.RuneCountInString(l), l)
		}
		if _, ok := budgets[l]; ok {
			part, n = l, 0
		}
		n++
		if part != "" && n > budgets[part] {
			t.Fatalf("part %s has %d lines, budget %d:\n%s", part, n, budgets[part], out)
		}
	}
}

func TestRecite(t *testing.T) {
	many := func(n int, f string) []string {
		var s []string
		for i := 1; i <= n; i++ {
			s = append(s, fmt.Sprintf(f, i))
		}
		return s
	}
	var tasks []TaskLine
	for i := 1; i <= 12; i++ {
		tasks = append(tasks, TaskLine{Text: fmt.Sprintf("Task %d", i), Done: i <= 9, Current: i == 10})
	}
	out := Recite(RecitationInput{
		Phase: "Phase 27.2 of 42: 导入 works", Plan: "Plan 27.2-01", Next: "Task 10", Files: []string{"a.go", "b.go"},
		Tasks: tasks, Approach: many(9, "approach %d"), Decisions: many(8, "decision %d"),
		Blockers: many(5, "BLOCKER-%03d"), Health: many(6, "health %d"),
	})
	checkRecitation(t, out)
	for _, want := range []string{"- 9/12 tasks complete", "- [ ] Task 10 ← CURRENT", "- decision 8", "- decision 7", "- … and"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "decision 6") {
		t.Errorf("over budget: more than the 2 latest decisions kept\n%s", out)
	}
	if strings.Contains(out, "[x] Task 1 ") {
		t.Errorf("done tasks not collapsed\n%s", out)
	}

	small := Recite(RecitationInput{Phase: "Phase 1", Tasks: tasks[:3], Decisions: many(4, "d%d")})
	checkRecitation(t, small)
	if !strings.Contains(small, "[x] Task 1") || !strings.Contains(small, "- d2") {
		t.Errorf("small recitation should list tasks and the last 3 decisions:\n%s", small)
	}
	long := Recite(RecitationInput{Phase: strings.Repeat("長", 400)})
	checkRecitation(t, long)
}

func FuzzRecite(f *testing.F) {
	f.Add("Phase 1", "Task 1\nTask 2", "d1\nd2\nd3\nd4", "---", 5)
	f.Add(strings.Repeat("x", 300), "", "", "", 0)
	f.Fuzz(func(t *testing.T, phase, tasks, decisions, blockers string, done int) {
		var tl []TaskLine
		for i, s := range strings.Split(tasks, "\n") {
			tl = append(tl, TaskLine{Text: s, Done: i < done})
		}
		out := Recite(RecitationInput{Phase: phase, Next: blockers, Tasks: tl, Decisions: strings.Split(decisions, "\n"), Blockers: strings.Split(blockers, "\n"), Approach: strings.Split(tasks, "\n"), Health: strings.Split(decisions, "\n")})
		lines := strings.Split(out, "\n")
		if len(lines) > RecitationMaxLines {
			t.Fatalf("%d lines", len(lines))
		}
		for _, l := range lines {
			if utf8.RuneCountInString(l) > RecitationWidth || strings.HasPrefix(l, "---") {
				t.Fatalf("bad line %q", l)
			}
		}
	})
}
