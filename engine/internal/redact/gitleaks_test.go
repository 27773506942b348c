package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// gitleaksData is testdata/gitleaks/rules.json: gitleaks' rules and the
// true and false examples its generator validates each rule with (see the
// file's "source" and "licence").
type gitleaksData struct {
	Source          string `json:"source"`
	Licence         string `json:"licence"`
	GlobalAllowlist struct {
		Regexes   []string `json:"regexes"`
		Stopwords []string `json:"stopwords"`
	} `json:"global_allowlist"`
	Rules []gitleaksRule `json:"rules"`
}

type gitleaksRule struct {
	ID          string   `json:"id"`
	Description string   `json:"description"`
	Regex       string   `json:"regex"`
	SecretGroup int      `json:"secret_group"`
	Entropy     float64  `json:"entropy"`
	Keywords    []string `json:"keywords"`
	Path        string   `json:"path"`
	Allowlists  []struct {
		Condition   string   `json:"condition"`
		RegexTarget string   `json:"regex_target"`
		Regexes     []string `json:"regexes"`
		Stopwords   []string `json:"stopwords"`
		Paths       []string `json:"paths"`
	} `json:"allowlists"`
	True        []string          `json:"true_examples"`
	False       []string          `json:"false_examples"`
	TrueByPath  map[string]string `json:"true_examples_by_path"`
	FalseByPath map[string]string `json:"false_examples_by_path"`
}

func loadGitleaks(t *testing.T) gitleaksData {
	t.Helper()
	b, err := os.ReadFile("testdata/gitleaks/rules.json")
	if err != nil {
		t.Fatal(err)
	}
	var d gitleaksData
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Rules) < 200 {
		t.Fatalf("testdata/gitleaks/rules.json holds %d rules", len(d.Rules))
	}
	return d
}

// handSpecs are the rules written by hand in rules.go (ported from
// gitleaks with recite's changes, or recite's own).
func handSpecs() []ruleSpec {
	return slices.Concat(cloudRules(), codeHostingRules(), serviceRules(), formRules())
}

// notPorted says, for each gitleaks rule recite has no rule of, why.
var notPorted = map[string]string{
	"pkcs12-file": "a rule on file names alone (any .p12 or .pfx file); recite redacts texts, and a binary key store never enters a prompt or a conversation log as text",
}

// exampleExceptions are, by rule id, the gitleaks examples recite
// decides otherwise on purpose: each returns why for such an example,
// "" for the others.
var exampleExceptions = map[string]func(example string) string{
	"jwt": func(ex string) string {
		if strings.Contains(strings.ToLower(ex), "eyj") {
			return ""
		}
		// gitleaks' true examples are random strings of its regex
		// ("eyaIGC….eyLd…"), which decode to no JSON.
		return "recite's JWT keyword is eyJ: every JWT header and payload is the base64 of a JSON object, which starts with {\" (eyJ); gitleaks' ey runs the rule on every line with key or they"
	},
}

// TestGitleaksRulesGenerated checks that rules_gitleaks.go is what
// gitleaksSource generates from testdata/gitleaks/rules.json; -update
// rewrites it.
func TestGitleaksRulesGenerated(t *testing.T) {
	d := loadGitleaks(t)
	src := gitleaksSource(t, d)
	const path = "rules_gitleaks.go"
	if *update {
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, src) {
		t.Errorf("%s is not what testdata/gitleaks/rules.json generates; run go test ./engine/internal/redact -run TestGitleaksRulesGenerated -update", path)
	}
}

// TestGitleaksCoverage holds recite's rule set to gitleaks': every
// gitleaks rule is a recite rule of the same id, or notPorted says why not.
func TestGitleaksCoverage(t *testing.T) {
	d := loadGitleaks(t)
	have := map[string]bool{}
	for _, s := range ruleSpecs() {
		have[s.id] = true
	}
	for _, r := range d.Rules {
		why, skipped := notPorted[r.ID]
		switch {
		case have[r.ID] && skipped:
			t.Errorf("%s: ported, yet notPorted says %q", r.ID, why)
		case !have[r.ID] && !skipped:
			t.Errorf("gitleaks rule %s (%s): recite has no rule of this id and notPorted gives no reason", r.ID, r.Description)
		}
	}
	if !slices.Equal(d.GlobalAllowlist.Regexes, globalAllow) {
		t.Errorf("gitleaks' global allowlist changed:\n%q\nrecite:\n%q", d.GlobalAllowlist.Regexes, globalAllow)
	}
	if !slices.Equal(d.GlobalAllowlist.Stopwords, globalStopwords) {
		t.Errorf("gitleaks' global stopwords changed: %q", d.GlobalAllowlist.Stopwords)
	}
}

