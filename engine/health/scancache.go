package health

import (
	"path/filepath"
	"strings"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
)

// ScanCacheDir holds one stop-signal scan cache per conversation
// (signals.ScanCache; docs/signals.md#incremental-extraction).
const ScanCacheDir = layout.CacheDir + "/signals"

// extractCached is signals.Extract of msgs, read from the messages of the
// conversations ids, with each conversation's scans kept in its scan
// cache: a message scanned by an earlier process of the project is not
// scanned again, so a prompt scans the records added since the last one.
// The signals are those signals.Extract gives (ExtractScanned of the same
// scans). A cache that cannot be saved costs the next process a scan, no
// more: it is not an error.
func extractCached(dir string, ids []string, proj *planning.Project, msgs []signals.Message, iters []signals.IterationRecord) []signals.Signal {
	caches := make(map[string]*signals.ScanCache, len(ids))
	prefix := make(map[string]string, len(ids)) // "LOG#" → id
	for _, id := range ids {
		caches[id] = signals.OpenScanCache(scanCachePath(dir, id))
		prefix[layout.ConversationLog(id)+"#"] = id
	}
	scans := make([]signals.Scanned, len(msgs))
	for i, m := range msgs {
		log, _, ok := strings.Cut(m.Source, "#")
		if c := caches[prefix[log+"#"]]; ok && c != nil {
			scans[i] = c.Scan(m)
			continue
		}
		scans[i] = signals.ScanMessage(m)
	}
	for id, c := range caches {
		_ = c.Save(scanCachePath(dir, id))
	}
	return signals.ExtractScanned(proj, scans, iters)
}

func scanCachePath(dir, id string) string {
	return filepath.Join(dir, filepath.FromSlash(ScanCacheDir), id+".jsonl")
}
