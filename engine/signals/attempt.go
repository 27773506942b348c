package signals

import "strings"

// ChangeAttempt reports whether a tool call tries to change the project:
// what makes an agent's turn an iteration of its loop, so that the
// circuit breaker counts a turn that tried to change something and
// changed no file as a stall, and never a turn that only answered or only
// read. tool is the tool's name, cmd the call's command
// (conversation.CallCommand: the Bash command verbatim).
//
//   - Write, Edit, MultiEdit and NotebookEdit are attempts.
//   - A Bash command is an attempt unless every simple command of it only
//     reads (readOnlyCommand: ls, cat, grep, find, git status/log/diff/
//     show, gh pr view/checks, go version/env/list, `sed` without -i, …)
//     and none redirects output into a file; so a build, a test run, an
//     install, a commit and a program recite does not know are attempts.
//     A Bash call without a command is one too.
//   - Every other tool (Read, Grep, Glob, WebFetch, Task, TodoWrite, MCP
//     tools, …) is not: a turn of them counts as an iteration only when
//     git sees a file it changed, or when it fails (see the hook).
func ChangeAttempt(tool, cmd string) bool {
	switch tool {
	case "Write", "Edit", "MultiEdit", "NotebookEdit":
		return true
	case "Bash":
	default:
		return false
	}
	if strings.TrimSpace(cmd) == "" {
		return true
	}
	segs := shellSegments(cmd)
	for i, s := range segs {
		var w []string
		for _, word := range s.words {
			if writesFile(word) {
				return true
			}
			if !isRedirection(word) {
				w = append(w, word)
			}
		}
		for len(w) > 0 && (strings.Contains(w[0], "=") && !strings.HasPrefix(w[0], "-") || w[0] == "sudo" || w[0] == "time" || w[0] == "env" || w[0] == "command" && len(w) > 1 && w[1] != "-v") {
			w = w[1:]
		}
		if len(w) == 0 || w[0] == "cd" || i > 0 && segs[i-1].op == "|" && isOutputFilter(w[0]) && w[0] != "tee" && !inPlace(w) {
			continue
		}
		if !readOnlyCommand(w) {
			return true
		}
	}
	return false
}

// writesFile reports a redirection of output into a file (`> out.txt`,
// `>>log`, `2>err`, `&>all`), not into /dev/null or another descriptor.
func writesFile(w string) bool {
	i := strings.IndexByte(w, '>')
	if i < 0 || strings.Trim(w[:i], "0123456789&") != "" {
		return false
	}
	target := strings.TrimPrefix(w[i+1:], ">")
	if target == "" {
		// `> file` with a space: the next word is the file. A lone `>`
		// or `>>` word writes.
		return true
	}
	return target != "/dev/null" && !(target[0] == '&' && strings.Trim(target[1:], "0123456789-") == "")
}

// inPlace reports a filter that edits its files (`sed -i`, `perl -i`).
func inPlace(w []string) bool {
	if w[0] != "sed" && w[0] != "perl" {
		return false
	}
	for _, a := range w[1:] {
		if a == "-i" || strings.HasPrefix(a, "-i") && !strings.HasPrefix(a, "--") || a == "--in-place" || strings.HasPrefix(a, "--in-place=") {
			return true
		}
	}
	return false
}

// readOnlyCommand reports a simple command (its words, the program
// first) that only reads: looks at files, the repository, the network or
// the environment and prints what it found.
func readOnlyCommand(w []string) bool {
	sub := ""
	if len(w) > 1 {
		sub = w[1]
	}
	switch w[0] {
	case "ls", "ll", "la", "tree", "pwd", "echo", "printf", "cat", "bat", "head", "tail", "less", "more", "wc", "nl",
		"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "locate", "file", "stat", "du", "df", "which", "whereis",
		"type", "hash", "env", "printenv", "date", "whoami", "id", "uname", "hostname", "ps", "pgrep", "lsof", "uptime",
		"jq", "yq", "sort", "uniq", "cut", "tr", "column", "diff", "cmp", "comm", "sha1sum", "sha256sum", "shasum", "md5sum",
		"md5", "basename", "dirname", "realpath", "readlink", "true", "false", ":", "sleep", "test", "[", "[[", "man", "tldr",
		"history", "curl", "dig", "nslookup", "ping", "od", "xxd", "hexdump", "strings", "awk":
		return true
	case "xargs":
		return len(w) > 1 && readOnlyCommand(w[1:])
	case "sed", "perl":
		return !inPlace(w)
	case "command":
		return sub == "-v"
	case "git":
		return readOnlyGit(w[1:])
	case "gh":
		return readOnlyGH(w[1:])
	case "go":
		return sub == "version" || sub == "env" && !hasFlag(w, "-w") || sub == "list" || sub == "doc" || sub == "help"
	case "npm", "pnpm", "yarn", "bun":
		switch sub {
		case "ls", "list", "view", "info", "outdated", "why", "explain", "config", "help", "--version", "-v":
			return true
		}
	case "cargo":
		return sub == "tree" || sub == "metadata" || sub == "--version" || sub == "search"
	case "docker", "kubectl":
		switch sub {
		case "ps", "images", "logs", "inspect", "get", "describe", "version", "info":
			return true
		}
	}
	// `tool --version`, `tool --help`: a look at the tool.
	return len(w) == 2 && (sub == "--version" || sub == "-V" || sub == "--help" || sub == "-h" || sub == "version")
}

// readOnlyGit reports a git invocation (its arguments) that changes
// neither the work tree, the index nor a ref.
func readOnlyGit(args []string) bool {
	for len(args) > 1 && (args[0] == "-C" || args[0] == "-c" || args[0] == "--git-dir" || args[0] == "--work-tree") {
		args = args[2:]
	}
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "status", "log", "diff", "show", "blame", "rev-parse", "ls-files", "ls-tree", "ls-remote", "describe", "shortlog",
		"reflog", "grep", "cat-file", "fetch", "rev-list", "merge-base", "name-rev", "whatchanged", "show-ref", "for-each-ref",
		"check-ignore", "version", "help", "count-objects", "var", "cherry":
		return true
	case "branch", "tag", "remote":
		// Listing: no argument other than flags (and -v).
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") || a == "-d" || a == "-D" || a == "-m" || a == "-M" || a == "--delete" {
				return args[0] == "remote" && (a == "show" || a == "get-url" || a == "-v")
			}
		}
		return true
	case "stash":
		return len(args) > 1 && (args[1] == "list" || args[1] == "show")
	case "config":
		return hasFlag(args, "--get") || hasFlag(args, "--list") || hasFlag(args, "-l") || hasFlag(args, "--get-all")
	case "worktree":
		return len(args) > 1 && args[1] == "list"
	}
	return false
}

// readOnlyGH reports a gh invocation (its arguments) that only reads.
func readOnlyGH(args []string) bool {
	if len(args) == 0 {
		return true
	}
	if args[0] == "api" {
		for i, a := range args {
			if (a == "-X" || a == "--method") && i+1 < len(args) && !strings.EqualFold(args[i+1], "GET") || a == "-f" || a == "-F" || a == "--field" || a == "--raw-field" || a == "--input" {
				return false
			}
		}
		return true
	}
	if args[0] == "auth" || args[0] == "status" || args[0] == "search" || args[0] == "browse" || args[0] == "--version" || args[0] == "version" || args[0] == "help" {
		return true
	}
	if len(args) < 2 {
		return false
	}
	switch args[1] {
	case "view", "list", "status", "checks", "diff", "watch", "logs":
		return true
	}
	return false
}

// hasFlag reports flag among args.
func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
	}
	return false
}
