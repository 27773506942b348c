package planning

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
)

// The saved form of derived results (derivedcache.go) is a compact binary
// encoding of the result's value, walked by reflection so that every
// exported field of its types is saved without a list to keep up to date:
// a struct is its exported fields in order (a field tagged `json:"-"`,
// such as a plan's parsed document, is left out: it is not derived), a
// pointer a presence byte then its value, a slice or map its length then
// its elements (a map's keys sorted), a string its length then its bytes,
// an integer a varint, a bool a byte, a float its IEEE bits. The types'
// shapes are part of the model key (derivedModel), so a saved form is only
// ever decoded into the types it was encoded from.

// errDerivedValue is a value the encoding does not carry, or bytes that do
// not decode.
var errDerivedValue = errors.New("derived result not encodable")

// maxValueDepth bounds the nesting the encoding follows.
const maxValueDepth = 16

// skipField reports whether field f of a struct is not saved.
func skipField(f reflect.StructField) bool {
	return !f.IsExported() || f.Tag.Get("json") == "-"
}

// appendValue appends the encoding of v to b.
func appendValue(b []byte, v reflect.Value, depth int) ([]byte, error) {
	if depth > maxValueDepth {
		return b, errDerivedValue
	}
	var err error
	switch v.Kind() {
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		b = append(b, v.String()...)
	case reflect.Bool:
		if v.Bool() {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b = binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b = binary.AppendUvarint(b, v.Uint())
	case reflect.Float32, reflect.Float64:
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0), nil
		}
		b = append(b, 1)
		return appendValue(b, v.Elem(), depth+1)
	case reflect.Slice:
		// nil and empty are told apart: 0 is nil, n+1 is n elements.
		if v.IsNil() {
			return append(b, 0), nil
		}
		b = binary.AppendUvarint(b, uint64(v.Len())+1)
		for i := range v.Len() {
			if b, err = appendValue(b, v.Index(i), depth+1); err != nil {
				return b, err
			}
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return b, errDerivedValue
		}
		if v.IsNil() {
			return append(b, 0), nil
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int {
			if x.String() < y.String() {
				return -1
			}
			return 1
		})
		b = binary.AppendUvarint(b, uint64(len(keys))+1)
		for _, k := range keys {
			if b, err = appendValue(b, k, depth+1); err != nil {
				return b, err
			}
			if b, err = appendValue(b, v.MapIndex(k), depth+1); err != nil {
				return b, err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if skipField(t.Field(i)) {
				continue
			}
			if b, err = appendValue(b, v.Field(i), depth+1); err != nil {
				return b, err
			}
		}
	default:
		return b, fmt.Errorf("%w: %s", errDerivedValue, v.Type())
	}
	return b, nil
}

// valueReader decodes values from b, its strings slices of it.
type valueReader struct {
	b   string
	err error
}

func (r *valueReader) fail() {
	if r.err == nil {
		r.err = errDerivedValue
	}
	r.b = ""
}

func (r *valueReader) uvarint() uint64 {
	v, n := binary.Uvarint([]byte(r.b[:min(len(r.b), binary.MaxVarintLen64)]))
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *valueReader) varint() int64 {
	v, n := binary.Varint([]byte(r.b[:min(len(r.b), binary.MaxVarintLen64)]))
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *valueReader) take(n uint64) string {
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

// count reads a length of a slice or map: ok is false for nil.
func (r *valueReader) count() (n int, ok bool) {
	c := r.uvarint()
	if c == 0 || r.err != nil {
		return 0, false
	}
	if c-1 > uint64(len(r.b)) { // every element takes a byte at least
		r.fail()
		return 0, false
	}
	return int(c - 1), true
}

// value decodes into v (settable, or a pointer to fill).
func (r *valueReader) value(v reflect.Value, depth int) {
	if r.err != nil {
		return
	}
	if depth > maxValueDepth {
		r.fail()
		return
	}
	if depth == 0 && v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(r.take(r.uvarint()))
	case reflect.Bool:
		v.SetBool(r.take(1) == "\x01")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(r.varint())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(r.uvarint())
	case reflect.Float32, reflect.Float64:
		s := r.take(8)
		if r.err == nil {
			v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64([]byte(s))))
		}
	case reflect.Pointer:
		if r.take(1) != "\x01" {
			return
		}
		p := reflect.New(v.Type().Elem())
		r.value(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		n, ok := r.count()
		if !ok {
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			r.value(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		n, ok := r.count()
		if !ok {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		for range n {
			k := reflect.New(v.Type().Key()).Elem()
			e := reflect.New(v.Type().Elem()).Elem()
			r.value(k, depth+1)
			r.value(e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if !skipField(t.Field(i)) {
				r.value(v.Field(i), depth+1)
			}
		}
	default:
		r.fail()
	}
}
