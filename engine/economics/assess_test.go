package economics

import (
	"testing"
	"time"
)

// TestAssess: a build that changes a file is measured against the disk
// and yields a record; a status of the same bytes right after finds that
// record (Against "history", its prefix); a status of other bytes, or of
// bytes no build recorded, is measured against the disk with no record.
func TestAssess(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("x", 3600))
	old, body := []byte("stable\nold tail\n"), []byte("stable\nnew tail\n")
	build := File{Target: "agent", Provider: "markdown", Old: old, Body: body, PrefixBytes: 7, Tokens: 4, Write: true}
	a := Assess(dir, build, now)
	if a.Cache.Against != "disk" || a.PrefixBytes != 7 || a.Record == nil {
		t.Fatalf("build: %+v, record %+v", a.Cache, a.Record)
	}
	if r := a.Record; r.Time != "2026-03-01T09:00:00Z" || r.Hash != BodyHash(body) || r.PrefixBytes != 7 || r.First {
		t.Errorf("record = %+v", r)
	}
	if err := AppendRenders(dir, []RenderRecord{*a.Record}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		f           File
		against     string
		prefix      int
		wantsRecord bool
	}{
		{"status after the build", File{Target: "agent", Provider: "markdown", Old: body, Body: body, PrefixBytes: len(body), Tokens: 4}, "history", 7, false},
		{"status of another provider", File{Target: "agent", Provider: "openai", Old: body, Body: body, PrefixBytes: len(body), Tokens: 4}, "disk", len(body), false},
		{"status of changed bytes", File{Target: "agent", Provider: "markdown", Old: body, Body: old, PrefixBytes: 7, Tokens: 4}, "disk", 7, false},
		{"build without change", File{Target: "agent", Provider: "markdown", Old: body, Body: body, PrefixBytes: len(body), Tokens: 4, Write: true}, "disk", len(body), false},
		{"first build", File{Target: "other", Provider: "markdown", Body: body, Tokens: 4, Write: true}, "disk", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Assess(dir, tt.f, now)
			if a.Cache.Against != tt.against || a.PrefixBytes != tt.prefix || (a.Record != nil) != tt.wantsRecord {
				t.Errorf("against %s, prefix %d, record %+v; want %s, %d, record %v", a.Cache.Against, a.PrefixBytes, a.Record, tt.against, tt.prefix, tt.wantsRecord)
			}
			if tt.f.Old == nil && (!a.Cache.FirstRender || !a.Record.First) {
				t.Errorf("first render not marked: %+v, %+v", a.Cache, a.Record)
			}
		})
	}
}

// TestTargetHistory: a target's renders, never nil, and the passes of its
// conversation only.
func TestTargetHistory(t *testing.T) {
	dir := t.TempDir()
	renders, passes := TargetHistory(dir, "agent", "dev")
	if renders == nil || len(renders) != 0 || passes != nil {
		t.Fatalf("empty project: %v, %v", renders, passes)
	}
	if err := AppendRenders(dir, []RenderRecord{{Target: "agent", Provider: "markdown"}, {Target: "other", Provider: "markdown"}}); err != nil {
		t.Fatal(err)
	}
	add := []PassRecord{{Target: "agent", Conversation: "dev", Pass: 1}, {Target: "agent", Conversation: "ops", Pass: 1}}
	if err := AddPasses(dir, add, time.Now()); err != nil {
		t.Fatal(err)
	}
	renders, passes = TargetHistory(dir, "agent", "dev")
	if len(renders) != 1 || renders[0].Target != "agent" || len(passes) != 1 || passes[0].Conversation != "dev" {
		t.Errorf("renders %+v, passes %+v", renders, passes)
	}
}
