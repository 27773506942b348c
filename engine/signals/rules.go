package signals

import (
	"regexp"
	"strings"
)

// keyMode says how a rule's key line is taken from the line it matched.
type keyMode int

const (
	// keyLine: the matched line itself (its `key` group when the pattern
	// has one), trimmed.
	keyLine keyMode = iota
	// keyNext: the next non-blank line (Gradle's "* What went wrong:").
	keyNext
	// keyColonNext: the next non-blank line when the matched line ends
	// with ":" (Rust 1.73+ prints a panic's message below "panicked at
	// src/lib.rs:12:9:"), else the line.
	keyColonNext
	// keyGoTest: the first indented message line under a `--- FAIL:` line
	// (t.Errorf's "parse_test.go:42: got 3, want 4"), else the FAIL line
	// without its duration.
	keyGoTest
)

// rule is one row of the failure-line table (failureRules): a line of a
// tool's output that says something failed.
type rule struct {
	// name is the row's stable name, toolchain the tools it covers (the
	// README's table and the report count rows per toolchain).
	name, toolchain string
	// hint lists literals ("|"-separated) one of which every matching
	// line contains; lines without any skip the pattern, so the scan of a
	// long output costs a few substring searches a line.
	hint string
	// pattern matches the line, with a CI log prefix and ANSI colours
	// removed (scanLines); unless, when set, vetoes a match.
	pattern, unless string
	// next, when set, must match the next non-blank line (a JavaScript
	// stack head is an error only when an "at …" frame follows); prev,
	// when set, the previous non-blank line (jest's thrown error below its
	// "● test" header).
	next, prev string
	// summary marks a line that says a run failed without saying why
	// (`FAIL\tpkg`, `npm ERR! code ELIFECYCLE`, `** BUILD FAILED **`): it
	// is a key line only when the output has no cause line.
	summary bool
	// family and rank: within one output, only the lowest rank found in a
	// family yields signals (pytest's `FAILED tests/x.py::t` beats its
	// `E   assert …` lines, which beat `x.py:5: AssertionError`).
	family string
	rank   int
	// group: consecutive lines of this rule are one error (git's
	// "error: cannot rebase: …" / "error: Please commit or stash them.").
	group bool
	key   keyMode
	// example is real output of the tool: the table test runs it and
	// expects this rule to give the key line exampleKey (the first line
	// of example when exampleKey is empty).
	example, exampleKey string
}

// compiledRule is a rule with its patterns compiled.
type compiledRule struct {
	*rule
	re, unless, next, prev *regexp.Regexp
	hints                  []string
	keyGroup               int
}

// compile compiles the rule's patterns.
func (c *compiledRule) compile() {
	c.re = regexp.MustCompile(c.pattern)
	if c.rule.unless != "" {
		c.unless = regexp.MustCompile(c.rule.unless)
	}
	if c.rule.next != "" {
		c.next = regexp.MustCompile(c.rule.next)
	}
	if c.rule.prev != "" {
		c.prev = regexp.MustCompile(c.rule.prev)
	}
	c.keyGroup = c.re.SubexpIndex("key")
}

// failureRules is the table of failure lines, most specific first: the
// first row that matches a line decides. Sources: each tool's own output
// (the examples are copied from real runs).
func failureRules() []rule {
	var rows []rule
	for _, part := range [][]rule{goRules(), typeScriptRules(), jsRules(), pythonRules(), rustRules(),
		swiftRules(), javaRules(), lintMakeRules(), shellRules(), cliRules(), genericRules()} {
		rows = append(rows, part...)
	}
	return rows
}

