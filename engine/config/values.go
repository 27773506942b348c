package config

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// valueKind is what a numeric key of recite.yaml measures.
type valueKind int

const (
	// duration is a Go duration string that must be positive: a zero
	// timeout or interval means nothing, and a missing key already takes
	// the default.
	duration valueKind = iota
	// interval is a whole number of iterations that must be positive.
	interval
	// size is a whole number (tokens, messages, lines, entries, files,
	// iterations) that must be at least the rule's min.
	size
)

// valueRule is the range of one numeric key.
type valueRule struct {
	kind valueKind
	// min is a size's smallest value: 0, or -1 where -1 turns a section
	// off, or 1 where 0 means nothing.
	min int
	// unit names a size's unit in the message.
	unit string
}

// valueRules are the numeric keys whose range checkValues enforces, by
// dotted path; "targets[]" is any target and "*" any provider.
var valueRules = map[string]valueRule{
	"agent.timeout":          {kind: duration},
	"agent.max_iterations":   {kind: size, unit: "iterations"},
	"history.window":         {kind: size, unit: "messages"},
	"history.tokens":         {kind: size, unit: "tokens"},
	"history.keep":           {kind: size, unit: "messages"},
	"files.tree_depth":       {kind: size, min: -1, unit: "directory levels"},
	"files.tree_max_entries": {kind: size, unit: "entries"},
	"files.file_max_lines":   {kind: size, unit: "lines"},
	"files.max_files":        {kind: size, min: -1, unit: "files"},
	"compression.every":      {kind: interval},
	"watch.quiet":            {kind: duration},
	"watch.max_wait":         {kind: duration},
	"watch.commit_interval":  {kind: duration},

	"circuit_breaker.stall_warning":       {kind: size, unit: "iterations"},
	"circuit_breaker.stall_break":         {kind: size, unit: "iterations"},
	"circuit_breaker.spin_warning":        {kind: size, unit: "occurrences"},
	"circuit_breaker.spin_break":          {kind: size, unit: "occurrences"},
	"circuit_breaker.decline_warning_pct": {kind: size, unit: "percent"},
	"circuit_breaker.decline_break_pct":   {kind: size, unit: "percent"},
	"circuit_breaker.baseline_iterations": {kind: size, unit: "iterations"},

	"targets[].capabilities.*.max_context":   {kind: size, min: 1, unit: "tokens"},
	"targets[].capabilities.*.max_output":    {kind: size, min: 1, unit: "tokens"},
	"targets[].capabilities.*.min_cacheable": {kind: size, unit: "tokens"},
}

// checkValues rejects, at the line of the key, a negative or zero
// duration, a zero or negative interval and a size below its minimum
// (valueRules), as written in src. It runs after src decoded without
// error, so every value already has its type; the range checks of
// validate, which run on the values with defaults filled in, cannot tell
// an explicit 0 from a missing key and report at the line of the block.
func checkValues(path string, src []byte) error {
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	return walkValues(doc.Content[0], "", "", func(rule, key string, k, v *yaml.Node) error {
		r, ok := valueRules[rule]
		if !ok || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return nil
		}
		fail := func(format string, args ...any) error {
			return &Error{Path: path, Line: k.Line, Msg: key + " " + fmt.Sprintf(format, args...)}
		}
		switch r.kind {
		case duration:
			var d Duration
			if v.Decode(&d) != nil || d > 0 {
				return nil
			}
			if d == 0 {
				return fail("is 0: a duration must be positive (leave the key out for the default %v)", defaultDuration(rule))
			}
			return fail("%v must be a positive duration", time.Duration(d))
		case interval:
			var n int
			if v.Decode(&n) != nil || n > 0 {
				return nil
			}
			return fail("must be a positive number of iterations, got %d (leave the key out for the default %d)", n, Default().Compression.Every)
		default:
			var n int
			if v.Decode(&n) != nil || n >= r.min {
				return nil
			}
			switch r.min {
			case 1:
				return fail("must be a positive number of %s, got %d", r.unit, n)
			case -1:
				return fail("must not be negative (got %d), except -1, which turns it off", n)
			}
			return fail("must not be negative (got %d %s)", n, r.unit)
		}
	})
}

// walkValues calls visit for every key under n in document order, with
// its rule path ("targets[].capabilities.*.max_context") and its name in
// messages ("targets[0].capabilities.ollama.max_context").
func walkValues(n *yaml.Node, rule, key string, visit func(rule, key string, k, v *yaml.Node) error) error {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			r, name := join(rule, k.Value), join(key, k.Value)
			if strings.HasSuffix(rule, ".capabilities") {
				r = join(rule, "*")
			}
			if err := visit(r, name, k, v); err != nil {
				return err
			}
			if err := walkValues(v, r, name, visit); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if err := walkValues(item, rule+"[]", fmt.Sprintf("%s[%d]", key, i), visit); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// defaultDuration is the default of a duration key, for messages.
func defaultDuration(rule string) time.Duration {
	d := Default()
	switch rule {
	case "agent.timeout":
		return time.Duration(d.Agent.Timeout)
	case "watch.quiet":
		return time.Duration(d.Watch.Quiet)
	case "watch.max_wait":
		return time.Duration(d.Watch.MaxWait)
	}
	return time.Duration(d.Watch.CommitInterval)
}
