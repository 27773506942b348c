package redact

import (
	"encoding/base64"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite testdata/realdata-findings.golden")

// testKey is the placeholder key of the tests, so placeholders are fixed.
var testKey = []byte("recite-test-key-0123456789abcdef")

// gen returns n characters from alphabet, the same for the same seed, so
// the planted secrets are well-formed, fixed, and not literal in the source.
func gen(alphabet string, n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 42))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	upper   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower   = "abcdefghijklmnopqrstuvwxyz"
	digits  = "0123456789"
	alnum   = upper + lower + digits
	hexd    = "0123456789abcdef"
	b64     = alnum + "+/"
	word    = alnum + "_"
	wordDsh = alnum + "_-"
)

// planted is one fake but well-formed secret inside its usual context.
type planted struct {
	kind   string // expected rule id
	path   string
	text   string
	secret []string // substrings that must not survive
}

// basic is the credentials of an HTTP Basic header (RFC 7617).
func basic(user, password string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
}

func corpus() []planted {
	p := func(kind, before, secret, after string) planted {
		return planted{kind: kind, text: before + secret + after, secret: []string{secret}}
	}
	rsaBody := []string{gen(b64, 64, 101), gen(b64, 64, 102), gen(b64, 64, 103), gen(b64, 40, 104) + "=="}
	sshBody := []string{gen(b64, 70, 105), gen(b64, 70, 106), gen(b64, 70, 107)}
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ." + gen(wordDsh, 43, 108)
	list := []planted{
		p("aws-access-token", "aws_access_key_id = ", "AKIA"+gen(upper+"234567", 16, 1), "\n"),
		p("aws-secret-access-key", "aws_secret_access_key = ", gen(b64, 40, 2), "\n"),
		p("gcp-api-key", `const key = "`, "AIza"+gen(wordDsh, 35, 3), `";`),
		p("azure-ad-client-secret", `clientSecret: "`, gen(alnum, 3, 4)+"8Q~"+gen(alnum+"_~.-", 34, 5), `"`),
		p("azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=", gen(b64, 86, 6)+"==", ";EndpointSuffix=core.windows.net"),
		p("digitalocean-pat", "DO_TOKEN ", "dop_v1_"+gen(hexd, 64, 7), "\n"),
		p("heroku-api-key-v2", "heroku: ", "HRKU-AA"+gen(wordDsh, 58, 8), "\n"),
		p("github-pat", "token ", "ghp_"+gen(alnum, 36, 9), " expired"),
		p("github-fine-grained-pat", "GH=", "github_pat_"+gen(word, 82, 10), "\n"),
		p("github-oauth", "", "gho_"+gen(alnum, 36, 11), ""),
		p("github-app-token", "installation: ", "ghs_"+gen(alnum, 36, 12), "."),
		p("github-refresh-token", "refresh ", "ghr_"+gen(alnum, 36, 13), "\n"),
		p("gitlab-pat", "git clone https://oauth2:", "glpat-"+gen(wordDsh, 20, 14), "@gitlab.com/x/y.git"),
		p("gitlab-ptt", "TRIGGER=", "glptt-"+gen(hexd, 40, 15), "\n"),
		p("gitlab-rrt", "runner ", "GR1348941"+gen(wordDsh, 20, 16), "\n"),
		p("npm-access-token", "//registry.npmjs.org/:_authToken=", "npm_"+gen(lower+digits, 36, 17), "\n"),
		p("pypi-upload-token", "password = ", "pypi-AgEIcHlwaS5vcmc"+gen(wordDsh, 60, 18), "\n"),
		p("slack-bot-token", "SLACK_BOT=", "xoxb-"+gen(digits, 11, 19)+"-"+gen(digits, 12, 20)+"-"+gen(alnum, 24, 21), "\n"),
		p("slack-user-token", "slack ", "xoxp-"+gen(digits, 11, 22)+"-"+gen(digits, 11, 23)+"-"+gen(digits, 12, 24)+"-"+gen(alnum, 32, 25), "\n"),
		p("slack-app-token", "app ", "xapp-1-A"+gen(upper+digits, 10, 26)+"-"+gen(digits, 13, 27)+"-"+gen(hexd, 64, 28), "\n"),
		p("slack-webhook-url", "webhook: ", "https://hooks.slack.com/services/T"+gen(upper+digits, 8, 29)+"/B"+gen(upper+digits, 8, 30)+"/"+gen(alnum, 24, 31), "\n"),
		p("discord-api-token", "discord_bot_token = ", gen(hexd, 64, 32), "\n"),
		p("telegram-bot-api-token", "TELEGRAM_TOKEN=", gen(digits, 9, 33)+":A"+gen(alnum+"_-", 34, 34), "\n"),
		p("stripe-access-token", "Stripe::api_key = '", "sk_live_"+gen(alnum, 24, 35), "'"),
		p("sendgrid-api-token", "SENDGRID ", "SG."+gen(alnum+"_-", 22, 36)+"."+gen(alnum+"_-", 43, 37), "\n"),
		p("mailgun-private-api-token", "mailgun_api_key: ", "key-"+gen(hexd, 32, 38), "\n"),
		p("twilio-api-key", "twilio sid ", "SK"+gen(hexd, 32, 39), "\n"),
		p("shopify-access-token", "X-Shopify-Access-Token: ", "shpat_"+gen(hexd, 32, 40), "\n"),
		p("openai-api-key", "OPENAI_API_KEY ", "sk-proj-"+gen(alnum+"_-", 74, 41)+"T3BlbkFJ"+gen(alnum+"_-", 74, 42), "\n"),
		p("anthropic-api-key", "export ANTHROPIC ", "sk-ant-api03-"+gen(alnum+"_-", 93, 43)+"AA", "\n"),
		p("huggingface-access-token", "HF ", "hf_"+gen(lower+upper, 34, 44), "\n"),
		{kind: "private-key", text: "key.pem:\n-----BEGIN RSA PRIVATE KEY-----\n" + strings.Join(rsaBody, "\n") + "\n-----END RSA PRIVATE KEY-----\nnext line\n", secret: rsaBody},
		{kind: "private-key", text: `{"private_key": "-----BEGIN OPENSSH PRIVATE KEY-----\n` + strings.Join(sshBody, `\n`) + `\n-----END OPENSSH PRIVATE KEY-----\n"}`, secret: sshBody},
		p("jwt", "Authorization: Bearer ", jwt, "\n"),
		p("password", `DB_PASSWORD="`, "hunter22", `"`+"\n"),
		p("password", "password: ", "s3cr3t!x", "\n"),
		p("password", `{"password": "`, "correct-horse-battery-staple", `"}`),
		p("url-credentials", "DATABASE_URL is postgres://admin:", "Sup3rS3cret", "@db.example.com:5432/app\n"),
		p("generic-api-key", `api_key = "`, gen(hexd, 32, 45), `"`),
		// Tokens followed by punctuation, HTTP credentials, an empty URL user,
		// a password on the next line.
		p("stripe-access-token", "const u=`https://api.stripe.com/v1/charges?key=", "sk_live_"+gen(alnum, 24, 46), "&limit=3`;"),
		p("stripe-access-token", "const s = stripe(", "sk_live_"+gen(alnum, 24, 47), ");"),
		p("stripe-access-token", "keys: ", "rk_live_"+gen(alnum, 24, 48), ", then"),
		p("jwt", "token ", jwt, "."),
		p("jwt", "session(", jwt, ")"),
		p("authorization-header", `const h={Authorization:"Bearer `, gen(hexd, 40, 49), `"};`),
		p("authorization-header", "Authorization: Token ", gen(alnum, 32, 50), "\r\n"),
		p("authorization-header", `req.Header.Set("Authorization", "Basic `, basic("admin", gen(alnum, 14, 51)), `")`),
		p("basic-auth", `const b="Basic `, basic("admin", gen(alnum, 14, 52)), `";`),
		p("bearer-token", `headers: {"X-Auth": "Bearer `, gen(wordDsh, 32, 53), `"}`),
		p("curl-auth-header", `curl -s -H "X-Api-Key: `, gen(alnum, 32, 54), `" https://api.example.com/v1`),
		p("curl-auth-user", "curl -u admin:", gen(alnum, 16, 55), " https://api.example.com/v1"),
		p("url-credentials", `const r="redis://:`, gen(alnum, 16, 56), `@cache:6379";`),
		p("password", "database:\n  password:\n    ", gen(alnum, 12, 57), "\n  user: app\n"),
		p("password", "db_password: |\n  ", gen(alnum+"!#%", 14, 58), "\n"),
		{kind: "env-value", path: "app/.env", text: "# local\nSESSION_SECRET=" + "averylongsessionvalue\nexport REDIS_HOST=cache.internal\nPORT=8080\n",
			secret: []string{"averylongsessionvalue", "cache.internal"}},
	}
	return list
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
	tok := "ghp_" + gen(alnum, 36, 9)
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

func BenchmarkRedact(b *testing.B) {
	r, err := New(testKey)
	if err != nil {
		b.Fatal(err)
	}
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
