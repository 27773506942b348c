package signals

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRuleTable runs every row of the failure-line table on its real
// example: the row must match, and give the example's key line.
func TestRuleTable(t *testing.T) {
	rs := newRuleSet()
	norm := newNormalizer()
	names := map[string]bool{}
	for _, r := range failureRules() {
		t.Run(r.name, func(t *testing.T) {
			if names[r.name] {
				t.Fatalf("duplicate rule name %s", r.name)
			}
			names[r.name] = true
			if r.example == "" || r.toolchain == "" || r.hint == "" || r.nearMiss == "" {
				t.Fatalf("row %s lacks an example, a near miss, a toolchain or a hint", r.name)
			}
			want := r.exampleKey
			if want == "" {
				want = strings.TrimSpace(strings.SplitN(r.example, "\n", 2)[0])
			}
			// Every finding of the example, summaries included: the row's
			// own finding must be among them with its key.
			var got []string
			sc := rs.scan(r.example, norm)
			all := rs.scanAll(sc.stripped, norm)
			for _, f := range all {
				if f.name == r.name {
					got = append(got, f.key)
				}
			}
			if len(got) == 0 || got[0] != want {
				t.Errorf("row %s on its example: keys %q, want %q first", r.name, got, want)
			}
			// The near miss: the same shape, no failure of this row.
			for _, f := range rs.scanAll(rs.scan(r.nearMiss, norm).stripped, norm) {
				if f.name == r.name {
					t.Errorf("row %s matches its near miss %q (key %q)", r.name, r.nearMiss, f.key)
				}
			}
			for _, h := range strings.Split(r.hint, "|") {
				if _, err := regexp.Compile(regexp.QuoteMeta(h)); err != nil || h == "" {
					t.Errorf("bad hint %q", h)
				}
			}
		})
	}
}

