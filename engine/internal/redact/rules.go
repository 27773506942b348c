package redact

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strings"
	"unicode/utf8"
)

// The rules below are ported from gitleaks v8.30.1 config/gitleaks.toml
// (github.com/zricethezav/gitleaks, MIT License, Copyright (c) 2019 Zachary
// Rice): same ids, same regular expressions, same entropy floors, keywords
// reduced to the cheap prefilter below. Rules marked "recite" are ours.
//
// Two changes keep it fast with Go's regexp (no DFA, and no literal
// prefix to skip to after "(?i)" or "\b"): rules other than private-key and
// env-value run only on lines that contain one of their keywords, so a
// key and its value must share a line; and the leading "[\w.-]{0,50}?" of
// gitleaks' keyword rules is dropped from the regex and re-added by walking
// back over identifier bytes before the allowlist sees the match.
//
// Why a port and not the library: detect.NewDetectorDefaultConfig() works
// offline (the TOML is embedded), but gitleaks v8.30.1 requires 73 modules
// (viper, zerolog, lipgloss, mholt/archives with rar/7z/xz/brotli/zstd
// readers, go-gitdiff, sprig …) to scan a string; recite needs ~30 regular
// expressions.

// ruleSpec is one detection rule before compilation.
type ruleSpec struct {
	id string
	// regex finds the secret; capture group 1, when the regex has one and
	// it matched, is the secret, else the whole match.
	regex string
	// group, when not 0, is the capture group that holds the secret
	// (gitleaks "secretGroup").
	group int
	// entropy is the minimum Shannon entropy (bits per byte) of the
	// secret, 0 for none (gitleaks "entropy").
	entropy float64
	// keywords: the rule runs only if the lowercased text contains one
	// (gitleaks "keywords"); empty means always.
	keywords []string
	// allow lists regular expressions that, matching the secret, drop
	// the finding (gitleaks rule allowlists with regexTarget "secret").
	allow []string
	// allowMatch: the same against the whole match (regexTarget "match").
	allowMatch []string
	// allowLine: the same against the whole line of the match (regexTarget
	// "line").
	allowLine []string
	// stopwords drop a finding whose lowercased secret contains one
	// (gitleaks rule allowlist "stopwords").
	stopwords []string
	// paths restricts the rule to files whose slash path matches.
	paths string
	// whole runs the rule on the whole text; other rules run on single
	// lines that hold a keyword (see Redactor.Redact).
	whole bool
	// nextLine runs the rule on a line that holds a keyword together with
	// the lines before and after it, when there are (a key and its value
	// on two lines: "<token>\n  VALUE\n</token>", YAML block scalars).
	nextLine bool
	// check, when set, must accept the secret (e.g. basic-auth: it
	// decodes to user:password).
	check func(secret string) bool
}

// Token ends. gitleaks ends most tokens with (?:[\x60'"\s;]|\\[nr]|$): a
// quote, a space, ";", an escaped newline or the end of the line. That lets a
// token followed by "&", ")", ",", "." or any other punctuation through
// ("?key=sk_live_…&limit=3", "stripe(sk_live_…)", "token eyJ…."), so recite
// ends a token at any character that cannot continue it instead. Each end
// accepts everything gitleaks' end accepts (an escaped newline starts with a
// backslash).

// tokenEnd ends a token of word characters and "-": any other byte, or the
// end of the line.
const tokenEnd = `(?:[^\w-]|$)`

// b64End ends a base64 token (also "+", "/" and "=").
const b64End = `(?:[^\w+/=-]|$)`

// jwtEnd ends a JWT: its segments hold word characters, "-", "/", "\\" and
// a trailing "=" padding.
const jwtEnd = `(?:[^\w/\\=-]|$)`

// genericEnd ends the secret of generic-api-key, whose first form takes
// word characters, ".", "=" and "-" and the second base64.
const genericEnd = `(?:[^\w.=+/-]|$)`

