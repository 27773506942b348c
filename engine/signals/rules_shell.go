package signals

// The failure-line table's rows for the shell, git, cobra-based CLIs, CI
// logs and the markers any tool prints (failureRules).

func shellRules() []rule {
	return []rule{
		{name: "command-not-found", nearMiss: "Did you mean: apt install command-not-found", toolchain: "shell", hint: "command not found", pattern: `^(?:\S+: )*(?:line \d+: )?(?:\S+: )?command not found(?:: \S.*)?$`,
			example: "bash: pnpm: command not found"},
		{name: "sh-not-found", nearMiss: "/bin/sh: 1: cd: can't cd to build", toolchain: "shell", hint: "not found", pattern: `^(?:/\S*/)?(?:sh|dash|bash|zsh|ksh): (?:line )?\d+: .*not found$`,
			example: "/bin/sh: 1: pnpm: not found"},
		{name: "no-such-file", nearMiss: "find: No such file or directory is not printed when the path exists", toolchain: "shell", hint: "No such file or directory", pattern: `(?:^|: )No such file or directory(?: \(os error 2\))?(?:: .*)?$`,
			example: "cat: config/settings.yaml: No such file or directory"},
		{name: "permission-denied", nearMiss: "chmod 600 to avoid 'permission denied' on the key", toolchain: "shell", hint: "ermission denied", pattern: `(?:^|: )[Pp]ermission denied\b`,
			example: "bash: ./deploy.sh: Permission denied"},
		{name: "segfault", nearMiss: "Segmentation faults are reported on stderr", toolchain: "shell", hint: "Segmentation fault", pattern: `(?:^|: )Segmentation fault\b`,
			example: "Segmentation fault (core dumped)"},
	}
}

// cliRules: git, Go command-line tools built on cobra (gh, kubectl,
// golangci-lint), GitHub Actions logs.
func cliRules() []rule {
	return []rule{
		{name: "git-conflict", nearMiss: "Auto-merging src/app.ts", toolchain: "git", hint: "CONFLICT (", pattern: `^CONFLICT \([\w/ -]+\): `,
			example:    "Auto-merging src/app.ts\nCONFLICT (content): Merge conflict in src/app.ts\nAutomatic merge failed; fix conflicts and then commit the result.",
			exampleKey: "CONFLICT (content): Merge conflict in src/app.ts"},
		{name: "git-rejected", nearMiss: "   4c2d1e0..9f1b2a3  main -> main", toolchain: "git", hint: "rejected]", pattern: `^ ! \[(?:remote )?rejected\] `,
			example:    "To github.com:acme/app.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'github.com:acme/app.git'",
			exampleKey: "! [rejected]        main -> main (fetch first)"},
		{name: "cobra-unknown-flag", nearMiss: "      --format string   output format (default \"text\")", toolchain: "cobra", hint: "flag: ", pattern: `^(?:Error: )?(?:Invalid usage: )?unknown (?:shorthand )?flag: `,
			example: "Error: unknown flag: --format\nUsage:\n  golangci-lint version [flags]"},
		{name: "cobra-args", nearMiss: "Args: accepts 1 arg: the pull request number", toolchain: "cobra", hint: "arg(s)|args", pattern: `^(?:Error: )?(?:accepts (?:at most |at least |between )?\d+(?: and \d+)? arg\(s\), received \d+|requires (?:at least |at most |exactly )?\d+ args?\b)`,
			example: "accepts at most 1 arg(s), received 2"},
		{name: "cobra-unknown-command", nearMiss: "Run 'gh pr --help' for a list of commands.", toolchain: "cobra", hint: "unknown command", pattern: `^(?:Error: )?unknown command "[^"]*" for "[^"]*"`,
			example: "unknown command \"lsit\" for \"gh pr\"\n\nDid you mean this?\n\tlist\n\nUsage:  gh pr <command> [flags]"},
		{name: "cobra-required-flag", nearMiss: "      --name string   the name (required)", toolchain: "cobra", hint: "not set", pattern: `^(?:Error: )?required flag\(s\) "[^"]+"(?:, "[^"]+")* not set`,
			example: "Error: required flag(s) \"name\" not set"},
		{name: "gha-error", nearMiss: "##[group]Run golangci-lint", toolchain: "CI", hint: "##[error]", pattern: `^##\[error\]\S`, summary: true,
			example: "##[error]Process completed with exit code 1."},
	}
}

// genericRules are the markers any tool prints: `error:`, `fatal:`,
// `Error:`, a JavaScript or Python exception line at the start of a line.
func genericRules() []rule {
	return []rule{
		{name: "exception-line", nearMiss: "    raise ValueError(\"bad config\")", toolchain: "node, Python", hint: "rror|xception", pattern: `^(?:Uncaught )?(?:[A-Z]\w*)?(?:Error|Exception)(?: \[[\w-]+\])?: \S`,
			example:    "node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\nError: Cannot find module 'left-pad'\nRequire stack:\n- /home/dev/app/index.js",
			exampleKey: "Error: Cannot find module 'left-pad'"},
		{name: "marker", nearMiss: "errors: 0", toolchain: "any", hint: "rror|RROR|atal|ATAL|anic|FAIL", pattern: `^(?:error|ERROR|fatal|Fatal|FATAL|panic|FAIL)(?:\[[^\]\n]*\])?:\s+\S`, group: true,
			example:    "error: cannot rebase: You have unstaged changes.\nerror: Please commit or stash them.",
			exampleKey: "error: cannot rebase: You have unstaged changes."},
	}
}