func goRules() []rule {
	return []rule{
		{name: "go-test-fail", toolchain: "Go", hint: "--- FAIL:", pattern: `^\s*--- FAIL: \S+`, family: "gotest", key: keyGoTest,
			example:    "=== RUN   TestParse\n    parse_test.go:42: Parse(\"1+2\") = 4, want 3\n--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\tgithub.com/acme/calc\t0.002s",
			exampleKey: `parse_test.go:42: Parse("1+2") = 4, want 3`},
		{name: "go-pkg-fail", toolchain: "Go", hint: "FAIL\t", pattern: `^FAIL\t\S+`, summary: true,
			example: "FAIL\tgithub.com/acme/calc [build failed]"},
		{name: "go-fail", toolchain: "Go", hint: "FAIL", pattern: `^FAIL$`, summary: true, example: "FAIL"},
		{name: "go-panic", toolchain: "Go", hint: "panic: ", pattern: `^panic: \S`,
			example: "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n\t/home/dev/app/main.go:8 +0x1d\nexit status 2"},
		{name: "go-fatal", toolchain: "Go", hint: "fatal error: ", pattern: `^fatal error: \S`,
			example: "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:"},
		{name: "go-race", toolchain: "Go", hint: "DATA RACE", pattern: `^WARNING: DATA RACE$`,
			example: "==================\nWARNING: DATA RACE\nWrite at 0x00c000012118 by goroutine 7:", exampleKey: "WARNING: DATA RACE"},
		{name: "go-compile", toolchain: "Go", hint: ".go:", pattern: `^(?:\.{1,2}/|/)?(?:[\w@.+-]+/)*[\w@.+-]+\.go:\d+(?::\d+)?: \S`,
			unless:     `\(related information\)`,
			example:    "# github.com/acme/calc\n./parse.go:12:2: undefined: tokenize\n./parse.go:15:9: cannot use n (variable of type int) as string value in return statement",
			exampleKey: "./parse.go:12:2: undefined: tokenize"},
		{name: "go-command", toolchain: "Go", hint: "go: ", pattern: `^go: \S`,
			unless:  `^go: (?:downloading|finding|extracting|added|upgraded|downgraded|removed|creating|to add|found|upgrading) `,
			example: "go: cannot find main module, but found .git/config in /home/dev/src/app\n\tto create a module there, run:\n\tgo mod init"},
	}
}

func typeScriptRules() []rule {
	return []rule{
		{name: "tsc-error", toolchain: "TypeScript", hint: "error TS", pattern: `^\S.*\(\d+,\d+\): error TS\d+: `,
			example: "src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/index.ts(9,1): error TS2304: Cannot find name 'foo'."},
		{name: "tsc-pretty", toolchain: "TypeScript", hint: "error TS", pattern: `^\S.*:\d+:\d+ - error TS\d+: `,
			example: "src/index.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n3 const n: number = \"1\";\n        ~\n\n\nFound 1 error in src/index.ts:3"},
		{name: "tsc-global", toolchain: "TypeScript", hint: "error TS", pattern: `^error TS\d+: `,
			example: "error TS5058: The specified path does not exist: 'tsconfig.app.json'."},
		{name: "tsc-found", toolchain: "TypeScript", hint: "Found ", pattern: `^Found [1-9]\d* errors?(?:\.| in )`, unless: `\(checked \d`, summary: true,
			example: "Found 2 errors in the same file, starting at: src/index.ts:3"},
	}
}

