package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	jsv "github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/recite-dev/recite/templates"
)

// compiledSchema compiles the committed schema (as templates embeds it)
// with a real JSON Schema validator.
func compiledSchema(t testing.TB) *jsv.Schema {
	t.Helper()
	doc, err := jsv.UnmarshalJSON(bytes.NewReader(templates.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsv.NewCompiler()
	if err := c.AddResource("recite.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("recite.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// yamlToJSON converts a recite.yaml to the JSON instance an editor
// validates: its first document, {} when it has none.
func yamlToJSON(src []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		return nil, err
	}
	if v == nil {
		v = map[string]any{}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsv.UnmarshalJSON(bytes.NewReader(b))
}

// verdicts returns what Check and the schema say of src: Check's
// problems the schema also expresses, all of Check's problems, and the
// schema's error (nil when valid).
func verdicts(t testing.TB, s *jsv.Schema, src []byte) (shape, all []*Error, schemaErr error) {
	t.Helper()
	_, all = Check(FileName, src)
	for _, e := range all {
		if !e.beyondSchema {
			shape = append(shape, e)
		}
	}
	inst, err := yamlToJSON(src)
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return shape, all, s.Validate(inst)
}

// agree fails t unless Check and the schema both accept src or both
// reject it.
func agree(t *testing.T, s *jsv.Schema, name string, src []byte) {
	t.Helper()
	shape, all, schemaErr := verdicts(t, s, src)
	switch {
	case len(all) == 0 && schemaErr != nil:
		t.Errorf("%s: recite accepts it, the schema does not: %v\n%s", name, schemaErr, src)
	case len(shape) > 0 && schemaErr == nil:
		t.Errorf("%s: the schema accepts it, recite does not: %v\n%s", name, shape[0], src)
	}
}

// TestSchemaInitFile: the file `recite init` writes, of each flavor,
// starts with the yaml-language-server modeline naming the schema copy,
// and both recite and the schema accept it, with every commented key
// uncommented too.
func TestSchemaInitFile(t *testing.T) {
	s := compiledSchema(t)
	for _, flavor := range []string{"gsd", "fire"} {
		text, err := templates.Init("recite.yaml", flavor)
		if err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(text, "\n"); first != "# yaml-language-server: $schema="+SchemaModelinePath {
			t.Errorf("%s: the first line is %q", flavor, first)
		}
		for name, src := range map[string]string{flavor: text, flavor + " uncommented": uncommentAll(text)} {
			if _, errs := Check(FileName, []byte(src)); len(errs) > 0 {
				t.Errorf("%s: %v\n%s", name, errs[0], src)
			}
			inst, err := yamlToJSON([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(inst); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
}

// TestSchemaScriptConfigs: every recite.yaml of the CLI's testscripts,
// good and bad, gets the same verdict from recite and from the schema
// (a problem the schema cannot express aside).
func TestSchemaScriptConfigs(t *testing.T) {
	s := compiledSchema(t)
	paths, err := filepath.Glob("../../cmd/recite/testdata/script/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testscripts: %v", err)
	}
	n := 0
	for _, p := range paths {
		a, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, "recite.yaml") || strings.HasSuffix(f.Name, ".yaml") && bytes.Contains(f.Data, []byte("targets:")) {
				agree(t, s, filepath.Base(p)+":"+f.Name, f.Data)
				n++
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d recite.yaml files in the testscripts", n)
	}
}

// TestSchemaRules: every key's example is accepted by recite and the
// schema, every bound and enum value too, and one past a bound, a value
// outside an enum and a value of another type are rejected by both.
func TestSchemaRules(t *testing.T) {
	s := compiledSchema(t)
	rs := rules()
	keyTree().visit(func(k *key) {
		if k.rule == "" {
			return
		}
		r := rs[k.rule]
		// try checks one value: good ones pass the checks of single values
		// (a bound may break a check across keys, such as a warning
		// threshold above its break threshold); an example passes them all.
		try := func(value string, good bool) {
			t.Helper()
			src := docAt(t, k.rule, value)
			shape, all, schemaErr := verdicts(t, s, []byte(src))
			if value != r.example {
				all = shape
			}
			if good && (len(all) > 0 || schemaErr != nil) {
				t.Errorf("%s: %s: recite %v, schema %v\n%s", k.rule, value, all, schemaErr, src)
			}
			if !good && (len(shape) == 0 || schemaErr == nil) {
				t.Errorf("%s: %s: recite %v, schema %v: both must reject it\n%s", k.rule, value, shape, schemaErr, src)
			}
		}
		if !strings.HasSuffix(k.rule, "[]") && !strings.HasSuffix(k.rule, "*") {
			try(r.example, true)
		}
		for _, e := range r.enum {
			if k.kind == kindString {
				try(e, true)
			}
		}
		if r.enum != nil && !r.open && k.kind == kindString {
			try("nonesuch", false)
		}
		if r.min != nil {
			try(fmt.Sprint(*r.min+1), true)
			try(fmt.Sprint(*r.min-1), false)
			if r.above {
				try(fmt.Sprint(*r.min), false)
			} else {
				try(fmt.Sprint(*r.min), true)
			}
		}
		if r.max != nil {
			try(fmt.Sprint(*r.max), true)
			try(fmt.Sprint(*r.max+1), false)
		}
		if wrong := wrongValue(k.kind); wrong != "" && !strings.HasSuffix(k.rule, "*") {
			try(wrong, false)
		}
	})
}

// wrongValue is a value of another type than kind, as YAML.
func wrongValue(k kind) string {
	switch k {
	case kindMapping, kindDict:
		return "[a]"
	case kindList, kindString, kindInt, kindFloat, kindBool, kindDuration:
		return "{a: 1}"
	}
	return ""
}

// docAt returns a recite.yaml that sets the key at rule path to value
// (YAML): list items become one-item lists (a target gets a name), dict
// keys the first key of the dict's example.
// fillRequired gives the mapping m of a list item at rule path at the
// required keys it lacks (a target's name: "a"; a provider's name, model
// and base URL: their examples), so that one key can be checked alone.
func fillRequired(rs map[string]rule, at string, m map[string]any) {
	for k, r := range rs {
		name, ok := strings.CutPrefix(k, at+".")
		if !ok || strings.ContainsAny(name, ".[") {
			continue
		}
		if _, has := m[name]; has || !r.required {
			continue
		}
		v := any(r.example)
		if at == "targets[]" && name == "name" {
			v = "a"
		}
		m[name] = v
	}
}

func docAt(t testing.TB, path, value string) string {
	t.Helper()
	rs := rules()
	var v any
	if err := yaml.Unmarshal([]byte(value), &v); err != nil {
		t.Fatalf("%s: %q: %v", path, value, err)
	}
	segs := regexp.MustCompile(`\[\]|[^.\[\]]+`).FindAllString(path, -1)
	for i := len(segs) - 1; i >= 0; i-- {
		at := strings.Join(segs[:i], ".")
		at = strings.ReplaceAll(at, ".[]", "[]")
		switch segs[i] {
		case "[]":
			if m, ok := v.(map[string]any); ok {
				fillRequired(rs, at+"[]", m)
			}
			v = []any{v}
		case "*":
			var ex map[string]any
			if err := yaml.Unmarshal([]byte(rs[at].example), &ex); err != nil || len(ex) == 0 {
				t.Fatalf("%s: the example of %s is no mapping", path, at)
			}
			for k := range ex {
				v = map[string]any{k: v}
				break
			}
		default:
			m := map[string]any{segs[i]: v}
			if strings.HasSuffix(at, "[]") {
				fillRequired(rs, at, m)
			}
			v = m
		}
	}
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// uncommentAll returns the init file with every commented key ("# key:
// value" and the indented lines after it) uncommented.
func uncommentAll(text string) string {
	keyRE := regexp.MustCompile(`^(\s*)# ([a-z_]+:( .*)?)$`)
	var out []string
	inBlock := ""
	for _, l := range strings.Split(text, "\n") {
		if m := keyRE.FindStringSubmatch(l); m != nil {
			out, inBlock = append(out, m[1]+m[2]), m[1]+"#   "
			continue
		}
		if inBlock != "" && strings.HasPrefix(l, inBlock) {
			out = append(out, strings.Replace(l, "# ", "", 1))
			continue
		}
		inBlock = ""
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestSchemaAgreesWithCheck: hand-picked files on each side of each kind
// of rule; the last ones break only checks the schema does not express.
func TestSchemaAgreesWithCheck(t *testing.T) {
	s := compiledSchema(t)
	for _, src := range []string{
		"", "# only a comment\n", "agent:\n", "targets:\n  - name: a\n    system:\n", "files: {}\n",
		"context_window: 1e5\n", "targets: [{name: a, budget: 1.0}]\n", "targets: [{name: a, budget: 1.5}]\n",
		"tokenizer:\n", "targets: [{name: a, tools: 5}]\n", "targets: [{name: a, conversation: \"2024\"}]\n",
		"targets: [{name: a, prefill: yes}]\n", "targets: [{role: x}]\n", "targets: [{name: a, role: ../x}]\n",
		"targets: [{name: a, role: my-role}]\n", "targets: [{name: a, system: [./docs/a.md]}]\n",
		"targets: [{name: a, system: [docs/../../a.md]}]\n", "targets: [{name: a, system: [/etc/passwd]}]\n",
		"targets: [{name: a, include: [a/./b]}]\n", "targets: [{name: a, capabilities: {olama: {}}}]\n",
		"agent: {timeout: 0s}\n", "agent: {timeout: 0.0h0m}\n", "agent: {timeout: 1.5h}\n", "agent: {timeout: -1s}\n",
		"agent: {timeout: 10}\n", "watch: {quiet: 1µs, max_wait: 1s}\n", "files: {task_types: {Front: []}}\n",
		"files: {task_types: {front: [src/**]}, task_keywords: {front: [ui]}}\n", "thresholds: {warning: 0}\n",
		"contex_window: 1\n", "targets: [{name: a, rol: x}]\n", "- a\n", "just text\n",
		// Beyond the schema: recite alone rejects these.
		"thresholds: {warning: 0.9, critical: 0.5}\n", "targets: [{name: a}, {name: a}]\n",
		"models: {openai: claude-x}\n", "watch: {quiet: 1s}\n", "files: {task_types: {front: [\"src/[ab\"]}}\n",
		"files: {task_keywords: {backend: [api]}}\n", "circuit_breaker: {stall_warning: 9}\n",
	} {
		agree(t, s, fmt.Sprintf("%q", src), []byte(src))
	}
}

// FuzzSchemaAgrees: whatever YAML recite.yaml holds, recite and the
// schema give the same verdict, except on checks the schema does not
// express.
func FuzzSchemaAgrees(f *testing.F) {
	for _, s := range []string{
		"context_window: 1000\ntargets:\n  - name: a\n", "thresholds: {warning: high}\n", "targets: [{name: a, providers: [antropic]}]\n",
		"agent: {timeout: 0s}\n", "files: {tree_depth: -1}\n", "history: {strategy: window, window: 3}\n",
		"targets: [{name: a, capabilities: {ollama: {max_context: 8192}}}]\n", "compression: {difficulty: {simple: {omit: [files]}}}\n",
	} {
		f.Add([]byte(s))
	}
	schema := compiledSchema(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		if _, err := yamlToJSON(src); err != nil {
			return // not YAML, or nothing JSON can hold: no editor verdict
		}
		var probe yaml.Node
		if yaml.Unmarshal(src, &probe) != nil {
			return
		}
		shape, all, schemaErr := verdicts(t, schema, src)
		if len(all) == 0 && schemaErr != nil {
			t.Fatalf("recite accepts %q, the schema does not: %v", src, schemaErr)
		}
		if len(shape) > 0 && schemaErr == nil {
			t.Fatalf("the schema accepts %q, recite does not: %v", src, shape[0])
		}
	})
}
