package config

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// checker walks a recite.yaml document against the key tree (keyTree)
// and its rules, collecting every problem at its line. It removes each bad
// entry from the document, so that what remains decodes without error and
// the checks of the decoded values (validate) run too.
type checker struct {
	path  string
	root  *key
	rules map[string]rule
	errs  []*Error
	// lines maps every key written in the file, by its name in messages
	// ("targets[0].providers", "targets[0]" for a list item), to its line.
	lines map[string]int
}

func newChecker(path string) *checker {
	return &checker{path: path, root: keyTree(), rules: rules(), lines: map[string]int{}}
}

// add records a problem of the key named name (dotted, "" for the
// document) at line.
func (c *checker) add(line int, name, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if name != "" {
		msg = name + ": " + msg
	}
	c.record(line, name, msg)
}

// record records the problem msg of the key named name at line and
// returns it.
func (c *checker) record(line int, name, msg string) *Error {
	e := &Error{Path: c.path, Line: line, Key: name, Msg: msg}
	c.errs = append(c.errs, e)
	return e
}

// reported reports whether a problem was already recorded for the key
// named name or a key below it: a check of a whole block says nothing
// more once a value in it was wrong.
func (c *checker) reported(name string) bool {
	for _, e := range c.errs {
		if name == "" || e.Key == name || strings.HasPrefix(e.Key, name+".") || strings.HasPrefix(e.Key, name+"[") {
			return true
		}
	}
	return false
}

// value checks v, the value of key k named name, written at line (its
// key's line, or a list item's own). It reports whether v may be decoded;
// bad entries inside v are removed from it.
func (c *checker) value(k *key, line int, v *yaml.Node, name string) bool {
	for v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	null := v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null"
	switch k.kind {
	case kindMapping, kindDict, kindList:
		// An empty block (every key under it commented out) is unset.
		want := map[kind]yaml.Kind{kindMapping: yaml.MappingNode, kindDict: yaml.MappingNode, kindList: yaml.SequenceNode}[k.kind]
		if null {
			return true
		}
		if v.Kind != want {
			c.typeError(k, line, v, name)
			return false
		}
	default:
		if v.Kind != yaml.ScalarNode || null {
			c.typeError(k, line, v, name)
			return false
		}
		return c.scalar(k, line, v, name)
	}
	switch k.kind {
	case kindMapping:
		c.mapping(k, v, name)
	case kindDict:
		c.dict(k, v, name)
	default:
		c.list(k, v, name)
	}
	return true
}

// mapping checks the keys of struct key k: duplicates, unknown keys (with
// "did you mean") and each value; `<<` merges are checked in place.
func (c *checker) mapping(k *key, v *yaml.Node, name string) {
	seen := map[string]int{}
	kept := make([]*yaml.Node, 0, len(v.Content))
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		switch {
		case kn.ShortTag() == "!!merge":
			c.merge(k, kn.Line, vn, name)
		case kn.Kind != yaml.ScalarNode:
			c.add(kn.Line, name, "a key must be a plain name, not a %s", nodeKind(kn))
			continue
		case seen[kn.Value] > 0:
			c.record(kn.Line, join(name, kn.Value), fmt.Sprintf("mapping key %q already defined at line %d", kn.Value, seen[kn.Value]))
			continue
		default:
			seen[kn.Value] = kn.Line
			f := k.field(kn.Value)
			if f == nil {
				c.unknownKey(k, kn, name)
				continue
			}
			c.lines[join(name, kn.Value)] = kn.Line
			if !c.value(f, kn.Line, vn, join(name, kn.Value)) {
				continue
			}
		}
		kept = append(kept, kn, vn)
	}
	v.Content = kept
}

// merge checks the mappings a `<<` key merges into k.
func (c *checker) merge(k *key, line int, v *yaml.Node, name string) {
	for v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	if v.Kind == yaml.SequenceNode {
		for _, m := range v.Content {
			c.merge(k, line, m, name)
		}
		return
	}
	if v.Kind != yaml.MappingNode {
		c.add(line, name, "<< must merge a mapping, not %s", nodeKind(v))
		return
	}
	c.mapping(k, v, name)
}