func jsRules() []rule {
	return []rule{
		{name: "npm-err", toolchain: "node", hint: "npm ", pattern: `^npm (?:ERR!|error) +\S`,
			unless:     `^npm (?:ERR!|error) (?: |code |errno |syscall |path |A complete log|Lifecycle|Failed at|This is probably|command (?:failed|sh )|To see a list|Did you mean)`,
			example:    "npm ERR! Missing script: \"build\"\nnpm ERR! \nnpm ERR! To see a list of scripts, run:\nnpm ERR!   npm run\n\nnpm ERR! A complete log of this run can be found in: /home/dev/.npm/_logs/2024-05-02T10_11_12_345Z-debug-0.log",
			exampleKey: `npm ERR! Missing script: "build"`},
		{name: "npm-err-code", toolchain: "node", hint: "npm ", pattern: `^npm (?:ERR!|error) `, summary: true,
			example: "npm ERR! code ELIFECYCLE\nnpm ERR! errno 1"},
		{name: "pnpm-err", toolchain: "node", hint: "ERR_PNPM_", pattern: `\bERR_PNPM_[A-Z_]+\b`,
			example: " ERR_PNPM_NO_SCRIPT  Missing script: test\n\nCommand \"test\" not found.", exampleKey: "ERR_PNPM_NO_SCRIPT  Missing script: test"},
		{name: "pnpm-lifecycle", toolchain: "node", hint: "ELIFECYCLE", pattern: `^\s*ELIFECYCLE\s+Command failed`, summary: true,
			example: " ELIFECYCLE  Command failed with exit code 1.", exampleKey: "ELIFECYCLE  Command failed with exit code 1."},
		{name: "yarn-command-failed", toolchain: "node", hint: "error Command failed", pattern: `^error Command failed with exit code \d+`, summary: true,
			example: "error Command failed with exit code 1.\ninfo Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command."},
		{name: "yarn-error", toolchain: "node", hint: "error ", pattern: `^error [A-Z]\S*`,
			example:    "yarn run v1.22.19\nerror Couldn't find a package.json file in \"/home/dev/app\"\ninfo Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command.",
			exampleKey: `error Couldn't find a package.json file in "/home/dev/app"`},
		{name: "bun-script-exit", toolchain: "node", hint: "exited with code", pattern: `^error: script "[^"]+" exited with code \d+`, summary: true,
			example: "$ turbo run typecheck\nerror: script \"typecheck\" exited with code 126", exampleKey: `error: script "typecheck" exited with code 126`},
		{name: "jest-matcher", toolchain: "JS tests", hint: "expect(", pattern: `^\s*(?:error: )?expect\((?:received|jest\.fn\(\)|spy|mock)\)\.(?:not\.|resolves\.|rejects\.)?\w+\(`,
			family:     "jstest",
			example:    "  ● sum › adds 1 + 2 to equal 3\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 3\n    Received: 4\n\n      3 | test('adds 1 + 2 to equal 3', () => {\n    > 4 |   expect(sum(1, 2)).toBe(3);\n        |                     ^\n\n      at Object.toBe (src/sum.test.js:4:21)",
			exampleKey: "expect(received).toBe(expected) // Object.is equality"},
		{name: "jest-thrown", toolchain: "JS tests", hint: "rror: |xception: ", pattern: `^\s+(?:[A-Z]\w*)?(?:Error|Exception)(?: \[[\w-]+\])?: \S`, prev: `^\s*● \S`,
			family:     "jstest",
			example:    "  ● api › fetches the user\n\n    TypeError: Cannot read properties of undefined (reading 'id')\n\n      10 |   it('fetches the user', async () => {\n    > 12 |     expect(user.profile.id).toBe(1);\n\n      at Object.<anonymous> (src/api.test.ts:12:25)",
			exampleKey: "TypeError: Cannot read properties of undefined (reading 'id')"},
		{name: "jest-test", toolchain: "JS tests", hint: "● ", pattern: `^\s*● \S`, family: "jstest", rank: 1,
			example: "  ● api › fetches the user\n\n    thrown: \"Exceeded timeout of 5000 ms for a test.\"", exampleKey: "● api › fetches the user"},
		{name: "node-stack-head", toolchain: "node", hint: "rror: |xception: ", pattern: `^\s+(?:[A-Z]\w*)?(?:Error|Exception)(?: \[[\w-]+\])?: \S`, next: `^\s+at \S`,
			example:    "    TypeError: Cannot read properties of undefined (reading 'map')\n        at List (/home/dev/app/src/List.tsx:12:18)\n        at renderWithHooks (/home/dev/app/node_modules/react-dom/cjs/react-dom.development.js:16305:18)",
			exampleKey: "TypeError: Cannot read properties of undefined (reading 'map')"},
		{name: "js-suite-fail", toolchain: "JS tests", hint: "FAIL", pattern: `^\s*FAIL {1,2}\S`, summary: true,
			example: " FAIL  src/sum.test.js", exampleKey: "FAIL  src/sum.test.js"},
		{name: "js-test-mark", toolchain: "JS tests", hint: "×|✕|✗|✖", pattern: `^\s*(?:×|✕|✗|✖) \S.*(?: > | › )`, summary: true,
			example: " × src/sum.test.ts > sum > adds 1 + 2 3ms", exampleKey: "× src/sum.test.ts > sum > adds 1 + 2 3ms"},
		{name: "bun-fail", toolchain: "JS tests", hint: "(fail)", pattern: `^\(fail\) \S`, summary: true, example: "(fail) sum > adds [0.52ms]"},
		{name: "js-tests-failed", toolchain: "JS tests", hint: " failed", pattern: `^\s*Tests?:?\s+[1-9]\d* failed`, summary: true,
			example: "Tests:       1 failed, 3 passed, 4 total", exampleKey: "Tests:       1 failed, 3 passed, 4 total"},
		{name: "bun-fail-count", toolchain: "JS tests", hint: " fail", pattern: `^\s*[1-9]\d* fail$`, summary: true, example: " 2 fail", exampleKey: "2 fail"},
	}
}

