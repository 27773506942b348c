package signals

// The failure-line table's rows for Swift and the C family, Java and
// Kotlin build tools, eslint and make (failureRules).

func swiftRules() []rule {
	return []rule{
		{name: "xcodebuild-error", nearMiss: "xcodebuild: WARNING: Using the first of multiple matching destinations:", toolchain: "Swift", hint: "xcodebuild: error:", pattern: `^xcodebuild: error: `,
			example: "xcodebuild: error: Unable to find a destination matching the provided destination specifier:\n\t\t{ platform:iOS Simulator, OS:latest, name:iPhone 99 }"},
		{name: "swift-compile", nearMiss: "/Users/dev/App/Sources/App/ContentView.swift:14:9: warning: variable 'x' was never used", toolchain: "Swift", hint: ".swift:", pattern: `^\S.*\.swift:\d+:\d+: error: `,
			example: "/Users/dev/App/Sources/App/ContentView.swift:14:9: error: cannot find 'fooBar' in scope\n        fooBar()\n        ^~~~~~"},
		{name: "xctest-fail", nearMiss: "Test Case '-[AppTests.AppTests testAdd]' passed (0.001 seconds).", toolchain: "Swift", hint: ".swift:", pattern: `^\S.*\.swift:\d+: error: -\[\S+ \S+\] : `,
			example: "/Users/dev/App/Tests/AppTests/AppTests.swift:12: error: -[AppTests.AppTests testAdd] : XCTAssertEqual failed: (\"3\") is not equal to (\"4\")"},
		{name: "xcode-build-failed", nearMiss: "** BUILD SUCCEEDED **", toolchain: "Swift", hint: " FAILED **", pattern: `^\*\* (?:BUILD|TEST|ARCHIVE|ANALYZE) FAILED \*\*`, summary: true,
			example: "** BUILD FAILED **\n\n\nThe following build commands failed:\n\tCompileSwift normal arm64 /Users/dev/App/Sources/App/ContentView.swift (in target 'App' from project 'App')"},
		{name: "clang-error", nearMiss: "src/main.c:7:5: warning: unused variable 'n' [-Wunused-variable]", toolchain: "Swift", hint: "error: ", pattern: `^\S+\.(?:c|cc|cpp|cxx|m|mm|h|hpp):\d+:\d+: (?:fatal )?error: `,
			example: "src/main.c:3:10: fatal error: 'stdio.h' file not found\n#include <stdio.h>\n         ^~~~~~~~~\n1 error generated."},
		{name: "tool-error", nearMiss: "clang: warning: argument unused during compilation: '-pthread'", toolchain: "Swift", hint: "error: ", pattern: `^[A-Za-z][\w.+-]*:? (?:fatal )?error: \S`,
			example: "clang: error: linker command failed with exit code 1 (use -v to see invocation)"},
	}
}