// ruleSpecs are the rules, in the order they are tried: vendors first
// (cloud, code hosting, chat and payments; then the other gitleaks rules,
// generated in rules_gitleaks.go), then forms.
func ruleSpecs() []ruleSpec {
	return slices.Concat(cloudRules(), codeHostingRules(), serviceRules(), gitleaksRules(), formRules())
}

// cloudRules are the cloud providers' keys.
func cloudRules() []ruleSpec {
	return []ruleSpec{
		// Cloud providers.
		{id: "aws-access-token", regex: `\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b`, entropy: 3,
			keywords: []string{"a3t", "akia", "asia", "abia", "acca"}, allow: []string{`.+EXAMPLE$`}},
		{id: "aws-secret-access-key", // recite: the secret half, by its usual names
			regex:    `(?i)aws[\w.-]{0,20}secret[\w.-]{0,20}[\s'"]{0,3}(?:=|:|=>)[\x60'"\s]{0,5}([A-Za-z0-9/+=]{40})` + b64End,
			keywords: []string{"aws"}},
		{id: "gcp-api-key", regex: `\b(AIza[\w-]{35})` + tokenEnd, entropy: 4, keywords: []string{"aiza"}, allow: gcpAllow},
		{id: "azure-ad-client-secret", regex: `(?:^|[\\'"\x60\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\'"\x60\s<),])`, entropy: 3,
			keywords: []string{"q~"}},
		{id: "azure-storage-key", // recite: connection strings
			regex: `(?i)(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,88}={0,2})`, keywords: []string{"accountkey", "sharedaccesskey"}},
		{id: "digitalocean-pat", regex: `\b(dop_v1_[a-f0-9]{64})` + tokenEnd, entropy: 3, keywords: []string{"dop_v1_"}},
		{id: "heroku-api-key-v2", regex: `\b((HRKU-AA[0-9a-zA-Z_-]{58}))` + tokenEnd, entropy: 4, keywords: []string{"hrku-aa"}},
	}
}

// codeHostingRules are the tokens of code hosts and package registries.
func codeHostingRules() []ruleSpec {
	return []ruleSpec{
		// Code hosting.
		{id: "github-pat", regex: `ghp_[0-9a-zA-Z]{36}`, entropy: 3, keywords: []string{"ghp_"}},
		{id: "github-fine-grained-pat", regex: `github_pat_\w{82}`, entropy: 3, keywords: []string{"github_pat_"}},
		{id: "github-oauth", regex: `gho_[0-9a-zA-Z]{36}`, entropy: 3, keywords: []string{"gho_"}},
		{id: "github-app-token", regex: `(?:ghu|ghs)_[0-9a-zA-Z]{36}`, entropy: 3, keywords: []string{"ghu_", "ghs_"}},
		{id: "github-refresh-token", regex: `ghr_[0-9a-zA-Z]{36}`, entropy: 3, keywords: []string{"ghr_"}},
		{id: "gitlab-pat-routable", regex: `\bglpat-[0-9a-zA-Z_-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}\b`, entropy: 4, keywords: []string{"glpat-"}},
		{id: "gitlab-pat", regex: `glpat-[\w-]{20}`, entropy: 3, keywords: []string{"glpat-"}},
		{id: "gitlab-ptt", regex: `glptt-[0-9a-f]{40}`, entropy: 3, keywords: []string{"glptt-"}},
		{id: "gitlab-rrt", regex: `GR1348941[\w-]{20}`, entropy: 3, keywords: []string{"gr1348941"}},
		{id: "npm-access-token", regex: `(?i)\b(npm_[a-z0-9]{36})` + tokenEnd, entropy: 2, keywords: []string{"npm_"}},
		{id: "pypi-upload-token", regex: `pypi-AgEIcHlwaS5vcmc[\w-]{50,1000}`, entropy: 3, keywords: []string{"pypi-ageichlwas5vcmc"}},
	}
}

