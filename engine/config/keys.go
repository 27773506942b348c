package config

import (
	"fmt"
	"reflect"
	"strings"
)

// kind is the shape of a recite.yaml value, as its Go type declares it.
type kind int

const (
	// kindMapping is a struct: a mapping with fixed keys.
	kindMapping kind = iota
	// kindDict is a map[string]T: a mapping whose keys the user picks
	// (providers, task types).
	kindDict
	// kindList is a slice.
	kindList
	kindString
	kindInt
	kindFloat
	kindBool
	// kindDuration is a Duration: a Go duration string.
	kindDuration
)

// key is one key of recite.yaml, or the document itself, as the config
// types declare it: its yaml tag, its kind, and the keys under it. The
// tree is built by reflection (keyTree), so a field added to a config
// type is a valid key at once, with its "did you mean" and type checks.
type key struct {
	// name is the yaml key; "" for the document, "[]" for a list's
	// items, "*" for a dict's values.
	name string
	// rule is the key's path in rule tables: "thresholds.warning",
	// "targets[].providers", "targets[].capabilities.*.max_context".
	rule string
	kind kind
	// typ is the Go type the value decodes into (a pointer's element for
	// optional values such as *int).
	typ reflect.Type
	// fields are a mapping's keys in declaration order.
	fields []*key
	// elem is a list's item or a dict's value.
	elem *key
}

var durationType = reflect.TypeOf(Duration(0))

// keyTree returns the key tree of Config.
func keyTree() *key {
	return newKey("", "", reflect.TypeOf(Config{}))
}

// newKey builds the key named name at rule path rule for Go type t.
func newKey(name, rule string, t reflect.Type) *key {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	k := &key{name: name, rule: rule, typ: t}
	switch {
	case t == durationType:
		k.kind = kindDuration
	case t.Kind() == reflect.Struct:
		k.kind = kindMapping
		k.fields = structKeys(rule, t)
	case t.Kind() == reflect.Map:
		k.kind = kindDict
		k.elem = newKey("*", join(rule, "*"), t.Elem())
	case t.Kind() == reflect.Slice:
		k.kind = kindList
		k.elem = newKey("[]", rule+"[]", t.Elem())
	case t.Kind() == reflect.String:
		k.kind = kindString
	case t.Kind() == reflect.Int:
		k.kind = kindInt
	case t.Kind() == reflect.Float64:
		k.kind = kindFloat
	case t.Kind() == reflect.Bool:
		k.kind = kindBool
	default:
		panic(fmt.Sprintf("config: no recite.yaml kind for %v at %q", t, rule))
	}
	return k
}

// structKeys returns the keys of struct t under rule: its exported fields
// by yaml tag, the fields of `,inline` structs in their place, none for
// `yaml:"-"`.
func structKeys(rule string, t reflect.Type) []*key {
	var out []*key
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case tag == "-":
		case opts == "inline":
			out = append(out, structKeys(rule, f.Type)...)
		default:
			if tag == "" {
				tag = strings.ToLower(f.Name)
			}
			out = append(out, newKey(tag, join(rule, tag), f.Type))
		}
	}
	return out
}

// field returns the key named name of a mapping, or nil.
func (k *key) field(name string) *key {
	for _, f := range k.fields {
		if f.name == name {
			return f
		}
	}
	return nil
}

// names returns the names of a mapping's keys in declaration order.
func (k *key) names() []string {
	out := make([]string, len(k.fields))
	for i, f := range k.fields {
		out[i] = f.name
	}
	return out
}

// visit calls fn for k and every key below it, parents first.
func (k *key) visit(fn func(*key)) {
	fn(k)
	for _, f := range k.fields {
		f.visit(fn)
	}
	if k.elem != nil {
		k.elem.visit(fn)
	}
}

// find returns the keys below k named name, as dotted paths for a
// message ("history.window", "targets[].role").
func (k *key) find(name string) []string {
	var out []string
	k.visit(func(c *key) {
		if c.name == name {
			out = append(out, c.rule)
		}
	})
	return out
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}
