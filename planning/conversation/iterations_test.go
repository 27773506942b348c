package conversation

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// iterationLog is a sorted log of n records from record first on, an
// iteration record every every records, messages between.
func iterationLog(t testing.TB, first, n, every int) string {
	var b strings.Builder
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := first; i < first+n; i++ {
		kind := KindMessage
		if i%every == every-1 {
			kind = KindIteration
		}
		b.WriteString(line(t, fmt.Sprintf("r%06d", i), kind, base.Add(time.Duration(i)*time.Second), nil))
	}
	return b.String()
}

// TestIterationsReadAlone: Iterations answers what Read says through
// rebuilds and appends, decoding no record but the iteration records it
// returns: on a log with many iterations, with thinly spread ones, and
// with none.
func TestIterationsReadAlone(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name         string
		every, total int
	}{{"dense", 3, 1200}, {"sparse", 400, 6000}, {"none", 1 << 30, 3000}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			s.Records = NewRecordCache()
			writeLogFile(t, s, "c", iterationLog(t, 0, tc.total/2, tc.every))
			checkIndexed(t, s, "c")
			// Appends in several steps extend the index.
			p := filepath.Join(s.Dir, "c.jsonl")
			for step := range 4 {
				n := tc.total / 8
				f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.WriteString(iterationLog(t, tc.total/2+step*n, n, tc.every)); err != nil {
					t.Fatal(err)
				}
				_ = f.Close()
				gen := loadHeader(t, s, "c").Gen
				s.Records = NewRecordCache()
				recs, info, _, err := s.Iterations(ctx, "c", 100, 0)
				if err != nil {
					t.Fatal(err)
				}
				if loadHeader(t, s, "c").Gen != gen {
					t.Fatal("an append rebuilt the index")
				}
				// Only the iteration records are decoded.
				if got := s.Records.Decoded(); got != int64(len(recs)) {
					t.Errorf("step %d: %d records decoded for %d iteration records", step, got, len(recs))
				}
				if want := min(100, info.Iterations); len(recs) != want {
					t.Errorf("step %d: %d iteration records, want %d", step, len(recs), want)
				}
				checkIndexed(t, s, "c")
			}
		})
	}
}

// TestWindowStopsAtTheLogsIterations: a window that asks for more
// iteration records than the log holds stops at the oldest it holds (the
// index counts them) instead of walking the rest of the log for them.
func TestWindowStopsAtTheLogsIterations(t *testing.T) {
	s := newStore(t)
	s.Records = NewRecordCache()
	writeLogFile(t, s, "none", iterationLog(t, 0, 2000, 1<<30))
	writeLogFile(t, s, "one", iterationLog(t, 0, 2000, 1500))
	for _, tc := range []struct {
		id   string
		want int // records in the window
	}{{"none", 0}, {"one", 2000 - 1499}} {
		before := s.Records.Decoded()
		w, _, err := s.Window(context.Background(), tc.id, WindowOptions{Iterations: 100, MaxBytes: 8 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Records) != tc.want || w.Complete {
			t.Errorf("%s: %d records (complete %v), want %d", tc.id, len(w.Records), w.Complete, tc.want)
		}
		if got := s.Records.Decoded() - before; got > int64(tc.want)+2*maxLedger {
			t.Errorf("%s: %d records decoded for a window of %d", tc.id, got, tc.want)
		}
	}
}

// TestRecordCacheShares: two stores sharing a RecordCache decode each
// record once; what they return is their own (changing it changes no
// other read); an append keeps the records, and a rewritten log drops
// them.
func TestRecordCacheShares(t *testing.T) {
	ctx := context.Background()
	rc := NewRecordCache()
	a := newStore(t)
	a.Records = rc
	b, err := Open(a.Dir) // a second store on the same folder
	if err != nil {
		t.Fatal(err)
	}
	b.Records = rc
	writeLogFile(t, a, "c", iterationLog(t, 0, 300, 7))
	w1, _, err := a.Window(ctx, "c", WindowOptions{Messages: 50})
	if err != nil {
		t.Fatal(err)
	}
	n := rc.Decoded()
	if n != int64(len(w1.Records)+len(w1.Signals)) {
		t.Errorf("%d decoded for %d records", n, len(w1.Records)+len(w1.Signals))
	}
	w1.Records[len(w1.Records)-1].Content = "changed"
	w2, _, err := b.Window(ctx, "c", WindowOptions{Messages: 20})
	if err != nil {
		t.Fatal(err)
	}
	if rc.Decoded() != n {
		t.Errorf("the second read decoded %d records the first had", rc.Decoded()-n)
	}
	if last := w2.Records[len(w2.Records)-1]; last.Content == "changed" {
		t.Error("a record returned by one read changed another's")
	}
	// An append keeps them: only the new record is decoded.
	if err := a.Append(ctx, "c", Record{Kind: KindMessage, Role: RoleUser, Content: "new", Time: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	n = rc.Decoded()
	if _, _, err := b.Window(ctx, "c", WindowOptions{Messages: 20}); err != nil {
		t.Fatal(err)
	}
	if got := rc.Decoded() - n; got != 1 {
		t.Errorf("after an append, %d records decoded, want 1", got)
	}
	// A log replaced by another file of other records: read afresh.
	tmp := filepath.Join(t.TempDir(), "c.jsonl")
	text := strings.ReplaceAll(iterationLog(t, 0, 300, 7), "content of", "CONTENT OF")
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(a.Dir, "c.jsonl")); err != nil {
		t.Fatal(err)
	}
	w3, _, err := b.Window(ctx, "c", WindowOptions{Messages: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range w3.Records {
		if r.Kind == KindMessage && !strings.HasPrefix(r.Content, "CONTENT OF") {
			t.Fatalf("a record of the replaced log was returned: %q", r.Content)
		}
	}
}

// TestCloneRecordSharesNothing: every slice, map and pointer field of a
// Record is copied by cloneRecord (a field added to Record without it
// fails here).
func TestCloneRecordSharesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var r Record
	fill(reflect.ValueOf(&r).Elem(), rng)
	c := cloneRecord(r)
	if !reflect.DeepEqual(r, c) {
		t.Fatalf("the clone differs:\n%+v\n%+v", r, c)
	}
	shared(t, "Record", reflect.ValueOf(r), reflect.ValueOf(c))
}

// fill sets every field of v to a non-zero value.
func fill(v reflect.Value, rng *rand.Rand) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprint(rng.Uint32()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(1 + rng.Int64N(100))
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), rng)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), rng)
		}
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(rng.Int64N(1<<31), 0).UTC()))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), rng)
			}
		}
	}
}

// shared fails when a and b share the memory of a slice or pointer.
func shared(t *testing.T, path string, a, b reflect.Value) {
	t.Helper()
	switch a.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			t.Errorf("%s is shared by the clone", path)
		}
		if a.Kind() == reflect.Pointer && !a.IsNil() {
			shared(t, path, a.Elem(), b.Elem())
		}
		if a.Kind() == reflect.Slice {
			for i := range a.Len() {
				shared(t, fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				shared(t, path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
			}
		}
	}
}
