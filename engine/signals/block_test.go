package signals

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// same reports whether two signal lists agree on what a block preserves:
// kind, verbatim text, detail, id and hash.
func same(t *testing.T, got, want []Signal) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d signals, want %d:\n%+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Kind != w.Kind || g.Text != cleanText(w.Text) || g.Detail != cleanText(w.Detail) || g.ID != w.ID || g.Hash != w.Hash {
			t.Errorf("signal %d:\n got  %+v\n want %+v", i, g, w)
		}
	}
}

func sampleBlock() Block {
	sigs := Extract(sampleProject(), sampleMessages(), nil)
	// A nasty error: backtick runs, a line that looks like a heading and a
	// line that looks like a fence.
	sigs = append([]Signal{{Kind: KindError, Text: "SyntaxError: unexpected ```` in\n### Not a heading\n```\n  indented   spaces  ", Source: "x.md:1", Count: 1, Hash: Hash("SyntaxError: unexpected ```` in\n### Not a heading\n```\n  indented   spaces")}}, sigs...)
	return Block{
		Timestamp:     time.Date(2026, 2, 7, 10, 30, 0, 0, time.UTC),
		Trigger:       TriggerCompaction,
		Signals:       sigs,
		Breaker:       "stall: 2/5 | spin: 3/5 | decline: 81%",
		FilesModified: []string{"src/auth.ts", "src/token.ts"},
		Hypothesis:    "token parsed before refresh",
		Confidence:    40,
	}
}

func TestRenderBlockGolden(t *testing.T) {
	out := RenderBlock(sampleBlock())
	golden(t, "block.golden.md", []byte(out))
	if strings.HasPrefix(out, "---") {
		t.Error("block starts with ---")
	}
}

func TestRoundTrip(t *testing.T) {
	b := sampleBlock()
	out := RenderBlock(b)
	blocks, diags := ParseBlocks("context-preserved.md", []byte(out))
	if len(diags) > 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	if len(blocks) != 1 {
		t.Fatalf("got %d blocks", len(blocks))
	}
	got := blocks[0]
	// Invariant 13: every signal verbatim. RenderBlock groups by kind, and
	// Extract already orders by kind.
	var cb []Signal
	var rest []Signal
	for _, s := range b.Signals {
		if s.Kind == KindCircuitBreaker {
			cb = append(cb, s)
		} else {
			rest = append(rest, s)
		}
	}
	var wantOrder []Signal
	for _, k := range []Kind{KindError, KindBlocked, KindFailedApproach, KindStop} {
		for _, s := range rest {
			if s.Kind == k {
				wantOrder = append(wantOrder, s)
			}
		}
	}
	wantOrder = append(wantOrder, cb...)
	same(t, got.Signals, wantOrder)
	// Errors are contiguous inside their fence; list items keep every line
	// verbatim, further lines indented to the item's content column.
	for _, s := range b.Signals {
		if s.Kind == KindError {
			if !strings.Contains(out, "\n"+cleanText(s.Text)+"\n") {
				t.Errorf("error not verbatim in block: %q", s.Text)
			}
			continue
		}
		for _, l := range strings.Split(cleanText(s.Text), "\n") {
			if !strings.Contains(out, l) {
				t.Errorf("line %q of %s signal not verbatim in block", l, s.Kind)
			}
		}
	}
	if !got.Timestamp.Equal(b.Timestamp) || got.Trigger != b.Trigger || got.Breaker != b.Breaker ||
		strings.Join(got.FilesModified, ",") != strings.Join(b.FilesModified, ",") || got.Hypothesis != b.Hypothesis || got.Confidence != b.Confidence {
		t.Errorf("block fields: %+v", got)
	}
	if got.Signals[0].Count != 1 || got.Signals[1].Count != 2 || got.Signals[1].Source != "c.jsonl:2" {
		t.Errorf("error count/source not read back: %+v %+v", got.Signals[0], got.Signals[1])
	}
}

