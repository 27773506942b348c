package compress

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/recite-dev/recite/internal/fsutil"
)

// compressCacheDir holds the outputs of the compression.summarizer
// command, keyed by a hash of the command, the keep share and the text.
const compressCacheDir = ".planning/.recite/compress"

// compressSummarizerTimeout bounds one run of the summarizer command.
const compressSummarizerTimeout = 2 * time.Minute

// CommandSummarizer returns the Options.Summarize callback running command
// through `sh -c` in the project at dir (text on stdin, summary on stdout,
// the share to keep in $RECITE_KEEP), cached under
// .planning/.recite/compress by a hash of the command, the share and the
// text so a text is summarized once and renders to the same bytes; each
// run is bounded by 2 minutes and by ctx. A failure reports false, and the
// caller falls back to the extractive rules.
func CommandSummarizer(ctx context.Context, dir, command string) func(string, float64) (string, bool) {
	return func(text string, keep float64) (string, bool) {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%.2f\x00%s", command, keep, text)))
		cache := filepath.Join(dir, filepath.FromSlash(compressCacheDir), hex.EncodeToString(sum[:16])+".txt")
		if b, err := os.ReadFile(cache); err == nil {
			return string(b), true
		}
		cctx, cancel := context.WithTimeout(ctx, compressSummarizerTimeout)
		defer cancel()
		cmd := exec.CommandContext(cctx, "sh", "-c", command)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), fmt.Sprintf("RECITE_KEEP=%.2f", keep))
		cmd.Stdin = strings.NewReader(text)
		var out bytes.Buffer
		cmd.Stdout = &out
		cmd.WaitDelay = time.Second
		if cmd.Run() != nil {
			return "", false
		}
		res := strings.TrimSpace(out.String())
		if res == "" {
			return "", false
		}
		if err := os.MkdirAll(filepath.Dir(cache), 0o755); err == nil {
			_ = fsutil.WriteFile(cache, []byte(res), 0o644)
		}
		return res, true
	}
}
