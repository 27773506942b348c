package conversation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/markdown"
)

// model is what Read says of a conversation, in the shape the indexed
// readers answer in: the inherited messages, then the own records of every
// kind in read order, each with the length of its line in the log.
type model struct {
	c     *Conversation
	diags []markdown.Diagnostic
	inh   []Record
	own   []Record
	lens  map[string]int64 // line length by record id (own and inherited)
}

// readModel builds the model of conversation id from Read and from
// parsing the own log (Read does not return the meta records without an
// event).
func readModel(t testing.TB, s *Store, id string) *model {
	t.Helper()
	c, diags, err := s.Read(id)
	if err != nil {
		t.Fatalf("Read(%s): %v", id, err)
	}
	m := &model{c: c, diags: diags, lens: map[string]int64{}}
	var walk func(id string)
	walk = func(id string) {
		p, err := s.existingPath(id)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(data) {
			raw := bytes.TrimSuffix(line, []byte{'\n'})
			if text := recordText(raw); text != nil {
				if r, bad := parseLine(text); bad == "" {
					if _, ok := m.lens[r.ID]; !ok {
						m.lens[r.ID] = int64(len(raw))
					}
				}
			}
		}
		recs, _ := ParseLog(p, data)
		recs = Normalize(recs)
		if id == c.ID {
			m.own = recs
		}
		for _, r := range recs {
			if r.Kind == KindMeta && r.Meta != nil && r.Meta.Parent != "" {
				walk(r.Meta.Parent)
				break
			}
		}
	}
	walk(id)
	ownMsgs := 0
	for _, r := range m.own {
		if r.Kind == KindMessage {
			ownMsgs++
		}
	}
	m.inh = c.Messages[:len(c.Messages)-ownMsgs]
	return m
}

// window is the model's answer to Window(opts), by the rules of
// WindowOptions, over plain slices.
func (m *model) window(opts WindowOptions) (recs []Record, inherited, first int, complete bool) {
	unbounded := opts.Messages <= 0 && opts.Iterations <= 0
	msgs, iters := 0, 0
	// A log with fewer iteration records than asked for is walked back to
	// its first one, not further.
	wantIters := min(opts.Iterations, len(m.iterations()))
	var used int64
	all := append(slices.Clone(m.inh), m.own...)
	i := len(all)
	for i > 0 {
		if !unbounded && msgs >= opts.Messages && iters >= wantIters {
			break
		}
		r := all[i-1]
		if i-1 < len(m.inh) && !unbounded && msgs >= opts.Messages {
			break // inherited records are messages only
		}
		size := m.lens[r.ID]
		if opts.MaxBytes > 0 && size > opts.MaxBytes && i-1 >= len(m.inh) {
			size = leftOutSize(size) // carried as a note (leftout.go)
		}
		if opts.MaxBytes > 0 && used+size > opts.MaxBytes {
			break
		}
		used += size
		switch r.Kind {
		case KindMessage:
			msgs++
		case KindIteration:
			iters++
		}
		i--
	}
	recs = all[i:]
	inherited = max(0, len(m.inh)-i)
	if msgs > 0 {
		first = len(m.c.Messages) - msgs + 1
	}
	return recs, inherited, first, i == 0
}

// iterations are the model's own iteration records in read order.
func (m *model) iterations() []Record {
	var out []Record
	for _, r := range m.own {
		if r.Kind == KindIteration {
			out = append(out, r)
		}
	}
	return out
}

// lastIterations is the model's answer to Snapshot.Iterations(n,
// maxBytes): the own iteration records of Window{Iterations: n, MaxBytes:
// maxBytes}.
func (m *model) lastIterations(n int, maxBytes int64) []Record {
	if n <= 0 {
		return nil
	}
	recs, inh, _, _ := m.window(WindowOptions{Iterations: n, MaxBytes: maxBytes})
	var out []Record
	for _, r := range recs[inh:] {
		if r.Kind == KindIteration {
			out = append(out, r)
		}
	}
	return out
}

// ids is the comma-separated ids of recs.
func ids(recs []Record) string {
	var b []string
	for _, r := range recs {
		b = append(b, r.ID)
	}
	return strings.Join(b, ",")
}

