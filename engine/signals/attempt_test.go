package signals

import (
	"strings"
	"testing"
)

// TestChangeAttempt: edits and commands that build, test, install or
// write are attempts; reading tools and commands that only look are not.
// The commands are real ones from Claude Code sessions.
func TestChangeAttempt(t *testing.T) {
	tests := []struct {
		tool, cmd string
		want      bool
	}{
		{"Write", "", true},
		{"Edit", "", true},
		{"MultiEdit", "", true},
		{"NotebookEdit", "", true},
		{"Read", "Read /app/src/a.go", false},
		{"Grep", "Grep nolint:staticcheck", false},
		{"Glob", "Glob **/*.ts", false},
		{"WebFetch", "WebFetch https://golangci-lint.run/docs/linters/", false},
		{"Task", "Task Explore CLI codebase structure", false},
		{"TodoWrite", "TodoWrite", false},
		{"mcp__linear-server__create_issue", "mcp__linear-server__create_issue GetCheckpointAuthor returns wrong author", false},
		{"Bash", "", true},
		{"Bash", "npx tsc", true},
		{"Bash", "go test ./... 2>&1 | tail -30", true},
		{"Bash", "bun run typecheck 2>&1 | head -100", true},
		{"Bash", "mise run lint 2>&1", true},
		{"Bash", "git add scripts/migrate-sessions.sh && git commit -m \"docs: usage\"", true},
		{"Bash", "git fetch origin main && git rebase origin/main 2>&1", true},
		{"Bash", "git checkout cmd/entire/cli/checkpoint/checkpoint_test.go && git push", true},
		{"Bash", "mkdir -p /Users/dev/projects/napoli-matcha/src/lib", true},
		{"Bash", "rm -f src/index.js", true},
		{"Bash", "sed -i '' 's/a/b/' cmd/x_test.go && git add cmd/x_test.go", true},
		{"Bash", "git diff main > /tmp/pr.patch && golangci-lint run --new-from-patch=/tmp/pr.patch", true},
		{"Bash", "cat > /tmp/test_sa5011.go << 'EOF'\npackage main\nEOF", true},
		{"Bash", "echo hi | tee out.log", true},
		{"Bash", "go install honnef.co/go/tools/cmd/staticcheck@latest", true},
		{"Bash", "npm install", true},
		{"Bash", "gh pr create --title x", true},
		{"Bash", "gh api -X POST repos/o/r/issues -f title=x", true},
		{"Bash", "ls -la src/*.js src/lib/*.js", false},
		{"Bash", "wc -l src/lib/SandboxQueueProcessor.ts", false},
		{"Bash", "git status && git log --oneline -2", false},
		{"Bash", "git diff --stat cmd/entire/cli/checkpoint/checkpoint_test.go", false},
		{"Bash", "git show HEAD:cmd/a_test.go | grep -n \"nolint:staticcheck\"", false},
		{"Bash", "git log --oneline --format=\"%h %an\" entire/sessions | head -20", false},
		{"Bash", "git branch -a | grep sessions", false},
		{"Bash", "gh pr checks 142 2>&1", false},
		{"Bash", "gh pr diff 142 2>&1 | head -500", false},
		{"Bash", "gh run view 21692651903 --log-failed 2>&1 | head -100", false},
		{"Bash", "gh pr checks 2>&1 || gh run list --limit 5 2>&1", false},
		{"Bash", "grep -A50 \"exclusions:\" .golangci.yaml", false},
		{"Bash", "cat .github/workflows/*.yml 2>/dev/null | grep -A20 \"golangci-lint\" | head -40", false},
		{"Bash", "which staticcheck || echo missing", false},
		{"Bash", "golangci-lint version 2>&1", false},
		{"Bash", "golangci-lint --version", false},
		{"Bash", "go version && go env GOPATH", false},
		{"Bash", "cd packages/cli && ls", false},
		{"Bash", "sed -n '1,40p' src/a.ts", false},
		{"Bash", "curl -s https://api.example.com/health | jq .status", false},
		{"Bash", "find . -name '*.go' | xargs grep -l TODO", false},
		{"Bash", "find . -name '*.go' | xargs rm", true},
		{"Bash", "golangci-lint run ./... > /dev/null 2>&1", true},
		{"Bash", "git -C sub status", false},
		{"Bash", "git remote -v", false},
		{"Bash", "git branch -D old", true},
		{"Bash", "git stash list", false},
		{"Bash", "git stash && git rebase origin/main && git stash pop 2>&1", true},
	}
	for _, tt := range tests {
		if got := ChangeAttempt(tt.tool, tt.cmd); got != tt.want {
			t.Errorf("ChangeAttempt(%q, %q) = %v, want %v", tt.tool, tt.cmd, got, tt.want)
		}
	}
}

// FuzzChangeAttempt: any command is classified without panicking, an
// install is an attempt, and a command that writes into a file always is.
func FuzzChangeAttempt(f *testing.F) {
	for _, c := range []string{"npx tsc", "ls -la", "git status && git log", "cat > f <<EOF\nx\nEOF", "echo 'a > b' | grep a", "sudo -E env X=1 make", "a | | b", "\\", "\"unterminated", "x 2>&1 >&-"} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		attempt := ChangeAttempt("Bash", cmd)
		if strings.HasPrefix(strings.TrimSpace(cmd), "npm install") && !attempt {
			t.Errorf("%q is not an attempt", cmd)
		}
		// Without quotes or escapes the appended words stay words of
		// their own, and a redirection into a file always writes.
		if !strings.ContainsAny(cmd, "'\"\\") && !ChangeAttempt("Bash", cmd+" > out.txt") {
			t.Errorf("%q > out.txt is not an attempt", cmd)
		}
	})
}