// TestGitleaksExamples runs every recite rule of a gitleaks id alone, as
// gitleaks' generator validates a rule, over gitleaks' own examples: each
// true example gives a finding, each false example none.
func TestGitleaksExamples(t *testing.T) {
	skipUnderRace(t)
	d := loadGitleaks(t)
	byID := map[string][]ruleSpec{}
	for _, s := range ruleSpecs() {
		byID[s.id] = append(byID[s.id], s)
	}
	n, excepted := 0, 0
	for _, gr := range d.Rules {
		specs := byID[gr.ID]
		if len(specs) == 0 {
			continue
		}
		r, err := newWith(testKey, specs)
		if err != nil {
			t.Fatal(err)
		}
		check := func(path, ex string, want bool) {
			n++
			_, fs := r.Redact(path, ex)
			if (len(fs) > 0) == want {
				return
			}
			if why := exampleExceptions[gr.ID]; why != nil && why(ex) != "" {
				excepted++
				return
			}
			if want {
				t.Errorf("%s: gitleaks' true example not found (path %q): %q", gr.ID, path, ex)
			} else {
				t.Errorf("%s: gitleaks' false example found (path %q): %q → %+v", gr.ID, path, ex, fs)
			}
		}
		for _, ex := range gr.True {
			check("", ex, true)
		}
		for _, ex := range gr.False {
			check("", ex, false)
		}
		for _, p := range sortedKeys(gr.TrueByPath) {
			check(p, gr.TrueByPath[p], true)
		}
		for _, p := range sortedKeys(gr.FalseByPath) {
			check(p, gr.FalseByPath[p], false)
		}
	}
	t.Logf("%d gitleaks examples, %d decided otherwise on purpose (exampleExceptions)", n, excepted)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// gitleaksSource is rules_gitleaks.go: the gitleaks rules that neither
// rules.go ports by hand nor notPorted leaves out, as gitleaks writes
// them, with two changes that find the same secrets: the leading
// "[\w.-]{0,50}?" of gitleaks' keyword rules is dropped (see rules.go),
// and a rule whose expression spans lines runs on the whole text.
func gitleaksSource(t *testing.T, d gitleaksData) []byte {
	t.Helper()
	hand := map[string]bool{}
	for _, s := range handSpecs() {
		hand[s.id] = true
	}
	var b strings.Builder
	b.WriteString("// Code generated by TestGitleaksRulesGenerated from testdata/gitleaks/rules.json; DO NOT EDIT.\n\n")
	b.WriteString("package redact\n\n")
	b.WriteString("// gitleaksRules are the rules of " + strings.SplitN(d.Source, ":", 2)[0] + " that rules.go\n")
	b.WriteString("// does not port by hand (MIT License, Copyright (c) 2019 Zachary Rice;\n")
	b.WriteString("// testdata/gitleaks holds the rules, their examples and the licence).\n")
	b.WriteString("func gitleaksRules() []ruleSpec {\n\treturn []ruleSpec{\n")
	for _, r := range d.Rules {
		if hand[r.ID] || notPorted[r.ID] != "" {
			continue
		}
		fmt.Fprintf(&b, "{id: %s, regex: %s", strconv.Quote(r.ID), rawQuote(gitleaksRegex(r.Regex)))
		if r.SecretGroup != 0 {
			fmt.Fprintf(&b, ", group: %d", r.SecretGroup)
		}
		if r.Entropy != 0 {
			fmt.Fprintf(&b, ", entropy: %s", strconv.FormatFloat(r.Entropy, 'g', -1, 64))
		}
		fmt.Fprintf(&b, ", keywords: %s", stringList(lowerUnique(r.Keywords)))
		var allow, match, line, stop []string
		for _, a := range r.Allowlists {
			if len(a.Paths) > 0 {
				// recite's rules know no path allowlist: gitleaks' are
				// vendored copies of docs (@octokit's README).
				continue
			}
			switch a.RegexTarget {
			case "match":
				match = append(match, a.Regexes...)
			case "line":
				line = append(line, a.Regexes...)
			default:
				allow = append(allow, a.Regexes...)
			}
			stop = append(stop, a.Stopwords...)
		}
		for _, f := range []struct {
			name string
			list []string
		}{{"allow", allow}, {"allowMatch", match}, {"allowLine", line}, {"stopwords", stop}} {
			if len(f.list) > 0 {
				fmt.Fprintf(&b, ", %s: %s", f.name, stringList(f.list))
			}
		}
		if r.Path != "" {
			fmt.Fprintf(&b, ", paths: %s", rawQuote(r.Path))
		}
		switch {
		case spansLines(r.Regex) || !keywordsInRegex(r):
			// A keyword that is not part of the match may be anywhere
			// in the text, as gitleaks reads keywords.
			b.WriteString(", whole: true")
		case strings.Contains(r.Regex, `\s`):
			// A separator that takes a newline: the value may be on the
			// line after the key.
			b.WriteString(", nextLine: true")
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n}\n")
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		t.Fatalf("generated source does not format: %v", err)
	}
	return src
}

// gitleaksRegex drops the leading "[\w.-]{0,50}?" (after "(?i)") of a
// gitleaks keyword rule: lazy and optional, it never changes the secret.
func gitleaksRegex(re string) string {
	const lead = `[\w.-]{0,50}?`
	if rest, ok := strings.CutPrefix(re, "(?i)"+lead); ok {
		return "(?i)" + rest
	}
	if rest, ok := strings.CutPrefix(re, lead); ok {
		return rest
	}
	return re
}

// spansLines reports whether a gitleaks expression can match across lines.
func spansLines(re string) bool {
	return strings.Contains(re, `\n`) || strings.Contains(re, "(?s") || strings.Contains(re, `[\s\S]`) || strings.Contains(re, "(?m")
}

// keywordsInRegex reports whether every keyword of r is written in its
// expression, so that a match holds one.
func keywordsInRegex(r gitleaksRule) bool {
	re := strings.NewReplacer(`\.`, ".", `\-`, "-").Replace(strings.ToLower(r.Regex))
	for _, k := range r.Keywords {
		if !strings.Contains(re, strings.ToLower(k)) {
			return false
		}
	}
	return true
}

func lowerUnique(words []string) []string {
	var out []string
	for _, w := range words {
		if w = strings.ToLower(w); !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func rawQuote(s string) string {
	if strings.Contains(s, "`") {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}

func stringList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = rawQuote(s)
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}
