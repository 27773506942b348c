package signals

// The failure-line table's rows for Go, TypeScript, the JavaScript
// package managers and test runners, Python and Rust (failureRules).

func goRules() []rule {
	return []rule{
		{name: "go-test-fail", nearMiss: "--- SKIP: TestLive (0.00s)", toolchain: "Go", hint: "--- FAIL:", pattern: `^\s*--- FAIL: \S+`, family: "gotest", key: keyGoTest,
			example:    "=== RUN   TestParse\n    parse_test.go:42: Parse(\"1+2\") = 4, want 3\n--- FAIL: TestParse (0.00s)\nFAIL\nFAIL\tgithub.com/acme/calc\t0.002s",
			exampleKey: `parse_test.go:42: Parse("1+2") = 4, want 3`},
		{name: "go-pkg-fail", nearMiss: "ok  \tgithub.com/acme/calc\t0.002s", toolchain: "Go", hint: "FAIL\t", pattern: `^FAIL\t\S+`, summary: true,
			example: "FAIL\tgithub.com/acme/calc [build failed]"},
		{name: "go-fail", nearMiss: "FAILED to reach the mirror, retrying", toolchain: "Go", hint: "FAIL", pattern: `^FAIL$`, summary: true, example: "FAIL"},
		{name: "go-panic", nearMiss: "\tpanic(\"unreachable\")", toolchain: "Go", hint: "panic: ", pattern: `^panic: \S`,
			example: "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n\t/home/dev/app/main.go:8 +0x1d\nexit status 2"},
		{name: "go-fatal", nearMiss: "main.c:3:10: fatal error: 'stdio.h' file not found", toolchain: "Go", hint: "fatal error: ", pattern: `^fatal error: \S`,
			example: "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:"},
		{name: "go-race", nearMiss: "Found 1 data race(s)", toolchain: "Go", hint: "DATA RACE", pattern: `^WARNING: DATA RACE$`,
			example: "==================\nWARNING: DATA RACE\nWrite at 0x00c000012118 by goroutine 7:", exampleKey: "WARNING: DATA RACE"},
		{name: "go-compile", nearMiss: "cmd/x/x_test.go:896:5: SA5011(related information): this check suggests that the pointer can be nil (staticcheck)", toolchain: "Go", hint: ".go:", pattern: `^(?:\.{1,2}/|/)?(?:[\w@.+-]+/)*[\w@.+-]+\.go:\d+(?::\d+)?: \S`,
			unless:     `\(related information\)`,
			example:    "# github.com/acme/calc\n./parse.go:12:2: undefined: tokenize\n./parse.go:15:9: cannot use n (variable of type int) as string value in return statement",
			exampleKey: "./parse.go:12:2: undefined: tokenize"},
		{name: "go-command", nearMiss: "go: downloading github.com/spf13/cobra v1.8.0", toolchain: "Go", hint: "go: ", pattern: `^go: \S`,
			unless:  `^go: (?:downloading|finding|extracting|added|upgraded|downgraded|removed|creating|to add|found|upgrading) `,
			example: "go: cannot find main module, but found .git/config in /home/dev/src/app\n\tto create a module there, run:\n\tgo mod init"},
	}
}

func typeScriptRules() []rule {
	return []rule{
		{name: "tsc-error", nearMiss: "src/index.ts(3,7): Type 'string' is fine here", toolchain: "TypeScript", hint: "error TS", pattern: `^\S.*\(\d+,\d+\): error TS\d+: `,
			example: "src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/index.ts(9,1): error TS2304: Cannot find name 'foo'."},
		{name: "tsc-pretty", nearMiss: "src/index.ts:3:7 - warning: unused import", toolchain: "TypeScript", hint: "error TS", pattern: `^\S.*:\d+:\d+ - error TS\d+: `,
			example: "src/index.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n3 const n: number = \"1\";\n        ~\n\n\nFound 1 error in src/index.ts:3"},
		{name: "tsc-global", nearMiss: "Version 5.4.5", toolchain: "TypeScript", hint: "error TS", pattern: `^error TS\d+: `,
			example: "error TS5058: The specified path does not exist: 'tsconfig.app.json'."},
		{name: "tsc-found", nearMiss: "[10:12:01 AM] Found 0 errors. Watching for file changes.", toolchain: "TypeScript", hint: "Found ", pattern: `^Found [1-9]\d* errors?(?:\.| in )`, unless: `\(checked \d`, summary: true,
			example: "Found 2 errors in the same file, starting at: src/index.ts:3"},
	}
}

