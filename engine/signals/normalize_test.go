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
