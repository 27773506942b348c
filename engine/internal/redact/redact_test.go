package redact

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/recite-dev/recite/engine/internal/redact/redacttest"
	"github.com/recite-dev/recite/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite testdata/realdata-findings.golden")

// testKey is the placeholder key of the tests, so placeholders are fixed.
var testKey = []byte("recite-test-key-0123456789abcdef")

// planted is one fake but well-formed secret inside its usual context.
type planted struct {
	kind   string // expected rule id
	path   string
	text   string
	secret []string // substrings that must not survive
}

// corpus is redacttest.Forms as planted secrets.
func corpus() []planted {
	var out []planted
	for _, f := range redacttest.Forms() {
		out = append(out, planted{kind: f.Kind, path: f.Path, text: f.Text, secret: f.Secrets})
	}
	return out
}

func TestRedactCorpus(t *testing.T) {
	r, err := New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	c := corpus()
	if len(c) < 30 {
		t.Fatalf("corpus has %d forms, want ≥ 30", len(c))
	}
	for _, pl := range c {
		t.Run(pl.kind, func(t *testing.T) {
			out, findings := r.Redact(pl.path, pl.text)
			for _, s := range pl.secret {
				if strings.Contains(out, s) {
					t.Errorf("secret %q survived:\n%s", s, out)
				}
			}
			kinds := map[string]bool{}
			for _, f := range findings {
				kinds[f.Kind] = true
				if !strings.Contains(out, f.Placeholder) {
					t.Errorf("placeholder %s not in output", f.Placeholder)
				}
			}
			if !kinds[pl.kind] {
				t.Errorf("findings %+v lack kind %s", findings, pl.kind)
			}
			again, more := r.Redact(pl.path, out)
			if again != out || len(more) != 0 {
				t.Errorf("not idempotent: second pass found %+v", more)
			}
		})
	}
}

func TestRedactPlaceholderAndLine(t *testing.T) {
	r, err := New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	tok := "ghp_" + redacttest.Gen(redacttest.Alnum, 36, 9)
	text := "line one\nline two\nuse " + tok + " here\nand again " + tok + "\n"
	out, findings := r.Redact("notes.md", text)
	// HMAC-SHA256 of tok with testKey, first 8 hex digits, from
	// `printf %s TOKEN | openssl dgst -sha256 -hmac recite-test-key-0123456789abcdef`.
	want := "⟨secret:github-pat:f5c901f6⟩"
	if got := Placeholder(testKey, "github-pat", tok); got != want {
		t.Fatalf("Placeholder = %q, want %q", got, want)
	}
	// Not the unkeyed hash: `printf %s TOKEN | sha256sum | cut -c1-8`
	// must not confirm a guess.
	if strings.Contains(out, "d5c294ee") {
		t.Errorf("placeholder is the unkeyed sha256 of the secret:\n%s", out)
	}
	other, err := New([]byte("another-project-key-0123456789ab"))
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := other.Redact("notes.md", text); o == out {
		t.Errorf("two keys gave the same placeholders:\n%s", o)
	}
	if _, err := New([]byte("short")); err == nil {
		t.Error("New accepted a 5-byte key")
	}
	if len(findings) != 2 || findings[0].Line != 3 || findings[1].Line != 4 {
		t.Fatalf("findings = %+v, want two on lines 3 and 4", findings)
	}
	wantOut := "line one\nline two\nuse " + want + " here\nand again " + want + "\n"
	if out != wantOut {
		t.Errorf("out = %q, want %q", out, wantOut)
	}
}

