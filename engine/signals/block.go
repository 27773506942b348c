package signals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recite-dev/recite/internal/fsutil"

	"github.com/recite-dev/recite/planning"
)

// Triggers of a preservation block (docs/formats.md#preservation-blocks).
const (
	TriggerManual      = "manual"
	TriggerCompaction  = "compaction"
	TriggerSabbathRest = "sabbath_rest"
)

// Formats ParseBlocks recognises (docs/formats.md#preservation-blocks: the same data is named
// four ways).
const (
	// FormatCanonical is `## Context Preservation Block (auto-generated)`,
	// the one format RenderBlock writes.
	FormatCanonical = "canonical"
	// FormatStopSignals is `## Preserved Stop Signals (DO NOT SUMMARIZE)`
	// with labelled bullets.
	FormatStopSignals = "stop_signals"
	// FormatSabbath is a Sabbath snapshot's `### Preserved Stop Signals …`.
	FormatSabbath = "sabbath"
	// FormatDebug is a fire-debug file's `## Eliminated` list.
	FormatDebug = "debug"
)

// The canonical headings RenderBlock writes and ParseBlocks splits on.
const (
	headBlock   = "## Context Preservation Block (auto-generated)"
	headErrors  = "### Errors (verbatim, do NOT paraphrase)"
	headFixed   = "### Resolved (fixed later; what failed stays failed)"
	fixedSep    = " → fixed: "
	headBlocked = "### Blocked"
	headFailed  = "### Failed Approaches (DO NOT RETRY without new information)"
	headStop    = "### Stop Requests"
	headBreaker = "### Circuit Breaker State"
	headWorking = "### Working State"
	fileHeader  = "# Context preserved by recite\n"
	// The lines between an error's header and its fence, and the header
	// part of a probe.
	metaCommand  = "command:"
	metaKeyLine  = "key line:"
	metaResolved = "resolved:"
	headerProbe  = "harmless probe"
	approachSep  = " — "
	continuation = "  "
)

// Block is one preservation block.
type Block struct {
	// Timestamp is when the block was written (rendered as RFC 3339 UTC);
	// zero omits the line.
	Timestamp time.Time `json:"timestamp,omitzero"`
	// Trigger is manual, compaction or sabbath_rest; "" omits the line.
	Trigger string `json:"trigger,omitempty"`
	// Signals are the stop signals, rendered grouped by kind in the order
	// given within each kind.
	Signals []Signal `json:"signals"`
	// Breaker is the single circuit-breaker line
	// "stall: N/T | spin: N/T | decline: N%" (Health.BreakerLine); "" omits
	// it.
	Breaker string `json:"breaker,omitempty"`
	// FilesModified are the working-tree files modified, as the caller got
	// them from git.
	FilesModified []string `json:"files_modified,omitempty"`
	// Task is the current position and task from the planning tree
	// ("Phase 2 of 3: Sync · Plan 2-01 · Next: …"), rendered first in
	// Working State as "- Current task: …"; "" omits it.
	Task string `json:"task,omitempty"`
	// LastChange, Hypothesis and Confidence (0–100, 0 omits) are the other
	// Working State fields of docs/formats.md#preservation-blocks.
	LastChange string `json:"last_change,omitempty"`
	Hypothesis string `json:"hypothesis,omitempty"`
	Confidence int    `json:"confidence,omitempty"`
	// Format, Path and Line say where a parsed block came from (Format is
	// one of the Format constants); RenderBlock ignores them.
	Format string `json:"format,omitempty"`
	Path   string `json:"path,omitempty"`
	Line   int    `json:"line,omitempty"`
}

// Diagnostic is a problem found while parsing, naming file and line.
type Diagnostic = planning.Diagnostic