func TestParsePublishedFormats(t *testing.T) {
	src := `# Loop notes

## Preserved Stop Signals (DO NOT SUMMARIZE)

- ERROR: "TypeError: Cannot read property 'token' of undefined"
- BLOCKED: Stripe sandbox keys missing
- FAILED ATTEMPTS: 2 — approaches: direct fix, mock service
- CIRCUIT BREAKER: WARNING (spin 3/5)
- TRIED AND FAILED: direct fix, mock service

## State at Sabbath Rest

### Preserved Stop Signals (v6.0 — JetBrains Compaction Safety)
<!-- NEVER summarize these — they must survive compaction verbatim -->
- ERRORS: ECONNREFUSED 127.0.0.1:5432
- BLOCKED: [None]
- MYSTERY: something

### Next Steps (for resumed session)
- ERROR: not a signal, outside the section

## Eliminated
<!-- APPEND only -->
- hypothesis: Session cookie expired
  evidence: fresh login also fails
  timestamp: 2026-02-07T09:00:00Z
- hypothesis: "Clock skew"
  evidence: NTP is in sync

` + "```\n## Context Preservation Block (auto-generated)\n```\n"
	blocks, diags := ParseBlocks("loops/sabbath-x.md", []byte(src))
	if len(blocks) != 3 {
		t.Fatalf("got %d blocks: %+v", len(blocks), blocks)
	}
	want := []struct {
		format string
		line   int
		sigs   []string
	}{
		{FormatStopSignals, 3, []string{
			"error:TypeError: Cannot read property 'token' of undefined",
			"blocked:Stripe sandbox keys missing",
			// The FAILED ATTEMPTS count is a counter, not an approach.
			"failed_approach:direct fix", "failed_approach:mock service",
			"circuit_breaker:WARNING (spin 3/5)",
			"failed_approach:direct fix", "failed_approach:mock service",
		}},
		{FormatSabbath, 13, []string{"error:ECONNREFUSED 127.0.0.1:5432", "stop:MYSTERY: something"}},
		{FormatDebug, 22, []string{"failed_approach:Session cookie expired", "failed_approach:Clock skew"}},
	}
	for i, w := range want {
		b := blocks[i]
		var got []string
		for _, s := range b.Signals {
			got = append(got, string(s.Kind)+":"+s.Text)
		}
		if b.Format != w.format || b.Line != w.line || strings.Join(got, "|") != strings.Join(w.sigs, "|") {
			t.Errorf("block %d = %s line %d %q, want %s line %d %q", i, b.Format, b.Line, got, w.format, w.line, w.sigs)
		}
	}
	if d := blocks[2].Signals[0]; d.Detail != "fresh login also fails" || d.FirstSeen.IsZero() {
		t.Errorf("hypothesis evidence/timestamp: %+v", d)
	}
	if len(diags) != 1 || diags[0].Line != 17 || !strings.Contains(diags[0].String(), "loops/sabbath-x.md:17") {
		t.Errorf("diagnostics = %v, want one for the MYSTERY label at line 17", diags)
	}
}

func TestParseDiagnostics(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
	}{
		{"bad timestamp", "## Context Preservation Block (auto-generated)\n\ntimestamp: yesterday\n", 3},
		{"bad trigger", "## Context Preservation Block (auto-generated)\ntrigger: whenever\n", 2},
		{"unclosed fence", "## Context Preservation Block (auto-generated)\n\n### Errors (verbatim, do NOT paraphrase)\n\n```\nboom\n", 5},
		{"unknown section", "## Context Preservation Block (auto-generated)\n\n### Mood\n", 3},
		{"stray line", "## Preserved Stop Signals (DO NOT SUMMARIZE)\nhello\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := ParseBlocks("p.md", []byte(tt.src))
			found := false
			for _, d := range diags {
				if d.Path == "p.md" && d.Line == tt.line {
					found = true
				}
			}
			if !found {
				t.Errorf("diagnostics %v lack p.md:%d", diags, tt.line)
			}
		})
	}
}

func TestAppendBlockAndLatest(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".planning", "context-preserved.md")
	ctx := context.Background()
	b1 := sampleBlock()
	b2 := Block{Timestamp: b1.Timestamp.Add(time.Hour), Trigger: TriggerManual, Signals: []Signal{{Kind: KindStop, Text: "STOP: wait for review"}}}
	if err := AppendBlock(ctx, path, b1); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(path)
	if err := AppendBlock(ctx, path, b2); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "# Context preserved by recite\n\n## Context Preservation Block") {
		t.Errorf("file starts %q", string(data[:60]))
	}
	if !strings.HasPrefix(string(data), string(first)) {
		t.Error("second append rewrote the first block")
	}
	if strings.Count(string(data), "# Context preserved by recite\n") != 1 {
		t.Error("header written twice")
	}
	blocks, diags := ParseBlocks(path, data)
	if len(diags) > 0 || len(blocks) != 2 {
		t.Fatalf("blocks %d diags %v", len(blocks), diags)
	}
	l, ok := Latest(blocks)
	if !ok || l.Trigger != TriggerManual || l.Line == 0 {
		t.Errorf("Latest = %+v", l)
	}
	if _, ok := Latest(nil); ok {
		t.Error("Latest(nil) ok")
	}
	// Older timestamp later in the file: the newer one wins.
	rev := []Block{blocks[1], blocks[0]}
	if l, _ := Latest(rev); l.Trigger != TriggerManual {
		t.Errorf("Latest by time = %s", l.Trigger)
	}
}

func TestAppendBlockConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context-preserved.md")
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			big := strings.Repeat(fmt.Sprintf("line %d of a long error\n", i), 300)
			errs <- AppendBlock(context.Background(), path, Block{Trigger: TriggerManual, Signals: []Signal{{Kind: KindError, Text: fmt.Sprintf("E%d\n%s", i, big)}}})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	blocks, diags := ParseBlocks(path, data)
	if len(diags) > 0 || len(blocks) != n {
		t.Fatalf("got %d blocks, %d diagnostics", len(blocks), len(diags))
	}
	seen := map[string]bool{}
	for _, b := range blocks {
		if len(b.Signals) != 1 {
			t.Fatalf("block has %d signals", len(b.Signals))
		}
		seen[strings.SplitN(b.Signals[0].Text, "\n", 2)[0]] = true
	}
	if len(seen) != n {
		t.Errorf("distinct blocks %d, want %d", len(seen), n)
	}
}

func TestAppendBlockErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := AppendBlock(context.Background(), filepath.Join(file, "x.md"), Block{})
	if err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("err = %v, want one naming the path", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := AppendBlock(ctx, filepath.Join(dir, "c.md"), Block{}); err == nil {
		t.Error("cancelled context: no error")
	}
}

func FuzzParseBlocks(f *testing.F) {
	f.Add([]byte(RenderBlock(sampleBlock())), "boom")
	f.Add([]byte("## Preserved Stop Signals (DO NOT SUMMARIZE)\n- ERROR: \"x\"\n- TRIED AND FAILED: a, b\n"), "```")
	f.Add([]byte("## Eliminated\n- hypothesis: h\n  evidence: e\n"), "a\n\n  b")
	f.Add([]byte("### Preserved Stop Signals\n- CIRCUIT BREAKER: \n````\n"), "~~~\n````")
	f.Add([]byte("## Context Preservation Block (auto-generated)\n\n### Errors (verbatim, do NOT paraphrase)\n\nError 1 (harmless probe; hash: x):\ncommand:\n```\na\nb\n```\nkey line: k\nresolved: r\n```\nboom\n```\n"), "command: x\nkey line: y")
	f.Fuzz(func(t *testing.T, src []byte, errText string) {
		ParseBlocks("fuzz.md", src) // must not panic
		// Any error text survives Render → Parse verbatim.
		want := cleanText(errText)
		if strings.TrimSpace(want) == "" {
			return
		}
		out := RenderBlock(Block{Signals: []Signal{{Kind: KindError, Text: errText, Command: errText, KeyLine: errText, ResolvedBy: errText, Probe: true}, {Kind: KindStop, Text: errText}}})
		blocks, diags := ParseBlocks("fuzz.md", []byte(out))
		if len(blocks) != 1 || len(blocks[0].Signals) != 2 {
			t.Fatalf("render of %q parsed to %d blocks %+v %v", errText, len(blocks), blocks, diags)
		}
		for _, s := range blocks[0].Signals {
			if s.Text != want {
				t.Fatalf("%s text %q came back as %q", s.Kind, want, s.Text)
			}
		}
		// The command, key line, resolution and probe mark come back too.
		e := blocks[0].Signals[0]
		if e.Command != strings.TrimSpace(want) || e.KeyLine != singleLine(errText) || e.ResolvedBy != singleLine(errText) || !e.Probe {
			t.Fatalf("error %q came back as command %q key line %q resolved %q probe %v", errText, e.Command, e.KeyLine, e.ResolvedBy, e.Probe)
		}
	})
}

func BenchmarkParseBlocks(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(fileHeader)
	for range 50 {
		sb.WriteString("\n" + RenderBlock(sampleBlock()))
	}
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		ParseBlocks("p.md", src)
	}
}