// serviceRules are the tokens of chat, payment, mail and AI services.
func serviceRules() []ruleSpec {
	return []ruleSpec{
		// Chat, payments, mail, AI.
		{id: "slack-bot-token", regex: `xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*`, entropy: 3, keywords: []string{"xoxb"}},
		{id: "slack-user-token", regex: `xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}`, entropy: 2, keywords: []string{"xoxp-", "xoxe-"}},
		{id: "slack-app-token", regex: `(?i)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`, entropy: 2, keywords: []string{"xapp"}},
		{id: "slack-legacy-token", regex: `xox[os]-\d+-\d+-\d+-[a-fA-F\d]+`, entropy: 2, keywords: []string{"xoxo", "xoxs"}},
		{id: "slack-webhook-url", regex: `(?:https?://)?hooks.slack.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}`, keywords: []string{"hooks.slack.com"}},
		{id: "discord-api-token", regex: `(?i)(?:discord)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([a-f0-9]{64})` + tokenEnd, nextLine: true, keywords: []string{"discord"}},
		{id: "telegram-bot-api-token", regex: `(?i)(?:telegr)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([0-9]{5,16}:(?-i:A)[a-z0-9_\-]{34})` + tokenEnd, nextLine: true, keywords: []string{"telegr"}},
		{id: "stripe-access-token", regex: `\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})` + tokenEnd, entropy: 2, keywords: []string{"sk_test", "sk_live", "sk_prod", "rk_test", "rk_live", "rk_prod"}},
		{id: "sendgrid-api-token", regex: `\b(SG\.(?i)[a-z0-9=_\-\.]{66})` + tokenEnd, entropy: 2, keywords: []string{"sg."}},
		{id: "mailgun-private-api-token", regex: `(?i)(?:mailgun)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}(key-[a-f0-9]{32})` + tokenEnd, nextLine: true, keywords: []string{"mailgun"}},
		{id: "twilio-api-key", regex: `SK[0-9a-fA-F]{32}`, entropy: 3, keywords: []string{"sk"}},
		{id: "twilio-account-sid", // recite: the account SID that goes with an auth token (AC + 32 hex)
			regex: `AC[0-9a-f]{32}\b`, entropy: 3, keywords: []string{"ac"}, whole: true},
		{id: "twilio-auth-token", // recite: a Twilio auth token (32 hex) after its name, "auth" or "twilio"
			regex:   `(?i)(?:twilio|auth)[\w.-]{0,20}[\s'"]{0,3}(?:=|:|=>|,|[ \t])[\x60'"\s]{0,5}([a-f0-9]{32})\b`,
			entropy: 3, keywords: []string{"twilio", "auth"}, nextLine: true},
		{id: "google-oauth-access-token", // recite: Google OAuth 2.0 access tokens
			regex: `\b(ya29\.[\w-]{20,})` + tokenEnd, entropy: 3, keywords: []string{"ya29."}},
		{id: "shopify-access-token", regex: `shpat_[a-fA-F0-9]{32}`, entropy: 2, keywords: []string{"shpat_"}},
		{id: "openai-api-key", regex: `\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})` + tokenEnd, entropy: 3, keywords: []string{"t3blbkfj"}},
		{id: "anthropic-api-key", regex: `\b(sk-ant-api03-[a-zA-Z0-9_\-]{93}AA)` + tokenEnd, keywords: []string{"sk-ant-api03"}},
		{id: "anthropic-admin-api-key", regex: `\b(sk-ant-admin01-[a-zA-Z0-9_\-]{93}AA)` + tokenEnd, keywords: []string{"sk-ant-admin01"}},
		{id: "huggingface-access-token", regex: `\b(hf_(?i:[a-z]{34}))` + tokenEnd, entropy: 2, keywords: []string{"hf_"}},
	}
}