// realOutputs are complete outputs of real tool runs (paths shortened),
// with the key lines an output must give, in order. Passing runs give
// none: a passing test, a warning and a usage banner are never keys.
var realOutputs = []struct {
	name, out string
	keys      []string
}{
	{"go test", "--- FAIL: TestParse (0.00s)\n    parse_test.go:42: Parse(\"1+2\") = 4, want 3\n--- FAIL: TestTokenize (0.00s)\n    --- FAIL: TestTokenize/empty (0.00s)\n        tokenize_test.go:18: tokenize(\"\") = [EOF EOF], want [EOF]\nFAIL\nFAIL\tgithub.com/acme/calc\t0.004s\nFAIL",
		[]string{`parse_test.go:42: Parse("1+2") = 4, want 3`, `tokenize_test.go:18: tokenize("") = [EOF EOF], want [EOF]`}},
	{"go test -v", "=== RUN   TestParse\n    parse_test.go:42: Parse(\"1+2\") = 4, want 3\n--- FAIL: TestParse (0.00s)\n=== RUN   TestLex\n--- PASS: TestLex (0.00s)\nFAIL\nexit status 1\nFAIL\tgithub.com/acme/calc\t0.003s",
		[]string{`parse_test.go:42: Parse("1+2") = 4, want 3`}},
	{"go test panic", "--- FAIL: TestDivide (0.00s)\npanic: runtime error: integer divide by zero [recovered]\n\tpanic: runtime error: integer divide by zero\n\ngoroutine 7 [running]:\ntesting.tRunner.func1.2({0x1012a4e60, 0x1012d5c40})\n\t/usr/local/go/src/testing/testing.go:1632 +0x1bc\nFAIL\tgithub.com/acme/calc\t0.215s",
		[]string{"--- FAIL: TestDivide", "panic: runtime error: integer divide by zero [recovered]"}},
	{"go build", "# github.com/acme/calc\n./parse.go:12:2: undefined: tokenize\n./parse.go:15:9: cannot use n (variable of type int) as string value in return statement\nFAIL\tgithub.com/acme/calc [build failed]",
		[]string{"./parse.go:12:2: undefined: tokenize", "./parse.go:15:9: cannot use n (variable of type int) as string value in return statement"}},
	{"go test pass", "=== RUN   TestErrors\n    errors_test.go:12: wrapped error: boom\n--- PASS: TestErrors (0.00s)\nPASS\nok  \tgithub.com/acme/calc\t0.003s\n?   \tgithub.com/acme/calc/cmd\t[no test files]", nil},
	{"golangci-lint in a GitHub Actions log", "lint\tRun golangci-lint\t2026-02-04T23:39:44.4982737Z cmd/entire/cli/checkpoint/checkpoint_test.go:896:5: SA5011(related information): this check suggests that the pointer can be nil (staticcheck)\nlint\tRun golangci-lint\t2026-02-04T23:39:44.4988060Z \tif summary == nil {\nlint\tRun golangci-lint\t2026-02-04T23:39:44.4995127Z cmd/entire/cli/checkpoint/checkpoint_test.go:901:17: SA5011: possible nil pointer dereference (staticcheck)\nlint\tRun golangci-lint\t2026-02-04T23:39:44.5020796Z 8 issues:\nlint\tRun golangci-lint\t2026-02-04T23:39:44.5046425Z ##[error]issues found",
		[]string{"cmd/entire/cli/checkpoint/checkpoint_test.go:901:17: SA5011: possible nil pointer dereference (staticcheck)"}},
	{"tsc", "src/api/client.ts(14,5): error TS2322: Type 'string | undefined' is not assignable to type 'string'.\n  Type 'undefined' is not assignable to type 'string'.\nsrc/components/List.tsx(22,18): error TS2339: Property 'map' does not exist on type '{}'.",
		[]string{"src/api/client.ts(14,5): error TS2322: Type 'string | undefined' is not assignable to type 'string'.", "src/components/List.tsx(22,18): error TS2339: Property 'map' does not exist on type '{}'."}},
	{"tsc --pretty", "src/index.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n\n3 const n: number = \"1\";\n        ~\n\n\nFound 1 error in src/index.ts:3",
		[]string{"src/index.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'."}},
	{"yarn tsc", "yarn run v1.22.19\n$ tsc -p .\nsrc/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\nerror Command failed with exit code 2.\ninfo Visit https://yarnpkg.com/en/docs/cli/run for documentation about this command.",
		[]string{"src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."}},
	{"pytest", "============================= test session starts ==============================\nplatform linux -- Python 3.12.2, pytest-8.1.1, pluggy-1.4.0\nrootdir: /home/dev/calc\ncollected 3 items\n\ntests/test_calc.py .F.                                                   [100%]\n\n=================================== FAILURES ===================================\n___________________________________ test_add ___________________________________\n\n    def test_add():\n>       assert add(1, 2) == 4\nE       assert 3 == 4\nE        +  where 3 = add(1, 2)\n\ntests/test_calc.py:5: AssertionError\n=========================== short test summary info ============================\nFAILED tests/test_calc.py::test_add - assert 3 == 4\n========================= 1 failed, 2 passed in 0.05s ==========================",
		[]string{"FAILED tests/test_calc.py::test_add - assert 3 == 4"}},
	{"pytest without a summary", "    def test_add():\n>       assert add(1, 2) == 4\nE       assert 3 == 4\nE        +  where 3 = add(1, 2)\n\ntests/test_calc.py:5: AssertionError",
		[]string{"assert 3 == 4"}},
	{"pytest pass", "============================= test session starts ==============================\ncollected 3 items\n\ntests/test_calc.py ...                                                   [100%]\n\n============================== 3 passed in 0.02s ===============================", nil},
	{"python chained traceback", "Traceback (most recent call last):\n  File \"/home/dev/app/config.py\", line 12, in load\n    return json.loads(raw)\n  File \"/usr/lib/python3.12/json/decoder.py\", line 355, in raw_decode\n    raise JSONDecodeError(\"Expecting value\", s, err.value) from None\njson.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"/home/dev/app/main.py\", line 4, in <module>\n    cfg = load(\"settings.json\")\n  File \"/home/dev/app/config.py\", line 14, in load\n    raise ConfigError(f\"bad config: {path}\")\nconfig.ConfigError: bad config: settings.json",
		[]string{"config.ConfigError: bad config: settings.json"}},
	{"python traceback cut by head", "Traceback (most recent call last):\n  File \"/home/dev/app/main.py\", line 4, in <module>\n    import requests", []string{"import requests"}},
	{"mypy", "src/app.py:12: error: Incompatible return value type (got \"int\", expected \"str\")  [return-value]\nsrc/app.py:20: note: Revealed type is \"builtins.int\"\nFound 1 error in 1 file (checked 3 source files)",
		[]string{`src/app.py:12: error: Incompatible return value type (got "int", expected "str")  [return-value]`}},
	{"cargo build", "   Compiling demo v0.1.0 (/home/dev/demo)\nwarning: unused variable: `x`\n --> src/main.rs:2:9\nerror[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let n: u32 = \"1\";\n  |            ---   ^^^ expected `u32`, found `&str`\n  |            |\n  |            expected due to this\n\nFor more information about this error, try `rustc --explain E0308`.\nerror: could not compile `demo` (bin \"demo\") due to 1 previous error",
		[]string{"error[E0308]: mismatched types"}},
	{"cargo test", "running 2 tests\ntest tests::subtracts ... ok\ntest tests::adds ... FAILED\n\nfailures:\n\n---- tests::adds stdout ----\nthread 'tests::adds' panicked at src/lib.rs:12:9:\nassertion `left == right` failed\n  left: 3\n right: 4\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n\nfailures:\n    tests::adds\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nerror: test failed, to rerun pass `--lib`",
		[]string{"assertion `left == right` failed"}},
	{"cargo warnings only", "warning: unused variable: `x`\n --> src/main.rs:2:9\n  |\n2 |     let x = 1;\n  |         ^ help: if this is intentional, prefix it with an underscore: `_x`\n\nwarning: `demo` (bin \"demo\") generated 1 warning\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.52s", nil},
	{"jest", " FAIL  src/sum.test.js\n  ● sum › adds 1 + 2 to equal 3\n\n    expect(received).toBe(expected) // Object.is equality\n\n    Expected: 3\n    Received: 4\n\n      2 |\n      3 | test('adds 1 + 2 to equal 3', () => {\n    > 4 |   expect(sum(1, 2)).toBe(3);\n        |                     ^\n      5 | });\n\n      at Object.toBe (src/sum.test.js:4:21)\n\nTest Suites: 1 failed, 1 total\nTests:       1 failed, 1 total\nSnapshots:   0 total\nTime:        0.512 s\nRan all test suites.",
		[]string{"expect(received).toBe(expected) // Object.is equality"}},
	{"jest thrown", " FAIL  src/api.test.ts\n  ● api › fetches the user\n\n    TypeError: Cannot read properties of undefined (reading 'id')\n\n      10 |   it('fetches the user', async () => {\n      11 |     const user = await fetchUser(1);\n    > 12 |     expect(user.profile.id).toBe(1);\n         |                         ^\n\n      at Object.<anonymous> (src/api.test.ts:12:25)\n\nTests:       1 failed, 4 passed, 5 total",
		[]string{"TypeError: Cannot read properties of undefined (reading 'id')"}},
	{"jest pass", " PASS  src/sum.test.js\n  sum\n    ✓ adds 1 + 2 to equal 3 (2 ms)\n\nTest Suites: 1 passed, 1 total\nTests:       1 passed, 1 total", nil},
	{"vitest", " RUN  v1.6.0 /home/dev/app\n\n ❯ src/sum.test.ts (1)\n   ❯ sum (1)\n     × adds 1 + 2\n ✓ src/util.test.ts (3)\n\n⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\n\n FAIL  src/sum.test.ts > sum > adds 1 + 2\nAssertionError: expected 3 to be 4 // Object.is equality\n\n- Expected\n+ Received\n\n- 4\n+ 3\n\n ❯ src/sum.test.ts:5:22\n      3| describe('sum', () => {\n      4|   it('adds 1 + 2', () => {\n      5|     expect(sum(1, 2)).toBe(4)\n       |                      ^\n\n Test Files  1 failed | 1 passed (2)\n      Tests  1 failed | 3 passed (4)\n   Start at  10:12:01\n   Duration  412ms (transform 40ms, setup 0ms, collect 35ms, tests 4ms, environment 0ms, prepare 90ms)",
		[]string{"AssertionError: expected 3 to be 4 // Object.is equality"}},
	{"bun test", "bun test v1.3.5 (1e86cebd)\n\nsrc/sum.test.ts:\n1 | import { expect, test } from \"bun:test\";\n2 | test(\"adds\", () => {\n3 |   expect(1 + 2).toBe(4);\n                    ^\nerror: expect(received).toBe(expected)\n\nExpected: 4\nReceived: 3\n\n      at <anonymous> (/home/dev/app/src/sum.test.ts:3:17)\n(fail) adds [0.50ms]\n\n 0 pass\n 1 fail\n 1 expect() calls\nRan 1 tests across 1 file. [12.00ms]",
		[]string{"error: expect(received).toBe(expected)"}},
	{"bun test pass", "bun test v1.3.5 (1e86cebd)\n\n 13 pass\n 0 fail\n 16 expect() calls\nRan 13 tests across 1 file. [37.00ms]", nil},
	{"xcodebuild", "CompileSwift normal arm64 /Users/dev/App/Sources/App/ContentView.swift (in target 'App' from project 'App')\n    cd /Users/dev/App\n/Users/dev/App/Sources/App/ContentView.swift:14:9: error: cannot find 'fooBar' in scope\n        fooBar()\n        ^~~~~~\n\n** BUILD FAILED **\n\n\nThe following build commands failed:\n\tCompileSwift normal arm64 /Users/dev/App/Sources/App/ContentView.swift (in target 'App' from project 'App')\n(1 failure)",
		[]string{"/Users/dev/App/Sources/App/ContentView.swift:14:9: error: cannot find 'fooBar' in scope"}},
	{"gradle", "> Task :app:compileJava FAILED\n/home/dev/app/src/main/java/com/example/App.java:7: error: cannot find symbol\n        Strin name = \"x\";\n        ^\n  symbol:   class Strin\n  location: class App\n1 error\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':app:compileJava'.\n> Compilation failed; see the compiler error output for details.\n\n* Try:\n> Run with --stacktrace option to get the stack trace.\n\nBUILD FAILED in 1s\n1 actionable task: 1 executed",
		[]string{"/home/dev/app/src/main/java/com/example/App.java:7: error: cannot find symbol", "Execution failed for task ':app:compileJava'."}},
	{"maven", "[INFO] -------------------------------------------------------------\n[ERROR] COMPILATION ERROR : \n[INFO] -------------------------------------------------------------\n[ERROR] /home/dev/app/src/main/java/com/example/App.java:[7,9] cannot find symbol\n  symbol:   class Strin\n  location: class com.example.App\n[INFO] 1 error\n[INFO] BUILD FAILURE\n[INFO] Total time:  1.234 s\n[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project app: Compilation failure\n[ERROR] /home/dev/app/src/main/java/com/example/App.java:[7,9] cannot find symbol\n[ERROR]   symbol:   class Strin\n[ERROR]   location: class com.example.App\n[ERROR] -> [Help 1]",
		[]string{"[ERROR] /home/dev/app/src/main/java/com/example/App.java:[7,9] cannot find symbol"}},
	{"java", "Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"s\" is null\n\tat com.example.App.main(App.java:5)",
		[]string{`Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()" because "s" is null`}},
	{"eslint", "\n/home/dev/app/src/index.js\n  3:7   error    'unused' is assigned a value but never used  no-unused-vars\n  5:1   warning  Unexpected console statement                 no-console\n  9:10  error    'fetchData' is not defined                   no-undef\n\n✖ 3 problems (2 errors, 1 warning)\n",
		[]string{"3:7   error    'unused' is assigned a value but never used  no-unused-vars", "9:10  error    'fetchData' is not defined                   no-undef"}},
	{"eslint warnings only", "\n/home/dev/app/src/index.js\n  5:1  warning  Unexpected console statement  no-console\n\n✖ 1 problem (0 errors, 1 warning)\n", nil},
	{"npm missing script", "npm ERR! Missing script: \"build\"\nnpm ERR! \nnpm ERR! To see a list of scripts, run:\nnpm ERR!   npm run\n\nnpm ERR! A complete log of this run can be found in:\nnpm ERR!     /home/dev/.npm/_logs/2024-05-02T10_11_12_345Z-debug-0.log",
		[]string{`npm ERR! Missing script: "build"`}},
	{"npm install warnings", "npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.\nnpm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported\n\nadded 312 packages, and audited 313 packages in 4s\n\nfound 0 vulnerabilities", nil},
	{"pnpm", "> @acme/web@1.0.0 build /home/dev/app/packages/web\n> vite build\n\nerror during build:\nError: Could not resolve \"./App\" from \"src/main.tsx\"\n ELIFECYCLE  Command failed with exit code 1.\n ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @acme/web@1.0.0 build: `vite build`\nExit status 1",
		[]string{`Error: Could not resolve "./App" from "src/main.tsx"`, "ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @acme/web@1.0.0 build: `vite build`"}},
	{"node missing module", "node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\nError: Cannot find module 'left-pad'\nRequire stack:\n- /home/dev/app/index.js\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1077:15)\n    at Module._load (node:internal/modules/cjs/loader:922:27) {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: [ '/home/dev/app/index.js' ]\n}\n\nNode.js v18.17.0",
		[]string{"Error: Cannot find module 'left-pad'"}},
	{"make", "cc -Wall -o app main.c\nmain.c:3:10: fatal error: 'stdio.h' file not found\n#include <stdio.h>\n         ^~~~~~~~~\n1 error generated.\nmake: *** [Makefile:4: app] Error 1",
		[]string{"main.c:3:10: fatal error: 'stdio.h' file not found"}},
	{"make only", "make: *** No rule to make target 'instal'.  Stop.", []string{"make: *** No rule to make target 'instal'.  Stop."}},
	{"shell", "bash: line 1: pnpm: command not found", []string{"bash: line 1: pnpm: command not found"}},
	{"zsh eval", "(eval):1: command not found: staticcheck\nstaticcheck: It's the set of rules from staticcheck. [auto-fix]", []string{"(eval):1: command not found: staticcheck"}},
	{"git rebase", "From github.com:obsessiondb/chx\n * branch            main       -> FETCH_HEAD\nerror: cannot rebase: You have unstaged changes.\nerror: Please commit or stash them.",
		[]string{"error: cannot rebase: You have unstaged changes."}},
	{"git push", "To github.com:acme/app.git\n   4c2d1e0..9f1b2a3  main -> main", nil},
	{"usage banner", "Error: unknown flag: --format\nUsage:\n  golangci-lint version [flags]\n\nFlags:\n      --debug   Add build information\n      --json    Display as JSON\n\nThe command is terminated due to an error: unknown flag: --format",
		[]string{"Error: unknown flag: --format"}},
	{"diff", "diff --git a/x.go b/x.go\n@@ -1,4 +1,4 @@\n-\treturn fmt.Errorf(\"open: %w\", err)\n+\tpanic(\"unreachable\")\n \tError: keep this context line\n", nil},
	{"systemctl status, healthy", "● nginx.service - A high performance web server and a reverse proxy server\n     Loaded: loaded (/lib/systemd/system/nginx.service; enabled; preset: enabled)\n     Active: active (running) since Mon 2026-02-02 22:40:14 UTC; 2h 3min ago\n       Docs: man:nginx(8)\n   Main PID: 2416 (nginx)\n      Tasks: 3 (limit: 4557)\n     Memory: 4.1M\n        CPU: 41ms\n     CGroup: /system.slice/nginx.service\n             ├─2416 \"nginx: master process /usr/sbin/nginx -g daemon on; master_process on;\"\n             └─2417 \"nginx: worker process\"", nil},
	{"systemctl restart, nginx config broken", "Job for nginx.service failed because the control process exited with error code.\nSee \"systemctl status nginx.service\" and \"journalctl -xeu nginx.service\" for details.\n× nginx.service - A high performance web server and a reverse proxy server\n     Active: failed (Result: exit-code) since Mon 2026-02-02 22:40:14 UTC; 33s ago\nFeb 02 22:40:14 web1 nginx[39295]: nginx: [emerg] \"listen\" directive is not allowed here in /etc/nginx/sites-enabled/app:1\nFeb 02 22:40:14 web1 nginx[39295]: nginx: configuration file /etc/nginx/nginx.conf test failed\nFeb 02 22:40:14 web1 systemd[1]: nginx.service: Failed with result 'exit-code'.",
		[]string{`nginx: [emerg] "listen" directive is not allowed here in /etc/nginx/sites-enabled/app:1`}},
	{"boto3 parameter validation", "Traceback (most recent call last):\n  File \"/app/upload.py\", line 9, in <module>\n    s3.put_object(Bucket=bucket, Key=key, Body=123)\nbotocore.exceptions.ParamValidationError: Parameter validation failed:\nInvalid type for parameter Body, value: 123, type: <class 'int'>, valid types: <class 'bytes'>, <class 'bytearray'>, file-like object",
		[]string{"Invalid type for parameter Body, value: 123, type: <class 'int'>, valid types: <class 'bytes'>, <class 'bytearray'>, file-like object"}},
	{"uv cannot resolve", "  × No solution found when resolving dependencies:\n  ╰─▶ Because there is no version of numpy==9.9 and you require numpy==9.9, we can conclude that your requirements are unsatisfiable.\nerror: No solution found when resolving dependencies:\n  ╰─▶ Because there is no version of numpy==9.9 and you require numpy==9.9, we can conclude that your requirements are unsatisfiable.",
		[]string{"Because there is no version of numpy==9.9 and you require numpy==9.9, we can conclude that your requirements are unsatisfiable."}},
	{"postgres in docker compose logs", "db-1   | 2026-02-03 10:15:40.001 UTC [1] LOG:  database system is ready to accept connections\ndb-1   | 2026-02-03 10:15:42.123 UTC [68] ERROR:  relation \"measurements\" does not exist at character 22\ndb-1   | 2026-02-03 10:15:42.123 UTC [68] STATEMENT:  SELECT count(*) FROM measurements;",
		[]string{`ERROR:  relation "measurements" does not exist at character 22`}},
	{"kubectl get pods, healthy", "NAME                   READY   STATUS    RESTARTS   AGE\nweb-5c8d7f9b4-lm3np    1/1     Running   0          4m12s", nil},
	{"deprecation", "(node:2101) [DEP0040] DeprecationWarning: The `punycode` module is deprecated. Please use a userland alternative instead.\n(Use `node --trace-deprecation ...` to show where the warning was created)", nil},
}

