// Package redacttest holds, for tests only, fake but well-formed secrets of
// every form recite's redaction finds (engine/internal/redact), each in
// the context it is usually written in: the corpus the rules' own tests
// and the engine's end-to-end tests (no form reaches git, hook output or a
// prompt) share. The secrets are generated from fixed seeds, so they are
// the same on every run and none is written literally in the source. It
// imports no project package.
package redacttest

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
)

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

// Form is one fake but well-formed secret inside its usual context.
type Form struct {
	// Kind is the id of the rule that must find it.
	Kind string
	// Path is the file the text is read from ("" for any).
	Path string
	// Text holds the secret in its context.
	Text string
	// Secrets are the substrings of Text that must not survive redaction.
	Secrets []string
}

// basic is the credentials of an HTTP Basic header (RFC 7617).
func basic(user, password string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
}

// Forms returns every form, the same on every call: vendors' tokens,
// private keys, HTTP credentials, passwords and .env values.
func Forms() []Form {
	p := func(kind, before, secret, after string) Form {
		return Form{Kind: kind, Text: before + secret + after, Secrets: []string{secret}}
	}
	rsaBody := []string{gen(b64, 64, 101), gen(b64, 64, 102), gen(b64, 64, 103), gen(b64, 40, 104) + "=="}
	sshBody := []string{gen(b64, 70, 105), gen(b64, 70, 106), gen(b64, 70, 107)}
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ." + gen(wordDsh, 43, 108)
	list := []Form{
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
		{Kind: "private-key", Text: "key.pem:\n-----BEGIN RSA PRIVATE KEY-----\n" + strings.Join(rsaBody, "\n") + "\n-----END RSA PRIVATE KEY-----\nnext line\n", Secrets: rsaBody},
		{Kind: "private-key", Text: `{"private_key": "-----BEGIN OPENSSH PRIVATE KEY-----\n` + strings.Join(sshBody, `\n`) + `\n-----END OPENSSH PRIVATE KEY-----\n"}`, Secrets: sshBody},
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
		// Twilio's account SID with its auth token, a Google OAuth
		// access token (docs/formats.md#secrets-in-committed-files).
		{Kind: "twilio-auth-token", Text: "client = Client(\"AC" + gen(hexd, 32, 59) + "\", auth " + gen(hexd, 32, 60) + ")\n",
			Secrets: []string{gen(hexd, 32, 59), gen(hexd, 32, 60)}},
		p("twilio-account-sid", "TWILIO_ACCOUNT_SID=", "AC"+gen(hexd, 32, 61), "\n"),
		p("google-oauth-access-token", "Authorization header: ", "ya29.a0"+gen(wordDsh, 120, 62), "\n"),
		p("google-oauth-access-token", `{"access_token":"`, "ya29."+gen(wordDsh, 150, 63), `","expires_in":3599}`),
		{Kind: "env-value", Path: "app/.env", Text: "# local\nSESSION_SECRET=" + "averylongsessionvalue\nexport REDIS_HOST=cache.internal\nPORT=8080\n",
			Secrets: []string{"averylongsessionvalue", "cache.internal"}},
	}
	return list
}

// Alnum is the alphabet of letters and digits, for Gen.
const Alnum = alnum

// Gen returns n characters from alphabet, the same for the same seed: a
// well-formed fake secret that is not literal in the test's source.
func Gen(alphabet string, n int, seed uint64) string { return gen(alphabet, n, seed) }
