package conversation

import (
	"bytes"
	"errors"
	"strings"
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
