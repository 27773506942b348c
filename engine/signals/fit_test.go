package signals

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// djangoTraceback is the shape of a real Django request failing on a
// database that is down (a chained psycopg and Django OperationalError),
// its frames repeated through a middleware stack until it is about 9.5 kB.
func djangoTraceback() string {
	frames := [][2]string{
		{`/app/venv/lib/python3.12/site-packages/django/core/handlers/exception.py", line 55, in inner`, "response = get_response(request)"},
		{`/app/venv/lib/python3.12/site-packages/django/core/handlers/base.py", line 197, in _get_response`, "response = wrapped_callback(request, *callback_args, **callback_kwargs)"},
		{`/app/venv/lib/python3.12/site-packages/django/views/generic/base.py", line 104, in view`, "return self.dispatch(request, *args, **kwargs)"},
		{`/app/venv/lib/python3.12/site-packages/django/utils/deprecation.py", line 133, in __call__`, "response = self.process_request(request)"},
		{`/app/venv/lib/python3.12/site-packages/django/contrib/sessions/middleware.py", line 21, in process_request`, "request.session = self.SessionStore(session_key)"},
		{`/app/venv/lib/python3.12/site-packages/django/db/models/query.py", line 633, in get`, "num = len(clone)"},
		{`/app/venv/lib/python3.12/site-packages/django/db/models/sql/compiler.py", line 1560, in execute_sql`, "cursor = self.connection.cursor()"},
		{`/app/venv/lib/python3.12/site-packages/django/db/backends/base/base.py", line 316, in cursor`, "return self._cursor()"},
		{`/app/venv/lib/python3.12/site-packages/django/db/backends/base/base.py", line 292, in _cursor`, "self.ensure_connection()"},
		{`/app/venv/lib/python3.12/site-packages/django/db/backends/base/base.py", line 275, in ensure_connection`, "self.connect()"},
	}
	var sb strings.Builder
	part := func() {
		sb.WriteString("Traceback (most recent call last):\n")
		for sb.Len() < 4000*(strings.Count(sb.String(), "Traceback")) {
			for _, f := range frames {
				fmt.Fprintf(&sb, "  File \"%s\n    %s\n", f[0], f[1])
			}
		}
	}
	part()
	sb.WriteString("psycopg2.OperationalError: connection to server at \"localhost\" (127.0.0.1), port 5432 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?\n\n")
	sb.WriteString("The above exception was the direct cause of the following exception:\n\n")
	part()
	sb.WriteString("django.db.utils.OperationalError: connection to server at \"localhost\" (127.0.0.1), port 5432 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?")
	return sb.String()
}