func javaRules() []rule {
	return []rule{
		{name: "gradle-what-went-wrong", nearMiss: "* Try:", toolchain: "Java", hint: "What went wrong", pattern: `^\* What went wrong:`, key: keyNext,
			example:    "FAILURE: Build failed with an exception.\n\n* What went wrong:\nExecution failed for task ':app:compileJava'.\n> Compilation failed; see the compiler error output for details.\n\nBUILD FAILED in 3s",
			exampleKey: "Execution failed for task ':app:compileJava'."},
		{name: "gradle-failure", nearMiss: "BUILD SUCCESSFUL in 2s", toolchain: "Java", hint: "FAILURE: ", pattern: `^FAILURE: Build (?:failed|completed with \d+ failures?)`, summary: true,
			example: "FAILURE: Build failed with an exception."},
		{name: "gradle-build-failed", nearMiss: "BUILD SUCCESSFUL in 3s", toolchain: "Java", hint: "BUILD FAILED", pattern: `^BUILD FAILED in `, summary: true, example: "BUILD FAILED in 3s"},
		{name: "javac-error", nearMiss: "src/main/java/com/example/App.java:7: warning: [deprecation] Date(int,int,int) in Date has been deprecated", toolchain: "Java", hint: ".java:", pattern: `^\S.*\.java:\d+: error: `,
			example: "src/main/java/com/example/App.java:7: error: cannot find symbol\n        Strin name = \"x\";\n        ^\n  symbol:   class Strin\n  location: class App\n1 error"},
		{name: "kotlin-error", nearMiss: "w: file:///home/dev/app/src/main/kotlin/Main.kt:3:5 Variable 'x' is never used", toolchain: "Java", hint: "e: ", pattern: `^e: (?:file://)?\S+\.kts?:(?:\d+:\d+|\(\d+, \d+\)):? \S`,
			example: "e: file:///home/dev/app/src/main/kotlin/Main.kt:3:5 Unresolved reference: foo"},
		{name: "gradle-test-failed", nearMiss: "AppTest > testAdd() PASSED", toolchain: "Java", hint: " FAILED", pattern: `^\S+ > .+ FAILED$`,
			example: "AppTest > testAdd() FAILED\n    org.opentest4j.AssertionFailedError at AppTest.java:12"},
		{name: "maven-failed-goal", nearMiss: "[INFO] BUILD SUCCESS", toolchain: "Java", hint: "[ERROR] Failed to execute goal", pattern: `^\[ERROR\] Failed to execute goal `, summary: true,
			example: "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project app: Compilation failure"},
		{name: "maven-error", nearMiss: "[ERROR] -> [Help 1]", toolchain: "Java", hint: "[ERROR] ", pattern: `^\[ERROR\] \S`,
			unless:     `^\[ERROR\] (?:-> \[Help|To see the full|Re-run Maven|For more information|Tests run:|Failures:\s*$|Errors:\s*$|\[Help \d|COMPILATION ERROR|\s)`,
			example:    "[INFO] BUILD FAILURE\n[ERROR] /home/dev/app/src/main/java/com/example/App.java:[7,9] cannot find symbol\n[ERROR]   symbol:   class Strin",
			exampleKey: "[ERROR] /home/dev/app/src/main/java/com/example/App.java:[7,9] cannot find symbol"},
		{name: "maven-build-failure", nearMiss: "[INFO] BUILD SUCCESS", toolchain: "Java", hint: "BUILD FAILURE", pattern: `^(?:\[INFO\] )?BUILD FAILURE$`, summary: true, example: "[INFO] BUILD FAILURE"},
		{name: "java-thread-exception", nearMiss: "\tat com.example.App.main(App.java:5)", toolchain: "Java", hint: "Exception in thread", pattern: `^Exception in thread "[^"]*" \S`,
			example: "Exception in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"s\" is null\n\tat com.example.App.main(App.java:5)"},
		{name: "java-exception", nearMiss: "\tat org.springframework.test.context.cache.DefaultCacheAwareContextLoaderDelegate.loadContext(DefaultCacheAwareContextLoaderDelegate.java:98)", toolchain: "Java", hint: "xception|rror", pattern: `^[a-z][\w$]*(?:\.[\w$]+)+(?:Exception|Error)(?:: .*)?$`,
			example: "java.lang.IllegalStateException: Failed to load ApplicationContext\n\tat org.springframework.test.context.cache.DefaultCacheAwareContextLoaderDelegate.loadContext(DefaultCacheAwareContextLoaderDelegate.java:98)"},
	}
}

func lintMakeRules() []rule {
	return []rule{
		{name: "eslint-problem", nearMiss: "  5:1  warning  Unexpected console statement  no-console", toolchain: "eslint", hint: "error", pattern: `^\s+\d+:\d+\s+error\s+\S`,
			example:    "/home/dev/app/src/index.js\n  3:7  error    'unused' is assigned a value but never used  no-unused-vars\n  5:1  warning  Unexpected console statement                 no-console\n\n✖ 2 problems (1 error, 1 warning)",
			exampleKey: "3:7  error    'unused' is assigned a value but never used  no-unused-vars"},
		{name: "eslint-summary", nearMiss: "✖ 1 problem (0 errors, 1 warning)", toolchain: "eslint", hint: "problem", pattern: `^✖ \d+ problems? \([1-9]\d* errors?`, summary: true,
			example: "✖ 2 problems (1 error, 1 warning)"},
		{name: "make-no-rule", nearMiss: "make: Nothing to be done for 'all'.", toolchain: "make", hint: "***", pattern: `^g?make(?:\[\d+\])?: \*\*\* No rule to make target `,
			example: "make: *** No rule to make target 'instal'.  Stop."},
		{name: "makefile-error", nearMiss: "Makefile:3: warning: overriding recipe for target 'build'", toolchain: "make", hint: "***", pattern: `^\S*[Mm]akefile(?:\.\w+)?:\d+: \*\*\* `,
			example: "Makefile:3: *** missing separator.  Stop."},
		{name: "make-error", nearMiss: "make[1]: Leaving directory '/home/dev/app'", toolchain: "make", hint: "***", pattern: `^g?make(?:\[\d+\])?: \*\*\* .*Error \d+`, summary: true,
			example: "cc -o app main.c\nmake: *** [Makefile:4: app] Error 1", exampleKey: "make: *** [Makefile:4: app] Error 1"},
	}
}
