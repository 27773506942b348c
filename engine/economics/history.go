package economics

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/internal/fsutil"
)

// RendersFile is the ring of recent renders, one JSON object a line,
// relative to the project root.
const RendersFile = layout.CacheDir + "/renders.jsonl"

// MaxRenders bounds RendersFile: older lines are dropped.
const MaxRenders = 50

// PassesFile records each compression pass once, when a build first reaches
// it: the tokens before and after it, so the tokens each pass saved can be
// reported (docs/formats.md#compression).
const PassesFile = layout.CacheDir + "/passes.jsonl"

// MaxPasses bounds PassesFile: older lines are dropped.
const MaxPasses = 200

// PassRecord is one line of PassesFile.
type PassRecord struct {
	Time   string `json:"time"`
	Target string `json:"target"`
	// Conversation is the target's conversation at the pass ("" for none).
	Conversation string `json:"conversation,omitempty"`
	// Pass is the iteration of the pass; Before, After and Saved are the
	// scored segments' tokens (CompressReport).
	Pass   int `json:"pass"`
	Before int `json:"before"`
	After  int `json:"after"`
	Saved  int `json:"saved"`
}

// AddPasses appends to the PassesFile of the project at dir each record of
// add whose pass is not recorded yet for its target and conversation, stamped
// now (RFC 3339, UTC), in a ring of the last MaxPasses
// (fsutil.AppendJSONLRing). Errors: the file cannot be written.
func AddPasses(dir string, add []PassRecord, now time.Time) error {
	if len(add) == 0 {
		return nil
	}
	old, _ := PassHistory(dir)
	var recs []PassRecord
	for _, a := range add {
		if !slices.ContainsFunc(old, func(r PassRecord) bool {
			return r.Target == a.Target && r.Conversation == a.Conversation && r.Pass == a.Pass
		}) {
			a.Time = now.UTC().Format(time.RFC3339)
			recs = append(recs, a)
		}
	}
	if len(recs) == 0 {
		return nil
	}
	return fsutil.AppendJSONLRing(filepath.Join(dir, filepath.FromSlash(PassesFile)), recs, MaxPasses)
}

// PassHistory reads the last MaxPasses records of the PassesFile of the
// project at dir, oldest first; a missing file is empty, and lines that
// are not records (no target or pass) are skipped.
func PassHistory(dir string) ([]PassRecord, error) {
	recs, err := fsutil.ReadJSONL(filepath.Join(dir, filepath.FromSlash(PassesFile)), func(r PassRecord) bool {
		return r.Target != "" && r.Pass > 0
	})
	return fsutil.Newest(recs, MaxPasses), err
}

// AppendRenders adds rs to the RendersFile of the project at dir, a ring
// of the last MaxRenders renders (fsutil.AppendJSONLRing: appended, and
// rewritten atomically with the newest once it holds twice as many).
func AppendRenders(dir string, rs []RenderRecord) error {
	return fsutil.AppendJSONLRing(filepath.Join(dir, filepath.FromSlash(RendersFile)), rs, MaxRenders)
}

// RenderHistory reads the last MaxRenders records of the RendersFile of the
// project at dir, oldest first; a missing file is an empty history. Lines
// that are not valid records (no target) are skipped, so a torn or
// hand-edited line costs one record.
func RenderHistory(dir string) ([]RenderRecord, error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(RendersFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return fsutil.Newest(ParseRenders(b), MaxRenders), nil
}

// ParseRenders reads RendersFile lines, skipping those that are not
// records (no target).
func ParseRenders(b []byte) []RenderRecord {
	return fsutil.ParseJSONL(b, func(r RenderRecord) bool { return r.Target != "" })
}