// dict checks the keys of map key k against its rule (enum or pattern)
// and each value.
func (c *checker) dict(k *key, v *yaml.Node, name string) {
	r := c.rules[k.rule]
	seen := map[string]int{}
	kept := make([]*yaml.Node, 0, len(v.Content))
	for i := 0; i+1 < len(v.Content); i += 2 {
		kn, vn := v.Content[i], v.Content[i+1]
		child := join(name, kn.Value)
		switch {
		case kn.Kind != yaml.ScalarNode:
			c.add(kn.Line, name, "a key must be a plain name, not a %s", nodeKind(kn))
			continue
		case seen[kn.Value] > 0:
			c.record(kn.Line, child, fmt.Sprintf("mapping key %q already defined at line %d", kn.Value, seen[kn.Value]))
			continue
		case r.enum != nil && !slices.Contains(r.enum, kn.Value):
			if s := suggestion(kn.Value, r.enum); s != "" {
				c.add(kn.Line, name, "unknown %s %q%s", r.noun, kn.Value, s)
			} else {
				c.add(kn.Line, name, "unknown %s %q (want %s)", r.noun, kn.Value, orList(r.enum))
			}
			continue
		case r.pattern != nil && !r.pattern.MatchString(kn.Value):
			c.add(kn.Line, name, "%s %q: expected %s", r.noun, kn.Value, r.what)
			continue
		}
		seen[kn.Value] = kn.Line
		c.lines[child] = kn.Line
		if c.value(k.elem, kn.Line, vn, child) {
			kept = append(kept, kn, vn)
		}
	}
	v.Content = kept
}

// list checks each item of list key k, removing the bad ones.
func (c *checker) list(k *key, v *yaml.Node, name string) {
	kept := make([]*yaml.Node, 0, len(v.Content))
	for i, it := range v.Content {
		item := fmt.Sprintf("%s[%d]", name, i)
		c.lines[item] = it.Line
		if c.value(k.elem, it.Line, it, item) {
			kept = append(kept, it)
		}
	}
	v.Content = kept
}

// scalar checks a scalar value of key k: its YAML type, then its rule's
// enum, pattern and bounds.
func (c *checker) scalar(k *key, line int, v *yaml.Node, name string) bool {
	r := c.rules[k.rule]
	tag := v.ShortTag()
	var num float64
	switch k.kind {
	case kindString:
		// A date is text to recite, as to YAML 1.2 editors.
		if tag != "!!str" && tag != "!!timestamp" {
			c.typeError(k, line, v, name)
			return false
		}
		if r.enum != nil && !r.open && !slices.Contains(r.enum, v.Value) {
			c.add(line, name, "expected %s, got %q%s", orList(r.enum), v.Value, suggestion(v.Value, r.enum))
			return false
		}
		if r.pattern != nil && !r.pattern.MatchString(v.Value) {
			c.valueError(k, line, v, name)
			return false
		}
		if err := checkRel(v.Value); r.path && err != nil {
			c.add(line, name, "%v", err)
			return false
		}
		return true
	case kindBool:
		if tag != "!!bool" {
			c.typeError(k, line, v, name)
			return false
		}
		return true
	case kindDuration:
		var d Duration
		if v.Decode(&d) != nil {
			c.typeError(k, line, v, name)
			return false
		}
		if d <= 0 {
			c.valueError(k, line, v, name)
			return false
		}
		return true
	case kindInt:
		// yaml.v3 would truncate 1.5 to 1: a float is a whole number only
		// when it is one (1.0, 1e3), as in JSON Schema.
		if (tag != "!!int" && tag != "!!float") || v.Decode(&num) != nil || num != math.Trunc(num) || math.Abs(num) > 1<<53 {
			c.typeError(k, line, v, name)
			return false
		}
	default: // kindFloat
		if (tag != "!!int" && tag != "!!float") || v.Decode(&num) != nil || math.IsNaN(num) {
			c.typeError(k, line, v, name)
			return false
		}
	}
	if r.min != nil && (num < *r.min || r.above && num == *r.min) || r.max != nil && num > *r.max {
		c.valueError(k, line, v, name)
		return false
	}
	return true
}