func pythonRules() []rule {
	return []rule{
		{name: "pytest-failed", toolchain: "Python", hint: "FAILED ", pattern: `^FAILED \S+\.py::\S+`, family: "pytest",
			example:    "=========================== short test summary info ============================\nFAILED tests/test_calc.py::test_add - assert 3 == 4\n========================= 1 failed, 2 passed in 0.05s =========================",
			exampleKey: "FAILED tests/test_calc.py::test_add - assert 3 == 4"},
		{name: "pytest-error", toolchain: "Python", hint: "ERROR ", pattern: `^ERROR \S+\.py(?:::\S+)?(?: - .*)?$`, family: "pytest",
			example: "ERROR tests/test_db.py - ModuleNotFoundError: No module named 'psycopg2'"},
		{name: "pytest-assert", toolchain: "Python", hint: "E ", pattern: `^E {2,}(?P<key>\S.*)$`, family: "pytest", rank: 1, group: true,
			example:    "    def test_add():\n>       assert add(1, 2) == 4\nE       assert 3 == 4\nE        +  where 3 = add(1, 2)\n\ntests/test_calc.py:5: AssertionError",
			exampleKey: "assert 3 == 4"},
		{name: "pytest-location", toolchain: "Python", hint: ".py:", pattern: `^\S+\.py:\d+: [A-Z]\w*(?:Error|Exception)$`, family: "pytest", rank: 2,
			example: "tests/test_calc.py:5: AssertionError"},
		{name: "pytest-summary", toolchain: "Python", hint: " failed| error", pattern: `^=+ .*\b[1-9]\d* (?:failed|errors?)\b.* =+$`, summary: true,
			example: "========================= 1 failed, 2 passed in 0.05s ========================="},
		{name: "mypy-error", toolchain: "Python", hint: ": error: ", pattern: `^\S+\.pyi?:\d+:(?:\d+:)? error: `,
			example: "src/app.py:12: error: Incompatible return value type (got \"int\", expected \"str\")  [return-value]\nFound 1 error in 1 file (checked 3 source files)"},
		{name: "mypy-found", toolchain: "Python", hint: "Found ", pattern: `^Found [1-9]\d* errors? in \d+ files? \(checked`, summary: true,
			example: "Found 1 error in 1 file (checked 3 source files)"},
		{name: "ruff-error", toolchain: "Python", hint: ".py:", pattern: `^\S+\.pyi?:\d+:\d+: [A-Z]{1,3}\d{3,4} `,
			example: "src/app.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.\n[*] 1 fixable with the `--fix` option."},
	}
}

