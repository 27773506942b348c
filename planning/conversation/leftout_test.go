package conversation

import (
	"context"
	"strings"
	"testing"
)

// TestWindowCarriesNoteForHugeRecord: a record longer than the window's
// whole byte bound is carried as a note with its id and size, and the
// window goes on past it to the older records.
func TestWindowCarriesNoteForHugeRecord(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if err := s.Create(ctx, "c", Meta{}); err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", 64<<10)
	written, err := s.AppendStamped(ctx, "c", msg(RoleUser, "before"), Record{Role: RoleTool, ToolName: "Bash", Content: huge}, msg(RoleAssistant, "after"))
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := s.Window(ctx, "c", WindowOptions{Messages: 10, MaxBytes: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range w.Records {
		if r.Kind == KindMessage {
			got = append(got, r.Content)
		}
	}
	if len(got) != 3 || got[0] != "before" || got[2] != "after" {
		t.Fatalf("window messages %q", got)
	}
	note := w.Records[len(w.Records)-2]
	line, _ := encodeRecord(written[1])
	if note.ID != written[1].ID || note.Role != RoleTool || note.Source != LeftOut || !note.Time.Equal(written[1].Time) ||
		note.Content != LeftOutNote(written[1].ID, int64(len(line)-1)) || !strings.Contains(note.Content, written[1].ID) {
		t.Errorf("note record %+v", note)
	}
	if !strings.Contains(LeftOutNote("01X", 104857600), "104,857,600 bytes") {
		t.Errorf("note: %s", LeftOutNote("01X", 104857600))
	}
	// Without a bound the record is read whole.
	w, _, err = s.Window(ctx, "c", WindowOptions{Messages: 10})
	if err != nil || w.Records[len(w.Records)-2].Content != huge {
		t.Errorf("unbounded window: %v", err)
	}
}