// RenderBlock renders b in the canonical format (docs/formats.md#preservation-blocks):
//
//	## Context Preservation Block (auto-generated)
//
//	timestamp: 2026-02-07T10:00:00Z
//	trigger: compaction
//
//	### Errors (verbatim, do NOT paraphrase)
//
//	Error 1 (seen 3 times; hash: 9b857251d766ff1a; source: conv.jsonl:12):
//	command: npx tsc
//	key line: src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.
//	resolved: `npx tsc` passed (conv.jsonl#41)
//	```
//	<the error, verbatim>
//	```
//
//	### Blocked
//	- BLOCKER-005: Stripe webhook signature verification fails
//	### Failed Approaches (DO NOT RETRY without new information)
//	1. approach — why
//	### Stop Requests
//	- STOP: do not touch the migrations
//	### Circuit Breaker State
//	stall: 2/5 | spin: 3/5 | decline: 10%
//	- TRIPPED (same error 5x)
//	### Working State
//	- Current task: Plan 2-01 · Next: page through invoices
//	- Files modified:
//	  - a.go
//
// Each error sits in a backtick fence one longer than the longest backtick
// run in it (at least 3), so no error can close its fence. Before the
// fence: the command that produced it (one of several lines follows
// "command:" in a fence of its own), its key line unless the text is that
// line, and what resolved it; a harmless probe says so in its header
// ("Error 2 (harmless probe; hash: …)"). A resolved error without text
// (the form Fit gives it) is one line of its own section instead:
//
//	### Resolved (fixed later; what failed stays failed)
//
//	- `go test ./api`: api_test.go:12: got 404, want 200 → fixed: `go test ./api` passed at 14:02
//
// Signal texts
// are cleaned as Extract cleans them (LF endings, outer blank lines
// dropped); further lines of a multi-line bullet are indented by two
// spaces (three for numbered items), empty lines stay empty. Sections
// with nothing to say are omitted. The output ends with a newline and
// never starts with `---`.
func RenderBlock(b Block) string {
	var sb strings.Builder
	sb.WriteString(headBlock + "\n")
	if !b.Timestamp.IsZero() || b.Trigger != "" {
		sb.WriteString("\n")
	}
	if !b.Timestamp.IsZero() {
		sb.WriteString("timestamp: " + b.Timestamp.UTC().Format(time.RFC3339) + "\n")
	}
	if b.Trigger != "" {
		sb.WriteString("trigger: " + oneLine(b.Trigger) + "\n")
	}
	byKind := map[Kind][]Signal{}
	for _, s := range b.Signals {
		s.Text = cleanText(s.Text)
		byKind[s.Kind] = append(byKind[s.Kind], s)
	}
	var errs, fixed []Signal
	for _, s := range byKind[KindError] {
		if s.ResolvedBy != "" && strings.TrimSpace(s.Text) == "" {
			fixed = append(fixed, s)
		} else {
			errs = append(errs, s)
		}
	}
	if len(errs) > 0 {
		sb.WriteString("\n" + headErrors + "\n")
		for i, s := range errs {
			sb.WriteString("\n" + errorHeader(i+1, s) + "\n")
			writeErrorMeta(&sb, s)
			sb.WriteString(fenced(s.Text))
		}
	}
	if len(fixed) > 0 {
		sb.WriteString("\n" + headFixed + "\n\n")
		for _, s := range fixed {
			sb.WriteString("- " + fixedLine(s) + "\n")
		}
	}
	if bl := byKind[KindBlocked]; len(bl) > 0 {
		sb.WriteString("\n" + headBlocked + "\n\n")
		for _, s := range bl {
			t := s.Text
			if s.ID != "" {
				t = s.ID + ": " + t
			}
			writeItem(&sb, "- ", t)
		}
	}
	if fa := byKind[KindFailedApproach]; len(fa) > 0 {
		sb.WriteString("\n" + headFailed + "\n\n")
		for i, s := range fa {
			t := s.Text
			if d := cleanText(s.Detail); d != "" {
				t += approachSep + d
			}
			writeItem(&sb, strconv.Itoa(i+1)+". ", t)
		}
	}
	if st := byKind[KindStop]; len(st) > 0 {
		sb.WriteString("\n" + headStop + "\n\n")
		for _, s := range st {
			writeItem(&sb, "- ", s.Text)
		}
	}
	if cb := byKind[KindCircuitBreaker]; len(cb) > 0 || b.Breaker != "" {
		sb.WriteString("\n" + headBreaker + "\n\n")
		if b.Breaker != "" {
			sb.WriteString(oneLine(b.Breaker) + "\n")
		}
		for _, s := range cb {
			writeItem(&sb, "- ", s.Text)
		}
	}
	if b.Task != "" || len(b.FilesModified) > 0 || b.LastChange != "" || b.Hypothesis != "" || b.Confidence > 0 {
		sb.WriteString("\n" + headWorking + "\n\n")
		if b.Task != "" {
			sb.WriteString("- Current task: " + oneLine(b.Task) + "\n")
		}
		if len(b.FilesModified) > 0 {
			sb.WriteString("- Files modified:\n")
			for _, f := range b.FilesModified {
				sb.WriteString("  - " + oneLine(f) + "\n")
			}
		}
		if b.LastChange != "" {
			sb.WriteString("- Last successful change: " + oneLine(b.LastChange) + "\n")
		}
		if b.Hypothesis != "" {
			sb.WriteString("- Current hypothesis: " + oneLine(b.Hypothesis) + "\n")
		}
		if b.Confidence > 0 {
			sb.WriteString("- Confidence: " + strconv.Itoa(b.Confidence) + "/100\n")
		}
	}
	return sb.String()
}