func rustRules() []rule {
	return []rule{
		{name: "rust-error-code", toolchain: "Rust", hint: "error[E", pattern: `^error\[E\d{4}\]: `,
			example: "error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let n: u32 = \"1\";\n  |            ---   ^^^ expected `u32`, found `&str`\n\nFor more information about this error, try `rustc --explain E0308`.\nerror: could not compile `demo` (bin \"demo\") due to 1 previous error"},
		{name: "cargo-could-not-compile", toolchain: "Rust", hint: "could not compile", pattern: `^error: could not compile `, summary: true,
			example: "error: could not compile `demo` (bin \"demo\") due to 1 previous error"},
		{name: "rust-aborting", toolchain: "Rust", hint: "aborting due to", pattern: `^error: aborting due to `, summary: true,
			example: "error: aborting due to 2 previous errors"},
		{name: "cargo-test-failed", toolchain: "Rust", hint: "test failed", pattern: `^error: test failed, to rerun pass `, summary: true,
			example: "error: test failed, to rerun pass `--lib`"},
		{name: "rust-panic", toolchain: "Rust", hint: "panicked at", pattern: `^thread '[^']*' panicked at `, key: keyColonNext,
			example:    "---- tests::adds stdout ----\nthread 'tests::adds' panicked at src/lib.rs:12:9:\nassertion `left == right` failed\n  left: 3\n right: 4",
			exampleKey: "assertion `left == right` failed"},
		{name: "cargo-test-result", toolchain: "Rust", hint: "test result: FAILED", pattern: `^test result: FAILED\.`, summary: true,
			example: "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s"},
	}
}

func swiftRules() []rule {
	return []rule{
		{name: "xcodebuild-error", toolchain: "Swift", hint: "xcodebuild: error:", pattern: `^xcodebuild: error: `,
			example: "xcodebuild: error: Unable to find a destination matching the provided destination specifier:\n\t\t{ platform:iOS Simulator, OS:latest, name:iPhone 99 }"},
		{name: "swift-compile", toolchain: "Swift", hint: ".swift:", pattern: `^\S.*\.swift:\d+:\d+: error: `,
			example: "/Users/dev/App/Sources/App/ContentView.swift:14:9: error: cannot find 'fooBar' in scope\n        fooBar()\n        ^~~~~~"},
		{name: "xctest-fail", toolchain: "Swift", hint: ".swift:", pattern: `^\S.*\.swift:\d+: error: -\[\S+ \S+\] : `,
			example: "/Users/dev/App/Tests/AppTests/AppTests.swift:12: error: -[AppTests.AppTests testAdd] : XCTAssertEqual failed: (\"3\") is not equal to (\"4\")"},
		{name: "xcode-build-failed", toolchain: "Swift", hint: " FAILED **", pattern: `^\*\* (?:BUILD|TEST|ARCHIVE|ANALYZE) FAILED \*\*`, summary: true,
			example: "** BUILD FAILED **\n\n\nThe following build commands failed:\n\tCompileSwift normal arm64 /Users/dev/App/Sources/App/ContentView.swift (in target 'App' from project 'App')"},
		{name: "clang-error", toolchain: "Swift", hint: "error: ", pattern: `^\S+\.(?:c|cc|cpp|cxx|m|mm|h|hpp):\d+:\d+: (?:fatal )?error: `,
			example: "src/main.c:3:10: fatal error: 'stdio.h' file not found\n#include <stdio.h>\n         ^~~~~~~~~\n1 error generated."},
		{name: "tool-error", toolchain: "Swift", hint: "error: ", pattern: `^[A-Za-z][\w.+-]*:? (?:fatal )?error: \S`,
			example: "clang: error: linker command failed with exit code 1 (use -v to see invocation)"},
	}
}

