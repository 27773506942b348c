package secrets

import "reflect"

// Values replaces, in place, the secrets of every string reachable from v
// (a pointer): fields of structs, elements of slices and arrays, values of
// maps, through pointers and interfaces, each with Text (the project's
// key, no path-specific rules). It is how the reports the CLI prints —
// `recite inspect`'s summary, `recite status`'s report — show placeholders
// for what the planning files hold, since an agent often runs them itself
// and reads the output. Unexported fields are left alone; a value reached
// twice is redacted twice, which changes nothing (redaction is
// idempotent); nesting deeper than maxDepth is left as it is.
func (r *Redactor) Values(v any) {
	r.value(reflect.ValueOf(v), 0)
}

// maxDepth bounds the nesting value follows (reports are a few levels
// deep; a cycle would otherwise not end).
const maxDepth = 32

func (r *Redactor) value(v reflect.Value, depth int) {
	if depth > maxDepth || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Kind() == reflect.Interface {
			// An interface holds a copy: redact a settable copy and put
			// it back.
			inner := v.Elem()
			cp := reflect.New(inner.Type()).Elem()
			cp.Set(inner)
			r.value(cp, depth+1)
			if v.CanSet() {
				v.Set(cp)
			}
			return
		}
		r.value(v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				r.value(v.Field(i), depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			r.value(v.Index(i), depth+1)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			val := v.MapIndex(k)
			cp := reflect.New(val.Type()).Elem()
			cp.Set(val)
			r.value(cp, depth+1)
			v.SetMapIndex(k, cp)
		}
	case reflect.String:
		if v.CanSet() {
			if s := v.String(); s != "" {
				if t := r.Text("", s); t != s {
					v.SetString(t)
				}
			}
		}
	}
}