func jsRules() []rule {
	return []rule{
		{name: "npm-err", nearMiss: "npm ERR! code ELIFECYCLE", toolchain: "node", hint: "npm ", pattern: `^npm (?:ERR!|error) +\S`,
			unless:     `^npm (?:ERR!|error) (?: |code |errno |syscall |path |A complete log|Lifecycle|Failed at|This is probably|command (?:failed|sh )|To see a list|Did you mean)`,
			example:    "npm ERR! Missing script: \"build\"\nnpm ERR! \nnpm ERR! To see a list of scripts, run:\nnpm ERR!   npm run\n\nnpm ERR! A complete log of this run can be found in: /home/dev/.npm/_logs/2024-05-02T10_11_12_345Z-debug-0.log",
			exampleKey: `npm ERR! Missing script: "build"`},
		{name: "npm-err-code", nearMiss: "npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.", toolchain: "node", hint: "npm ", pattern: `^npm (?:ERR!|error) `, summary: true,
			example: "npm ERR! code ELIFECYCLE\nnpm ERR! errno 1"},
		{name: "pnpm-err", nearMiss: "Progress: resolved 312, reused 310, downloaded 2, added 312, done", toolchain: "node", hint: "ERR_PNPM_", pattern: `\bERR_PNPM_[A-Z_]+\b`,
			example: " ERR_PNPM_NO_SCRIPT  Missing script: test\n\nCommand \"test\" not found.", exampleKey: "ERR_PNPM_NO_SCRIPT  Missing script: test"},
		{name: "pnpm-lifecycle", nearMiss: "> @acme/web@1.0.0 build /home/dev/app/packages/web", toolchain: "node", hint: "ELIFECYCLE", pattern: `^\s*ELIFECYCLE\s+Command failed`, summary: true,
			example: " ELIFECYCLE  Command failed with exit code 1.", exampleKey: "ELIFECYCLE  Command failed with exit code 1."},
		{name: "yarn-command-failed", nearMiss: "Done in 3.21s.", toolchain: "node", hint: "error Command failed", pattern: `^error Command failed with exit code \d+`, summary: true,
			example: "error Command failed with exit code 1.\ninfo Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command."},
		{name: "yarn-error", nearMiss: "info Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command.", toolchain: "node", hint: "error ", pattern: `^error [A-Z]\S*`,
			example:    "yarn run v1.22.19\nerror Couldn't find a package.json file in \"/home/dev/app\"\ninfo Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command.",
			exampleKey: `error Couldn't find a package.json file in "/home/dev/app"`},
		{name: "bun-script-exit", nearMiss: "$ turbo run typecheck", toolchain: "node", hint: "exited with code", pattern: `^error: script "[^"]+" exited with code \d+`, summary: true,
			example: "$ turbo run typecheck\nerror: script \"typecheck\" exited with code 126", exampleKey: `error: script "typecheck" exited with code 126`},
		{name: "jest-matcher", nearMiss: "    expect(sum(1, 2)).toBe(3);", toolchain: "JS tests", hint: "expect(", pattern: `^\s*(?:error: )?expect\((?:received|jest\.fn\(\)|spy|mock)\)\.(?:not\.|resolves\.|rejects\.)?\w+\(`,
			family:     "jstest",
			example:    "  ● sum › adds 1 + 2 to equal 3\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 3\n    Received: 4\n\n      3 | test('adds 1 + 2 to equal 3', () => {\n    > 4 |   expect(sum(1, 2)).toBe(3);\n        |                     ^\n\n      at Object.toBe (src/sum.test.js:4:21)",
			exampleKey: "expect(received).toBe(expected) // Object.is equality"},
		{name: "jest-thrown", nearMiss: "    TypeError: Cannot read properties of undefined (reading 'id')", toolchain: "JS tests", hint: "rror: |xception: ", pattern: `^\s+(?:[A-Z]\w*)?(?:Error|Exception)(?: \[[\w-]+\])?: \S`, prev: `^\s*● \S`,
			family:     "jstest",
			example:    "  ● api › fetches the user\n\n    TypeError: Cannot read properties of undefined (reading 'id')\n\n      10 |   it('fetches the user', async () => {\n    > 12 |     expect(user.profile.id).toBe(1);\n\n      at Object.<anonymous> (src/api.test.ts:12:25)",
			exampleKey: "TypeError: Cannot read properties of undefined (reading 'id')"},
		{name: "jest-test", nearMiss: "● nginx.service - A high performance web server and a reverse proxy server", toolchain: "JS tests", hint: "● ", pattern: `^\s*● \S`, family: "jstest", rank: 1,
			// systemctl status heads a unit with the same dot: a healthy
			// unit is no failing test.
			unless:  `^\s*● [\w@.:\\-]+\.(?:service|socket|timer|target|mount|automount|path|scope|slice|device|swap)\b`,
			example: "  ● api › fetches the user\n\n    thrown: \"Exceeded timeout of 5000 ms for a test.\"", exampleKey: "● api › fetches the user"},
		{name: "node-stack-head", nearMiss: "    TypeError: Cannot read properties of undefined (reading 'map')", toolchain: "node", hint: "rror: |xception: ", pattern: `^\s+(?:[A-Z]\w*)?(?:Error|Exception)(?: \[[\w-]+\])?: \S`, next: `^\s+at \S`,
			example:    "    TypeError: Cannot read properties of undefined (reading 'map')\n        at List (/home/dev/app/src/List.tsx:12:18)\n        at renderWithHooks (/home/dev/app/node_modules/react-dom/cjs/react-dom.development.js:16305:18)",
			exampleKey: "TypeError: Cannot read properties of undefined (reading 'map')"},
		{name: "js-suite-fail", nearMiss: " PASS  src/sum.test.js", toolchain: "JS tests", hint: "FAIL", pattern: `^\s*FAIL {1,2}\S`, summary: true,
			example: " FAIL  src/sum.test.js", exampleKey: "FAIL  src/sum.test.js"},
		{name: "js-test-mark", nearMiss: "× nginx.service - A high performance web server and a reverse proxy server", toolchain: "JS tests", hint: "×|✕|✗|✖", pattern: `^\s*(?:×|✕|✗|✖) \S.*(?: > | › )`, summary: true,
			example: " × src/sum.test.ts > sum > adds 1 + 2 3ms", exampleKey: "× src/sum.test.ts > sum > adds 1 + 2 3ms"},
		{name: "bun-fail", nearMiss: "(pass) sum > adds [0.52ms]", toolchain: "JS tests", hint: "(fail)", pattern: `^\(fail\) \S`, summary: true, example: "(fail) sum > adds [0.52ms]"},
		{name: "js-tests-failed", nearMiss: "Tests:       0 failed, 4 passed, 4 total", toolchain: "JS tests", hint: " failed", pattern: `^\s*Tests?:?\s+[1-9]\d* failed`, summary: true,
			example: "Tests:       1 failed, 3 passed, 4 total", exampleKey: "Tests:       1 failed, 3 passed, 4 total"},
		{name: "bun-fail-count", nearMiss: " 0 fail", toolchain: "JS tests", hint: " fail", pattern: `^\s*[1-9]\d* fail$`, summary: true, example: " 2 fail", exampleKey: "2 fail"},
	}
}

