package signals

import (
	"slices"
	"strconv"
	"strings"
)

// isProbe reports an error that is a harmless probe: a look for
// something that turned out absent, which the agent expects to fail and
// learns from (Signal.Probe). tool is the tool's name, cmd its command
// (Message.Command), exit the command's exit code (-1 unknown), key the
// error's key line and output the tool's output. The probes:
//
//   - Read of a file that does not exist, Glob/Grep/LS finding nothing,
//     and a call cancelled because a sibling call failed ("Sibling tool
//     call errored");
//   - `ls`, `stat`, `test`, `[`, `file`, `cat`, `head`, `tail`, `wc`,
//     `readlink`, `realpath`, `du`, `find` on a missing path ("No such
//     file or directory", "cannot access", "does not exist"), and `test`
//     / `[` failing with no output;
//   - `grep`, `rg`, `ag`, `ack`, `git grep` exiting 1 with no output or
//     only a count (no match; `grep -c` prints 0);
//   - `diff`, `cmp`, `git diff --exit-code` / `--quiet` exiting 1 (the
//     inputs differ: what the agent looked for);
//   - `which`, `command -v`, `type`, `hash` not finding a program;
//   - `gh pr checks` exiting 8 (checks still pending, gh's documented
//     exit code);
//   - `git show`, `git cat-file`, `git ls-files`, `git rev-parse` on a
//     path that does not exist in a revision.
func isProbe(tool, cmd string, exit int, key, output string) bool {
	if strings.Contains(key, "Sibling tool call errored") {
		return true
	}
	switch tool {
	case "Read", "NotebookRead":
		return strings.Contains(key, "does not exist")
	case "Glob", "Grep", "LS":
		return strings.Contains(key, "No files found") || strings.Contains(key, "does not exist") || strings.Contains(key, "No matches")
	}
	if cmd == "" || tool != "" && tool != "Bash" && tool != "tool" {
		return false
	}
	rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(output), "Exit code "+strconv.Itoa(exit)))
	quiet := rest == ""
	count := strings.Trim(rest, "0123456789:\n\t ") == "" // grep -c: "0", "a.go:0"
	missing := strings.Contains(key, "No such file or directory") || strings.Contains(key, "cannot access") ||
		strings.Contains(key, "does not exist") || strings.HasSuffix(key, "not found")
	for _, s := range shellSegments(cmd) {
		_, w, inner := unwrapStep(dropRedirections(s.words))
		if inner != "" {
			// Through ssh, sudo, bash -c: the probe inside.
			if isProbe(tool, inner, exit, key, output) {
				return true
			}
			continue
		}
		if len(w) == 0 || w[0] == "cd" {
			continue
		}
		verb := w[0]
		sub := ""
		if len(w) > 1 {
			sub = w[1]
		}
		switch {
		case verb == "gh" && sub == "pr" && len(w) > 2 && w[2] == "checks":
			if exit == 8 {
				return true
			}
		case verb == "grep" || verb == "egrep" || verb == "fgrep" || verb == "rg" || verb == "ag" || verb == "ack" || verb == "git" && sub == "grep":
			if exit == 1 && (quiet || count) {
				return true
			}
		case verb == "diff" || verb == "cmp" || verb == "git" && sub == "diff" && (slices.Contains(w, "--exit-code") || slices.Contains(w, "--quiet")):
			if exit == 1 {
				return true
			}
		case verb == "which" || verb == "type" || verb == "hash" || verb == "command" && sub == "-v":
			if exit > 0 && (quiet || missing || strings.Contains(key, " no ")) {
				return true
			}
		case verb == "test" || verb == "[" || verb == "[[":
			if exit == 1 && quiet {
				return true
			}
		case verb == "git" && (sub == "show" || sub == "cat-file" || sub == "ls-files" || sub == "rev-parse"):
			if strings.Contains(key, "does not exist") || strings.Contains(key, "exists on disk, but not in") {
				return true
			}
		case pathProbe(verb):
			if missing && (strings.HasPrefix(key, verb+":") || strings.HasPrefix(key, "Exit code")) {
				return true
			}
		}
	}
	return false
}

// pathProbe reports a program that looks at a path (isProbe).
func pathProbe(verb string) bool {
	switch verb {
	case "ls", "stat", "file", "cat", "head", "tail", "wc", "readlink", "realpath", "du", "find", "test", "[":
		return true
	}
	return false
}
