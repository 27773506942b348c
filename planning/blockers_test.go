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

func TestParseBlockers(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []Blocker
	}{
		{
			name: "fire-flow template: status from the enclosing section",
			src: `# Project Blockers

## Summary

| Status | P0 | P1 | P2 | P3 | Total |
|--------|----|----|----|----|-------|
| Open | 0 | 1 | 0 | 0 | 1 |

## Open Blockers

### BLOCKER-005 [P1] Stripe webhook signature verification fails in production
- **Phase:** 04-checkout
- **Description:** 400 from /api/webhooks/stripe

## Resolved Blockers

### BLOCKER-003 [P0/P1] Build breaks on Node 18 (RESOLVED)
- **Resolved:** 2026-02-01

## Deferred Blockers

### BLOCKER-004 [P3] Dark mode contrast
`,
			want: []Blocker{
				{ID: "BLOCKER-005", Title: "Stripe webhook signature verification fails in production", Priority: "P1", Status: "open", Source: "B.md:11"},
				{ID: "BLOCKER-003", Title: "Build breaks on Node 18", Priority: "P0", Status: "resolved", Source: "B.md:17"},
				{ID: "BLOCKER-004", Title: "Dark mode contrast", Priority: "P3", Status: "deferred", Source: "B.md:22"},
			},
		},
		{
			name: "fire-flow placeholders yield nothing",
			src:  "# Project Blockers\n\n## Open Blockers\n\n[None currently]\n\n## Resolved Blockers\n\n[None yet]\n",
		},
		{
			name: "B-NN headings with Status bullets",
			src:  "# Blockers\n\n## B-01 `docs/apikey llm.md` unreviewed\n- Status: open\n- Affects: ingestion\n\n## B-02 Rate limit from the embeddings API\n- Status: mitigated\n- Workaround in repo: batch of 16\n\n## B-03 CI secret missing\n- Status: closed\n",
			want: []Blocker{
				{ID: "B-01", Title: "docs/apikey llm.md unreviewed", Status: "open", Source: "B.md:3"},
				{ID: "B-02", Title: "Rate limit from the embeddings API", Status: "open", Source: "B.md:7"},
				{ID: "B-03", Title: "CI secret missing", Status: "resolved", Source: "B.md:11"},
			},
		},
		{
			name: "Russian BL-NN heading with an em dash",
			src:  "# Блокеры\n\n## BL-01 — Ключ OpenAI (OPENAI_API_KEY)\n- **Нужно:** ключ\n",
			want: []Blocker{{ID: "BL-01", Title: "Ключ OpenAI (OPENAI_API_KEY)", Status: "open", Source: "B.md:3"}},
		},
		{
			name: "register table with an ID column",
			src: `# Blockers

| ID | Blocker | Severity | Status | Owner |
|----|---------|----------|--------|-------|
| BLK-001 | Vendor API contract unsigned | P0 | Open | legal |
| BLK-002 | **SSO** metadata URL | P2 | Closed ✅ | ops |
| note | not an id | P1 | Open | - |
`,
			want: []Blocker{
				{ID: "BLK-001", Title: "Vendor API contract unsigned", Priority: "P0", Status: "open", Source: "B.md:5"},
				{ID: "BLK-002", Title: "SSO metadata URL", Priority: "P2", Status: "resolved", Source: "B.md:6"},
			},
		},
		{
			name: "emoji severity sections: top-level items only",
			src: `# Bloqueurs

## Catégorisation

- 🔴 **Critique** — bloque la mise en prod

## 🔴 Accès externes

1. **Créer le projet** Postgres de prod.
2. **Créer 2 buckets** :
   - ` + "`uploads`" + `
   - ` + "`exports`" + `

## 🟡 Confort

- **Export CSV** mensuel.

Texte libre après la liste.
`,
			want: []Blocker{
				{ID: "B.md:9", Title: "Créer le projet Postgres de prod.", Priority: "P0", Status: "open", Source: "B.md:9"},
				{ID: "B.md:10", Title: "Créer 2 buckets :", Priority: "P0", Status: "open", Source: "B.md:10"},
				{ID: "B.md:16", Title: "Export CSV mensuel.", Priority: "P2", Status: "open", Source: "B.md:16"},
			},
		},
		{
			name: "completion log is not a blocker list",
			src:  "\n✓ T01 completed at Sat Jun  6 00:24:09 CST 2026\n✓ T02 completed at Sat Jun  6 00:35:06 CST 2026\n",
		},
		{
			name: "Open/Resolved sections with plain bullets",
			src:  "# Blockers\n\n## Open\n- Waiting for the staging DB password\n- None\n\n## Resolved\n- Docker rate limit on CI\n",
			want: []Blocker{
				{ID: "B.md:4", Title: "Waiting for the staging DB password", Status: "open", Source: "B.md:4"},
				{ID: "B.md:8", Title: "Docker rate limit on CI", Status: "resolved", Source: "B.md:8"},
			},
		},
		{
			name: "checkboxes in fenced code are ignored",
			src:  "## Open Blockers\n\n```markdown\n### BLOCKER-001 [P1] example\n- example bullet\n```\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseBlockers("B.md", markdown.Parse("B.md", []byte(tt.src)))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestBlockersFromBullets(t *testing.T) {
	tests := []struct {
		name, src, section string
		want               []Blocker
	}{
		{
			name:    "GSD Blockers/Concerns",
			section: "Blockers/Concerns",
			src: `# Project State

## Accumulated Context

### Decisions

- [Phase 1]: not a blocker

### Blockers/Concerns

- Payment provider sandbox is down since Monday
- ~~Node 18 on CI~~ (resolved: upgraded)
- Flaky e2e login test (RESOLVED)
- ✅ Domain DNS propagated
- Vendor SDK not yet resolved upstream
  - nested detail stays with its item

## Session Continuity
`,
			want: []Blocker{
				{ID: "S.md:11", Title: "Payment provider sandbox is down since Monday", Status: "open", Source: "S.md:11"},
				{ID: "S.md:12", Title: "Node 18 on CI (resolved: upgraded)", Status: "resolved", Source: "S.md:12"},
				{ID: "S.md:13", Title: "Flaky e2e login test (RESOLVED)", Status: "resolved", Source: "S.md:13"},
				{ID: "S.md:14", Title: "✅ Domain DNS propagated", Status: "resolved", Source: "S.md:14"},
				{ID: "S.md:15", Title: "Vendor SDK not yet resolved upstream", Status: "open", Source: "S.md:15"},
			},
		},
		{name: "None", section: "Blockers/Concerns", src: "### Blockers/Concerns\n\n- None\n"},
		{name: "None yet.", section: "Blockers/Concerns", src: "### Blockers/Concerns\n\nNone yet.\n"},
		{name: "fixture prose", section: "Blockers", src: "## Blockers\nNone - this is a test fixture\n"},
		{
			name:    "fire-flow ids and checkboxes",
			section: "Blockers & Issues",
			src:     "### Blockers & Issues\n- BLOCKER-007 [P0] Prod DB migration locked\n- [x] Staging cert renewed\n",
			want: []Blocker{
				{ID: "BLOCKER-007", Title: "Prod DB migration locked", Priority: "P0", Status: "open", Source: "S.md:2"},
				{ID: "S.md:3", Title: "Staging cert renewed", Status: "resolved", Source: "S.md:3"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := markdown.Parse("S.md", []byte(tt.src))
			i := doc.FindSection(tt.section)
			if i < 0 {
				t.Fatalf("section %q not found", tt.section)
			}
			got := blockersFromBullets("S.md", doc, i)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if got := blockersFromBullets("S.md", markdown.Parse("S.md", nil), 3); got != nil {
		t.Errorf("out-of-range section: %v", got)
	}
}

// TestBlockersRealdata runs parseBlockers over every BLOCKERS.md of
// shared/realdata and checks the counts read by hand: ServicImmo has 40
// top-level items in its five emoji sections (10 + 14 + 3 + 11 + 2, the
// three bucket sub-bullets of item 3 excluded), Pinkowo's file is a
// completion log.
func TestBlockersRealdata(t *testing.T) {
	root := sharedtest.Realdata(t)
	want := map[string]struct{ total, open, p0 int }{
		"calhotellier-dot__ServicImmo": {40, 40, 10},
		"Pinkowo__mirror-mackup":       {0, 0, 0},
	}
	seen := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "BLOCKERS.md" {
			return err
		}
		seen++
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		bs := parseBlockers("BLOCKERS.md", markdown.Parse("BLOCKERS.md", src))
		tree := strings.Split(filepath.ToSlash(rel), "/")[0]
		w, ok := want[tree]
		if !ok {
			t.Logf("%s: %d blockers (no expectation)", rel, len(bs))
			return nil
		}
		open, p0 := 0, 0
		for _, b := range bs {
			if b.Status == BlockerOpen {
				open++
			}
			if b.Priority == "P0" {
				p0++
			}
			if b.ID == "" || b.Title == "" || !strings.HasPrefix(b.Source, "BLOCKERS.md:") {
				t.Errorf("%s: incomplete blocker %+v", tree, b)
			}
		}
		if len(bs) != w.total || open != w.open || p0 != w.p0 {
			t.Errorf("%s: %d blockers, %d open, %d P0; want %d, %d, %d", tree, len(bs), open, p0, w.total, w.open, w.p0)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < len(want) {
		t.Errorf("found %d BLOCKERS.md files, want at least %d", seen, len(want))
	}
	// The first ServicImmo item, checked by reading the file.
	src, err := os.ReadFile(filepath.Join(root, "calhotellier-dot__ServicImmo", ".planning", "BLOCKERS.md"))
	if err != nil {
		t.Fatal(err)
	}
	bs := parseBlockers("BLOCKERS.md", markdown.Parse("BLOCKERS.md", src))
	if len(bs) == 0 || bs[0].Source != "BLOCKERS.md:17" || !strings.HasPrefix(bs[0].Title, "Créer les projets Supabase `servicimmo-dev`") {
		t.Errorf("first ServicImmo blocker = %+v", bs[:min(1, len(bs))])
	}
}

func FuzzParseBlockers(f *testing.F) {
	for _, p := range []string{"BLOCKERS.md", "CONSCIENCE.md", "todos.md"} {
		src, err := os.ReadFile(filepath.Join("..", "examples", "fire", ".planning", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	src, err := os.ReadFile(filepath.Join("..", "examples", "gsd", ".planning", "STATE.md"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(src)
	f.Add([]byte("## 🔴 x\n1. a\n   - b\n## B-1\n- Status: closed\n| ID |\n|--|\n| BLK-1 |\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		doc := markdown.Parse("BLOCKERS.md", src)
		for _, b := range parseBlockers("BLOCKERS.md", doc) {
			if b.Status != BlockerOpen && b.Status != BlockerResolved && b.Status != BlockerDeferred {
				t.Fatalf("bad status %q", b.Status)
			}
		}
		for i := -1; i <= len(doc.Sections); i++ {
			blockersFromBullets("BLOCKERS.md", doc, i)
		}
	})
}

// TestBlockersFromBulletsRealdata runs blockersFromBullets over every
// blocker section of the realdata STATE.md and CONSCIENCE.md files. The two
// that have one say there is nothing: kubectl-fields `### Blockers/Concerns`
// holds "None." and the fire-flow fixture `## Blockers` holds "None - this
// is a test fixture".
func TestBlockersFromBulletsRealdata(t *testing.T) {
	sections := 0
	for tree, dir := range realdataTrees(t) {
		for _, name := range []string{"STATE.md", "CONSCIENCE.md"} {
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				continue
			}
			doc := markdown.Parse(name, src)
			for i, s := range doc.Sections {
				if !strings.Contains(strings.ToLower(s.Title), "blocker") {
					continue
				}
				sections++
				if bs := blockersFromBullets(name, doc, i); len(bs) != 0 {
					t.Errorf("%s/%s %q: got %d blockers %+v, want none", tree, name, s.Title, len(bs), bs)
				}
			}
		}
	}
	if sections < 2 {
		t.Errorf("found %d blocker sections, want at least 2", sections)
	}
}
