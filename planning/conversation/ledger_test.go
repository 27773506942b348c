package conversation

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// origin is a record of a conversation in read order with the log it
// comes from.
type origin struct {
	r   Record
	log string
}

// chainRecords returns conversation id's records in read order (its
// inherited messages, then its own records) with the log of each, and each
// log's own normalized records, from Read and the log files alone.
func chainRecords(t testing.TB, s *Store, id string, logs map[string][]Record) []origin {
	t.Helper()
	p, err := s.existingPath(id)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := ParseLog(p, data)
	recs = Normalize(recs)
	logs[id] = recs
	c := build(id, recs, nil)
	var out []origin
	if c.Meta.Parent != "" {
		var inh []origin
		for _, o := range chainRecords(t, s, c.Meta.Parent, logs) {
			if o.r.Kind == KindMessage {
				inh = append(inh, o)
			}
		}
		if at := c.Meta.ForkAt; at != nil && *at >= 0 && *at < len(inh) {
			inh = inh[:*at]
		}
		out = inh
	}
	for _, r := range recs {
		out = append(out, origin{r, id})
	}
	return out
}

// wantEarlier is what Window's Earlier and Signals must be when the window
// holds the last held records of all (and did not hold them all): the
// counts of the rest, and the rest's records that are among the newest
// maxLedger stop candidates or error candidates of their own log.
func wantEarlier(all []origin, held int, logs map[string][]Record) (Earlier, []Record) {
	rest := all[:len(all)-held]
	var e Earlier
	for _, o := range rest {
		switch o.r.Kind {
		case KindMessage:
			e.Messages++
			if PromptCandidate(&o.r) {
				e.Prompts++
			}
		case KindIteration:
			e.Iterations++
		}
	}
	ledger := map[string]map[int]bool{} // log → positions in its read order
	for id, recs := range logs {
		var stops, errs []int
		for i := range recs {
			if StopCandidate(&recs[i]) {
				stops = append(stops, i)
			}
			if ErrorCandidate(&recs[i]) {
				errs = append(errs, i)
			}
		}
		set := map[int]bool{}
		for _, l := range [][]int{stops, errs} {
			for _, p := range l[max(0, len(l)-maxLedger):] {
				set[p] = true
			}
		}
		ledger[id] = set
	}
	var sig []Record
	for _, o := range rest {
		pos := slices.IndexFunc(logs[o.log], func(r Record) bool { return r.ID == o.r.ID && r.Time.Equal(o.r.Time) })
		if pos >= 0 && ledger[o.log][pos] {
			sig = append(sig, o.r)
		}
	}
	return e, sig
}

// checkLedger compares Window's Earlier and Signals with wantEarlier for
// windows of several sizes of conversation id.
func checkLedger(t testing.TB, s *Store, id string) {
	t.Helper()
	logs := map[string][]Record{}
	all := chainRecords(t, s, id, logs)
	sn, err := s.Snapshot(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer sn.Close()
	for _, opts := range []WindowOptions{{Messages: 1}, {Messages: 5}, {Messages: 40}, {Messages: 80}, {Messages: 130}, {Iterations: 2}, {MaxBytes: 900}, {Messages: 1 << 20}} {
		w, err := sn.Window(opts)
		if err != nil {
			t.Fatalf("%s: Window(%+v): %v", id, opts, err)
		}
		e, sig := wantEarlier(all, len(w.Records), logs)
		if w.Complete {
			e, sig = Earlier{}, nil
		}
		if w.Earlier != e || ids(w.Signals) != ids(sig) {
			t.Errorf("%s: Window(%+v): Earlier %+v, Signals %s\nwant %+v, %s", id, opts, w.Earlier, ids(w.Signals), e, ids(sig))
		}
		c := w.Conversation()
		if c.Earlier != w.Earlier || ids(c.Signals) != ids(w.Signals) {
			t.Errorf("%s: Conversation() drops Earlier or Signals", id)
		}
	}
}

// signalLog is a sorted log of n records with stop words, failed results
// and user prompts among the messages, each kind more than maxLedger
// times.
func signalLog(t testing.TB, rng *rand.Rand, n int, prefix string) string {
	var b strings.Builder
	base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		id := fmt.Sprintf("%s%05d", prefix, i)
		ts := base.Add(time.Duration(i) * time.Second)
		kind := KindMessage
		if rng.IntN(9) == 0 {
			kind = KindIteration
		}
		b.WriteString(line(t, id, kind, ts, func(r *Record) {
			if kind != KindMessage {
				return
			}
			switch rng.IntN(6) {
			case 0:
				r.Content = "BLOCKED: waiting for the API key " + id
			case 1:
				r.Role, r.ToolCallID, r.IsError, r.Content = RoleTool, "call-"+id, true, "exit status 1: "+id
			case 2:
				r.Role = RoleAssistant
			case 3:
				r.Internal, r.Content = true, "STOP: an internal note "+id
			case 4:
				r.Role, r.Content = RoleUser, "  "
			}
		}))
	}
	return b.String()
}

