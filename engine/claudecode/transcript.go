package claudecode

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/recite-dev/recite/planning/conversation"
)

// transcriptCompactSummary reads the last compact summary entry
// (isCompactSummary) of a Claude Code transcript; ok is false when the file
// cannot be read, is not a regular file, or has none. At most 256 MiB are
// scanned and a line is kept only up to 2 MiB (longer ones are skipped), so
// a transcript of one endless line costs bounded memory; ctx stops the
// scan.
func transcriptCompactSummary(ctx context.Context, path string) (string, bool) {
	if path == "" || !filepath.IsAbs(path) {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer func() { _ = f.Close() }()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	var last, cur []byte
	tooLong := false
	r := bufio.NewReaderSize(io.LimitReader(f, hookMaxTranscript), 1<<20)
	for n := 0; ; n++ {
		if n%64 == 0 && ctx.Err() != nil {
			return "", false
		}
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(cur)+len(chunk) > hookMaxTranscriptLine {
				tooLong, cur = true, cur[:0]
			} else {
				cur = append(cur, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		// A whole line (or the end of the file).
		if !tooLong && bytes.Contains(cur, []byte(`"isCompactSummary"`)) {
			last = append(last[:0], cur...)
		}
		cur, tooLong = cur[:0], false
		if err != nil {
			break
		}
	}
	if last == nil {
		return "", false
	}
	recs, _, err := conversation.ImportClaudeCode(bytes.NewReader(last))
	if err != nil {
		return "", false
	}
	var parts []string
	for _, rec := range recs {
		if rec.CompactSummary && rec.Content != "" {
			parts = append(parts, rec.Content)
		}
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, "\n"), true
}