// TestRedactProse checks ordinary planning prose, code and markdown pass
// through unchanged.
func TestRedactProse(t *testing.T) {
	r, err := New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"# Token budget\n\nWARNING at 70%, CRITICAL at 85%. The key decision: keep the stable prefix.\n",
		"- [ ] Add password reset flow (Password: required, min 12 chars)\n- [x] Auth middleware\n",
		"```go\nkey := m.Key()\ntoken, err := parse(input)\nsecret := cfg.Secret\n```\n",
		"| Phase | Status |\n|---|---|\n| 3.5d | BLOCKED: api timeout |\n",
		"commit 3f2a9c1e8d7b6a5f4e3d2c1b0a9f8e7d6c5b4a39\nAuthor: Jane <jane@example.com>\n",
		"export const API_URL = process.env.API_URL;\nconst password = process.env.DB_PASSWORD;\n",
		"Run `recite files --why .env` to see why a file is excluded.\n",
		"session_key: sessionKeyName\nprimary_key: id\naccess: read-only\n",
		"### D-23-02 — Source authorization = POLICY-01 edit right on the recipe's own cookbook\n",
		"Bearer tokens expire after an hour; send `Authorization: Bearer <token>` or Authorization: Bearer YOUR_API_TOKEN.\n",
		"Use Basic authentication (Basic realm) for the admin area; Basic dXNlcg== has no password.\n",
		"curl -u $USER:$PASS https://x\ncurl -u admin:changeme https://x\ncurl -H \"Authorization: Bearer $TOKEN\" https://x\n",
		"url: redis://cache:6379/0 and http://:8080/ and postgres://localhost/db\n",
		"password:\n  secretKeyRef:\n    name: db\n",
		"**Password:**\n\nMust be at least 12 characters.\n",
		"- password:\n  - required\n",
	}
	for _, s := range texts {
		if out, f := r.Redact("doc.md", s); out != s {
			t.Errorf("prose changed (%+v):\n%s\n→\n%s", f, s, out)
		}
	}
}

// TestRealdataFalsePositives runs the redactor over every text file of
// ../shared/realdata and compares the findings with the reviewed list in
// testdata/realdata-findings.golden (-update rewrites it). Each entry there
// was read by hand; see the report for the count.
func TestRealdataFalsePositives(t *testing.T) {
	skipUnderRace(t)
	root := filepath.Join(sharedtest.Dir(t), "realdata")
	r, err := New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	bytes := 0
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		bytes += len(data)
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		out, findings := r.Redact(rel, string(data))
		if len(findings) == 0 && out != string(data) {
			t.Errorf("%s changed without findings", rel)
		}
		for _, f := range findings {
			lines = append(lines, rel+":"+itoa(f.Line)+"\t"+f.Kind+"\t"+f.Placeholder)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "realdata-findings.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("findings on realdata changed; review and run -update:\n%s", got)
	}
	t.Logf("%d findings in %d bytes of realdata", len(lines), bytes)
}

func itoa(n int) string { return strconv.Itoa(n) }

func FuzzRedact(f *testing.F) {
	for _, pl := range corpus() {
		f.Add(pl.path, pl.text)
	}
	f.Add("", "")
	f.Add(".env", "A=\nB='x'\n=c\n")
	f.Add("x.md", "password: ⟨secret:password:00000000⟩")
	f.Add("x", "-----BEGIN PRIVATE KEY-----\xff\xfe")
	r, err := New(testKey)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, path, text string) {
		out, findings := r.Redact(path, text)
		if len(findings) == 0 && out != text {
			t.Fatalf("changed without findings")
		}
		lines := strings.Count(text, "\n") + 1
		for _, fd := range findings {
			if fd.Line < 1 || fd.Line > lines || !strings.Contains(out, fd.Placeholder) {
				t.Fatalf("bad finding %+v", fd)
			}
		}
		again, _ := r.Redact(path, out)
		if again != out {
			t.Fatalf("second pass changed the output:\n%q\n%q", out, again)
		}
	})
}

// BenchmarkRedact redacts 1 MiB of planning prose with the corpus in it,
// with recite's rules ("all") and, for the ratio, with the hand-written
// rules alone ("hand"), the rule set before the gitleaks rules were
// generated in.
func BenchmarkRedact(b *testing.B) {
	for _, set := range []struct {
		name  string
		specs []ruleSpec
	}{{"hand", handSpecs()}, {"all", ruleSpecs()}} {
		b.Run(set.name, func(b *testing.B) {
			r, err := newWith(testKey, set.specs)
			if err != nil {
				b.Fatal(err)
			}
			benchRedact(b, r)
		})
	}
}

func benchRedact(b *testing.B, r *Redactor) {
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString("## Decisions\n\n- [Phase 3]: keep the token budget at 85% (see STATE.md).\n```go\nkey := cfg.Key()\n```\n")
	}
	for _, pl := range corpus() {
		sb.WriteString(pl.text)
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		r.Redact("notes.md", text)
	}
}