// checkIndexed compares every indexed reader of conversation id with Read.
func checkIndexed(t testing.TB, s *Store, id string) {
	t.Helper()
	ctx := context.Background()
	if _, _, err := s.Read(id); err != nil {
		// A fork of a missing parent, a fork cycle: the indexed readers
		// fail too.
		if sn, err2 := s.Snapshot(ctx, id); err2 == nil {
			sn.Close()
			t.Errorf("%s: Read fails (%v), Snapshot does not", id, err)
		}
		return
	}
	m := readModel(t, s, id)
	sn, err := s.Snapshot(ctx, id)
	if err != nil {
		t.Fatalf("Snapshot(%s): %v", id, err)
	}
	defer sn.Close()
	// Info against the whole conversation.
	in := sn.Info
	if in.Messages != len(m.c.Messages) || !in.LastActivity.Equal(m.c.LastActivity) || in.Iterations != len(m.c.Iterations) ||
		!sameJSON(in.Meta, m.c.Meta) || in.Records != len(m.own) || in.Inherited != len(m.inh) {
		t.Errorf("%s: Info = %+v\nRead: %d messages, %d iterations, %d own records, %d inherited, last %v, meta %+v",
			id, in, len(m.c.Messages), len(m.c.Iterations), len(m.own), len(m.inh), m.c.LastActivity, m.c.Meta)
	}
	if len(m.diags) <= maxTorn && fmt.Sprint(sn.Diagnostics) != fmt.Sprint(m.diags) {
		t.Errorf("%s: diagnostics\n%v\nRead:\n%v", id, sn.Diagnostics, m.diags)
	}
	// Streaming: every record in read order.
	var got []Record
	for r, err := range sn.Records() {
		if err != nil {
			t.Fatalf("%s: Records: %v", id, err)
		}
		got = append(got, r)
	}
	want := append(slices.Clone(m.inh), m.own...)
	if ids(got) != ids(want) {
		t.Errorf("%s: Records\n%s\nRead:\n%s", id, ids(got), ids(want))
	}
	// Windows of every shape.
	n := len(m.c.Messages)
	for _, opts := range []WindowOptions{
		{}, {Messages: 1}, {Messages: 3}, {Messages: n}, {Messages: n + 1}, {Messages: max(1, n/2)},
		{Iterations: 1}, {Iterations: 2}, {Messages: 1, Iterations: 1},
		{MaxBytes: 1}, {MaxBytes: 700}, {Messages: n, MaxBytes: 2000}, {Messages: 2, MaxBytes: 1 << 40},
	} {
		w, err := sn.Window(opts)
		if err != nil {
			t.Fatalf("%s: Window(%+v): %v", id, opts, err)
		}
		recs, inh, first, complete := m.window(opts)
		if ids(w.Records) != ids(recs) || w.Inherited != inh || w.FirstMessage != first || w.Complete != complete {
			t.Errorf("%s: Window(%+v) = %s (inherited %d, first %d, complete %v)\nwant %s (inherited %d, first %d, complete %v)",
				id, opts, ids(w.Records), w.Inherited, w.FirstMessage, w.Complete, ids(recs), inh, first, complete)
		}
		if opts == (WindowOptions{}) {
			c := w.Conversation()
			if ids(c.Messages) != ids(m.c.Messages) || ids(c.Iterations) != ids(m.c.Iterations) || ids(c.Events) != ids(m.c.Events) ||
				fmt.Sprint(c.Deliverables) != fmt.Sprint(m.c.Deliverables) {
				t.Errorf("%s: whole window's Conversation differs from Read", id)
			}
		}
	}
	// The newest iteration records, read alone.
	for _, q := range []struct {
		n   int
		max int64
	}{{1, 0}, {2, 0}, {3, 200}, {100, 0}, {100, 700}, {len(m.c.Iterations) + 1, 1 << 20}, {4, 1}} {
		got, err := sn.Iterations(q.n, q.max)
		if err != nil {
			t.Fatalf("%s: Iterations(%d, %d): %v", id, q.n, q.max, err)
		}
		if want := m.lastIterations(q.n, q.max); ids(got) != ids(want) || !sameJSON(got, want) && len(want) > 0 {
			t.Errorf("%s: Iterations(%d, %d) = %s\nwant %s", id, q.n, q.max, ids(got), ids(want))
		}
	}
	// Message numbers, from the newest back.
	for i, r := range m.c.Messages {
		if i < n-5 && i > 2 {
			continue
		}
		num, err := sn.MessageNumber(r.ID)
		if err != nil || num != i+1 {
			// A repeated id in a fork's own log and its parent counts
			// first where it is found from the newest back.
			if dup := slices.IndexFunc(m.c.Messages[i+1:], func(x Record) bool { return x.ID == r.ID }); dup < 0 {
				t.Errorf("%s: MessageNumber(%s) = %d, %v, want %d", id, r.ID, num, err, i+1)
			}
		}
	}
	if num, err := sn.MessageNumber("no-such-id"); num != 0 || err != nil {
		t.Errorf("%s: MessageNumber(absent) = %d, %v", id, num, err)
	}
}