func pythonRules() []rule {
	return []rule{
		{name: "pytest-failed", nearMiss: "tests/test_calc.py::test_add PASSED                                       [100%]", toolchain: "Python", hint: "FAILED ", pattern: `^FAILED \S+\.py::\S+`, family: "pytest",
			example:    "=========================== short test summary info ============================\nFAILED tests/test_calc.py::test_add - assert 3 == 4\n========================= 1 failed, 2 passed in 0.05s =========================",
			exampleKey: "FAILED tests/test_calc.py::test_add - assert 3 == 4"},
		{name: "pytest-error", nearMiss: "ERROR: Could not find a version that satisfies the requirement foo==9.9", toolchain: "Python", hint: "ERROR ", pattern: `^ERROR \S+\.py(?:::\S+)?(?: - .*)?$`, family: "pytest",
			example: "ERROR tests/test_db.py - ModuleNotFoundError: No module named 'psycopg2'"},
		{name: "pytest-assert", nearMiss: "E: Unable to locate package python3-venvx", toolchain: "Python", hint: "E ", pattern: `^E {2,}(?P<key>\S.*)$`, family: "pytest", rank: 1, group: true,
			example:    "    def test_add():\n>       assert add(1, 2) == 4\nE       assert 3 == 4\nE        +  where 3 = add(1, 2)\n\ntests/test_calc.py:5: AssertionError",
			exampleKey: "assert 3 == 4"},
		{name: "pytest-location", nearMiss: "tests/test_calc.py:5: in test_add", toolchain: "Python", hint: ".py:", pattern: `^\S+\.py:\d+: [A-Z]\w*(?:Error|Exception)$`, family: "pytest", rank: 2,
			example: "tests/test_calc.py:5: AssertionError"},
		{name: "pytest-summary", nearMiss: "============================== 3 passed in 0.02s ===============================", toolchain: "Python", hint: " failed| error", pattern: `^=+ .*\b[1-9]\d* (?:failed|errors?)\b.* =+$`, summary: true,
			example: "========================= 1 failed, 2 passed in 0.05s ========================="},
		{name: "mypy-error", nearMiss: "src/app.py:20: note: Revealed type is \"builtins.int\"", toolchain: "Python", hint: ": error: ", pattern: `^\S+\.pyi?:\d+:(?:\d+:)? error: `,
			example: "src/app.py:12: error: Incompatible return value type (got \"int\", expected \"str\")  [return-value]\nFound 1 error in 1 file (checked 3 source files)"},
		{name: "mypy-found", nearMiss: "Success: no issues found in 3 source files", toolchain: "Python", hint: "Found ", pattern: `^Found [1-9]\d* errors? in \d+ files? \(checked`, summary: true,
			example: "Found 1 error in 1 file (checked 3 source files)"},
		{name: "ruff-error", nearMiss: "src/app.py:1:8: unused import (pass --fix to remove)", toolchain: "Python", hint: ".py:", pattern: `^\S+\.pyi?:\d+:\d+: [A-Z]{1,3}\d{3,4} `,
			example: "src/app.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.\n[*] 1 fixable with the `--fix` option."},
	}
}