func TestOpenFence(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", ""},
		{"# x\n\n```\ncode\n```\n", ""},
		{"\n```\nnote\n", "```"},
		{"\n````go\nnote ```\n", "````"},
		{"~~~\nx\n```\n", "~~~"},
		{"```\nx\n```` \n", ""},
		{"```\nx\n``` trailing\n", "```"},
		{"  ```\nindented fences are not column-0 fences\n", ""},
		{"```\r\nx\r\n```\r\n", ""},
	}
	for _, tt := range tests {
		if got := OpenFence([]byte(tt.src)); got != tt.want {
			t.Errorf("OpenFence(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// TestAppendBlockAfterOpenFence: a note with an unclosed fence appended by
// hand (printf '\n```\nnote\n' >> file) does not hide the blocks appended
// after it, and normal appends are unchanged.
func TestAppendBlockAfterOpenFence(t *testing.T) {
	ctx := context.Background()
	b := func(i int) Block {
		return Block{Timestamp: time.Date(2026, 2, 7, 10, i, 0, 0, time.UTC), Trigger: TriggerManual, Signals: []Signal{{Kind: KindError, Text: fmt.Sprintf("Error: boom %d", i)}}}
	}
	for _, tail := range []string{"\n```\nnote\n", "\n~~~~\nnote without newline", ""} {
		path := filepath.Join(t.TempDir(), "context-preserved.md")
		if err := AppendBlock(ctx, path, b(1)); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(tail); err != nil {
			t.Fatal(err)
		}
		f.Close()
		for i := 2; i <= 3; i++ {
			if err := AppendBlock(ctx, path, b(i)); err != nil {
				t.Fatal(err)
			}
		}
		src, _ := os.ReadFile(path)
		blocks, diags := ParseBlocks("c.md", src)
		if len(blocks) != 3 || len(diags) != 0 {
			t.Fatalf("tail %q: %d blocks, diagnostics %v:\n%s", tail, len(blocks), diags, src)
		}
		if l, _ := Latest(blocks); l.Signals[0].Text != "Error: boom 3" {
			t.Errorf("tail %q: latest %+v", tail, l)
		}
		if OpenFence(src) != "" {
			t.Errorf("tail %q: file still ends in an open fence", tail)
		}
		if want := fileHeader + "\n" + RenderBlock(b(1)) + "\n" + RenderBlock(b(2)) + "\n" + RenderBlock(b(3)); tail == "" && string(src) != want {
			t.Errorf("normal appends changed:\n%s", src)
		}
	}
}

// TestParseBlocksRecoversFromOpenFence: a file already corrupted (blocks
// appended after a stray fence by a writer that did not close it) still
// yields its later blocks, with a diagnostic naming the fence's line; a
// heading quoted inside a closed fence of a well-formed file stays text.
func TestParseBlocksRecoversFromOpenFence(t *testing.T) {
	b1 := RenderBlock(Block{Trigger: TriggerManual, Signals: []Signal{{Kind: KindError, Text: "Error: one"}}})
	b2 := RenderBlock(Block{Trigger: TriggerManual, Signals: []Signal{{Kind: KindError, Text: "Error: two"}, {Kind: KindBlocked, Text: "waiting"}}})
	b3 := RenderBlock(Block{Trigger: TriggerCompaction, Signals: []Signal{{Kind: KindError, Text: "Error: three"}}})
	src := fileHeader + "\n" + b1 + "\n```\nnote\n" + "\n" + b2 + "\n" + b3
	blocks, diags := ParseBlocks("c.md", []byte(src))
	if len(blocks) != 3 {
		t.Fatalf("%d blocks, want 3; diagnostics %v", len(blocks), diags)
	}
	if l, _ := Latest(blocks); l.Trigger != TriggerCompaction || l.Signals[0].Text != "Error: three" {
		t.Errorf("latest %+v", l)
	}
	if len(diags) == 0 || !strings.Contains(diags[0].String(), "never closed") {
		t.Errorf("diagnostics %v", diags)
	}
	// Well-formed: an error quoting the heading stays inside its fence.
	quoted := RenderBlock(Block{Signals: []Signal{{Kind: KindError, Text: "cat failed:\n" + headBlock + "\nend"}}})
	blocks, diags = ParseBlocks("c.md", []byte(fileHeader+"\n"+quoted+"\n"+b3))
	if len(blocks) != 2 || len(diags) != 0 || !strings.Contains(blocks[0].Signals[0].Text, headBlock) {
		t.Errorf("quoted heading: %d blocks, %v", len(blocks), diags)
	}
}