// lostErrors is one huge and nine small lost errors (the small ones from
// the shared transcripts and real tool runs), each with its key line and
// command as Extract gives them, the huge one oldest or newest.
func lostErrors(t *testing.T, hugeNewest bool) []Signal {
	t.Helper()
	huge := djangoTraceback()
	if n := len(huge); n < 9000 || n > 10000 {
		t.Fatalf("traceback is %d bytes, want about 9.5 kB", n)
	}
	msgs := []Message{
		{Role: "tool", ToolName: "Bash", Command: "python manage.py runserver --noreload", IsError: true, Content: "Exit code 1\n" + huge},
		{Role: "tool", ToolName: "Write", Command: "Write /app/packages/cli/src/bin/commands/drift.ts", IsError: true, Content: "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"},
		{Role: "tool", ToolName: "Bash", Command: "npx tsc", IsError: true, Content: "Exit code 2\ntests/daytona_sandbox.test.ts(22,27): error TS2322: Type 'boolean' is not assignable to type 'void | Promise<void>'."},
		{Role: "tool", ToolName: "Bash", Command: "golangci-lint run --new-from-rev=main --enable=staticcheck --disable-all ./cmd/entire/cli/checkpoint/... 2>&1", IsError: true, Content: "Exit code 3\nError: unknown flag: --disable-all\nThe command is terminated due to an error: unknown flag: --disable-all"},
		{Role: "tool", ToolName: "Bash", Command: "bun ./packages/cli/src/bin/chkit.ts --version 2>&1", IsError: true, Content: "Exit code 1\nerror: Cannot find module '@chkit/core' from '/app/packages/cli/src/bin/config.ts'\n\nBun v1.3.5 (macOS arm64)"},
		{Role: "tool", ToolName: "Bash", Command: "go test ./...", IsError: true, Content: "Exit code 1\n--- FAIL: TestParse (0.00s)\n    parse_test.go:42: Parse(\"1+2\") = 4, want 3\nFAIL\nFAIL\tgithub.com/acme/calc\t0.004s\nFAIL"},
		{Role: "tool", ToolName: "Bash", Command: "cargo build", IsError: true, Content: "Exit code 101\n   Compiling demo v0.1.0 (/home/dev/demo)\nerror[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\n4 |     let n: u32 = \"1\";\n  |            ---   ^^^ expected `u32`, found `&str`\n\nerror: could not compile `demo` (bin \"demo\") due to 1 previous error"},
		{Role: "tool", ToolName: "Bash", Command: "npx eslint src", IsError: true, Content: "Exit code 1\n\n/home/dev/app/src/index.js\n  3:7  error  'unused' is assigned a value but never used  no-unused-vars\n\n✖ 1 problem (1 error, 0 warnings)"},
		{Role: "tool", ToolName: "Bash", Command: "npm run build", IsError: true, Content: "Exit code 1\nnpm ERR! Missing script: \"build\"\nnpm ERR! \nnpm ERR! To see a list of scripts, run:\nnpm ERR!   npm run"},
		{Role: "tool", ToolName: "Bash", Command: "golangci-lint run --new=false ./cmd/entire/cli/checkpoint/checkpoint_test.go 2>&1 | wc -l", IsError: true, Content: "Exit code 126\n(eval):1: permission denied: \n\n     194"},
	}
	t0 := time.Date(2026, 2, 4, 10, 0, 0, 0, time.UTC)
	for i := range msgs {
		at := i
		if hugeNewest && i == 0 {
			at = len(msgs)
		}
		msgs[i].ID = fmt.Sprintf("m%d", i)
		msgs[i].Timestamp = t0.Add(time.Duration(at) * time.Minute)
	}
	sigs := Extract(nil, msgs, nil)
	if len(sigs) != 10 {
		for _, s := range sigs {
			t.Logf("%s %q", s.Kind, s.KeyLine)
		}
		t.Fatalf("%d signals, want 10", len(sigs))
	}
	return sigs
}

// TestFitHugeAndSmall: one 9.5 kB traceback and nine small errors, one of
// them the 96-character "File has not been read yet": all ten come back
// within Claude Code's 10,000 characters, each at least as its command
// and key line, the traceback shortened to its key line and context.
func TestFitHugeAndSmall(t *testing.T) {
	for _, hugeNewest := range []bool{false, true} {
		t.Run(fmt.Sprintf("huge newest %v", hugeNewest), func(t *testing.T) {
			sigs := lostErrors(t, hugeNewest)
			if n := len(sigs[1].Text); n != 96 {
				t.Fatalf("the small Write error is %d characters, want 96", n)
			}
			b := Block{Trigger: TriggerCompaction, Signals: sigs, Breaker: "stall: 0/5 | spin: 1/5 | decline: 0%"}
			got := Fit(b, 10000)
			out := RenderBlock(got.Block)
			if n := UTF16Len(out); n > 10000 {
				t.Fatalf("fitted block is %d characters", n)
			}
			if got.Omitted != 0 || len(got.Block.Signals) != 10 {
				t.Fatalf("omitted %d, kept %d", got.Omitted, len(got.Block.Signals))
			}
			for _, s := range sigs {
				if !strings.Contains(out, s.KeyLine) || !strings.Contains(out, strings.SplitN(s.Command, "\n", 2)[0]) {
					t.Errorf("key line %q or command %q missing", s.KeyLine, s.Command)
				}
			}
			if !strings.Contains(out, "django.db.utils.OperationalError: connection to server") || !strings.Contains(out, "lines omitted⟩") {
				t.Error("the traceback lacks its key line or its omission marker")
			}
			if got.Shortened < 1 || got.Shortened > 2 {
				t.Errorf("shortened %d, want the traceback (and at most one more)", got.Shortened)
			}
			// The small errors come back whole.
			for _, s := range sigs[1:] {
				if !strings.Contains(out, s.Text) {
					t.Errorf("small error not whole: %q", s.Text)
				}
			}
			if got.Block.Breaker == "" {
				t.Error("breaker line left out although there was room")
			}
		})
	}
}