func javaRules() []rule {
	return []rule{
		{name: "gradle-what-went-wrong", toolchain: "Java", hint: "What went wrong", pattern: `^\* What went wrong:`, key: keyNext,
			example:    "FAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':app:compileJava'.\n> Compilation failed; see the compiler error output for details.\n\nBUILD FAILED in 3s",
			exampleKey: "Execution failed for task ':app:compileJava'."},
		{name: "gradle-failure", toolchain: "Java", hint: "FAILURE: ", pattern: `^FAILURE: Build (?:failed|completed with \d+ failures?)`, summary: true,
			example: "FAILURE: Build failed with an exception."},
		{name: "gradle-build-failed", toolchain: "Java", hint: "BUILD FAILED", pattern: `^BUILD FAILED in `, summary: true, example: "BUILD FAILED in 3s"},
		{name: "javac-error", toolchain: "Java", hint: ".java:", pattern: `^\S.*\.java:\d+: error: `,
			example: "src/main/java/com/example/App.java:7: error: cannot find symbol\n        Strin name = \"x\";\n        ^\n  symbol:   class Strin\n  location: class App\n1 error"},
		{name: "kotlin-error", toolchain: "Java", hint: "e: ", pattern: `^e: (?:file://)?\S+\.kts?:(?:\d+:\d+|\(\d+, \d+\)):? \S`,
			example: "e: file:///home/dev/app/src/main/kotlin/Main.kt:3:5 Unresolved reference: foo"},
		{name: "gradle-test-failed", toolchain: "Java", hint: " FAILED", pattern: `^\S+ > .+ FAILED$`,
			example: "AppTest > testAdd() FAILED\n    org.opentest4j.AssertionFailedError at AppTest.java:12"},
		{name: "maven-failed-goal", toolchain: "Java", hint: "[ERROR] Failed to execute goal", pattern: `^\[ERROR\] Failed to execute goal `, summary: true,
			example: "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project app: Compilation failure"},
		{name: "maven-error", toolchain: "Java", hint: "[ERROR] ", pattern: `^\[ERROR\] \S`,
			unless:     `^\[ERROR\] (?:-> \[Help|To see the full|Re-run Maven|For more information|Tests run:|Failures:\s*$|Errors:\s*$|\[Help \d|COMPILATION ERROR|\s)`,
			example:    "[INFO] BUILD FAILURE\n[ERROR] /home/dev/app/src/main/java/com/example/App.java:[7,9] cannot find symbol\n[ERROR]   symbol:   class Strin",
			exampleKey: "[ERROR] /home/dev/app/src/main/java/com/example/App.java:[7,9] cannot find symbol"},
		{name: "maven-build-failure", toolchain: "Java", hint: "BUILD FAILURE", pattern: `^(?:\[INFO\] )?BUILD FAILURE$`, summary: true, example: "[INFO] BUILD FAILURE"},
		{name: "java-thread-exception", toolchain: "Java", hint: "Exception in thread", pattern: `^Exception in thread "[^"]*" \S`,
			example: "Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"s\" is null\n\tat com.example.App.main(App.java:5)"},
		{name: "java-exception", toolchain: "Java", hint: "xception|rror", pattern: `^[a-z][\w$]*(?:\.[\w$]+)+(?:Exception|Error)(?:: .*)?$`,
			example: "java.lang.IllegalStateException: Failed to load ApplicationContext\n\tat org.springframework.test.context.cache.DefaultCacheAwareContextLoaderDelegate.loadContext(DefaultCacheAwareContextLoaderDelegate.java:98)"},
	}
}

func lintMakeRules() []rule {
	return []rule{
		{name: "eslint-problem", toolchain: "eslint", hint: "error", pattern: `^\s+\d+:\d+\s+error\s+\S`,
			example:    "/home/dev/app/src/index.js\n  3:7  error    'unused' is assigned a value but never used  no-unused-vars\n  5:1  warning  Unexpected console statement                 no-console\n\n✖ 2 problems (1 error, 1 warning)",
			exampleKey: "3:7  error    'unused' is assigned a value but never used  no-unused-vars"},
		{name: "eslint-summary", toolchain: "eslint", hint: "problem", pattern: `^✖ \d+ problems? \([1-9]\d* errors?`, summary: true,
			example: "✖ 2 problems (1 error, 1 warning)"},
		{name: "make-no-rule", toolchain: "make", hint: "***", pattern: `^g?make(?:\[\d+\])?: \*\*\* No rule to make target `,
			example: "make: *** No rule to make target 'instal'.  Stop."},
		{name: "makefile-error", toolchain: "make", hint: "***", pattern: `^\S*[Mm]akefile(?:\.\w+)?:\d+: \*\*\* `,
			example: "Makefile:3: *** missing separator.  Stop."},
		{name: "make-error", toolchain: "make", hint: "***", pattern: `^g?make(?:\[\d+\])?: \*\*\* .*Error \d+`, summary: true,
			example: "cc -o app main.c\nmake: *** [Makefile:4: app] Error 1", exampleKey: "make: *** [Makefile:4: app] Error 1"},
	}
}

