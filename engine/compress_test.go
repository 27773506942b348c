package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/compress"
	"github.com/recite-dev/recite/engine/internal/gitstore/gittest"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// TestDifficultyRouting edits the fire-flow example's current plan into a
// SIMPLE, a MODERATE and a COMPLEX task and checks the level, its policy
// (sections omitted, the double-check section added at the end of the
// semi tier) and the recitation's task heading.
func TestDifficultyRouting(t *testing.T) {
	const plan = ".planning/phases/2-stripe-sync/2-01-BLUEPRINT.md"
	oneFile := func(dir string) error {
		return replaceIn(dir, plan, "files_to_create:\n  - src/stripe.ts\n  - src/sync.ts\n  - test/sync.test.ts\nfiles_to_modify:\n  - src/db.ts\n", "files_to_modify:\n  - src/stripe.ts\n")
	}
	security := func(dir string) error {
		return replaceIn(dir, plan, "Page through paid invoices with the Stripe auto-pager", "Verify the webhook signature before paging with the Stripe auto-pager")
	}
	tests := []struct {
		name        string
		edit        func(dir string) error
		config      string
		level       compress.Difficulty
		reason      string
		omitted     []string
		doubleCheck bool
	}{
		{"moderate", nil, "", compress.Moderate, "4 files", nil, false},
		{"simple", oneFile, "compression:\n  difficulty:\n    simple:\n      omit: [file-tree, learnings]\n", compress.Simple, "1 file", []string{prompt.IDFileTree}, false},
		{"complex", security, "", compress.Complex, "security: signature", nil, true},
		{"complex without double-check", security, "compression:\n  difficulty:\n    complex:\n      double_check: false\n", compress.Complex, "security: signature", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "fire"))
			if tt.edit != nil {
				if err := tt.edit(dir); err != nil {
					t.Fatal(err)
				}
			}
			if tt.config != "" {
				os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte(tt.config), 0o644)
			}
			rep, tbs, err := New(dir).status(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tr, trB := rep.Targets[0], tbs[0]
			c := tr.Compression
			if c.Difficulty.Level != tt.level || !strings.Contains(c.Difficulty.String(), tt.reason) {
				t.Errorf("difficulty %s, want %s with %q", c.Difficulty, tt.level, tt.reason)
			}
			if strings.Join(c.Omitted, ",") != strings.Join(tt.omitted, ",") {
				t.Errorf("omitted %q, want %q", c.Omitted, tt.omitted)
			}
			for _, id := range tt.omitted {
				if trB.prompt.Section(id) != nil {
					t.Errorf("section %s still present", id)
				}
			}
			dc := trB.prompt.Section(IDDoubleCheck)
			if c.DoubleCheck != tt.doubleCheck || (dc != nil) != tt.doubleCheck {
				t.Fatalf("double-check %v (section %v), want %v", c.DoubleCheck, dc != nil, tt.doubleCheck)
			}
			if dc != nil {
				i := indexOf(trB.prompt, IDDoubleCheck)
				if dc.Tier != prompt.Semi || trB.prompt.Sections[i+1].Tier != prompt.Dynamic {
					t.Errorf("double-check at %d is not the last semi section: %v", i, sectionIDs(trB.prompt))
				}
				if !strings.Contains(dc.Body, "- Check the must-have: Running syncOnce twice upserts no duplicate rows") || !strings.Contains(dc.Body, "src/stripe.ts") {
					t.Errorf("double-check body lacks the must-haves and files:\n%s", dc.Body)
				}
			}
			rec := trB.prompt.Section(prompt.IDRecitation).Body
			if !strings.HasPrefix(rec, "### Task (difficulty: "+tt.level.String()+")") {
				t.Errorf("recitation starts %q", textutil.FirstLine(rec))
			}
			if n := strings.Count(rec, "\n") + 1; n > prompt.RecitationMaxLines {
				t.Errorf("recitation has %d lines", n)
			}
		})
	}
}

func indexOf(p *prompt.Prompt, id string) int {
	for i, s := range p.Sections {
		if s.ID == id {
			return i
		}
	}
	return -1
}

