package signals

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestResolve(t *testing.T) {
	bash := func(id, cmd, out string, failed bool) Message {
		return Message{ID: id, Role: "tool", ToolName: "Bash", Command: cmd, Content: out, IsError: failed}
	}
	say := func(id, text string) Message { return Message{ID: id, Role: "assistant", Content: text} }
	tsc := "Exit code 2\nsrc/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."
	goFail := "--- FAIL: TestParse (0.00s)\n    parse_test.go:42: Parse(\"1+2\") = 4, want 3\nFAIL\nFAIL\tgithub.com/acme/calc\t0.004s"
	psqlErr := "Exit code 1\nERROR:  relation \"measurements\" does not exist\nLINE 1: SELECT count(*) FROM measurements;"
	tests := []struct {
		name string
		msgs []Message
		by   string // "" when not resolved
	}{
		{"same command passes", []Message{bash("m1", "npx tsc", tsc, true), say("m2", "Let me fix the type."), bash("m3", "npx tsc", "", false)}, "`npx tsc` passed (m3)"},
		{"same command, other output filter", []Message{bash("m1", "go test ./... 2>&1 | tail -30", goFail, false), bash("m2", "go test ./... 2>&1 | head", "ok  \tgithub.com/acme/calc\t0.003s", false)}, "`go test ./... 2>&1 | head` passed (m2)"},
		{"same command, other flags", []Message{bash("m1", "go test ./api", goFail, true), bash("m2", "go test -count=1 -v ./api", "ok  \tgithub.com/acme/api\t0.003s", false)}, "`go test -count=1 -v ./api` passed (m2)"},
		{"other target", []Message{bash("m1", "go test ./api", goFail, true), bash("m2", "go test ./web", "ok  \tgithub.com/acme/web\t0.003s", false)}, ""},
		{"fails again", []Message{bash("m1", "npx tsc", tsc, true), bash("m2", "npx tsc", tsc, true)}, ""},
		{"passes then fails again", []Message{bash("m1", "npx tsc", tsc, true), bash("m2", "npx tsc", "", false), bash("m3", "npx tsc", tsc, true)}, ""},
		{"another command passes", []Message{bash("m1", "npx tsc", tsc, true), bash("m2", "npm run lint", "", false)}, ""},
		{"piped output still failing", []Message{bash("m1", "go test ./... 2>&1 | tail", goFail, false), bash("m2", "go test ./... 2>&1 | tail", goFail, false)}, ""},
		{"the same test passes", []Message{bash("m1", "go test ./...", goFail, true), bash("m2", "go test -run TestParse -v ./...", "=== RUN   TestParse\n--- PASS: TestParse (0.00s)\nPASS\nok  \tgithub.com/acme/calc\t0.002s", false)}, "TestParse passed (m2)"},
		{"the same pytest test passes", []Message{
			bash("m1", "pytest", "FAILED tests/test_calc.py::test_add - assert 3 == 4\n========================= 1 failed, 2 passed in 0.05s =========================", true),
			bash("m2", "pytest tests/test_calc.py::test_add -v", "tests/test_calc.py::test_add PASSED                                       [100%]\n============================== 1 passed in 0.01s ===============================", false)}, "tests/test_calc.py::test_add passed (m2)"},
		{"the step the error names passes in another chain", []Message{
			bash("m1", "git fetch origin main && git rebase origin/main 2>&1", "Exit code 1\nerror: cannot rebase: You have unstaged changes.\nerror: Please commit or stash them.", true),
			bash("m2", "git stash && git rebase origin/main && git stash pop 2>&1", "Successfully rebased and updated refs/heads/topic.", false)}, "`git stash && git rebase origin/main && git stash pop 2>&1` passed (m2)"},
		{"the agent saying fixed resolves nothing", []Message{
			bash("m1", "go test ./...", goFail, true),
			say("m2", "Fixed: the parser now handles precedence. All tests pass now."),
			bash("m3", "go test ./pkg/other/...", "ok  \tgithub.com/acme/other\t0.002s", false)}, ""},
		{"the program the agent re-ran, another query", []Message{
			bash("m1", `ssh root@203.0.113.7 'sudo -u postgres psql -d metrics -c "SELECT count(*) FROM measurements"'`, psqlErr, true),
			say("m2", "The table is missing; that is resolved once the migration ran."),
			bash("m3", `ssh root@203.0.113.7 'sudo -u postgres psql -d metrics -c "SELECT 1"'`, " ?column? \n----------\n        1\n(1 row)", false)}, ""},
		{"the same query through the same wrappers", []Message{
			bash("m1", `ssh root@203.0.113.7 'sudo -u postgres psql -d metrics -c "SELECT count(*) FROM measurements"'`, psqlErr, true),
			bash("m2", `timeout 30 ssh -o ConnectTimeout=5 root@203.0.113.7 "sudo -u postgres psql -d metrics -c 'SELECT count(*) FROM measurements'" 2>&1 | tail -5`, " count \n-------\n  1042\n(1 row)", false)},
			"`timeout 30 ssh -o ConnectTimeout=5 root@203.0.113.7 \"sudo -u postgres psql -d metrics -c 'SELECT count(*) FROM measurements'\" 2>&1 | tail -5` passed (m2)"},
		{"timeout is a wrapper, not the program", []Message{
			bash("m1", "timeout 10 ssh deploy@203.0.113.7 'systemctl is-active app'", "Exit code 124", true),
			bash("m2", "timeout 10 nmap -p 22 203.0.113.7", "22/tcp open  ssh", false)}, ""},
		{"an error in a CI log is not resolved by viewing it again", []Message{
			bash("m1", "gh run view 21692651903 --log-failed 2>&1 | head -100", "lint\tRun golangci-lint\t2026-02-04T23:39:44.4995127Z cmd/x/checkpoint_test.go:901:17: SA5011: possible nil pointer dereference (staticcheck)", false),
			bash("m2", "gh run view 21692651903 --json conclusion", "{\"conclusion\":\"failure\"}", false)}, ""},
		{"write after read", []Message{
			{ID: "m1", Role: "tool", ToolName: "Write", Command: "Write /a/drift.ts", IsError: true, Content: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"},
			{ID: "m2", Role: "tool", ToolName: "Read", Command: "Read /a/drift.ts", Content: "     1→x"},
			{ID: "m3", Role: "tool", ToolName: "Write", Command: "Write /a/drift.ts", Content: "The file /a/drift.ts has been overwritten successfully."}}, "`Write /a/drift.ts` passed (m3)"},
		{"no command", []Message{{ID: "m1", Role: "tool", IsError: true, Content: tsc}, {ID: "m2", Role: "tool", Content: ""}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sigs := Extract(nil, tt.msgs, nil)
			var errs []Signal
			for _, s := range sigs {
				if s.Kind == KindError {
					errs = append(errs, s)
				}
			}
			if len(errs) == 0 {
				t.Fatal("no error signal")
			}
			res := Resolve(tt.msgs, errs)
			got := ""
			if len(res) > 0 {
				got = res[0].By
			}
			if got != tt.by || errs[0].ResolvedBy != tt.by {
				t.Errorf("Resolve %q, Extract %q; want %q", got, errs[0].ResolvedBy, tt.by)
			}
			// Resolved or not, a summary that drops the error lost it.
			if lost := Verify("nothing kept", errs[:1]); len(lost) != 1 {
				t.Errorf("Verify lost %d with resolution %q", len(lost), tt.by)
			}
		})
	}
	// Signals with no occurrence in the messages stay open.
	if res := Resolve(nil, []Signal{{Kind: KindError, Text: "x", Hash: "h"}}); len(res) != 0 {
		t.Errorf("resolved without messages: %+v", res)
	}
	marked := MarkResolved([]Signal{{Kind: KindError, Hash: "h"}, {Kind: KindBlocked, Hash: "h"}}, []Resolution{{Hash: "h", By: "x"}})
	if marked[0].ResolvedBy != "x" || marked[1].ResolvedBy != "" {
		t.Errorf("MarkResolved = %+v", marked)
	}
}

// TestRunSteps: what a command line ran, once filters and wrappers are
// taken off.
func TestRunSteps(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		{"cd web && npm run build 2>&1 | tail -5", []string{"npm run build"}},
		{"CI=1 FORCE_COLOR=0 go test -count=1 ./api > /tmp/out.log 2>&1 || true", []string{"go test ./api"}},
		{"sudo -u postgres psql -d app -c 'SELECT 1'", []string{"psql app SELECT 1"}},
		{"timeout -s KILL 10 ssh -p 2222 deploy@web1 'cd /srv && systemctl restart app'", []string{"@deploy@web1 systemctl restart app"}},
		{"timeout 10 nmap -p 22 203.0.113.7", []string{"nmap 22 203.0.113.7"}},
		{`bash -c "env -i HOME=/root make test"`, []string{"make test"}},
		{"docker exec -it api-1 npm test", []string{"@api-1 npm test"}},
		{"kubectl exec -n prod api-7d9f -- rails db:migrate", []string{"@api-7d9f rails db:migrate"}},
		{"cat > /tmp/deploy.sh << 'SCRIPT'\naws s3 sync dist s3://bucket\nrm -rf /\nSCRIPT\nbash /tmp/deploy.sh", []string{"cat", "bash /tmp/deploy.sh"}},
		{"Write /src/a.go", []string{"Write /src/a.go"}},
		{"  ", nil},
	}
	for _, tt := range tests {
		if got := runSteps(tt.cmd); !slices.Equal(got, tt.want) {
			t.Errorf("runSteps(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

// TestBlockRoundTripNewFields: command (one line and several), key line,
// probe and resolution survive RenderBlock → ParseBlocks; an old block
// without them still reads, its one-line errors keyed by their line.
func TestBlockRoundTripNewFields(t *testing.T) {
	sigs := []Signal{
		{Kind: KindError, Text: "Exit code 2\nsrc/a.ts(3,7): error TS2322: x.", KeyLine: "src/a.ts(3,7): error TS2322: x.", Command: "npx tsc", ResolvedBy: "`npx tsc` passed (c.jsonl#41)", Count: 1},
		{Kind: KindError, Text: "Exit code 1", KeyLine: "Exit code 1", Command: "git commit -m \"$(cat <<'EOF'\nfix: x\n```\nEOF\n)\"", Count: 2},
		{Kind: KindError, Text: "Exit code 8\nlint\tpass", KeyLine: "Exit code 8", Command: "gh pr checks 142", Probe: true, Count: 1},
	}
	for i := range sigs {
		sigs[i].Hash = newNormalizer().signalHash(sigs[i])
	}
	out := RenderBlock(Block{Signals: sigs})
	for _, want := range []string{"command: npx tsc\n", "key line: src/a.ts(3,7): error TS2322: x.\n", "resolved: `npx tsc` passed (c.jsonl#41)\n", "(harmless probe; hash: ", "command:\n````\ngit commit"} {
		if !strings.Contains(out, want) {
			t.Errorf("block lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "key line: Exit code 1") {
		t.Error("a key line equal to the text is repeated")
	}
	blocks, diags := ParseBlocks("p.md", []byte(out))
	if len(diags) != 0 || len(blocks) != 1 || len(blocks[0].Signals) != len(sigs) {
		t.Fatalf("parsed %+v %v", blocks, diags)
	}
	for i, g := range blocks[0].Signals {
		w := sigs[i]
		if g.Text != w.Text || g.KeyLine != w.KeyLine || g.Command != w.Command || g.Probe != w.Probe || g.ResolvedBy != w.ResolvedBy || g.Count != w.Count || g.Hash != w.Hash {
			t.Errorf("signal %d:\n got  %+v\n want %+v", i, g, w)
		}
	}
	old := "## Context Preservation Block (auto-generated)\n\n### Errors (verbatim, do NOT paraphrase)\n\nError 1 (hash: 2a4aaa166e856368; source: c.jsonl:4):\n```\nError: unknown flag: --format\n```\n\nError 2 (source: c.jsonl:5):\n```\nExit code 1\nTraceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nKeyError: 'token'\n```\n"
	blocks, diags = ParseBlocks("old.md", []byte(old))
	if len(diags) != 0 || len(blocks) != 1 || len(blocks[0].Signals) != 2 {
		t.Fatalf("old block: %+v %v", blocks, diags)
	}
	if s := blocks[0].Signals; s[0].KeyLine != "Error: unknown flag: --format" || s[1].KeyLine != "" || Key(s[1]) != "KeyError: 'token" {
		t.Errorf("old block key lines %q %q, key %q", s[0].KeyLine, s[1].KeyLine, Key(s[1]))
	}
}

// TestResolveLaterRun: an error known only from a preservation block (no
// occurrence among the messages) is resolved by a later successful run
// of its command, and only by one after it was last seen.
func TestResolveLaterRun(t *testing.T) {
	t0 := time.Date(2026, 2, 7, 10, 0, 0, 0, time.UTC)
	old := Signal{Kind: KindError, Text: "Exit code 2\nsrc/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
		KeyLine: "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.", Command: "npx tsc 2>&1 | head", LastSeen: t0, Hash: "h1"}
	run := func(id, cmd string, at time.Time, failed bool) Message {
		return Message{ID: id, Role: "tool", ToolName: "Bash", Command: cmd, Timestamp: at, IsError: failed, Source: "c.jsonl#" + id}
	}
	tests := []struct {
		name string
		msgs []Message
		by   string
	}{
		{"later pass", []Message{run("m1", "npx tsc", t0.Add(time.Minute), false)}, "`npx tsc` passed at 10:01"},
		{"pass before it was seen", []Message{run("m1", "npx tsc", t0.Add(-time.Minute), false)}, ""},
		{"later failure", []Message{run("m1", "npx tsc", t0.Add(time.Minute), true)}, ""},
		{"another command", []Message{run("m1", "npm test", t0.Add(time.Minute), false)}, ""},
	}
	for _, tt := range tests {
		res := Resolve(tt.msgs, []Signal{old})
		got := ""
		if len(res) == 1 {
			got = res[0].By
		}
		if got != tt.by {
			t.Errorf("%s: resolved by %q, want %q", tt.name, got, tt.by)
		}
	}
}