func shellRules() []rule {
	return []rule{
		{name: "command-not-found", toolchain: "shell", hint: "command not found", pattern: `^(?:\S+: )*(?:line \d+: )?(?:\S+: )?command not found(?:: \S.*)?$`,
			example: "bash: pnpm: command not found"},
		{name: "sh-not-found", toolchain: "shell", hint: "not found", pattern: `^(?:/\S*/)?(?:sh|dash|bash|zsh|ksh): (?:line )?\d+: .*not found$`,
			example: "/bin/sh: 1: pnpm: not found"},
		{name: "no-such-file", toolchain: "shell", hint: "No such file or directory", pattern: `(?:^|: )No such file or directory(?: \(os error 2\))?(?:: .*)?$`,
			example: "cat: config/settings.yaml: No such file or directory"},
		{name: "permission-denied", toolchain: "shell", hint: "ermission denied", pattern: `(?:^|: )[Pp]ermission denied\b`,
			example: "bash: ./deploy.sh: Permission denied"},
		{name: "segfault", toolchain: "shell", hint: "Segmentation fault", pattern: `(?:^|: )Segmentation fault\b`,
			example: "Segmentation fault (core dumped)"},
	}
}

// cliRules: git, Go command-line tools built on cobra (gh, kubectl,
// golangci-lint), GitHub Actions logs.
func cliRules() []rule {
	return []rule{
		{name: "git-conflict", toolchain: "git", hint: "CONFLICT (", pattern: `^CONFLICT \([\w/ -]+\): `,
			example:    "Auto-merging src/app.ts\nCONFLICT (content): Merge conflict in src/app.ts\nAutomatic merge failed; fix conflicts and then commit the result.",
			exampleKey: "CONFLICT (content): Merge conflict in src/app.ts"},
		{name: "git-rejected", toolchain: "git", hint: "rejected]", pattern: `^ ! \[(?:remote )?rejected\] `,
			example:    "To github.com:acme/app.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'github.com:acme/app.git'",
			exampleKey: "! [rejected]        main -> main (fetch first)"},
		{name: "cobra-unknown-flag", toolchain: "cobra", hint: "flag: ", pattern: `^(?:Error: )?(?:Invalid usage: )?unknown (?:shorthand )?flag: `,
			example: "Error: unknown flag: --format\nUsage:\n  golangci-lint version [flags]"},
		{name: "cobra-args", toolchain: "cobra", hint: "arg(s)|args", pattern: `^(?:Error: )?(?:accepts (?:at most |at least |between )?\d+(?: and \d+)? arg\(s\), received \d+|requires (?:at least |at most |exactly )?\d+ args?\b)`,
			example: "accepts at most 1 arg(s), received 2"},
		{name: "cobra-unknown-command", toolchain: "cobra", hint: "unknown command", pattern: `^(?:Error: )?unknown command "[^"]*" for "[^"]*"`,
			example: "unknown command \"lsit\" for \"gh pr\"\n\nDid you mean this?\n\tlist\n\nUsage:  gh pr <command> [flags]"},
		{name: "cobra-required-flag", toolchain: "cobra", hint: "not set", pattern: `^(?:Error: )?required flag\(s\) "[^"]+"(?:, "[^"]+")* not set`,
			example: "Error: required flag(s) \"name\" not set"},
		{name: "gha-error", toolchain: "CI", hint: "##[error]", pattern: `^##\[error\]\S`, summary: true,
			example: "##[error]Process completed with exit code 1."},
	}
}