// formRules are secrets known by their form, not their vendor: private
// keys, JWTs, HTTP credentials and generic assignments.
func formRules() []ruleSpec {
	return []ruleSpec{
		// Forms, not vendors.
		{id: "private-key", regex: `(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----`, keywords: []string{"-----begin"}, whole: true},
		{id: "jwt", regex: `\b(ey[a-zA-Z0-9]{17,}\.ey[a-zA-Z0-9\/\\_-]{17,}\.(?:[a-zA-Z0-9\/\\_-]{10,}={0,2})?)` + jwtEnd, entropy: 3, keywords: []string{"eyj"}}, // gitleaks: "ey"; a JWT header is base64 of {" = eyJ
		// HTTP credentials. gitleaks (v8.30.1) finds them only in curl
		// commands (curl-auth-header, curl-auth-user, ported below); the
		// recite rules find the same header grammar anywhere: HTTP dumps,
		// JS header objects, YAML, fetch calls.
		{id: "curl-auth-header", regex: `\bcurl\b(?:.*?|.*?(?:[\r\n]{1,2}.*?){1,5})[ \t\n\r](?:-H|--header)(?:=|[ \t]{0,5})(?:"` + curlHeader + `"|'` + curlHeader + `')(?:\B|\s|\z)`,
			entropy: 2.75, keywords: []string{"curl"}, whole: true},
		{id: "curl-auth-user", // gitleaks, with its `"KEY:"` form (an API key as the user, Stripe's way)
			regex:   `\bcurl\b(?:.*|.*(?:[\r\n]{1,2}.*){1,5})[ \t\n\r](?:-u|--user)(?:=|[ \t]{0,5})("(?::[^"]{3,}|[^:"]{3,}:|[^:"]{3,}:[^"]{3,})"|'(?:[^:']{3,}:[^']{3,})'|(?:(?:"[^"]{3,}"|'[^']{3,}'|[\w$@.-]+):(?:"[^"]{3,}"|'[^']{3,}'|[\w${}@.-]+)))(?:\s|\z)`,
			entropy: 2, keywords: []string{"curl"}, whole: true,
			allow: []string{`[^:]+:(?:change(?:it|me)|pass(?:word)?|pwd|test|token|\*+|x+)`,
				`['"]?<[^>]+>['"]?:['"]?<[^>]+>|<[^:]+:[^>]+>['"]?`,
				`[^:]+:\[[^]]+]`,
				`['"]?[^:]+['"]?:['"]?\$(?:\d|\w+|\{(?:\d|\w+)})['"]?`,
				`\$\([^)]+\):\$\([^)]+\)`,
				`['"]?\$?{{[^}]+}}['"]?:['"]?\$?{{[^}]+}}['"]?`}},
		{id: "authorization-header", // recite: "Authorization: Bearer|Basic|Token X" in any syntax
			regex:   `(?i)\b(?:proxy-)?authorization["'\x60]?[ \t]*(?:=>|:=|:|=|,)[ \t]*["'\x60]?[ \t]*` + authValue,
			entropy: 2.75, keywords: []string{"authorization"},
			allow: []string{`^[a-zA-Z_.-]+$`}}, // "Authorization: required", "Bearer YOUR_TOKEN"
		{id: "bearer-token", // recite: a bearer token without its header name ("Bearer " + literal)
			regex:   `(?i)\bbearer[ \t]+([\w~+/.=-]{16,})`,
			entropy: 3, keywords: []string{"bearer"},
			allow: []string{`^[a-zA-Z_.-]+$`}},
		{id: "basic-auth", // recite: "Basic BASE64" whose base64 decodes to user:password
			regex: `\b(?i:basic)[ \t]+([A-Za-z0-9+/]{8,}={0,3})` + b64End, keywords: []string{"basic"},
			check: isBasicCredential},
		{id: "url-credentials", // recite: user:password@host in URLs; the user may be empty (redis://:pw@host)
			regex: `\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@'"\x60<>]*:([^\s:/@'"\x60<>]{3,})@[\w.-]+`, keywords: []string{"://"},
			allow: []string{`^(?:\$\{?\w+\}?|\*+|x+|<[^>]*>|password|pass|pwd|secret|changeme)$`}},
		{id: "password", // recite: password assignments, even low-entropy ones
			regex:    `(?i)(?:\b|_)(?:passw(?:or)?d|passwd|pwd|passphrase)\b["']?[ \t]*(?:=|:=|=>|:)[ \t]*(?:"([^"\s]{4,200})"|'([^'\s]{4,200})'|([^\s"'\x60,;)]{4,200}))`,
			keywords: []string{"pass", "pwd"},
			allow: []string{passwordAllow,
				`^[A-Za-z][a-z]+$`}, // a plain word is prose: "Password: required", "password: Hashed"
		},
		{id: "password", // recite: the value on the line after the key ("password:\n  hunter22", YAML block scalars, "**Password:**\n`x`")
			regex:    `(?i)(?:\b|_)(?:passw(?:or)?d|passwd|pwd|passphrase)\b[*"'\x60]*[ \t]*(?:=|:=|=>|:)[*\x60]*[ \t]*(?:[|>][-+]?[ \t]*)?\r?\n[ \t]*(?:"([^"\s]{4,200})"|'([^'\s]{4,200})'|\x60([^\x60\s]{4,200})\x60|([^\s"'\x60]{4,200}))[ \t\r]*$`,
			keywords: []string{"pass", "pwd"}, nextLine: true,
			allow: []string{passwordAllow, `^[A-Za-z][a-z]+$`, `:$`, `^[-#/]`}, // a YAML key ("secretKeyRef:"), a list item, a comment
		},
		{id: "env-value", // recite: every value of a .env file (not .env.example)
			regex: `(?m)^[ \t]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_.]*[ \t]*=[ \t]*(?:"([^"\n]+)"|'([^'\n]+)'|([^\s#"'][^\n#]*?))[ \t]*(?:#.*)?$`,
			paths: `(?:^|/)\.env(?:\.[\w.-]+)?$`, whole: true,
			allow: []string{`^(?:true|false|yes|no|on|off|\d{1,6}|localhost|development|production|test|staging|debug|info|warn|error)$`}},
		{id: "generic-api-key",
			regex:      `(?i)(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})` + genericEnd,
			nextLine:   true,
			entropy:    3.5,
			keywords:   []string{"access", "api", "auth", "key", "credential", "creds", "passwd", "password", "secret", "token"},
			allow:      []string{`^[a-zA-Z_.-]+$`},
			allowLine:  []string{`--mount=type=secret,`, `import[ \t]+{[ \t\w,]+}[ \t]+from[ \t]+['"][^'"]+['"]`},
			stopwords:  genericStopwords,
			allowMatch: []string{`(?i)(?:access(?:ibility|or)|access[_.-]?id|random[_.-]?access|api[_.-]?(?:id|name|version)|rapid|capital|[a-z0-9-]*?api[a-z0-9-]*?:jar:|author|X-MS-Exchange-Organization-Auth|Authentication-Results|(?:credentials?[_.-]?id|withCredentials)|(?:bucket|foreign|hot|idx|natural|primary|pub(?:lic)?|schema|sequence)[_.-]?key|(?:turkey)|key[_.-]?(?:alias|board|code|frame|id|length|mesh|name|pair|press(?:ed)?|ring|selector|signature|size|stone|storetype|word|up|down|left|right)|key[_.-]?vault[_.-]?(?:id|name)|keyVaultToStoreSecrets|key(?:store|tab)[_.-]?(?:file|path)|issuerkeyhash|(?-i:[DdMm]onkey|[DM]ONKEY)|keying|(?:secret)[_.-]?(?:length|name|size)|UserSecretsId|(?:csrf)[_.-]?token|(?:io\.jsonwebtoken[ \t]?:[ \t]?[\w-]+)|(?:api|credentials|token)[_.-]?(?:endpoint|ur[il])|public[_.-]?token|(?:key|token)[_.-]?file|(?-i:(?:[A-Z_]+=\n[A-Z_]+=|[a-z_]+=\n[a-z_]+=)(?:\n|\z))|(?-i:(?:[A-Z.]+=\n[A-Z.]+=|[a-z.]+=\n[a-z.]+=)(?:\n|\z)))`},
		},
	}
}