// fixedLine is a resolved error on one line: its command as code, its
// key line, and what resolved it ("`npx tsc`: src/a.ts(3,7): error
// TS2322: … → fixed: `npx tsc` passed at 14:02").
func fixedLine(s Signal) string {
	line := singleLine(s.KeyLine)
	if c := singleLine(s.Command); c != "" {
		line = codeSpan(c) + ": " + line
	}
	return line + fixedSep + singleLine(s.ResolvedBy)
}

// codeSpan puts s in a Markdown code span whose backtick run is one
// longer than the longest in s, padded with spaces when s starts or ends
// with a backtick.
func codeSpan(s string) string {
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// fenced puts text in a backtick fence one longer than the longest
// backtick run in it (at least 3), ending with a newline.
func fenced(text string) string {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	return fence + "\n" + text + "\n" + fence + "\n"
}

// writeErrorMeta writes the lines between an error's header and its
// fence: "command: …" (a command of several lines follows "command:" in a
// fence of its own), "key line: …" unless the text is the key line, and
// "resolved: …".
func writeErrorMeta(sb *strings.Builder, s Signal) {
	if c := strings.TrimSpace(cleanText(s.Command)); c != "" {
		if strings.Contains(c, "\n") {
			sb.WriteString(metaCommand + "\n" + fenced(c))
		} else {
			sb.WriteString(metaCommand + " " + c + "\n")
		}
	}
	if k := singleLine(s.KeyLine); k != "" && k != strings.TrimSpace(s.Text) {
		sb.WriteString(metaKeyLine + " " + k + "\n")
	}
	if r := singleLine(s.ResolvedBy); r != "" {
		sb.WriteString(metaResolved + " " + r + "\n")
	}
}

// singleLine puts s on one line, its line breaks made spaces, keeping its
// other spacing (a key line is quoted verbatim).
func singleLine(s string) string {
	return strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
}

func errorHeader(n int, s Signal) string {
	var parts []string
	if s.Count > 1 {
		parts = append(parts, fmt.Sprintf("seen %d times", s.Count))
	}
	if s.Probe {
		parts = append(parts, headerProbe)
	}
	if s.Hash != "" {
		parts = append(parts, "hash: "+oneLine(s.Hash))
	}
	if s.Source != "" {
		parts = append(parts, "source: "+oneLine(s.Source))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("Error %d:", n)
	}
	return fmt.Sprintf("Error %d (%s):", n, strings.Join(parts, "; "))
}

// writeItem writes a list item whose further lines are indented to the
// item's content column.
func writeItem(sb *strings.Builder, marker, text string) {
	indent := strings.Repeat(" ", len(marker))
	for i, line := range strings.Split(text, "\n") {
		switch {
		case i == 0:
			sb.WriteString(marker + line)
		case line == "":
		default:
			sb.WriteString(indent + line)
		}
		sb.WriteString("\n")
	}
}

// oneLine replaces line breaks so a value stays on its line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ")), " ")
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// AppendBlock appends RenderBlock(b) to the file at path (normally
// `.planning/context-preserved.md`), creating it (mode 0644) with the
// header "# Context preserved by recite" when it is absent or empty. When
// the file ends inside a code fence left open (a note appended by hand
// with an unclosed fence), a line closing that fence is written first, so
// the block is not swallowed by it (OpenFence decides, by the rules
// ParseBlocks splits on). The
// file is append-only (docs/architecture.md#append-only-logs): the block is written with
// one write(2) on an O_APPEND descriptor and fsynced, under an exclusive
// flock on the file itself (docs/formats.md#preservation-blocks) so concurrent appenders, in this
// or another process, never interleave. A block is appended whole or not
// at all (docs/architecture.md#hook-deadline): when the write or the
// fsync fails (a full disk, a file size limit), the file is truncated back
// to its length before the append, so a reader never sees part of a
// block and the previous block stays the latest. Waiting for the lock
// honours ctx; once the lock is held the write is not abandoned. Errors
// name the path.
func AppendBlock(ctx context.Context, path string, b Block) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("append block to %s: %w", path, err)
	}
	unlock, ok, err := fsutil.TryLock(ctx, path, 10*time.Millisecond)
	if err != nil {
		return fmt.Errorf("append block to %s: lock: %w", path, err)
	}
	if !ok {
		return fmt.Errorf("append block to %s: lock not acquired", path)
	}
	defer func() { _ = unlock() }()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("append block to %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("append block to %s: %w", path, err)
	}
	data := RenderBlock(b)
	if st.Size() == 0 {
		data = fileHeader + "\n" + data
	} else {
		old := make([]byte, st.Size())
		if _, err := f.ReadAt(old, 0); err != nil {
			_ = f.Close()
			return fmt.Errorf("append block to %s: %w", path, err)
		}
		lead := ""
		if old[len(old)-1] != '\n' {
			lead = "\n" // end the last line
		}
		if fence := OpenFence(old); fence != "" {
			lead += fence + "\n" // close the fence left open
		}
		data = lead + "\n" + data
	}
	if err := appendWhole(f, st.Size(), []byte(data)); err != nil {
		_ = f.Close()
		return fmt.Errorf("append block to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("append block to %s: %w", path, err)
	}
	return nil
}