// typeError records that v is not of k's type: what was expected, what
// was written and an example.
func (c *checker) typeError(k *key, line int, v *yaml.Node, name string) {
	if name == "" {
		c.add(line, "", "expected a mapping of recite's keys (%s, …), got %s", strings.Join(k.names()[:3], ", "), got(v))
		return
	}
	msg := fmt.Sprintf("expected %s, got %s", c.what(k), got(v))
	if k.kind == kindString && v.Kind == yaml.ScalarNode && v.ShortTag() != "!!null" {
		msg += fmt.Sprintf(" (quote it to mean the text: %q)", v.Value)
	}
	c.add(line, name, "%s%s", msg, c.example(k, name))
}

// valueError records that v has k's type but is out of its range or
// pattern.
func (c *checker) valueError(k *key, line int, v *yaml.Node, name string) {
	c.add(line, name, "expected %s, got %s%s", c.what(k), got(v), c.example(k, name))
}

// what says what key k takes.
func (c *checker) what(k *key) string {
	r := c.rules[k.rule]
	if r.what != "" {
		return r.what
	}
	switch k.kind {
	case kindMapping:
		names := k.names()
		if len(names) > 4 {
			names = append(names[:4:4], "…")
		}
		return "a mapping (" + strings.Join(names, ", ") + ")"
	case kindDict:
		return "a mapping"
	case kindList:
		if r.enum != nil {
			return "a list of " + orList(r.enum)
		}
		return "a list"
	case kindString:
		if r.enum != nil {
			return orList(r.enum)
		}
		return "a string"
	case kindInt:
		return "a whole number"
	case kindFloat:
		return "a number"
	case kindBool:
		return "true or false"
	}
	return "a positive duration such as 30s, 10m or 1h"
}

// example returns " (example: KEY: VALUE)" for key k named name: a list
// item shows its list's example, under the list's key.
func (c *checker) example(k *key, name string) string {
	rl, leaf := k.rule, name
	for strings.HasSuffix(rl, "[]") {
		rl = strings.TrimSuffix(rl, "[]")
		leaf = leaf[:strings.LastIndex(leaf, "[")]
	}
	ex := c.rules[rl].example
	if ex == "" {
		return ""
	}
	if i := strings.LastIndexAny(leaf, ".]"); i >= 0 {
		leaf = leaf[i+1:]
	}
	if leaf == "" {
		return " (example: " + ex + ")"
	}
	return " (example: " + leaf + ": " + ex + ")"
}

// unknownKey records an unknown key kn of mapping k named name: the key
// of k it is closest to, else where the name is a key, else k's keys.
func (c *checker) unknownKey(k *key, kn *yaml.Node, name string) {
	where, at := "", join(name, kn.Value)
	if name != "" {
		where = " in " + name
	}
	if s := closest(kn.Value, k.names()); s != "" {
		c.record(kn.Line, at, fmt.Sprintf("unknown key %q%s: did you mean %s?", kn.Value, where, s))
		return
	}
	if elsewhere := c.root.find(kn.Value); len(elsewhere) > 0 {
		var parents []string
		for _, e := range elsewhere {
			if p, ok := strings.CutSuffix(e, "."+kn.Value); ok {
				parents = append(parents, "under "+p)
			} else {
				parents = append(parents, "at the top level")
			}
		}
		c.record(kn.Line, at, fmt.Sprintf("unknown key %q%s: it belongs %s", kn.Value, where, orList(parents)))
		return
	}
	c.record(kn.Line, at, fmt.Sprintf("unknown key %q%s (the keys here: %s)", kn.Value, where, strings.Join(k.names(), ", ")))
}

// got describes a written value for a message.
func got(v *yaml.Node) string {
	switch {
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
		return "nothing"
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str":
		return fmt.Sprintf("%q", v.Value)
	case v.Kind == yaml.ScalarNode:
		return v.Value
	}
	return nodeKind(v)
}

// nodeKind names a node's kind for a message.
func nodeKind(v *yaml.Node) string {
	switch v.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a value"
}