// curlHeader is the header grammar of gitleaks' curl-auth-header:
// Authorization with Basic, Bearer, Token or a bare value, or an X-…-Key
// or …-Token header.
const curlHeader = `(?i:Authorization:[ \t]{0,5}(?:Basic[ \t]([a-z0-9+/]{8,}={0,3})|(?:Bearer|(?:Api-)?Token)[ \t]([\w=~@.+/-]{8,})|([\w=~@.+/-]{8,}))|(?:(?:X-(?:[a-z]+-)?)?(?:Api-?)?(?:Key|Token)):[ \t]{0,5}([\w=~@.+/-]{8,}))`

// authValue is the value of an Authorization header after its name: the
// grammar of curlHeader, with Digest, spaces or tabs between scheme and
// credentials, and at least 20 bytes for a value without a scheme (in
// prose, "authorization = POLICY-01" is no header).
const authValue = `(?:Basic[ \t]+([a-z0-9+/]{8,}={0,3})|(?:Bearer|(?:Api-)?Token|Digest)[ \t]+([\w=~@.+/-]{8,})|([\w=~@.+/-]{20,}))`

// passwordAllow are password values that are no secret: references to
// variables, environment lookups and templates, masks, and type names.
const passwordAllow = `^(?:\$\{?\w+\}?|\$\(.*\)|%\w+%|\{\{.*\}\}|<[^>]*>|\*+|x+|\.\.\.|…|null|none|nil|true|false|required|optional|string|str|text|changeme|password|process\.env\..*|os\.getenv.*|env\(.*)$`

