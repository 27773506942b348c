package config

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite templates/recite.schema.json from the config types")

// schemaFile is the committed JSON Schema of recite.yaml, relative to this
// package; templates embeds it.
const schemaFile = "../../templates/recite.schema.json"

// schemaDraft is the JSON Schema version the file declares: draft-07,
// the newest one every yaml-language-server release reads; the schema uses
// no keyword of a later draft.
const schemaDraft = "http://json-schema.org/draft-07/schema#"

// commentDirs are the packages whose doc comments describe the keys:
// this one and those of the inlined types (budget.Thresholds,
// signals.Thresholds), relative to this package.
var commentDirs = []string{".", "../budget", "../signals"}

// Go duration strings: a positive duration, and one that is zero.
const (
	durationPattern     = `^\+?(([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`
	zeroDurationPattern = `^\+?([0.]+(ns|us|µs|μs|ms|s|m|h))+$`
	// pathPattern and badPathPattern: a relative path, without "." or
	// ".." elements past a leading "./" (checkRel).
	pathPattern    = `^(\./)?[^/]+(/[^/]+)*$`
	badPathPattern = `(^|/)\.\.(/|$)|/\.(/|$)`
)

// generateSchema builds the JSON Schema of recite.yaml: the structure,
// types and descriptions (the first paragraph of each field's doc
// comment) by reflection on Config with invopop/jsonschema, then the
// enums, patterns, bounds and examples of rules.
func generateSchema() ([]byte, error) {
	r := &jsonschema.Reflector{
		FieldNameTag:               "yaml",
		RequiredFromJSONSchemaTags: true, // every key is optional
		DoNotReference:             true, // a description beside a $ref is ignored before 2019-09
		Anonymous:                  true,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == durationType {
				return &jsonschema.Schema{Type: "string", Pattern: durationPattern, Not: &jsonschema.Schema{Pattern: zeroDurationPattern}}
			}
			return nil
		},
	}
	for _, dir := range commentDirs {
		if err := r.AddGoComments("github.com/recite-dev/recite/engine/config", dir); err != nil {
			return nil, err
		}
	}
	r.LookupComment = func(t reflect.Type, field string) string { return describe(r.CommentMap, t, field) }
	s := r.Reflect(&Config{})
	s.Version = schemaDraft
	s.Title = "recite.yaml"
	s.Description = "The configuration of recite (.planning/recite.yaml). Every key is optional; `recite config check` reports unknown keys and bad values with their line."
	if err := applyRules(keyTree(), s, rules()); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// describe is the description of field of struct t (or of t itself): the
// first paragraph of its doc comment on one line, with the Go names of
// t's fields replaced by their yaml keys. A field without a comment of
// its own takes the comment of a field that names it ("StallWarning and
// StallBreak are…").
func describe(comments map[string]string, t reflect.Type, field string) string {
	name := t.PkgPath() + "." + t.Name()
	if field == "" {
		return ""
	}
	text := comments[name+"."+field]
	if text == "" && t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			other := comments[name+"."+t.Field(i).Name]
			if regexp.MustCompile(`\b` + field + `\b`).MatchString(other) {
				text = other
				break
			}
		}
	}
	text, _, _ = strings.Cut(text, "\n\n")
	text = strings.Join(strings.Fields(text), " ")
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			f := t.Field(i)
			if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); tag != "" && tag != "-" {
				text = regexp.MustCompile(`\b`+f.Name+`\b`).ReplaceAllString(text, tag)
			}
		}
	}
	return text
}

// applyRules walks the key tree alongside the reflected schema and adds
// each key's rule: enum, pattern, bounds, example; null for an empty
// block; the keys of a dict whose keys are an enum. It fails on a key
// without a rule or without a description.
func applyRules(k *key, s *jsonschema.Schema, rules map[string]rule) error {
	r, ok := rules[k.rule]
	if !ok {
		return fmt.Errorf("key %q has no rule (rules.go)", k.rule)
	}
	if k.rule != "" && k.name != "[]" && k.name != "*" && s.Description == "" {
		return fmt.Errorf("key %q has no doc comment to describe it", k.rule)
	}
	if r.example != "" {
		var ex any
		if err := yaml.Unmarshal([]byte(r.example), &ex); err != nil {
			return fmt.Errorf("key %q: example %q: %v", k.rule, r.example, err)
		}
		s.Examples = []any{ex}
	}
	if r.pattern != nil && k.kind == kindString {
		s.Pattern = r.pattern.String()
	}
	if r.path {
		s.Pattern, s.Not = pathPattern, &jsonschema.Schema{Pattern: badPathPattern}
	}
	if r.enum != nil && k.kind == kindString {
		if r.open {
			s.Examples = toAny(r.enum)
		} else {
			s.Enum = toAny(r.enum)
		}
	}
	number(s, r)
	switch k.kind {
	case kindMapping:
		for _, f := range k.fields {
			p, ok := s.Properties.Get(f.name)
			if !ok {
				return fmt.Errorf("key %q is not in the reflected schema", f.rule)
			}
			if err := applyRules(f, p, rules); err != nil {
				return err
			}
			if rules[f.rule].required {
				s.Required = append(s.Required, f.name)
			}
		}
	case kindList:
		if err := applyRules(k.elem, s.Items, rules); err != nil {
			return err
		}
	case kindDict:
		if err := applyRules(k.elem, s.AdditionalProperties, rules); err != nil {
			return err
		}
		dictKeys(s, r)
	}
	if k.rule != "" && (k.kind == kindMapping || k.kind == kindList || k.kind == kindDict) {
		s.Extras = map[string]any{"type": []string{s.Type, "null"}}
		s.Type = ""
	}
	return nil
}

// number sets a numeric rule's bounds (draft-07: exclusiveMinimum is a
// number).
func number(s *jsonschema.Schema, r rule) {
	num := func(f float64) json.Number { return json.Number(fmt.Sprint(f)) }
	if r.min != nil && r.above {
		s.ExclusiveMinimum = num(*r.min)
	} else if r.min != nil {
		s.Minimum = num(*r.min)
	}
	if r.max != nil {
		s.Maximum = num(*r.max)
	}
}

// dictKeys constrains a dict's keys: an enum becomes one property per
// value (so editors complete them) and no others; a pattern becomes
// propertyNames.
func dictKeys(s *jsonschema.Schema, r rule) {
	switch {
	case r.enum != nil:
		s.Properties = jsonschema.NewProperties()
		for _, e := range r.enum {
			s.Properties.Set(e, s.AdditionalProperties)
		}
		s.AdditionalProperties = jsonschema.FalseSchema
	case r.pattern != nil:
		s.PropertyNames = &jsonschema.Schema{Pattern: r.pattern.String()}
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// TestSchemaCurrent fails when templates/recite.schema.json differs from
// what the config types generate; `go generate ./engine/config` (or
// `go test ./engine/config -run TestSchemaCurrent -update`) rewrites it.
func TestSchemaCurrent(t *testing.T) {
	got, err := generateSchema()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the config types generate: run `go generate ./engine/config`", filepath.Clean(schemaFile))
	}
}
