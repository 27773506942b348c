package conversation

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

func FuzzReadLog(f *testing.F) {
	f.Add([]byte(`{"id":"a","conversation":"c","kind":"message","ts":"2026-01-01T00:00:00Z","role":"user","content":"x"}` + "\n"))
	f.Add([]byte(`{"id":"a","conversation":"c","kind":"meta","ts":"2026-01-01T00:00:00Z","meta":{"parent":"p","fork_at":2}}` + "\n{\"id\":\"b\",\"kind\":\"mess"))
	f.Add([]byte("\n\r\n<<<<<<< HEAD\n\x00"))
	f.Add([]byte(`{"id":"a","kind":"iteration","ts":"0001-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, diags := ParseLog("f.jsonl", data)
		lines := bytes.Count(data, []byte{'\n'}) + 1
		for _, d := range diags {
			if d.Line < 1 || d.Line > lines || d.Path != "f.jsonl" {
				t.Fatalf("diagnostic %v outside 1..%d", d, lines)
			}
		}
		for _, r := range recs {
			if r.ID == "" || r.Time.IsZero() {
				t.Fatalf("invalid record accepted: %+v", r)
			}
		}
		n := Normalize(recs)
		for i := 1; i < len(n); i++ {
			if compareRecords(n[i-1], n[i]) > 0 {
				t.Fatal("not sorted")
			}
		}
	})
}

func FuzzImportClaudeCode(f *testing.F) {
	f.Add(`{"type":"user","uuid":"u1","timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"hi"}}`)
	f.Add(`{"type":"assistant","uuid":"a1","timestamp":"2026-02-01T10:00:01Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"B","input":{}}]}}` + "\n" +
		`{"type":"user","uuid":"u2","timestamp":"2026-02-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}]}]}}`)
	f.Add(`{"type":"system","subtype":"compact_boundary","uuid":"s","timestamp":"2026-02-01T10:00:03Z","compactMetadata":{"trigger":"auto","preTokens":1}}`)
	f.Add(`{"type":"summary","summary":"t","leafUuid":"l"}` + "\n{bad")
	f.Fuzz(func(t *testing.T, in string) {
		recs, rep, err := ImportClaudeCode(strings.NewReader(in))
		var fe *FormatError
		if errors.As(err, &fe) {
			// Not this importer's format: nothing is imported.
			if recs != nil {
				t.Fatalf("%v with %d records", err, len(recs))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if rep.Entries != rep.Imported+rep.SkippedTotal() || rep.Records != len(recs) {
			t.Fatalf("report does not add up: %+v, %d records", rep, len(recs))
		}
		for _, r := range recs {
			if _, err := encodeRecord(r); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzImportAider(f *testing.F) {
	f.Add("# aider chat started at 2026-04-22 22:40:12\n\n> out  \n\n#### hi  \n\nanswer\n")
	f.Add("####\n>\n# aider chat started at x\r\ntext")
	f.Fuzz(func(t *testing.T, in string) {
		recs, rep, err := ImportAider(strings.NewReader(in))
		var fe *FormatError
		if errors.As(err, &fe) {
			// Not this importer's format: nothing is imported.
			if recs != nil {
				t.Fatalf("%v with %d records", err, len(recs))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if rep.Entries != rep.Imported+rep.SkippedTotal() || rep.Records != len(recs) {
			t.Fatalf("report does not add up: %+v, %d records", rep, len(recs))
		}
		seen := map[string]bool{}
		for _, r := range recs {
			if seen[r.ID] {
				t.Fatalf("duplicate id %s", r.ID)
			}
			seen[r.ID] = true
		}
	})
}

// FuzzIndexHeader: the index header reader never panics on any bytes,
// accepts only what passes its checks, and reads back what it writes.
func FuzzIndexHeader(f *testing.F) {
	at := 3
	good, _ := encodeIndexHeader(&indexHeader{Version: indexVersion, Gen: 9, Size: 100, Lines: 2, Head: strings.Repeat("a", 64), Tail: strings.Repeat("b", 64),
		Entries: 2, Messages: 1, Iterations: 1, Meta: Meta{Title: "t", Parent: "p", ForkAt: &at}, Torn: []tornLine{{Line: 1, Message: "x"}}, TornCount: 3})
	f.Add(good)
	f.Add(good[:len(good)-5])
	f.Add([]byte("recite-conversation-index 1 crc32c=00000000\n{}\n"))
	f.Add([]byte("recite-conversation-index 2 crc32c=zz\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := decodeIndexHeader(data)
		if err != nil {
			if !errors.Is(err, errBadIndex) {
				t.Fatalf("error %v does not wrap errBadIndex", err)
			}
			return
		}
		if h.Size < 0 || h.Entries < 0 || h.Messages+h.Iterations > h.Entries || len(h.Torn) > maxTorn {
			t.Fatalf("accepted a header out of range: %+v", h)
		}
		b, err := encodeIndexHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		h2, err := decodeIndexHeader(b)
		if err != nil {
			t.Fatalf("re-encoded header rejected: %v", err)
		}
		b2, _ := encodeIndexHeader(h2)
		if !bytes.Equal(b, b2) {
			t.Fatalf("round trip differs:\n%s\n%s", b, b2)
		}
	})
}

// FuzzOrdEntries: the read-order reader never panics and accepts only
// entries that lie in the log.
func FuzzOrdEntries(f *testing.F) {
	b := make([]byte, 2*ordEntrySize)
	putOrdEntry(b, ordEntry{Off: 0, Len: 10, Rank: 0, Kind: KindMeta, Check: idCheck("m")})
	putOrdEntry(b[ordEntrySize:], ordEntry{Off: 11, Len: 40, Rank: 0, Kind: KindMessage, Check: idCheck("a")})
	f.Add(b, int64(60))
	f.Add(b[:20], int64(60))
	f.Add(bytes.Repeat([]byte{0xff}, 32), int64(1<<40))
	f.Fuzz(func(t *testing.T, data []byte, size int64) {
		es, err := decodeOrdEntries(data, size, nil)
		if err != nil {
			if !errors.Is(err, errBadIndex) {
				t.Fatalf("error %v does not wrap errBadIndex", err)
			}
			return
		}
		for _, e := range es {
			if e.Off < 0 || e.Len <= 0 || e.Off+e.Len > size || kindCodes[e.Kind] == 0 {
				t.Fatalf("accepted entry %+v of a %d-byte log", e, size)
			}
			out := make([]byte, ordEntrySize)
			putOrdEntry(out, e)
			back, err := decodeOrdEntries(out, size, nil)
			if err != nil || back[0] != e {
				t.Fatalf("round trip of %+v: %+v, %v", e, back, err)
			}
		}
	})
}

// FuzzIndexedLog: for any log bytes, indexed and then extended by any
// appended bytes, every indexed reader (the line scanner, the index
// builder, the sorting pass, the catch-up over appended lines, the line
// reader, windows, streaming) answers what Read does.
func FuzzIndexedLog(f *testing.F) {
	rec := func(id, ts, kind string) string {
		return `{"id":"` + id + `","conversation":"c","kind":"` + kind + `","ts":"` + ts + `","role":"user","content":"` + id + `"}` + "\n"
	}
	f.Add([]byte(rec("a", "2026-01-01T00:00:01Z", "message")+rec("b", "2026-01-01T00:00:02Z", "iteration")), []byte(rec("c", "2026-01-01T00:00:03Z", "message")))
	f.Add([]byte(rec("b", "2026-01-01T00:00:02Z", "message")+rec("a", "2026-01-01T00:00:01Z", "message")), []byte(rec("a", "2026-01-01T00:00:01Z", "message")))
	f.Add([]byte(rec("a", "2026-01-01T00:00:01Z", "message")+`{"id":"x","kind":"mes`), []byte("\n"+rec("z", "2027-01-01T00:00:00Z", "meta")))
	f.Add([]byte(rec("a", "2026-01-01T00:00:01Z", "message")+"\r\n  \n"+rec("a", "2026-01-01T00:00:05Z", "message")), []byte("garbage"))
	f.Add([]byte(`{"id":"m","conversation":"c","kind":"meta","ts":"2026-01-01T00:00:00Z","meta":{"title":"t"}}`), []byte(rec("q", "2026-01-01T00:00:00Z", "message")))
	// One store for all inputs, a new conversation for each: creating and
	// removing a folder per input would slow the fuzzer tenfold.
	s, err := Open(filepath.Join(f.TempDir(), "conversations"))
	if err != nil {
		f.Fatal(err)
	}
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, log, appended []byte) {
		if len(log)+len(appended) > 1<<16 {
			return
		}
		id := "c" + strconv.FormatInt(n.Add(1), 10)
		p := filepath.Join(s.Dir, id+".jsonl")
		if err := os.WriteFile(p, log, 0o644); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = os.Remove(p) }()
		checkIndexed(t, s, id)
		fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fh.Write(appended)
		_ = fh.Close()
		checkIndexed(t, s, id)
	})
}