// isBasicCredential reports whether s is the base64 of "user:password"
// (RFC 7617): it decodes to printable UTF-8 that holds a ":" after at
// most 255 bytes of user name, with at least 3 bytes after it.
func isBasicCredential(s string) bool {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err != nil {
			return false
		}
	}
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	i := bytes.IndexByte(b, ':')
	return i >= 0 && i <= 255 && len(b)-i-1 >= 3
}

// globalAllow is gitleaks' global allowlist (v8.30.1 [allowlist] regexes),
// checked against every rule's secret: booleans and null, runs of one
// character, template and environment placeholders ($1, ${VAR}, {{ x }},
// ${{ secrets.X }}, %VAR%, %s, {0}, @VAR@) and home or system paths. The
// first expression is ported as written: without a group it also allows a
// secret that contains "false" or ends in "null".
var globalAllow = []string{
	`(?i)^true|false|null$`,
	`^(?i:a+|b+|c+|d+|e+|f+|g+|h+|i+|j+|k+|l+|m+|n+|o+|p+|q+|r+|s+|t+|u+|v+|w+|x+|y+|z+|\*+|\.+)$`,
	`^\$(?:\d+|{\d+})$`,
	`^\$(?:[A-Z_]+|[a-z_]+)$`,
	`^\${(?:[A-Z_]+|[a-z_]+)}$`,
	`^\{\{[ \t]*[\w ().|]+[ \t]*}}$`,
	`^\$\{\{[ \t]*(?:(?:env|github|secrets|vars)(?:\.[A-Za-z]\w+)+[\w "'&./=|]*)[ \t]*}}$`,
	`^%(?:[A-Z_]+|[a-z_]+)%$`,
	`^%[+\-# 0]?[bcdeEfFgGoOpqstTUvxX]$`,
	`^\{\d{0,2}}$`,
	`^@(?:[A-Z_]+|[a-z_]+)@$`,
	`^/Users/(?i)[a-z0-9]+/[\w .-/]+$`,
	`^/(?:bin|etc|home|opt|tmp|usr|var)/[\w ./-]+$`,
}

// gcpAllow are the example keys of Google's documentation and SDKs that
// gitleaks allows (v8.30.1 gcp-api-key allowlist).
var gcpAllow = []string{
	`AIzaSyabcdefghijklmnopqrstuvwxyz1234567`, `AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs`, `AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM`,
	`AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU`, `AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0`, `AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A`,
	`AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c`, `AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4`, `AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY`,
	`AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM`, `AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ`, `AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g`,
	`AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU`, `AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw`, `AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE`,
	`AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY`,
}

// globalStopwords are gitleaks' global stopwords (v8.30.1 [allowlist]).
var globalStopwords = []string{"014df517-39d1-4453-b7b3-9930c563627c", "abcdefghijklmnopqrstuvwxyz"}