func sectionIDs(p *prompt.Prompt) []string {
	var ids []string
	for _, s := range p.Sections {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestBudgetLevels replays the 30-iteration session on the fire-flow
// example with budgets that put the compressed prompt at each level, and
// checks the level, that the HOT sections are unchanged, that the actions
// bring the prompt under the level's lower bound when the non-HOT part
// allows it, and that RED recommends a handoff.
func TestBudgetLevels(t *testing.T) {
	src := filepath.Join(sharedtest.ModuleRoot(), "examples", "fire")
	dir, files := newSession(t, src, 3, true, "markdown")
	for i := 1; i <= 30; i++ {
		appendIteration(t, dir, i, files, true)
	}
	cfgPath := filepath.Join(dir, ".planning", "recite.yaml")
	base, _ := os.ReadFile(cfgPath)
	rep, tbs, err := New(dir).status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	green, greenB := rep.Targets[0], tbs[0]
	if green.Compression.Level.Level != compress.Green {
		t.Fatalf("default budget: level %s", green.Compression.Level.Level)
	}
	full := green.Compression.Level.Before
	tests := []struct {
		pct   int
		level compress.Level
	}{{60, compress.Yellow}, {78, compress.Orange}, {90, compress.Red}, {300, compress.Red}}
	for _, tt := range tests {
		t.Run(tt.level.String(), func(t *testing.T) {
			budget := full * 100 / tt.pct
			os.WriteFile(cfgPath, []byte(strings.Replace(string(base), "    conversation: main\n", "    conversation: main\n    budget: "+strconv.Itoa(budget)+"\n", 1)), 0o644)
			rep, tbs, err := New(dir).status(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tr, trB := rep.Targets[0], tbs[0]
			lv := tr.Compression.Level
			if lv.Level != tt.level || lv.Handoff != (tt.level == compress.Red) || len(lv.Actions) == 0 {
				t.Fatalf("level %+v, want %s with actions", lv, tt.level)
			}
			for _, id := range []string{prompt.IDPlan, prompt.IDRecitation, prompt.IDHealth, prompt.IDLoop} {
				if a, b := greenB.prompt.Section(id), trB.prompt.Section(id); a == nil || b == nil || a.Body != b.Body {
					t.Errorf("HOT section %s changed at %s", id, tt.level)
				}
			}
			if lv.After >= lv.Before {
				t.Errorf("%s saved nothing: %d → %d", tt.level, lv.Before, lv.After)
			}
			// YELLOW only halves WARM segments, which need not be enough;
			// ORANGE and RED evict until under their lower bound.
			if tt.level != compress.Yellow && tt.pct < 100 && lv.After*100 >= budget*[]int{0, 50, 70, 85}[tt.level] {
				t.Errorf("%s: %d tokens left of %d, want under the level's lower bound", tt.level, lv.After, budget)
			}
			if tt.level == compress.Red && !strings.Contains(strings.Join(tr.Cuts, "\n"), "hand off to a fresh session") {
				t.Errorf("RED without a handoff cut: %q", tr.Cuts)
			}
		})
	}
}

// TestContextHygiene checks, after the 30-iteration session, that no file
// is carried in full twice: a read of a file shown in the Files section is
// a pointer, and a file read several times is in full at most once.
func TestContextHygiene(t *testing.T) {
	src := filepath.Join(sharedtest.ModuleRoot(), "examples", "fire")
	dir, files := newSession(t, src, 3, true, "markdown")
	for i := 1; i <= 30; i++ {
		appendIteration(t, dir, i, files, true)
	}
	rep, tbs, err := New(dir).status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tr, trB := rep.Targets[0], tbs[0]
	inFiles := map[string]bool{}
	if s := trB.prompt.Section(prompt.IDFiles); s != nil {
		for _, p := range s.Sources {
			inFiles[p] = true
		}
	}
	full := map[string]int{}
	for _, m := range trB.prompt.Messages {
		if m.Role != "tool" || m.ToolName != "Read" {
			continue
		}
		for _, f := range files {
			if strings.HasPrefix(m.Content, f.text[:min(len(f.text), 200)]) && strings.Contains(m.Content, "// change made in iteration") {
				full[f.path]++
				if inFiles[f.path] {
					t.Errorf("%s is in the Files section and read in full in %s", f.path, m.ID)
				}
			}
		}
	}
	for p, n := range full {
		if n > 1 {
			t.Errorf("%s is carried in full %d times", p, n)
		}
	}
	if len(tr.Compression.Deduplicated) == 0 {
		t.Error("no read was deduplicated")
	}
	// Iteration history older than 5 iterations is one line per message.
	for i, m := range trB.prompt.Messages {
		if m.Role == "assistant" && strings.HasPrefix(m.Content, "[old iteration]") && strings.Contains(m.Content, "\n") {
			t.Errorf("message %d: old history is not one line: %q", i, m.Content)
		}
	}
}

// TestSkillsForgettingAndPlanAwareKeep loads three skills into the fire-flow
// example (loop iteration 8, so the pass at 6 is in effect): the skill the
// task uses is compressed to its key points, the one an upcoming task needs
// is kept for it, and the unused one collapses to one line.
func TestSkillsForgettingAndPlanAwareKeep(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "fire"))
	os.MkdirAll(filepath.Join(dir, "skills"), 0o755)
	long := strings.Repeat("Explanation that goes on for a while. It has details.\n\n", 30)
	skills := map[string]string{
		"skills/stripe-pagination.md": "# Stripe pagination\n\nUse the auto-pager.\n\n" + long,
		"skills/upsert-rows.md":       "# Upsert rows\n\nUse ON CONFLICT.\n\n" + long,
		"skills/react-forms.md":       "# React forms\n\nUse controlled inputs.\n\n" + long,
	}
	for p, text := range skills {
		os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644)
	}
	os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte("targets:\n  - name: agent\n    skills: [skills/stripe-pagination.md, skills/upsert-rows.md, skills/react-forms.md]\n"), 0o644)
	rep, tbs, err := New(dir).status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tr, trB := rep.Targets[0], tbs[0]
	c := tr.Compression
	if c.Pass != 6 {
		t.Fatalf("pass %d, want 6 (loop iteration 8)", c.Pass)
	}
	body := trB.prompt.Section(prompt.IDSkills).Body
	if !strings.Contains(body, "[unused skill]: skills/react-forms.md") || strings.Contains(body, "controlled inputs") {
		t.Errorf("react-forms not forgotten:\n%s", body)
	}
	if !strings.Contains(strings.Join(c.Kept, "\n"), "skill:skills/upsert-rows.md: kept for upcoming task 1") {
		t.Errorf("kept %q, want upsert-rows kept for upcoming task 1", c.Kept)
	}
	for _, want := range []string{"# Stripe pagination", "Use the auto-pager.", "# Upsert rows", "(compressed:"} {
		if !strings.Contains(body, want) {
			t.Errorf("skills section lacks %q:\n%s", want, body)
		}
	}
	if c.Saved <= 0 || !strings.Contains(strings.Join(c.Forgotten, "\n"), "skill:skills/react-forms.md: unused skill") {
		t.Errorf("report %+v", c)
	}
}