// TestGitleaksAllowlists checks the ported generic-api-key stopwords and
// line allowlist and gitleaks' global allowlist: the realdata false
// positives stay as written, while a real key beside them is still found.
func TestGitleaksAllowlists(t *testing.T) {
	r, err := New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		kind string // "" for no finding
	}{
		{`{ "client_secret": "sk_example_123456789" }`, ""},                                 // stopword "example"
		{"Token eligibility: totalSmartBuysLast24h=0 AND x", ""},                            // "last"
		{"add AUTH_PROVIDER_WORKOS key, AuthProviderWorkOSSchema/Input + types", ""},        // "input"
		{"set `WORKOS_AUTHKIT_DOMAIN=manageable-invention-37-staging.authkit.app` now", ""}, // "manage"
		{"`--mount=type=secret,id=HEROUI_AUTH_TOKEN` + secrets", ""},                        // line allowlist
		{"store target with KeyNode=targetKey, ValueNode=targetVal.", ""},                   // "node"
		{"api_token = ${API_TOKEN_VALUE}", ""},                                              // global ${VAR}
		{`client_secret = "Zx8Kq2Lm9Np4Rt7Vw1Yb3Hs6"`, "generic-api-key"},                   // still a secret
		{"MASTER_KEY: X4fjLgB8egCPwlOQW8iC3JGXAtUIMUOGmk/y29n+YSw=", "generic-api-key"},     // realdata, kept
	}
	for _, tt := range tests {
		_, fs := r.Redact("notes.md", tt.in)
		switch {
		case tt.kind == "" && len(fs) > 0:
			t.Errorf("%q: false positive %+v", tt.in, fs)
		case tt.kind != "" && (len(fs) != 1 || fs[0].Kind != tt.kind):
			t.Errorf("%q: findings %+v, want one %s", tt.in, fs, tt.kind)
		}
	}
}

// TestRulesCompile compiles every expression of every rule, which New
// leaves to a rule's first use: a rule that does not compile would
// otherwise fail only on a text holding its keyword.
func TestRulesCompile(t *testing.T) {
	for _, s := range ruleSpecs() {
		for _, src := range slices.Concat([]string{s.regex, s.paths}, s.allow, s.allowMatch, s.allowLine) {
			if _, err := regexp.Compile(src); err != nil {
				t.Errorf("rule %s: %v", s.id, err)
			}
		}
	}
	for _, src := range globalAllow {
		if _, err := regexp.Compile(src); err != nil {
			t.Errorf("global allowlist: %v", err)
		}
	}
	r, err := New(make([]byte, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	for _, ru := range r.rules {
		ru.compile()
		if ru.re == nil || len(ru.allow) != len(ru.spec.allow) || len(ru.allowMatch) != len(ru.spec.allowMatch) || len(ru.allowLine) != len(ru.spec.allowLine) {
			t.Errorf("rule %s: not compiled whole", ru.id)
		}
	}
	if len(r.rules) == 0 || len(r.rules[0].global()) != len(globalAllow) {
		t.Error("global allowlist not compiled")
	}
}

// skipUnderRace skips a test that runs the rules over megabytes in one
// goroutine: the race detector has nothing to find there and makes it ten
// times slower; make test runs it without -race (REDACT_TESTS).
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("single-goroutine scan of real data: make test runs it without -race")
	}
}

// TestRedactConcurrent redacts from many goroutines with one Redactor,
// whose rules compile on first use (sync.Once): every result is the
// single-goroutine one. The race detector checks the sharing.
func TestRedactConcurrent(t *testing.T) {
	r, err := New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	forms := corpus()
	want := make([]string, len(forms))
	ref, _ := New(testKey)
	for i, f := range forms {
		want[i], _ = ref.Redact(f.path, f.text)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range forms {
				k := (i + g*7) % len(forms)
				if got, _ := r.Redact(forms[k].path, forms[k].text); got != want[k] {
					t.Errorf("goroutine %d, form %d: %q, want %q", g, k, got, want[k])
				}
			}
		}()
	}
	wg.Wait()
}
