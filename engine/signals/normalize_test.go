package signals

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"fire-flow TypeError", "TypeError: Cannot read property 'token' of undefined at Object.<anonymous> (/app/src/auth.ts:42:13)", "TypeError: Cannot read property * of undefined at *"},
		{"fire-flow ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432", "connect ECONNREFUSED *:5432"},
		{"ts location", "src/a.ts(22,27): error TS2322: Type 'boolean' is not assignable", "src/a.ts(*): error TS2322: Type * is not assignable"},
		{"go location", "main.go:12:5: undefined: foo", "main.go:*: undefined: foo"},
		{"timestamp", "2026-01-23T14:30:52Z request failed", "* request failed"},
		{"uuid", "session 550e8400-e29b-41d4-a716-446655440000 expired", "session * expired"},
		{"hex address", "panic: nil map at 0xc000012345", "panic: nil map at *"},
		{"git sha", "checkpoint 7674489fb0a9 missing", "checkpoint * missing"},
		{"words stay", "accepted deadbeef facade", "accepted deadbeef facade"},
		{"numbers stay", "Exit code 2", "Exit code 2"},
		{"line N", "syntax error on line 17", "syntax error on line *"},
		{"whitespace", "a \t\n  b", "a b"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestHashSameErrorDifferentDetails(t *testing.T) {
	a := Hash("TypeError: Cannot read property 'a' of undefined at f (x.js:1:2)")
	b := Hash("TypeError: Cannot read property 'b' of undefined at g (y.js:9:9)")
	c := Hash("ReferenceError: x is not defined")
	if a != b {
		t.Errorf("same error shape hashed differently: %s vs %s", a, b)
	}
	if a == c {
		t.Errorf("different errors hashed the same")
	}
	if len(a) != 16 {
		t.Errorf("hash %q is not 16 hex digits", a)
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"TypeError: Cannot read property 'x' of undefined at f (a.js:3:9)",
		"connect ECONNREFUSED 127.0.0.1:5432",
		"2026-01-01T00:00:00Z 0xdeadbeef '\"`",
		"", "***", "a.b:1:2:3(4,5) line 9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if strings.Contains(n, "  ") || strings.TrimSpace(n) != n {
			t.Errorf("Normalize(%q) = %q keeps whitespace runs", s, n)
		}
		if Hash(s) != hashNormalized(n) {
			t.Errorf("Hash disagrees with Normalize")
		}
		// The literal prefilters never change a result: the rewrites
		// applied without them give the same strings.
		nm := newNormalizer()
		for _, rules := range [][]rewrite{nm.rules, nm.dedupRules} {
			all := make([]rewrite, len(rules))
			for i, r := range rules {
				r.need = nil
				all[i] = r
			}
			if got, want := applyRewrites(rules, s), applyRewrites(all, s); got != want {
				t.Errorf("prefiltered %q, unfiltered %q (input %q)", got, want, s)
			}
		}
	})
}

func BenchmarkNormalize(b *testing.B) {
	n := newNormalizer()
	in := strings.Repeat("TypeError: Cannot read property 'x' of undefined at f (/app/a.js:3:9) 2026-01-01T00:00:00Z\n", 20)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		n.apply(in)
	}
}

// TestDedupNormalize: the stop-signal normalisation removes what varies
// from run to run and keeps what names the thing.
func TestDedupNormalize(t *testing.T) {
	n := newNormalizer()
	tests := []struct {
		a, b string
		same bool
	}{
		{"error: Cannot find module 'react'", "error: Cannot find module 'left-pad'", false},
		{"error: Cannot find module '@chkit/core' from '/app/src/bin/config.ts'", "error: Cannot find module '@chkit/core' from '/app/src/bin/schema-loader.ts'", false},
		{"./parse.go:12:2: undefined: tokenize", "./parse.go:40:9: undefined: tokenize", true},
		{"./parse.go:12:2: undefined: tokenize", "./parse.go:12:2: undefined: lex", false},
		{"Writing patch to /tmp/tmp-2101-KUbIvUViN7hm/pull.patch failed", "Writing patch to /tmp/tmp-3304-a8Zq0pLmN2cd/pull.patch failed", true},
		{"open /var/folders/x1/ab12cd34/T/go-build123/b001/exe/main: permission denied", "open /var/folders/q9/zz98yy76/T/go-build777/b001/exe/main: permission denied", true},
		{`FAIL	github.com/acme/calc	0.004s`, `FAIL	github.com/acme/calc	1.250s`, true},
		{"(fail) sum > adds [0.52ms]", "(fail) sum > adds [12.00ms]", true},
		{"lint	fail	1m27s	https://github.com/x", "lint	fail	2m3s	https://github.com/x", true},
		{"(node:2101) UnhandledPromiseRejectionWarning: boom", "(node:4410) UnhandledPromiseRejectionWarning: boom", true},
		{"worker pid 4242 exited", "worker pid 977 exited", true},
		{"connect ECONNREFUSED 127.0.0.1:5432", "connect ECONNREFUSED 10.0.0.7:5432", true},
		{"connect ECONNREFUSED 127.0.0.1:5432", "connect ECONNREFUSED 127.0.0.1:6379", false},
		{`error: script "typecheck" exited with code 126`, `error: script "typecheck" exited with code 1`, false},
		{"2026-02-04T23:39:44.4982737Z request failed", "2026-02-05T01:02:03Z request failed", true},
	}
	for _, tt := range tests {
		na, nb := n.dedup(tt.a), n.dedup(tt.b)
		if (na == nb) != tt.same {
			t.Errorf("dedup(%q) = %q, dedup(%q) = %q; same = %v, want %v", tt.a, na, tt.b, nb, na == nb, tt.same)
		}
	}
	// Through Extract: two missing modules are two signals.
	sigs := Extract(nil, []Message{
		{ID: "a", Role: "tool", ToolName: "Bash", Command: "node index.js", IsError: true, Content: "Exit code 1\nError: Cannot find module 'react'"},
		{ID: "b", Role: "tool", ToolName: "Bash", Command: "node index.js", IsError: true, Content: "Exit code 1\nError: Cannot find module 'left-pad'"},
	}, nil)
	if len(sigs) != 2 {
		t.Errorf("two missing modules gave %d signals", len(sigs))
	}
}