// TestFitAfterRedLevel is the reviewer's case on examples/fire: at a budget
// a little under the prompt left by the RED level (HOT and pinned only;
// the pinned part alone is about 1,900 tokens with the recitation's status
// part, so the budgets sit above
// it), Fit never
// records a negative saving (the state's shorter forms predate the
// compression), shortens the files being edited instead of dropping them,
// stops close to the budget, and the RED cut line reports the level against
// the target's budget.
func TestFitAfterRedLevel(t *testing.T) {
	for _, budget := range []int{2400, 2550, 2700} {
		t.Run(strconv.Itoa(budget), func(t *testing.T) {
			dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "fire"))
			yaml := "targets:\n  - name: agent\n    providers: [markdown]\n    budget: " + strconv.Itoa(budget) + "\n"
			if err := os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := New(dir).Build(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			tr := rep.Targets[0]
			if tr.Compression == nil || tr.Compression.Level.Level != compress.Red {
				t.Fatalf("want the RED level, got %+v", tr.Compression)
			}
			cuts := strings.Join(tr.Cuts, "\n")
			if !strings.Contains(cuts, "of the target's "+strconv.Itoa(budget)+" tokens") {
				t.Errorf("RED cut line does not name the target's budget:\n%s", cuts)
			}
			for _, bad := range []string{"(-", "files: dropped", "state: dropped"} {
				if strings.Contains(cuts, bad) {
					t.Errorf("cut %q in:\n%s", bad, cuts)
				}
			}
			hasFiles := false
			for _, s := range tr.Sections {
				hasFiles = hasFiles || s.ID == prompt.IDFiles
			}
			if !hasFiles {
				t.Errorf("files section dropped:\n%s", cuts)
			}
			if tr.Tokens > budget || tr.Percent < 95 {
				t.Errorf("%d tokens of %d (%.1f%%), want 95–100%%; cuts:\n%s", tr.Tokens, budget, tr.Percent, cuts)
			}
		})
	}
}