// line formats one record for a hand-made log.
func line(t testing.TB, id string, kind Kind, ts time.Time, extra func(*Record)) string {
	r := Record{ID: id, Conversation: "c", Kind: kind, Time: ts}
	switch kind {
	case KindMessage:
		r.Role, r.Content = RoleUser, "content of "+id+strings.Repeat(" word", len(id)%7*30)
	case KindIteration:
		r.Iteration = len(id)
	case KindMeta:
		r.Meta = &Meta{Title: "title " + id, Tags: []string{id}}
	}
	if extra != nil {
		extra(&r)
	}
	b, err := encodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// randomLog returns a log of n records: mostly in order, with (by the
// flags) stretches out of order, repeated records, torn and blank lines.
func randomLog(t testing.TB, rng *rand.Rand, n int, shuffle, dups, torn bool) string {
	var b strings.Builder
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var lines []string
	for i := range n {
		kind := KindMessage
		switch rng.IntN(10) {
		case 0:
			kind = KindIteration
		case 1:
			kind = KindMeta
		}
		ts := base.Add(time.Duration(i) * time.Second)
		if rng.IntN(8) == 0 {
			ts = base.Add(time.Duration(i-1) * time.Second) // equal times: ids decide
		}
		lines = append(lines, line(t, fmt.Sprintf("r%04d", rng.IntN(10000)), kind, ts, nil))
	}
	if shuffle {
		// Two interleaved clones: a stretch moved to the end, as a union
		// merge leaves it.
		a, z := rng.IntN(len(lines)), rng.IntN(len(lines))
		a, z = min(a, z), max(a, z)
		moved := slices.Clone(lines[a:z])
		lines = append(slices.Delete(lines, a, z), moved...)
	}
	if dups && len(lines) > 0 {
		for range 3 {
			lines = slices.Insert(lines, rng.IntN(len(lines)+1), lines[rng.IntN(len(lines))])
		}
	}
	if torn {
		for range 2 {
			lines = slices.Insert(lines, rng.IntN(len(lines)+1), `{"id":"torn","kind":"mess`+"\n", "\n", "  \r\n")
		}
	}
	for _, l := range lines {
		b.WriteString(l)
	}
	if torn {
		b.WriteString(`{"id":"tail","conv`)
	}
	return b.String()
}

func writeLogFile(t testing.TB, s *Store, id, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.Dir, id+".jsonl"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIndexedReadersMatchRead: on sorted, union-merged, duplicated and
// torn logs, and on forks of them, every indexed reader answers what Read
// does, first from a fresh index, then from the index extended by appends.
func TestIndexedReadersMatchRead(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	ctx := context.Background()
	for _, tc := range []struct {
		name                string
		n                   int
		shuffle, dups, torn bool
		forkAt              []int // forks of c (then of the fork) at these message numbers
	}{
		{"empty", 0, false, false, false, nil},
		{"sorted", 60, false, false, false, []int{10, 3}},
		{"union merged", 80, true, false, false, []int{20}},
		{"repeated ids", 50, false, true, false, []int{1000}},
		{"torn", 40, false, false, true, []int{5, 0}},
		{"everything", 200, true, true, true, []int{50, 30, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			writeLogFile(t, s, "c", randomLog(t, rng, tc.n, tc.shuffle, tc.dups, tc.torn))
			checkIndexed(t, s, "c")
			parent := "c"
			for i, at := range tc.forkAt {
				id := "f" + strconv.Itoa(i)
				meta := line(t, "fm"+strconv.Itoa(i), KindMeta, t0, func(r *Record) { r.Meta = &Meta{Parent: parent, ForkAt: &at} })
				writeLogFile(t, s, id, meta+randomLog(t, rng, 15, tc.shuffle, false, tc.torn))
				checkIndexed(t, s, id)
				parent = id
			}
			// Appends extend the index (and a torn tail gets its newline).
			for _, id := range append([]string{"c"}, forkIDs(len(tc.forkAt))...) {
				if err := s.Append(ctx, id, msg(RoleUser, "new 1"), Record{Kind: KindIteration, Iteration: 9}, msg(RoleAssistant, "new 2")); err != nil {
					t.Fatal(err)
				}
			}
			for _, id := range append([]string{"c"}, forkIDs(len(tc.forkAt))...) {
				checkIndexed(t, s, id)
			}
		})
	}
}

func forkIDs(n int) []string {
	var out []string
	for i := range n {
		out = append(out, "f"+strconv.Itoa(i))
	}
	return out
}

// loadHeader returns the index header of conversation id as on disk.
func loadHeader(t testing.TB, s *Store, id string) *indexHeader {
	t.Helper()
	hp, _ := s.indexFiles(id)
	h, err := loadIndexHeader(hp)
	if err != nil {
		t.Fatalf("index of %s: %v", id, err)
	}
	return h
}

// TestAppendExtendsIndex: appends extend the index in place (same
// generation, entries added) instead of rebuilding it, and MessageNumber
// answers from it.
func TestAppendExtendsIndex(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if err := s.Create(ctx, "c", Meta{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "c", msg(RoleUser, "one")); err != nil {
		t.Fatal(err)
	}
	h1 := loadHeader(t, s, "c")
	for i := range 5 {
		out, err := s.AppendStamped(ctx, "c", msg(RoleUser, "m"+strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.MessageNumber(ctx, "c", out[0].ID)
		if err != nil || n != i+2 {
			t.Fatalf("MessageNumber after append %d = %d, %v", i, n, err)
		}
	}
	h2 := loadHeader(t, s, "c")
	st, _ := os.Stat(filepath.Join(s.Dir, "c.jsonl"))
	if h2.Gen != h1.Gen || h2.Entries != h1.Entries+5 || h2.Messages != 6 || h2.Size != st.Size() || h2.Meta.Title != "t" {
		t.Errorf("after 5 appends: gen %d→%d, entries %d→%d, messages %d, size %d of %d", h1.Gen, h2.Gen, h1.Entries, h2.Entries, h2.Messages, h2.Size, st.Size())
	}
	// An append by a writer that does not index (an older recite, a
	// union merge) is picked up by the next reader, still without a
	// rebuild.
	f, err := os.OpenFile(filepath.Join(s.Dir, "c.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(line(t, "ZZZ", KindMessage, t0.Add(time.Hour), nil))
	_ = f.Close()
	checkIndexed(t, s, "c")
	if h3 := loadHeader(t, s, "c"); h3.Gen != h1.Gen || h3.Messages != 7 {
		t.Errorf("after a foreign append: gen %d→%d, %d messages", h1.Gen, h3.Gen, h3.Messages)
	}
	// A record older than the newest makes the log unsorted: rebuilt.
	f, _ = os.OpenFile(filepath.Join(s.Dir, "c.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(line(t, "AAA", KindMessage, t0.Add(-time.Hour), nil))
	_ = f.Close()
	checkIndexed(t, s, "c")
	if h4 := loadHeader(t, s, "c"); h4.Gen == h1.Gen || h4.Messages != 8 {
		t.Errorf("after an older record: gen %d→%d (want new), %d messages", h1.Gen, h4.Gen, h4.Messages)
	}
	// A caller's own id may repeat one in the log: the index is dropped
	// and the next reader rebuilds it exactly.
	first, _, _ := s.Read("c")
	dup := first.Messages[2]
	dup.Time = time.Time{}
	if err := s.Append(ctx, "c", dup); err != nil {
		t.Fatal(err)
	}
	checkIndexed(t, s, "c")
}

// TestDamagedIndex: every kind of damage to the index files is noticed
// and repaired, and the answers stay those of Read.
func TestDamagedIndex(t *testing.T) {
	damage := map[string]func(hdr, ord string) error{
		"header missing":  func(hdr, _ string) error { return os.Remove(hdr) },
		"header garbage":  func(hdr, _ string) error { return os.WriteFile(hdr, []byte("\x00\x01garbage"), 0o644) },
		"header torn":     func(hdr, _ string) error { return truncateBy(hdr, 10) },
		"header bit flip": func(hdr, _ string) error { return flipByte(hdr, -20) },
		"order missing":   func(_, ord string) error { return os.Remove(ord) },
		"order torn":      func(_, ord string) error { return truncateBy(ord, 24) },
		"order bit flip":  func(_, ord string) error { return flipByte(ord, -10) },
		"order zeroed": func(_, ord string) error {
			b, err := os.ReadFile(ord)
			if err != nil {
				return err
			}
			clear(b[ordPreamble:])
			return os.WriteFile(ord, b, 0o644)
		},
		"order swapped": func(_, ord string) error {
			b, err := os.ReadFile(ord)
			if err != nil {
				return err
			}
			n := len(b)
			x, y := b[n-2*ordEntrySize:n-ordEntrySize], b[n-ordEntrySize:]
			tmp := slices.Clone(x)
			copy(x, y)
			copy(y, tmp)
			return os.WriteFile(ord, b, 0o644)
		},
		"other generation": func(_, ord string) error { return flipByte(ord, 9) },
	}
	for name, fn := range damage {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			rng := rand.New(rand.NewPCG(1, 2))
			writeLogFile(t, s, "c", randomLog(t, rng, 30, false, false, false))
			checkIndexed(t, s, "c")
			hdr, ord := s.indexFiles("c")
			if err := fn(hdr, ord); err != nil {
				t.Fatal(err)
			}
			tail, err := s.Tail("c", 4)
			c, _, _ := s.Read("c")
			if err != nil || ids(tail) != ids(c.Messages[len(c.Messages)-4:]) {
				t.Errorf("Tail after damage = %s, %v", ids(tail), err)
			}
			checkIndexed(t, s, "c")
		})
	}
}

func truncateBy(path string, n int64) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.Truncate(path, st.Size()-n)
}

// flipByte flips the bits of byte at (from the end when negative).
func flipByte(path string, at int) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if at < 0 {
		at += len(b)
	}
	b[at] ^= 0xff
	return os.WriteFile(path, b, 0o644)
}

// TestRewrittenLog: a log replaced under its index (a checkout, an edit)
// is reindexed, whether it grew, shrank or kept its size.
func TestRewrittenLog(t *testing.T) {
	s := newStore(t)
	rng := rand.New(rand.NewPCG(3, 4))
	writeLogFile(t, s, "c", randomLog(t, rng, 40, false, false, false))
	checkIndexed(t, s, "c")
	// Same size, one byte changed in the last record's content.
	data, _ := os.ReadFile(filepath.Join(s.Dir, "c.jsonl"))
	i := bytes.LastIndex(data, []byte("content of "))
	data[i] = 'C'
	writeLogFile(t, s, "c", string(data))
	checkIndexed(t, s, "c")
	if w, _, err := s.Window(context.Background(), "c", WindowOptions{Messages: 1}); err != nil || !strings.HasPrefix(w.Records[len(w.Records)-1].Content, "Content of") {
		t.Errorf("after an edit in place: %v", err)
	}
	// Shorter, then a different log of the same id.
	writeLogFile(t, s, "c", string(data[:len(data)/2]))
	checkIndexed(t, s, "c")
	writeLogFile(t, s, "c", randomLog(t, rng, 25, true, true, true))
	checkIndexed(t, s, "c")
}

// TestTornTailDiagnostics: a torn last line is skipped with a diagnostic
// naming file and line; a torn line in the middle hides nothing before it;
// line numbers stay right as appends extend the index, and the next append
// moves a torn tail out of the log.
func TestTornTailDiagnostics(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	p := filepath.Join(s.Dir, "c.jsonl")
	text := line(t, "a", KindMessage, t0.Add(-time.Hour), nil) + "{garbage\n" + line(t, "b", KindMessage, t0.Add(-time.Minute), nil) + `{"id":"c","kind":"mes`
	writeLogFile(t, s, "c", text)
	w, diags, err := s.Window(ctx, "c", WindowOptions{Messages: 5})
	if err != nil || ids(w.Records) != "a,b" {
		t.Fatalf("window %v, %v", w, err)
	}
	checkDiagLines(t, diags, p, []int{2, 4})
	if err := s.Append(ctx, "c", msg(RoleUser, "d")); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString("<<<<<<< HEAD\n")
	_ = f.Close()
	w, diags, err = s.Window(ctx, "c", WindowOptions{Messages: 5})
	if err != nil || len(w.Records) != 3 || w.Records[2].Content != "d" {
		t.Fatalf("window %v, %v", w, err)
	}
	// The append moved the torn tail (line 4) out of the log
	// (docs/formats.md#torn-records): "d" took its line.
	checkDiagLines(t, diags, p, []int{2, 5})
	checkIndexed(t, s, "c")
}

// TestManyTornLines: the index lists the first torn lines and counts the
// rest.
func TestManyTornLines(t *testing.T) {
	s := newStore(t)
	writeLogFile(t, s, "c", strings.Repeat("garbage\n", 50)+line(t, "a", KindMessage, t0, nil))
	_, diags, err := s.Window(context.Background(), "c", WindowOptions{Messages: 1})
	if err != nil || len(diags) != maxTorn+1 || diags[maxTorn-1].Line != maxTorn || !strings.Contains(diags[maxTorn].Message, "18 more") {
		t.Fatalf("diagnostics %d %v: %v", len(diags), err, diags[len(diags)-1])
	}
}

// TestNoIndexFolder: without a writable index or lock folder, readers
// index in memory and answer the same.
func TestNoIndexFolder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := newStore(t)
	writeLogFile(t, s, "c", randomLog(t, rng, 50, true, true, true))
	s.NoIndex = true
	checkIndexed(t, s, "c")
	if _, err := os.Stat(DefaultIndexDir(s.Dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("NoIndex wrote an index: %v", err)
	}
	s.NoIndex = false
	// A file where the index folder should be.
	block := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(block, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.IndexDir = filepath.Join(block, "index")
	checkIndexed(t, s, "c")
	s.LockDir = filepath.Join(block, "locks")
	checkIndexed(t, s, "c")
}

// TestArchivedIndex: an archived log keeps its index.
func TestArchivedIndex(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	if err := s.Create(ctx, "c", Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "c", msg(RoleUser, "a"), msg(RoleUser, "b")); err != nil {
		t.Fatal(err)
	}
	h1 := loadHeader(t, s, "c")
	if err := s.Archive(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	checkIndexed(t, s, "c")
	if h2 := loadHeader(t, s, "c"); h2.Gen != h1.Gen {
		t.Error("archiving rebuilt the index")
	}
}

// TestCreateDropsStaleIndex: a log deleted by hand and created again does
// not inherit the old index.
func TestCreateDropsStaleIndex(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	_ = s.Create(ctx, "c", Meta{Title: "old"})
	_ = s.Append(ctx, "c", msg(RoleUser, "a"))
	_ = os.Remove(filepath.Join(s.Dir, "c.jsonl"))
	if err := s.Create(ctx, "c", Meta{Title: "new"}); err != nil {
		t.Fatal(err)
	}
	in, _, err := s.Info(ctx, "c")
	if err != nil || in.Messages != 0 || in.Meta.Title != "new" {
		t.Errorf("Info = %+v, %v", in, err)
	}
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