// TestWindowLedger: a window that does not hold the whole conversation
// says how many messages, iteration records and prompt candidates come
// before it, and carries the older records of the index's ledger, as the
// model computed from Read says: on a sorted log, a union-merged one
// (rebuilt by sorting), after appends by this store and by another writer
// (the index extended), and on forks.
func TestWindowLedger(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	ctx := context.Background()
	s := newStore(t)
	writeLogFile(t, s, "c", signalLog(t, rng, 400, "a"))
	checkLedger(t, s, "c")

	// Appends extend the index: the ledger follows.
	for i := range 40 {
		r := msg(RoleUser, fmt.Sprintf("STOP: do not touch file %d", i))
		if i%2 == 1 {
			r = Record{Role: RoleTool, ToolCallID: "x", IsError: true, Content: fmt.Sprintf("failed %d", i)}
		}
		if err := s.Append(ctx, "c", r); err != nil {
			t.Fatal(err)
		}
	}
	gen := loadHeader(t, s, "c").Gen
	checkLedger(t, s, "c")
	// Another writer's lines: the next reader extends the index.
	f, err := os.OpenFile(filepath.Join(s.Dir, "c.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	later := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	_, _ = f.WriteString(line(t, "zz1", KindMessage, later, func(r *Record) { r.Content = "STUCK on the migration" }))
	_ = f.Close()
	checkLedger(t, s, "c")
	if h := loadHeader(t, s, "c"); h.Gen != gen {
		t.Errorf("appends rebuilt the index (generation %d, was %d)", h.Gen, gen)
	}

	// A union merge: records out of order, the index rebuilt by sorting.
	text := signalLog(t, rng, 300, "b")
	lines := strings.SplitAfter(text, "\n")
	moved := slices.Clone(lines[50:120])
	lines = append(slices.Delete(lines, 50, 120), moved...)
	writeLogFile(t, s, "m", strings.Join(lines, ""))
	checkLedger(t, s, "m")

	// Forks, two deep: near the parent's end (inside its ledger) and
	// before the fork's own ledger.
	info, _, err := s.Info(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	for i, at := range []int{info.Messages - 3, 30} {
		parent := "c"
		if i > 0 {
			parent = "f0"
		}
		meta := line(t, fmt.Sprintf("fm%d", i), KindMeta, t0, func(r *Record) { r.Meta = &Meta{Parent: parent, ForkAt: &at} })
		writeLogFile(t, s, fmt.Sprintf("f%d", i), meta+signalLog(t, rng, 60, fmt.Sprintf("f%d-", i)))
		checkLedger(t, s, fmt.Sprintf("f%d", i))
	}
}

// TestVersion1IndexRebuilt: an index of the first version (no flags, no
// ledger) is not trusted: the next reader rebuilds it and the ledger is
// there.
func TestVersion1IndexRebuilt(t *testing.T) {
	s := newStore(t)
	writeLogFile(t, s, "c", signalLog(t, rand.New(rand.NewPCG(1, 2)), 100, "a"))
	checkLedger(t, s, "c")
	hp, _ := s.indexFiles("c")
	data, err := os.ReadFile(hp)
	if err != nil {
		t.Fatal(err)
	}
	first, body, _ := bytes.Cut(data, []byte{'\n'})
	if !bytes.HasPrefix(first, []byte(indexMagic+" 2 ")) {
		t.Fatalf("header line %q", first)
	}
	h := loadHeader(t, s, "c")
	old := bytes.Replace(body, []byte(`"v":2`), []byte(`"v":1`), 1)
	if err := os.WriteFile(hp, fmt.Appendf(nil, "%s 1 crc32c=%08x\n%s", indexMagic, crc32c(old), old), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := decodeIndexHeader(mustRead(t, hp)); err == nil {
		t.Fatal("a version 1 header decodes")
	}
	checkLedger(t, s, "c")
	if got := loadHeader(t, s, "c"); got.Gen == h.Gen {
		t.Error("the version 1 index was used, not rebuilt")
	}
}

func mustRead(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