// TestFitTight: under a small limit every key line still comes first,
// newest first; only when not even key lines fit are the oldest left out.
func TestFitTight(t *testing.T) {
	sigs := lostErrors(t, false)
	minimalSize := UTF16Len(RenderBlock(Fit(Block{Signals: sigs}, 2600).Block))
	got := Fit(Block{Signals: sigs}, 2600)
	if got.Omitted != 0 || minimalSize > 2600 {
		t.Fatalf("2600: omitted %d, size %d", got.Omitted, minimalSize)
	}
	for _, s := range got.Block.Signals {
		if !strings.Contains(s.Text, s.KeyLine) {
			t.Errorf("shown text %q lacks key line %q", s.Text, s.KeyLine)
		}
	}
	got = Fit(Block{Signals: sigs}, 900)
	if got.Omitted == 0 || UTF16Len(RenderBlock(got.Block)) > 900 {
		t.Fatalf("900: omitted %d, size %d", got.Omitted, UTF16Len(RenderBlock(got.Block)))
	}
	// The newest errors are the ones kept.
	newest := sigs[len(sigs)-1].KeyLine
	if !strings.Contains(RenderBlock(got.Block), newest) || strings.Contains(RenderBlock(got.Block), sigs[0].KeyLine) {
		t.Errorf("kept %+v, want the newest (%q) and not the oldest", got.Block.Signals, newest)
	}
	if got := Fit(Block{Signals: sigs}, 10); len(got.Block.Signals) != 0 || got.Omitted != 10 {
		t.Errorf("limit 10 kept %d", len(got.Block.Signals))
	}
}