// TestTightBudgetKeepsPinned builds every realdata tree without a budget
// and then at tight budgets (ORANGE, a fifth of the unconstrained prompt,
// and the 1500 tokens of the fire-flow report), and checks that the budget
// levels and Fit left the pinned part alone (README "The stable prefix, the
// recitation and the preserved signals are never cut"): every stable-tier
// section, the recitation and the preservation block are byte-identical to
// the unconstrained build's, and a prompt left over budget says so with the
// "pinned sections alone" diagnostic.
func TestTightBudgetKeepsPinned(t *testing.T) {
	var e *Engine
	for _, tree := range sharedtest.Trees(t) {
		t.Run(tree.Name, func(t *testing.T) {
			dir := copyTree(t, tree.Root)
			cfgPath := filepath.Join(dir, ".planning", "recite.yaml")
			writeCfg := func(budget int) {
				t.Helper()
				yaml := "targets:\n  - name: agent\n    role: implementer\n    providers: [markdown, anthropic]\n"
				if budget > 0 {
					yaml += "    budget: " + strconv.Itoa(budget) + "\n"
				}
				if err := os.WriteFile(cfgPath, []byte(yaml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			writeCfg(0)
			e = reuse(e, dir)
			rep, tbs, err := e.build(context.Background(), true, nil)
			if err != nil {
				t.Fatal(err)
			}
			full, fullB := rep.Targets[0], tbs[0]
			pinned := map[string]string{}
			for _, s := range fullB.prompt.Sections {
				if s.Tier == prompt.Stable || s.ID == prompt.IDRecitation || s.ID == prompt.IDPreserved {
					pinned[s.ID] = s.Body
				}
			}
			if pinned[prompt.IDSystem] == "" || pinned[prompt.IDRecitation] == "" {
				t.Fatalf("unconstrained build without a system prompt or recitation: %v", full.Sections)
			}
			// ORANGE, within budget; RED far over it; and the fire-flow
			// report's 1500 where that is at least YELLOW.
			budgets := []int{full.Tokens * 100 / 75, full.Tokens / 5}
			if full.Tokens >= 750 {
				budgets = append(budgets, 1500)
			}
			for _, budget := range budgets {
				writeCfg(budget)
				rep, tbs, err := reuse(e, dir).build(context.Background(), true, nil)
				if err != nil {
					t.Fatal(err)
				}
				tr, trB := rep.Targets[0], tbs[0]
				if tr.Compression == nil || tr.Compression.Level.Level == compress.Green {
					t.Fatalf("budget %d: want a budget level above GREEN (%d tokens unconstrained)", budget, full.Tokens)
				}
				got := map[string]string{}
				for _, s := range trB.prompt.Sections {
					got[s.ID] = s.Body
				}
				for id, body := range pinned {
					if g, ok := got[id]; !ok {
						t.Errorf("budget %d: pinned section %s dropped; cuts %q", budget, id, tr.Cuts)
					} else if g != body {
						t.Errorf("budget %d: pinned section %s changed (%d → %d bytes): %.80q; actions %q", budget, id, len(body), len(g), g, tr.Compression.Level.Actions)
					}
				}
				if tr.Tokens > budget {
					want := "the pinned sections alone take " + strconv.Itoa(tr.Tokens) + " tokens, over the budget of " + strconv.Itoa(budget)
					found := false
					for _, d := range rep.Diagnostics {
						found = found || strings.Contains(d.Message, want)
					}
					if !found {
						t.Errorf("budget %d: %d tokens and no %q diagnostic: %v", budget, tr.Tokens, want, rep.Diagnostics)
					}
				}
			}
		})
	}
}

// TestCommittedApproachCompressed runs a 9-iteration conversation in a real
// git repository and builds at the pass of iteration 9: the account of an
// iteration whose edited file a commit landed within its window becomes
// "[committed in HASH] …" one line; a failed iteration's account is kept
// verbatim (failed approaches are never forgotten), one whose commit came
// after the window or never came follows the history rule.
func TestCommittedApproachCompressed(t *testing.T) {
	dir := convProject(t, "compression:\n  every: 3\nhistory:\n  strategy: window\n  window: 1000\ntargets:\n  - name: dev\n    conversation: c\n", nil)
	commit := gittest.Committer(t, dir)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	at := func(it, minute int) time.Time {
		return t0.Add(time.Duration(it)*time.Hour + time.Duration(minute)*time.Minute)
	}
	commit("README.md", "# r\n", t0)

	s, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Create(ctx, "c", conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	account := func(it int) string {
		return "Iteration " + strconv.Itoa(it) + ": moved the retry loop into src/f" + strconv.Itoa(it) + ".go.\nThe backoff doubles from 100 ms and stops after five tries.\nThe tests cover the fifth try."
	}
	failed := map[int]bool{2: true}
	const stop = "Parked the migration for now.\nThe seed data loads, but the role grants need the staging admin account, and the rest of the plan does not depend on them.\nI checked the vault path and the CI secrets; neither has them.\nBLOCKED: the staging database credentials are missing"
	for it := 1; it <= 9; it++ {
		file := "src/f" + strconv.Itoa(it) + ".go"
		pass := !failed[it]
		call := "edit-" + strconv.Itoa(it)
		recs := []conversation.Record{
			{Role: "user", Content: "Iteration " + strconv.Itoa(it) + ": go on.", Time: at(it, 0)},
			{Role: "assistant", Content: "Editing " + file + ".", ToolCalls: []conversation.ToolCall{{ID: call, Name: "Edit", Arguments: `{"file_path":"` + filepath.Join(dir, file) + `"}`}}, Time: at(it, 1)},
			{Role: "tool", ToolCallID: call, ToolName: "Edit", Content: "ok", Time: at(it, 2)},
			{Role: "assistant", Content: account(it), Time: at(it, 3)},
			{Kind: conversation.KindIteration, TestsPassing: &pass, Time: at(it, 4)},
		}
		if it == 1 {
			recs = append(recs[:4:4], conversation.Record{Role: "assistant", Content: stop, Time: at(it, 3).Add(time.Second)}, recs[4])
		}
		for i := range recs {
			recs[i].Iteration = it
			if recs[i].Kind == "" {
				recs[i].Kind = conversation.KindMessage
			}
		}
		if err := s.Append(ctx, "c", recs...); err != nil {
			t.Fatal(err)
		}
	}
	// A rejected tool use in iteration 1, with the user's words: a stop
	// signal in a failed tool result.
	const rejected = "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nnever edit the generated config; ask first"
	if err := s.Append(ctx, "c",
		conversation.Record{Kind: conversation.KindMessage, Iteration: 1, Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "rej", Name: "Edit", Arguments: `{"file_path":"cfg.gen.go"}`}}, Time: at(1, 3).Add(2 * time.Second)},
		conversation.Record{Kind: conversation.KindMessage, Iteration: 1, Role: "tool", ToolCallID: "rej", ToolName: "Edit", IsError: true, Content: rejected, Time: at(1, 3).Add(3 * time.Second)},
	); err != nil {
		t.Fatal(err)
	}
	landed := map[int]string{
		1: commit("src/f1.go", "package src\n", at(1, 30)),
		3: commit("src/f3.go", "package src\n", at(5, 30)), // before iteration 7 starts: inside the window
	}
	commit("src/f2.go", "package src\n", at(2, 30)) // the failed iteration's file
	commit("src/f4.go", "package src\n", at(8, 30)) // after iteration 8 started: too late

	rep, tbs, err := New(dir).build(ctx, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, trB := rep.Targets[0], tbs[0]
	if tr.Compression == nil || tr.Compression.Pass != 9 {
		t.Fatalf("compression report %+v, want a pass at 9", tr.Compression)
	}
	accounts := map[int]string{}
	for _, m := range trB.prompt.Messages {
		for it := 1; it <= 9; it++ {
			if m.Role == "assistant" && strings.Contains(m.Content, "src/f"+strconv.Itoa(it)+".go.") && !strings.HasPrefix(m.Content, "Editing") {
				accounts[it] = m.Content
			}
		}
	}
	for it := 1; it <= 9; it++ {
		got := accounts[it]
		switch {
		case landed[it] != "":
			want := "[committed in " + landed[it] + "]"
			if !strings.HasPrefix(got, want) || strings.Contains(got, "\n") {
				t.Errorf("iteration %d: %q, want one line starting %q", it, got, want)
			}
		case failed[it]: // a failed approach is never forgotten
			if got != account(it) {
				t.Errorf("iteration %d (failed): %q, want it verbatim", it, got)
			}
		case it <= 3: // older than 5 at the pass: the history rule
			if !strings.HasPrefix(got, "[old iteration]") {
				t.Errorf("iteration %d: %q, want the old-iteration line", it, got)
			}
		default:
			if got != account(it) {
				t.Errorf("iteration %d: %q, want it verbatim", it, got)
			}
		}
	}
	// A stop signal in an old message, or in a failed tool result, is
	// never compressed.
	for _, sig := range []string{stop, rejected} {
		if !slices.ContainsFunc(trB.prompt.Messages, func(m prompt.Message) bool { return m.Content == sig }) {
			t.Errorf("the old message with a stop signal was compressed: %.60q", sig)
		}
	}
	// Commits made after the windows closed (now, after iteration 9 began)
	// change nothing: the next build is byte-identical.
	md := func() string {
		b, err := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := md()
	now := time.Now()
	commit("src/f4.go", "package src // late\n", now)
	commit("src/f2.go", "package src // late\n", now.Add(time.Second))
	if _, err := New(dir).Build(ctx); err != nil {
		t.Fatal(err)
	}
	if after := md(); after != before {
		i := 0
		for i < len(before) && i < len(after) && before[i] == after[i] {
			i++
		}
		t.Errorf("a commit made between passes changed the prompt at byte %d:\n%q\n%q", i, before[max(0, i-200):min(len(before), i+200)], after[max(0, i-200):min(len(after), i+200)])
	}
	var forgotten string
	for _, f := range tr.Compression.Forgotten {
		if strings.Contains(f, "committed in") {
			forgotten += f + "\n"
		}
	}
	if strings.Count(forgotten, "committed in") != 2 {
		t.Errorf("forgotten lists %q, want the two committed approaches", forgotten)
	}
}

// TestCompressionCutsNoSecret: a token across the one-line cut of an old
// message, and one in a LOW read handed to the summarizer command, reach
// neither the prompt nor the command in part: compression works on
// redacted text.
func TestCompressionCutsNoSecret(t *testing.T) {
	const token = "ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LzXcVb"
	seen := filepath.Join(t.TempDir(), "seen")
	dir, s := newConversation(t, "compression:\n  every: 3\n  summarizer: cat >> "+seen+"; echo short\nhistory:\n  strategy: window\n  window: 1000\ntargets:\n  - name: dev\n    conversation: c\n", nil, "c")
	ctx := context.Background()
	// The token starts at rune 140, across the one-line form's 160-rune cut.
	line := strings.Repeat("step ", 27) + "see " + token + " in the log.\nSecond line."
	var recs []conversation.Record
	for it := 1; it <= 9; it++ {
		call := "read-" + strconv.Itoa(it)
		recs = append(recs,
			conversation.Record{Kind: conversation.KindMessage, Iteration: it, Role: "assistant", Content: line},
			conversation.Record{Kind: conversation.KindMessage, Iteration: it, Role: "assistant", Content: "Reading the next one; deploy-1.sh deploy-2.sh deploy-3.sh deploy-4.sh deploy-5.sh deploy-6.sh deploy-7.sh deploy-8.sh deploy-9.sh are related.", ToolCalls: []conversation.ToolCall{{ID: call, Name: "Read", Arguments: `{"file_path":"deploy-` + strconv.Itoa(it) + `.sh"}`}}},
			conversation.Record{Kind: conversation.KindMessage, Iteration: it, Role: "tool", ToolCallID: call, ToolName: "Read", Content: strings.Repeat("echo step\n", 40) + "export GITHUB_TOKEN=" + token + "\n"},
		)
	}
	if err := s.Append(ctx, "c", recs...); err != nil {
		t.Fatal(err)
	}
	rep, err := New(dir).Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Targets[0].Compression; c == nil || c.Pass != 9 || len(c.Forgotten) == 0 {
		t.Fatalf("compression report %+v, want a pass at 9 that collapsed old messages", c)
	}
	md, err := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the summarizer never ran: %v", err)
	}
	for _, name := range []string{"prompt", "summarizer input"} {
		text := map[string]string{"prompt": string(md), "summarizer input": string(cmd)}[name]
		for i := 0; i+8 <= len(token); i++ {
			if strings.Contains(text, token[i:i+8]) {
				t.Errorf("%s carries part of the token (%q)", name, token[i:i+8])
				break
			}
		}
	}
}

// TestImportedTranscriptCompresses imports a real Claude Code transcript
// (no iteration numbers in it) and builds: its user prompts are
// iterations, so a compression pass runs and saves tokens, and the newest
// two turns are left verbatim.
func TestImportedTranscriptCompresses(t *testing.T) {
	f, err := os.Open(filepath.Join(sharedtest.Dir(t), "transcripts", "entireio__cli__cc_90f6622c5b_1_full.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, _, err := conversation.ImportClaudeCode(f)
	if err != nil {
		t.Fatal(err)
	}
	dir, s := newConversation(t, "history:\n  strategy: window\n  window: 100000\ntargets:\n  - name: dev\n    conversation: cc\n", nil, "cc")
	ctx := context.Background()
	if err := s.Append(ctx, "cc", recs...); err != nil {
		t.Fatal(err)
	}
	rep, err := New(dir).Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Targets[0].Compression
	if c == nil || c.Pass < 3 || c.Saved <= 0 {
		t.Fatalf("compression report %+v, want a pass that saved tokens", c)
	}
	t.Logf("imported transcript: %s", c.Summary())
	conv, _, err := s.Read("cc")
	if err != nil {
		t.Fatal(err)
	}
	iters := map[string]int{}
	cur := compress.Iterations(conv, iters)
	for _, f := range append(append([]string{}, c.Forgotten...), c.Level.Actions...) {
		id := strings.TrimPrefix(f[:strings.Index(f, ": ")], "msg:")
		if iters[id] >= cur-1 {
			t.Errorf("%s: a message of the last two turns (iteration %d of %d) was shortened", f, iters[id], cur)
		}
	}
}

// TestSkillMentionWaitsForPass: a message naming an unused skill between
// passes leaves the stable tier as it was (the whole prompt's cache hangs
// on it); the next pass counts the mention and restores the skill.
func TestSkillMentionWaitsForPass(t *testing.T) {
	skill := "# Docker deploy\n\nBuild the image, then push it.\n\n" + strings.Repeat("Explanation that goes on for a while. It has details.\n\n", 30)
	dir, s := newConversation(t, "compression:\n  every: 3\ntargets:\n  - name: dev\n    conversation: c\n    skills: [skills/docker-deploy.md]\n", map[string]string{"skills/docker-deploy.md": skill}, "c")
	ctx := context.Background()
	say := func(it int, text string) {
		t.Helper()
		if err := s.Append(ctx, "c", conversation.Record{Kind: conversation.KindMessage, Role: "user", Iteration: it, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	e := New(dir)
	skills := func() string {
		t.Helper()
		_, tbs, err := e.build(ctx, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tbs[0].prompt.Section(prompt.IDSkills).Body
	}
	for it := 1; it <= 9; it++ {
		say(it, "Iteration "+strconv.Itoa(it)+": keep going with the parser.")
	}
	before := skills()
	if !strings.Contains(before, "[unused skill]") {
		t.Fatalf("skill not forgotten at pass 9:\n%s", before)
	}
	say(10, "Next I will follow docker-deploy.")
	if got := skills(); got != before {
		t.Errorf("a mention between passes rewrote the skills section:\n%s", got)
	}
	for it := 11; it <= 12; it++ {
		say(it, "Iteration "+strconv.Itoa(it)+": deploying.")
	}
	if got := skills(); !strings.Contains(got, "Build the image") {
		t.Errorf("the pass at 12 did not count the mention:\n%s", got)
	}
}

// TestReadByAbsolutePathDeduplicated: the same file read by relative and
// by absolute path (as Claude Code names it) with the same content is
// carried once: the second read becomes a pointer to the first.
func TestReadByAbsolutePathDeduplicated(t *testing.T) {
	dir, s := newConversation(t, "targets:\n  - name: dev\n    conversation: c\n", map[string]string{"src/parse.go": "package parse\n"}, "c")
	ctx := context.Background()
	content := "package parse\n\n// Parse reads a config.\nfunc Parse(b []byte) error { return nil }\n" + strings.Repeat("// more\n", 20)
	var recs []conversation.Record
	for i, p := range []string{"src/parse.go", filepath.Join(dir, "src", "parse.go")} {
		id := "read-" + strconv.Itoa(i)
		recs = append(recs,
			conversation.Record{Kind: conversation.KindMessage, Role: "assistant", Iteration: i + 1, ToolCalls: []conversation.ToolCall{{ID: id, Name: "Read", Arguments: `{"file_path":"` + p + `"}`}}},
			conversation.Record{Kind: conversation.KindMessage, Role: "tool", Iteration: i + 1, ToolCallID: id, ToolName: "Read", Content: content})
	}
	if err := s.Append(ctx, "c", recs...); err != nil {
		t.Fatal(err)
	}
	_, tbs, err := New(dir).build(ctx, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	var reads []string
	for _, m := range tbs[0].prompt.Messages {
		if m.Role == "tool" {
			reads = append(reads, m.Content)
		}
	}
	if len(reads) != 2 || reads[0] != content || reads[1] != "[src/parse.go: unchanged since the read in iteration 1 above]" {
		t.Errorf("reads = %q", reads)
	}
}

// TestRejectionIsAStop: a rejected tool use (a failed result whose text is
// a stop signal) is listed among the stop signals, which Fit never cuts,
// and not among the errors, which it does; a 20 KB one is cut to 8 KiB in
// both the section and the conversation's copy.
func TestRejectionIsAStop(t *testing.T) {
	dir, s := newConversation(t, "targets:\n  - name: dev\n    conversation: c\n    budget: 900\n", nil, "c")
	ctx := context.Background()
	const words = "never touch the generated config; ask first"
	rejected := "The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you how to proceed, the user said:\n" + words + "\n" + strings.Repeat("and more context. ", 1200)
	const shortWords = "STOP and wait for me"
	short := "The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you how to proceed, the user said:\n" + shortWords
	recs := []conversation.Record{
		{Kind: conversation.KindMessage, Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "rej", Name: "Edit", Arguments: `{"file_path":"cfg.go"}`}}},
		{Kind: conversation.KindMessage, Role: "tool", ToolCallID: "rej", ToolName: "Edit", IsError: true, Content: rejected},
	}
	// The short rejection is among the 5 latest failed results, but not
	// the latest, which is all Fit keeps of the errors at this budget.
	for i := range 5 {
		id := "t" + strconv.Itoa(i)
		if i == 4 {
			recs = append(recs,
				conversation.Record{Kind: conversation.KindMessage, Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "rej2", Name: "Write", Arguments: `{"file_path":"cfg2.go"}`}}},
				conversation.Record{Kind: conversation.KindMessage, Role: "tool", ToolCallID: "rej2", ToolName: "Write", IsError: true, Content: short})
		}
		recs = append(recs,
			conversation.Record{Kind: conversation.KindMessage, Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: id, Name: "Bash", Arguments: `{"command":"make"}`}}},
			conversation.Record{Kind: conversation.KindMessage, Role: "tool", ToolCallID: id, ToolName: "Bash", IsError: true, Content: "make: *** [build] Error " + strconv.Itoa(i+1) + " in module m" + strings.Repeat("x", i+1)})
	}
	if err := s.Append(ctx, "c", recs...); err != nil {
		t.Fatal(err)
	}
	rep, err := New(dir).Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	stops, _, ok := strings.Cut(text[strings.Index(text, "### Stop signals"):], "### Errors")
	if !ok || !strings.Contains(stops, words) || !strings.Contains(stops, shortWords) {
		t.Fatalf("the rejection is not among the stop signals (cuts %v):\n%s", rep.Targets[0].Cuts, text)
	}
	if n := strings.Count(text, "The user doesn't want to proceed"); n > 4 {
		t.Errorf("the rejections appear %d times, want at most 4 (stop signal and conversation)", n)
	}
	if strings.Count(text, "and more context.") > 2*(8<<10)/len("and more context. ")+2 {
		t.Errorf("the 20 KB rejection was not cut to 8 KiB")
	}
}