// appendWhole writes data at the end of f, whose length was size, and
// fsyncs it; on failure it truncates f back to size (and fsyncs that), so
// none of data stays.
func appendWhole(f *os.File, size int64, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		if err = f.Sync(); err != nil {
			err = fmt.Errorf("sync: %w", err)
		}
	}
	if err != nil {
		if terr := f.Truncate(size); terr != nil {
			return errors.Join(err, fmt.Errorf("truncate back to %d bytes: %w", size, terr))
		}
		_ = f.Sync()
	}
	return err
}

// OpenFence returns the column-0 code fence (a run of 3 or more backticks
// or tildes) that src leaves open at its end, as ParseBlocks pairs fences
// (a closing fence is the same character, at least as long, with nothing
// after it but spaces); "" when every fence is closed. Writing the
// returned string on a line of its own closes it.
func OpenFence(src []byte) string {
	p := newBlockParser("")
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	fence := ""
	for _, l := range strings.Split(text, "\n") {
		f := p.fence.FindString(l)
		if f == "" {
			continue
		}
		if fence == "" {
			fence = f
		} else if f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(l[len(f):]) == "" {
			fence = ""
		}
	}
	return fence
}

// Latest returns the newest of blocks: the one with the latest Timestamp,
// blocks without a timestamp counting as older than any with one, and the
// later one in the slice winning ties (files are newest-last). ok is false
// when blocks is empty.
func Latest(blocks []Block) (b Block, ok bool) {
	idx := -1
	for i, bl := range blocks {
		if idx < 0 || !bl.Timestamp.Before(blocks[idx].Timestamp) {
			idx = i
		}
	}
	if idx < 0 {
		return Block{}, false
	}
	return blocks[idx], true
}