func rustRules() []rule {
	return []rule{
		{name: "rust-error-code", nearMiss: "warning: unused variable: `x`", toolchain: "Rust", hint: "error[E", pattern: `^error\[E\d{4}\]: `,
			example: "error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let n: u32 = \"1\";\n  |            ---   ^^^ expected `u32`, found `&str`\n\nFor more information about this error, try `rustc --explain E0308`.\nerror: could not compile `demo` (bin \"demo\") due to 1 previous error"},
		{name: "cargo-could-not-compile", nearMiss: "   Compiling demo v0.1.0 (/home/dev/demo)", toolchain: "Rust", hint: "could not compile", pattern: `^error: could not compile `, summary: true,
			example: "error: could not compile `demo` (bin \"demo\") due to 1 previous error"},
		{name: "rust-aborting", nearMiss: "warning: build failed, waiting for other jobs to finish...", toolchain: "Rust", hint: "aborting due to", pattern: `^error: aborting due to `, summary: true,
			example: "error: aborting due to 2 previous errors"},
		{name: "cargo-test-failed", nearMiss: "test tests::adds ... ok", toolchain: "Rust", hint: "test failed", pattern: `^error: test failed, to rerun pass `, summary: true,
			example: "error: test failed, to rerun pass `--lib`"},
		{name: "rust-panic", nearMiss: "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace", toolchain: "Rust", hint: "panicked at", pattern: `^thread '[^']*' panicked at `, key: keyColonNext,
			example:    "---- tests::adds stdout ----\nthread 'tests::adds' panicked at src/lib.rs:12:9:\nassertion `left == right` failed\n  left: 3\n right: 4",
			exampleKey: "assertion `left == right` failed"},
		{name: "cargo-test-result", nearMiss: "test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s", toolchain: "Rust", hint: "test result: FAILED", pattern: `^test result: FAILED\.`, summary: true,
			example: "test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s"},
	}
}
