package planning

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
)

// The parsed-file cache also keeps what the loader derives from each
// document (Cache.derive: a roadmap's phases, a plan's title, objective,
// files and tasks), so that a new process after a one-file edit derives
// that file alone and takes the others' results as they were saved: each
// result is kept with its file's entry, that is under the file's content
// (the SHA-256 of its bytes), and is used only by a derivation of the same
// name and model.
//
// The model is named by a key that changes by itself when the results'
// types change (a field added, renamed or retyped in Plan, Task or
// roadmapPhase: derivedModel) and, for changes of what the code derives
// from the same document, by derivedVersion: TestDerivedVersion fails when
// the results over the example and real trees change while derivedVersion
// stays the same, so a change to the derivation cannot ship without its
// bump. A result saved under another key is not used (the file is derived
// again, and the new result saved).

// derivedVersion names the derivation code whose results the parsed-file
// cache keeps: parseRoadmap and parsePlan with what they call. Bump it
// with any change that makes either derive another result from the same
// document (TestDerivedVersion says so when it is forgotten, and
// go test -run TestDerivedVersion ./planning/ -update records the new
// results' digest).
const derivedVersion = 2

// derivedResult returns a new value of the type derivation kind's saved
// results decode into, and nil for a kind whose results are not saved.
func derivedResult(kind string) any {
	switch kind {
	case "roadmap":
		return new([]roadmapPhaseJSON)
	case "plan", "plan-done":
		return &Plan{}
	}
	return nil
}

// derivedModel returns the key of the results' model: derivedVersion and
// a fingerprint of the types they are encoded in (16 hex digits).
func derivedModel() string {
	h := sha256.New()
	fmt.Fprintf(h, "v%d;", derivedVersion)
	for _, t := range []reflect.Type{reflect.TypeFor[[]roadmapPhaseJSON](), reflect.TypeFor[Plan](), reflect.TypeFor[roadmapPhase]()} {
		writeTypeShape(h, t, 0)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// writeTypeShape writes t's shape to w: its kind, and for a struct every
// field's name, tag and shape, so that any change to a field changes it.
func writeTypeShape(w interface{ Write([]byte) (int, error) }, t reflect.Type, depth int) {
	fmt.Fprintf(w, "%s(", t.Kind())
	if depth < 8 {
		switch t.Kind() {
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				fmt.Fprintf(w, "%s %q ", f.Name, f.Tag)
				writeTypeShape(w, f.Type, depth+1)
			}
		case reflect.Pointer, reflect.Slice, reflect.Array:
			writeTypeShape(w, t.Elem(), depth+1)
		case reflect.Map:
			writeTypeShape(w, t.Key(), depth+1)
			writeTypeShape(w, t.Elem(), depth+1)
		}
	}
	fmt.Fprint(w, ")")
}

// roadmapPhaseJSON is roadmapPhase as saved (its fields are unexported).
// TestRoadmapPhaseJSON checks that it carries every field of roadmapPhase.
type roadmapPhaseJSON struct {
	Number, Name, Goal, Status string
	Line                       int
	Archived                   bool
}

// encodeDerived returns the saved form of result v of derivation kind, and
// false for a kind that is not saved.
func encodeDerived(kind string, v any) (string, bool) {
	if derivedResult(kind) == nil {
		return "", false
	}
	if rs, ok := v.([]roadmapPhase); ok {
		var out []roadmapPhaseJSON // nil for nil
		if rs != nil {
			out = make([]roadmapPhaseJSON, len(rs))
		}
		for i, r := range rs {
			out[i] = roadmapPhaseJSON{Number: r.number, Name: r.name, Goal: r.goal, Status: r.status, Line: r.line, Archived: r.archived}
		}
		v = &out
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem() // decoded into the value derivedResult points to
	}
	b, err := appendValue(nil, rv, 0)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// decodeDerived returns the result of derivation kind from its saved form,
// and false when it does not decode. Its strings are slices of saved.
func decodeDerived(kind, saved string) (any, bool) {
	v := derivedResult(kind)
	if v == nil {
		return nil, false
	}
	r := &valueReader{b: saved}
	r.value(reflect.ValueOf(v), 0)
	if r.err != nil || r.b != "" {
		return nil, false
	}
	switch v := v.(type) {
	case *[]roadmapPhaseJSON:
		var out []roadmapPhase
		if *v != nil {
			out = make([]roadmapPhase, len(*v))
		}
		for i, r := range *v {
			out[i] = roadmapPhase{number: r.Number, name: r.Name, goal: r.Goal, status: r.Status, line: r.Line, archived: r.Archived}
		}
		return out, true
	case *Plan:
		return v, true
	}
	return nil, false
}