// genericRules are the markers any tool prints: `error:`, `fatal:`,
// `Error:`, a JavaScript or Python exception line at the start of a line.
func genericRules() []rule {
	return []rule{
		{name: "exception-line", toolchain: "node, Python", hint: "rror|xception", pattern: `^(?:Uncaught )?(?:[A-Z]\w*)?(?:Error|Exception)(?: \[[\w-]+\])?: \S`,
			example:    "node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\nError: Cannot find module 'left-pad'\nRequire stack:\n- /home/dev/app/index.js",
			exampleKey: "Error: Cannot find module 'left-pad'"},
		{name: "marker", toolchain: "any", hint: "rror|RROR|atal|ATAL|anic|FAIL", pattern: `^(?:error|ERROR|fatal|Fatal|FATAL|panic|FAIL)(?:\[[^\]\n]*\])?:\s+\S`, group: true,
			example:    "error: cannot rebase: You have unstaged changes.\nerror: Please commit or stash them.",
			exampleKey: "error: cannot rebase: You have unstaged changes."},
	}
}

// ruleSet is the compiled failure-line table and the patterns of the
// output scan.
type ruleSet struct {
	rules    []compiledRule
	gate     *gate
	ansi     *regexp.Regexp
	duration *regexp.Regexp
}

func newRuleSet() *ruleSet {
	rows := failureRules()
	rs := &ruleSet{
		ansi:     regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`),
		duration: regexp.MustCompile(`\s*\(\d+(?:\.\d+)?m?s\)\s*$`),
	}
	for i := range rows {
		r := &rows[i]
		c := compiledRule{rule: r, hints: strings.Split(r.hint, "|")}
		c.compile()
		rs.rules = append(rs.rules, c)
	}
	rs.gate = newGate()
	return rs
}

// gateTokens are literals, lower case, one of which every failure line
// of the table holds once folded to lower case: a line with none is
// skipped before any hint or pattern is tried. TestRuleTable proves each
// row's example passes the gate.
func gateTokens() []string {
	return []string{"err", "fail", "fatal", "panic", "xception", "denied", "not found", "no such file", "segmentation",
		"***", "expect(", "assert", "●", "×", "✕", "✗", "✖", "arg(s)", "args", "flag", "unknown command", "conflict (",
		"rejected]", "what went wrong", "data race", ".go:", ".py", ".kt", "go: "}
}

// gate finds the gate tokens in a line in one pass: by the line's bytes,
// ASCII letters folded to lower case, the tokens that start with each.
type gate struct {
	first [256][]string
}

func newGate() *gate {
	g := &gate{}
	for _, t := range gateTokens() {
		g.first[t[0]] = append(g.first[t[0]], t)
	}
	return g
}

// hit reports whether line holds a gate token (ASCII case folded).
func (g *gate) hit(line string) bool {
	for i := 0; i < len(line); i++ {
		for _, t := range g.first[lowerASCII(line[i])] {
			if len(line)-i >= len(t) && lowerASCII(line[i+1]) == t[1] && strings.EqualFold(line[i:i+len(t)], t) {
				return true
			}
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// candidates returns the rules (indexes, in table order) whose hint line
// holds; none for a line the gate stops.
func (rs *ruleSet) candidates(line string) []int {
	if !rs.gate.hit(line) {
		return nil
	}
	var out []int
	for i := range rs.rules {
		for _, h := range rs.rules[i].hints {
			if strings.Contains(line, h) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// match returns the first of the rules cands (indexes, in table order)
// matching line (already stripped of its CI prefix and colours), given
// the previous and the next non-blank lines; nil when none does.
func (rs *ruleSet) match(line, prev, next string, cands []int) *compiledRule {
	for _, i := range cands {
		r := &rs.rules[i]
		if !r.re.MatchString(line) {
			continue
		}
		if r.unless != nil && r.unless.MatchString(line) {
			continue
		}
		if r.next != nil && !r.next.MatchString(next) || r.prev != nil && !r.prev.MatchString(prev) {
			continue
		}
		return r
	}
	return nil
}