// TestFitResolvedOneLine: a resolved error comes back as one line (its
// command, key line and what resolved it) after the open ones; under a
// tight cap the resolved lines go first, the oldest of them first.
func TestFitResolvedOneLine(t *testing.T) {
	t0 := time.Date(2026, 2, 7, 10, 0, 0, 0, time.UTC)
	sigs := []Signal{
		{Kind: KindError, Text: "Exit code 1\n--- FAIL: TestA (0.00s)\n    a_test.go:3: boom", KeyLine: "a_test.go:3: boom", Command: "go test ./a", ResolvedBy: "`go test ./a` passed at 10:09", LastSeen: t0},
		{Kind: KindError, Text: "Exit code 2\nsrc/b.ts(1,2): error TS2322: x", KeyLine: "src/b.ts(1,2): error TS2322: x", Command: "npx tsc", ResolvedBy: "`npx tsc` passed at 10:08", LastSeen: t0.Add(time.Minute)},
		{Kind: KindBlocked, Text: "BLOCKED: waiting for the key\nsecond line", LastSeen: t0.Add(2 * time.Minute)},
		{Kind: KindError, Text: "Exit code 1\nError: unknown flag: --format", KeyLine: "Error: unknown flag: --format", Command: "lint --format json", LastSeen: t0.Add(3 * time.Minute)},
	}
	got := Fit(Block{Signals: sigs}, 10000)
	out := RenderBlock(got.Block)
	for _, want := range []string{
		"- `go test ./a`: a_test.go:3: boom → fixed: `go test ./a` passed at 10:09\n",
		"- `npx tsc`: src/b.ts(1,2): error TS2322: x → fixed: `npx tsc` passed at 10:08\n",
		"Error: unknown flag: --format", "BLOCKED: waiting for the key\n  second line",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("block lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "--- FAIL: TestA") {
		t.Errorf("a resolved error shown with its text:\n%s", out)
	}
	if i, j := strings.Index(out, "npx tsc"), strings.Index(out, "go test ./a"); i > j {
		t.Errorf("resolved lines not newest first:\n%s", out)
	}
	// The resolved lines round-trip.
	blocks, diags := ParseBlocks("r.md", []byte(out))
	if len(diags) != 0 || len(blocks) != 1 {
		t.Fatalf("parsed %+v %v", blocks, diags)
	}
	var fixed []Signal
	for _, s := range blocks[0].Signals {
		if s.ResolvedBy != "" {
			fixed = append(fixed, s)
		}
	}
	if len(fixed) != 2 || fixed[0].Command != "npx tsc" || fixed[0].KeyLine != "src/b.ts(1,2): error TS2322: x" || fixed[0].ResolvedBy != "`npx tsc` passed at 10:08" {
		t.Errorf("resolved lines parsed as %+v", fixed)
	}
	// A cap one short of every minimal form: the oldest resolved line goes
	// first, then the next.
	least := 0
	for least < 10000 && Fit(Block{Signals: sigs}, least).Omitted > 0 {
		least++
	}
	for k, gone := range []string{"go test ./a", "npx tsc"} {
		cut := Fit(Block{Signals: sigs}, least-1-k*75)
		out = RenderBlock(cut.Block)
		if cut.Omitted != k+1 || strings.Contains(out, gone) || !strings.Contains(out, "Error: unknown flag: --format") || !strings.Contains(out, "BLOCKED") {
			t.Errorf("cap %d: omitted %d\n%s", least-1-k*75, cut.Omitted, out)
		}
	}
	if UTF16Len("a😀é") != 4 {
		t.Errorf("UTF16Len = %d", UTF16Len("a😀é"))
	}
}

// TestFitCommands: a command of several lines is shown as its first line
// and a marker, a here-document's body never; a long line is cut.
func TestFitCommands(t *testing.T) {
	commit := "git commit -m \"$(cat <<'EOF'\nfix: the redirect\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\""
	script := "cat > /tmp/deploy.sh << 'SCRIPT'\n" + strings.Repeat("aws s3 cp dist s3://bucket --recursive\n", 80) + "SCRIPT\nbash /tmp/deploy.sh"
	sigs := []Signal{
		{Kind: KindError, Text: "Exit code 1\nerror: gpg failed to sign the data", KeyLine: "error: gpg failed to sign the data", Command: commit},
		{Kind: KindError, Text: "Exit code 255\nParameter validation failed:\nInvalid bucket name \"my bucket\"", KeyLine: "Invalid bucket name \"my bucket\"", Command: script},
		{Kind: KindError, Text: "Exit code 1", KeyLine: "Exit code 1", Command: "echo " + strings.Repeat("x", 400)},
	}
	out := RenderBlock(Fit(Block{Signals: sigs}, 10000).Block)
	for _, want := range []string{"command: git commit -m \"$(cat <<'EOF' ⟨+5 lines⟩\n", "command: cat > /tmp/deploy.sh << 'SCRIPT' ⟨+82 lines⟩\n", "Invalid bucket name"} {
		if !strings.Contains(out, want) {
			t.Errorf("block lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "aws s3 cp") || strings.Contains(out, "Co-Authored-By") {
		t.Errorf("a here-document's body is shown:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "command:") && UTF16Len(l) > maxCommandLine+len("command: ")+20 {
			t.Errorf("command line of %d characters", UTF16Len(l))
		}
	}
}

// FuzzFit: whatever the signals and the cap, the fitted block's rendering
// stays within the cap (an empty block aside, whose heading alone may
// exceed a cap below it), keeps every shown error's key line, and shows
// no command of several lines.
func FuzzFit(f *testing.F) {
	f.Add("Exit code 1\nError: unknown flag: --format", "lint --format json\nsecond line", "`npx tsc` passed at 10:00", "BLOCKED: keys\nmore", uint16(600), uint8(3))
	f.Add(strings.Repeat("x😀", 3000), "cat > a.sh << 'EOF'\nbody\nEOF", "", "STOP: now", uint16(10000), uint8(12))
	f.Add("", "", "r", "", uint16(0), uint8(0))
	f.Fuzz(func(t *testing.T, text, cmd, resolved, other string, limit uint16, n uint8) {
		if len(text)+len(cmd)+len(resolved)+len(other) > 1<<14 {
			t.Skip("inputs over 16 kB only cost time")
		}
		t0 := time.Date(2026, 2, 7, 10, 0, 0, 0, time.UTC)
		var sigs []Signal
		for i := range int(n % 16) {
			s := Signal{Kind: KindError, Text: fmt.Sprintf("%s\nline %d", text, i), KeyLine: KeyLine(text), Command: cmd, LastSeen: t0.Add(time.Duration(i) * time.Minute)}
			switch i % 4 {
			case 1:
				s.ResolvedBy = resolved
			case 2:
				s.Kind, s.KeyLine, s.Command = KindBlocked, "", ""
				s.Text = other
			case 3:
				s.Probe = true
			}
			sigs = append(sigs, s)
		}
		b := Block{Trigger: TriggerCompaction, Signals: sigs, Breaker: "stall: 0/5 | spin: 1/5 | decline: 0%", Task: other}
		got := Fit(b, int(limit))
		out := RenderBlock(got.Block)
		empty := RenderBlock(Block{Trigger: TriggerCompaction})
		if n := UTF16Len(out); n > int(limit) && (len(got.Block.Signals) > 0 || out != empty && n > UTF16Len(empty)) {
			t.Fatalf("limit %d: rendered %d code units:\n%s", limit, n, out)
		}
		if strings.Contains(out, metaCommand+"\n") {
			t.Fatalf("a command of several lines:\n%s", out)
		}
		for _, s := range got.Block.Signals {
			if s.Kind == KindError && s.ResolvedBy == "" && !strings.Contains(s.Text, s.KeyLine) {
				t.Fatalf("shown error %q lacks its key line %q", s.Text, s.KeyLine)
			}
			if s.Probe {
				t.Fatal("a probe is shown")
			}
		}
	})
}