func TestRealOutputs(t *testing.T) {
	rs := newRuleSet()
	norm := newNormalizer()
	for _, tt := range realOutputs {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range rs.scan(tt.out, norm).findings {
				got = append(got, f.key)
			}
			if strings.Join(got, "\n") != strings.Join(tt.keys, "\n") {
				t.Errorf("keys\n%q\nwant\n%q", got, tt.keys)
			}
			// Through Extract, as the output of a command that exited 0.
			sigs := Extract(nil, []Message{{ID: "m", Role: "tool", ToolName: "Bash", Command: "make check", Content: tt.out}}, nil)
			if len(sigs) != len(tt.keys) {
				t.Fatalf("Extract gave %d signals, want %d", len(sigs), len(tt.keys))
			}
			for i, s := range sigs {
				if s.KeyLine != tt.keys[i] || s.Command != "make check" || !strings.Contains(s.Text, strings.TrimSpace(tt.keys[i])) {
					t.Errorf("signal %d: key %q command %q text %.60q", i, s.KeyLine, s.Command, s.Text)
				}
			}
		})
	}
}

// TestKeyLine: the key line of a failed tool's output (KeyLine, as
// Verify uses it for signals without one): never the traceback header, a
// warning, a passing test or a usage banner.
func TestKeyLine(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"tsc after exit code", "Exit code 2\ntests/daytona_sandbox.test.ts(22,27): error TS2322: Type 'boolean' is not assignable to type 'void | Promise<void>'.",
			"tests/daytona_sandbox.test.ts(22,27): error TS2322: Type 'boolean' is not assignable to type 'void | Promise<void>'."},
		{"traceback", "Exit code 1\nTraceback (most recent call last):\n  File \"/app/x.py\", line 3, in <module>\n    import requests\nModuleNotFoundError: No module named 'requests'", "ModuleNotFoundError: No module named 'requests'"},
		{"tool_use_error", "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", "File has not been read yet. Read it first before writing to it."},
		{"warning first", "Exit code 1\nwarning: config key `foo` is deprecated\nconnection refused by db.internal:5432", "connection refused by db.internal:5432"},
		{"passing test first", "Exit code 1\n(pass) planDiff throws typed validation error for invalid schema [0.07ms]\nupload rejected: quota exceeded (invalid size)", "upload rejected: quota exceeded (invalid size)"},
		{"usage banner", "Exit code 1\nUsage:\n  tool [flags]\n  -h, --help   show help for the unknown flags\nthe deploy failed", "the deploy failed"},
		{"zero counts", "Exit code 1\n 22 pass\n 0 fail\nsomething else", "Exit code 1"},
		{"bare exit code", "Exit code 1", "Exit code 1"},
		{"no error word", "Exit code 4\nhello", "Exit code 4"},
		{"plain", "boom at x.go:1", "boom at x.go:1"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		if got := KeyLine(tt.text); got != tt.want {
			t.Errorf("%s: KeyLine = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// FuzzScan: the rule matcher never panics, yields at most maxFindings,
// and every key is (a trimmed part of) a line of the output.
func FuzzScan(f *testing.F) {
	for _, r := range failureRules() {
		f.Add(r.example)
	}
	for _, o := range realOutputs {
		f.Add(o.out)
	}
	f.Add("Traceback (most recent call last):\n\nDuring handling of the above exception\n")
	f.Add("--- FAIL: \n=== RUN\n")
	rs := newRuleSet()
	norm := newNormalizer()
	f.Fuzz(func(t *testing.T, text string) {
		sc := rs.scan(text, norm)
		if len(sc.findings) > maxFindings {
			t.Fatalf("%d findings", len(sc.findings))
		}
		for _, fd := range sc.findings {
			if fd.key == "" || fd.at < 0 || fd.at >= len(sc.stripped) || !strings.Contains(sc.stripped[fd.at], fd.key) {
				t.Fatalf("key %q is not in its line %d of %q", fd.key, fd.at, sc.stripped)
			}
			_ = window(sc.lines, fd, 0, len(sc.lines))
		}
	})
}

// FuzzKeyLine: the key line is a trimmed line of the text (tags and
// colours removed), "Exit code N" from it, or "".
func FuzzKeyLine(f *testing.F) {
	f.Add("Exit code 1\nerror: x")
	f.Add("<tool_use_error>a</tool_use_error>")
	f.Add("Usage:\n  x\n\x1b[31mError: y\x1b[0m")
	f.Fuzz(func(t *testing.T, text string) {
		k := KeyLine(text)
		if k != strings.TrimSpace(k) || !utf8.ValidString(text) {
			if k != strings.TrimSpace(k) {
				t.Fatalf("key %q not trimmed", k)
			}
			return
		}
		clean := regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|</?tool_use_error>`).ReplaceAllString(text, "")
		if k != "" && !strings.Contains(clean, k) {
			t.Fatalf("key %q not in %q", k, clean)
		}
	})
}

// BenchmarkScan scans a long passing build log (no failure lines: the
// common case) and a long failing one.
func BenchmarkScan(b *testing.B) {
	rs := newRuleSet()
	norm := newNormalizer()
	var pass, fail strings.Builder
	for i := 0; pass.Len() < 1<<20; i++ {
		pass.WriteString("ok  \tgithub.com/acme/calc/pkg" + strings.Repeat("x", i%7) + "\t0.004s\n=== RUN   TestParse\n--- PASS: TestParse (0.00s)\n@chkit/core:test: (pass) planner v1 > plans create/drop with danger/safe risks [0.55ms]\n")
	}
	for _, o := range realOutputs {
		fail.WriteString(o.out + "\n")
	}
	failing := strings.Repeat(fail.String(), (1<<20)/fail.Len()+1)
	for _, in := range []struct{ name, text string }{{"passing", pass.String()}, {"failing", failing}} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.text)))
			for b.Loop() {
				rs.scan(in.text, norm)
			}
		})
	}
}

func TestStripPrefix(t *testing.T) {
	tests := []struct{ in, want string }{
		{"lint\tRun golangci-lint\t2026-02-04T23:39:44.4995127Z cmd/x_test.go:901:17: SA5011: boom", "cmd/x_test.go:901:17: SA5011: boom"},
		{"lint\tRun golangci-lint\t\ufeff2026-02-04T23:38:36.7071460Z ##[group]Run x", "##[group]Run x"},
		{"2026-02-04T23:39:44Z ##[error]Process completed with exit code 1.", "##[error]Process completed with exit code 1."},
		{"@chkit/core:test: (pass) smoke [0.50ms]", "(pass) smoke [0.50ms]"},
		{"chkit:lint: src/a.ts:1:8 lint/style/useImportType", "src/a.ts:1:8 lint/style/useImportType"},
		{"error: cannot rebase: You have unstaged changes.", "error: cannot rebase: You have unstaged changes."},
		{"./parse.go:12:2: undefined: tokenize", "./parse.go:12:2: undefined: tokenize"},
		{"parse_test.go:42: got 3", "parse_test.go:42: got 3"},
		{"Note:see below", "Note:see below"},
		{"a\tb\tnot a time", "a\tb\tnot a time"},
		{"db-1   | ERROR:  relation \"t\" does not exist", "ERROR:  relation \"t\" does not exist"},
		{"web_1  | Error: listen EADDRINUSE :::3000", "Error: listen EADDRINUSE :::3000"},
		{" id | name", " id | name"},
		{"Feb 03 10:00:02 web1 nginx[39295]: nginx: [emerg] \"listen\" directive is not allowed here", "nginx: [emerg] \"listen\" directive is not allowed here"},
		{"Feb  3 10:00:02 web1 systemd[1]: app.service: Failed with result 'exit-code'.", "app.service: Failed with result 'exit-code'."},
		{"Feb 03 10:00:02 is the date of the release", "Feb 03 10:00:02 is the date of the release"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := stripPrefix(tt.in); got != tt.want {
			t.Errorf("stripPrefix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
