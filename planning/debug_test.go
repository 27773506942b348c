package planning

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/markdown"
)

func TestParseDebug(t *testing.T) {
	tests := []struct {
		name, path, src string
		want            DebugFile
		wantDiags       []int
	}{
		{
			name: "GSD shape with block scalars",
			path: "debug/login-500.md",
			src: `---
status: investigating
trigger: "login returns 500 after deploy"
created: 2026-03-01T10:00:00Z
---

## Current Focus

hypothesis: session secret missing in prod env
next_action: diff env of staging and prod

## Symptoms

expected: 302 to /home
errors: |
  Error: secret option required for sessions
      at session (node_modules/express-session/index.js:200:12)
started: after deploy 41

## Eliminated

- hypothesis: database down
  evidence: psql connects fine; SELECT 1 returns
    in under 2 ms
  timestamp: 2026-03-01T10:20:00Z

- hypothesis: "bad cookie domain"
  evidence: same failure with curl and no cookies

## Evidence

- timestamp: 2026-03-01T10:30:00Z
  checked: prod env
  found: SESSION_SECRET unset
  implication: express-session throws on every request

## Resolution

root_cause: |
  SESSION_SECRET was removed from the prod env.
fix:
`,
			want: DebugFile{
				Path: "debug/login-500.md", Status: "investigating", Trigger: "login returns 500 after deploy",
				Hypothesis: "session secret missing in prod env", NextAction: "diff env of staging and prod",
				Errors:     "Error: secret option required for sessions\n    at session (node_modules/express-session/index.js:200:12)",
				ErrorsLine: 16,
				RootCause:  "SESSION_SECRET was removed from the prod env.",
				Eliminated: []Hypothesis{
					{Text: "database down", Evidence: "psql connects fine; SELECT 1 returns in under 2 ms", Timestamp: "2026-03-01T10:20:00Z", Source: "debug/login-500.md:22"},
					{Text: "bad cookie domain", Evidence: "same failure with curl and no cookies", Source: "debug/login-500.md:27"},
				},
				Evidence: []string{"checked: prod env; found: SESSION_SECRET unset; implication: express-session throws on every request"},
			},
		},
		{
			name: "resolved by folder, plain bullets, item without hypothesis",
			path: "debug/resolved/flaky.md",
			src:  "---\nstatus: fixing\n---\n## Eliminated\n- clock skew on CI\n- evidence: orphan evidence\n## Evidence\n- the retry hides the race\n",
			want: DebugFile{
				Path: "debug/resolved/flaky.md", Status: "fixing", Resolved: true,
				Eliminated: []Hypothesis{{Text: "clock skew on CI", Source: "debug/resolved/flaky.md:5"}},
				Evidence:   []string{"the retry hides the race"},
			},
			wantDiags: []int{6},
		},
		{
			name:      "no front matter",
			path:      "debug/x.md",
			src:       "# notes\n",
			want:      DebugFile{Path: "debug/x.md"},
			wantDiags: []int{1},
		},
		{
			name: "status resolved",
			path: "debug/y.md",
			src:  "---\nstatus: resolved\n---\n",
			want: DebugFile{Path: "debug/y.md", Status: "resolved", Resolved: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			df, diags := parseDebug(tt.path, markdown.Parse(tt.path, []byte(tt.src)))
			if !reflect.DeepEqual(*df, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", *df, tt.want)
			}
			var lines []int
			for _, d := range diags {
				lines = append(lines, d.Line)
			}
			if !reflect.DeepEqual(lines, tt.wantDiags) {
				t.Errorf("diagnostic lines %v (%v), want %v", lines, diags, tt.wantDiags)
			}
		})
	}
}

// TestDebugRealdata runs parseDebug over every file under a debug/ folder of
// shared/realdata and checks counts read by hand from two of them.
func TestDebugRealdata(t *testing.T) {
	root := sharedtest.Realdata(t)
	type facts struct {
		status                string
		eliminated, evidence  int
		resolved              bool
		firstHypothesisPrefix string
	}
	want := map[string]facts{
		"0x1nfra__echo-wallet-tracking/.planning/debug/wallet-monitor-stop-noop.md": {"resolved", 2, 4, true, "stop() implementation is buggy"},
		"robsonsduarte__faturamento-unimed/.planning/debug/tofixed-null-error.md":   {"diagnosed", 3, 7, false, "Erro em frontend"},
	}
	seen := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || !strings.Contains(filepath.ToSlash(p), "/debug/") {
			return err
		}
		seen++
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		planRel := rel[strings.Index(rel, ".planning/")+len(".planning/"):]
		df, diags := parseDebug(planRel, markdown.Parse(planRel, src))
		for _, d := range diags {
			if d.Path != planRel {
				t.Errorf("%s: diagnostic with wrong path %v", rel, d)
			}
		}
		w, ok := want[rel]
		if !ok {
			t.Logf("%s: status %q, %d eliminated, %d evidence", rel, df.Status, len(df.Eliminated), len(df.Evidence))
			return nil
		}
		if df.Status != w.status || len(df.Eliminated) != w.eliminated || len(df.Evidence) != w.evidence || df.Resolved != w.resolved {
			t.Errorf("%s: status %q, %d eliminated, %d evidence, resolved %v; want %+v", rel, df.Status, len(df.Eliminated), len(df.Evidence), df.Resolved, w)
		}
		if len(df.Eliminated) > 0 && (!strings.HasPrefix(df.Eliminated[0].Text, w.firstHypothesisPrefix) || df.Eliminated[0].Evidence == "") {
			t.Errorf("%s: first eliminated = %+v", rel, df.Eliminated[0])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < len(want) {
		t.Errorf("found %d debug files, want at least %d", seen, len(want))
	}
}

func FuzzParseDebug(f *testing.F) {
	for _, p := range []string{"debug/redirect-returns-404.md", "debug/resolved/slug-collision-loop.md", "todos/pending/2026-03-04-slug-collision-metric.md"} {
		src, err := os.ReadFile(filepath.Join("..", "examples", "gsd", ".planning", filepath.FromSlash(p)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("## Eliminated\n- hypothesis: |\n\t\tx\n  evidence:\n## Symptoms\nerrors: >\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		doc := markdown.Parse("debug/x.md", src)
		if df, _ := parseDebug("debug/x.md", doc); df == nil {
			t.Fatal("nil debug file")
		}
		parseTodo("todos/pending/x.md", doc)
		parseTodoList("todos.md", doc)
	})
}
