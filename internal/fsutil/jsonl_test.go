package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

type rec struct {
	N int `json:"n"`
}

func TestJSONLRing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "ring.jsonl")
	got, err := ReadJSONL[rec](p, nil)
	if err != nil || got != nil {
		t.Fatalf("missing file: %v, %v", got, err)
	}
	var recs []rec
	for i := 1; i <= 5; i++ {
		recs = append(recs, rec{i})
	}
	if err := WriteJSONLRing(p, recs, 3); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if want := "{\"n\":3}\n{\"n\":4}\n{\"n\":5}\n"; string(b) != want {
		t.Fatalf("file %q, want %q", b, want)
	}
	if err := os.WriteFile(p, append(b, []byte("torn{\n{\"n\":0}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = ReadJSONL(p, func(r rec) bool { return r.N > 0 })
	if err != nil || len(got) != 3 || got[0].N != 3 || got[2].N != 5 {
		t.Fatalf("read %v, %v; want 3 4 5 (torn and rejected lines skipped)", got, err)
	}
}
