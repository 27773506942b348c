package signals

import "testing"

func TestCommandIdentity(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{"npx tsc", "npx tsc"},
		{"bun run typecheck 2>&1 | head -100", "bun run typecheck"},
		{"bun run typecheck 2>&1 | tail -60", "bun run typecheck"},
		{"cd /home/dev/app && go test ./... 2>&1 | grep -v '^ok'", "go test ./..."},
		{"go vet ./... >/dev/null 2>&1 || true", "go vet ./..."},
		{`git commit -m "fix: x"; echo "exit: $?"`, "git commit -m fix: x"},
		{"npm test -- --runInBand | tee out.log", "npm test -- --runInBand"},
		{"make build && make test", "make build && make test"},
		{"Write /home/dev/app/drift.ts", "Write /home/dev/app/drift.ts"},
		{"  ", ""},
	}
	for _, tt := range tests {
		if got := commandIdentity(tt.cmd); got != tt.want {
			t.Errorf("commandIdentity(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

// TestProbes: harmless probes, from real sessions (the shared
// transcripts' gh pr checks, Read and git show; the rest as the tools
// print them), and real failures that look alike.
func TestProbes(t *testing.T) {
	tests := []struct {
		name    string
		msg     Message
		probe   bool
		signals int
	}{
		{"Read missing file", Message{Role: "tool", ToolName: "Read", Command: "Read /app/.golangci.yml", IsError: true, Content: "<tool_use_error>File does not exist. Did you mean .golangci.yaml?</tool_use_error>"}, true, 1},
		{"gh pr checks pending", Message{Role: "tool", ToolName: "Bash", Command: "gh pr checks 142 2>&1", IsError: true, Content: "Exit code 8\nlint\tpass\t1m42s\thttps://github.com/entireio/cli/actions/runs/21694270502/job/62561021044\t\nCursor Bugbot\tpending\t0\thttps://cursor.com"}, true, 1},
		{"gh pr checks failing", Message{Role: "tool", ToolName: "Bash", Command: "gh pr checks 142", IsError: true, Content: "Exit code 1\nlint\tfail\t1m27s\thttps://github.com/entireio/cli/actions/runs/21692651903"}, false, 1},
		{"git show missing path", Message{Role: "tool", ToolName: "Bash", Command: "git show 8034f24:76/74489fb0a9/metadata.json 2>&1 | head -5", Content: "fatal: path '76/74489fb0a9/metadata.json' does not exist in '8034f24'"}, true, 1},
		{"grep no match", Message{Role: "tool", ToolName: "Bash", Command: `grep -n "nolint:staticcheck" cmd/x_test.go`, IsError: true, Content: "Exit code 1"}, true, 1},
		{"grep bad regexp", Message{Role: "tool", ToolName: "Bash", Command: `grep -E "(" x.go`, IsError: true, Content: "Exit code 2\ngrep: Unmatched ( or \\("}, false, 1},
		{"ls missing", Message{Role: "tool", ToolName: "Bash", Command: "ls scripts/", IsError: true, Content: "Exit code 1\nls: scripts/: No such file or directory"}, true, 1},
		{"test -f", Message{Role: "tool", ToolName: "Bash", Command: "test -f .env", IsError: true, Content: "Exit code 1"}, true, 1},
		{"[ -e ]", Message{Role: "tool", ToolName: "Bash", Command: "[ -e dist/index.js ] && echo built", IsError: true, Content: "Exit code 1"}, true, 1},
		{"which", Message{Role: "tool", ToolName: "Bash", Command: "which staticcheck", IsError: true, Content: "Exit code 1\nstaticcheck not found"}, true, 1},
		{"command -v", Message{Role: "tool", ToolName: "Bash", Command: "command -v pnpm", IsError: true, Content: "Exit code 1"}, true, 1},
		{"Glob none", Message{Role: "tool", ToolName: "Glob", Command: "Glob **/*.js", IsError: true, Content: "No files found"}, true, 1},
		{"sibling", Message{Role: "tool", ToolName: "Read", Command: "Read /a", IsError: true, Content: "<tool_use_error>Sibling tool call errored</tool_use_error>"}, true, 1},
		{"script missing", Message{Role: "tool", ToolName: "Bash", Command: "bash ./run.sh", IsError: true, Content: "Exit code 127\nbash: ./run.sh: No such file or directory"}, false, 1},
		{"cat in a pipeline that failed", Message{Role: "tool", ToolName: "Bash", Command: "npm test", IsError: true, Content: "Exit code 1\nnpm ERR! Missing script: \"test\""}, false, 1},
		{"grep -c no match", Message{Role: "tool", ToolName: "Bash", Command: `grep -c "TODO" src/app.ts`, IsError: true, Content: "Exit code 1\n0"}, true, 1},
		{"grep through ssh", Message{Role: "tool", ToolName: "Bash", Command: `ssh deploy@web1 'sudo grep -q "server_name app" /etc/nginx/sites-enabled/app'`, IsError: true, Content: "Exit code 1"}, true, 1},
		{"diff differs", Message{Role: "tool", ToolName: "Bash", Command: "diff expected.json out.json", IsError: true, Content: "Exit code 1\n3c3\n<   \"count\": 3\n---\n>   \"count\": 4"}, true, 1},
		{"cmp differs", Message{Role: "tool", ToolName: "Bash", Command: "cmp build/a.bin build/b.bin", IsError: true, Content: "Exit code 1\nbuild/a.bin build/b.bin differ: byte 13, line 1"}, true, 1},
		{"diff of a missing file is no probe", Message{Role: "tool", ToolName: "Bash", Command: "diff expected.json out.json", IsError: true, Content: "Exit code 2\ndiff: out.json: No such file or directory"}, false, 1},
		{"Write not read", Message{Role: "tool", ToolName: "Write", Command: "Write /a/drift.ts", IsError: true, Content: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"}, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sigs := FromMessages([]Message{tt.msg})
			if len(sigs) != tt.signals {
				t.Fatalf("%d signals: %+v", len(sigs), sigs)
			}
			if sigs[0].Probe != tt.probe {
				t.Errorf("probe = %v, want %v (key %q)", sigs[0].Probe, tt.probe, sigs[0].KeyLine)
			}
		})
	}
}

// TestProbesStayOut: a harmless probe is never reported lost nor
// re-injected, whatever else was lost.
func TestProbesStayOut(t *testing.T) {
	probe := Signal{Kind: KindError, Text: "Exit code 1", KeyLine: "Exit code 1", Command: "grep -q foo x", Probe: true}
	real := Signal{Kind: KindError, Text: "Exit code 2\nsrc/a.ts(1,2): error TS2322: x", KeyLine: "src/a.ts(1,2): error TS2322: x", Command: "npx tsc"}
	if lost := Verify("nothing", []Signal{probe, real}); len(lost) != 1 || lost[0].Probe {
		t.Errorf("with a real failure lost: %+v", lost)
	}
	if lost := Verify("`src/a.ts(1,2): error TS2322: x`", []Signal{probe, real}); len(lost) != 0 {
		t.Errorf("only the probe lost: %+v", lost)
	}
	if got := Fit(Block{Signals: []Signal{probe, real}}, 10000); len(got.Block.Signals) != 1 || got.Block.Signals[0].Probe {
		t.Errorf("Fit kept %+v", got.Block.Signals)
	}
	if got := Fit(Block{Signals: []Signal{probe}}, 10000); len(got.Block.Signals) != 0 {
		t.Errorf("Fit kept a lone probe: %+v", got.Block.Signals)
	}
}

// TestProbeTreatedAsFailure: a probe is a real error when the agent's next
// words call it a failure, and stays a probe when they do not.
func TestProbeTreatedAsFailure(t *testing.T) {
	diff := Message{ID: "m1", Role: "tool", ToolName: "Bash", Command: "diff expected.json out.json", IsError: true, Content: "Exit code 1\n3c3\n<   \"count\": 3\n---\n>   \"count\": 4"}
	tests := []struct {
		said  string
		probe bool
	}{
		{"The output is wrong: count is 4 where the fixture expects 3.", false},
		{"The comparison failed, the serializer double-counts.", false},
		{"They differ only in the count, as expected after the new fixture.", true},
		{"Nothing failed; the count changed on purpose.", true},
	}
	for _, tt := range tests {
		sigs := Extract(nil, []Message{diff, {ID: "m2", Role: "assistant", Content: tt.said}}, nil)
		if len(sigs) != 1 || sigs[0].Probe != tt.probe {
			t.Errorf("%q: %+v, want probe %v", tt.said, sigs, tt.probe)
		}
	}
}

// TestKilledByTheAgent: a process the agent stopped itself is no error:
// a follow command ended by a signal, pkill ending its own shell, a
// background task killed after the agent stopped it. A process killed
// otherwise (the OOM killer, a timeout on a command that should end) is.
func TestKilledByTheAgent(t *testing.T) {
	bash := func(id, cmd, out string) Message {
		return Message{ID: id, Role: "tool", ToolName: "Bash", Command: cmd, IsError: true, Content: out}
	}
	note := func(id, summary, status string) Message {
		return Message{ID: id, Role: "user", IsError: true, Content: "<task-notification>\n<task-id>b81f2c</task-id>\n<status>" + status + "</status>\n<summary>" + summary + "</summary>\n</task-notification>"}
	}
	stop := Message{ID: "k", Role: "tool", ToolName: "KillShell", Command: "KillShell b81f2c", Content: `{"message":"Successfully killed shell: b81f2c","shell_id":"b81f2c"}`}
	tests := []struct {
		name   string
		msgs   []Message
		errors int
	}{
		{"journalctl -f ended by a signal", []Message{bash("m1", "ssh web1 'journalctl -u app -f' 2>&1 | head -50", "Exit code 144\nFeb 03 10:00:01 web1 app[311]: listening on :3000")}, 0},
		{"pkill ends its own shell", []Message{bash("m1", `pkill -f "vite --port 5173"`, "Exit code 144")}, 0},
		{"a task killed after KillShell", []Message{stop, note("m2", `Background command "npm run dev" failed with exit code 143`, "failed")}, 0},
		{"a task killed without the agent", []Message{note("m2", `Background command "npm run dev" failed with exit code 143`, "failed")}, 1},
		{"the OOM killer", []Message{bash("m1", "python train.py --epochs 3", "Exit code 137\nKilled")}, 1},
		{"timeout of a command that should end", []Message{bash("m1", "timeout 10 ssh deploy@203.0.113.7 'systemctl is-active app'", "Exit code 124")}, 1},
	}
	for _, tt := range tests {
		n := 0
		for _, s := range Extract(nil, tt.msgs, nil) {
			if s.Kind == KindError {
				n++
			}
		}
		if n != tt.errors {
			t.Errorf("%s: %d errors, want %d", tt.name, n, tt.errors)
		}
	}
}
