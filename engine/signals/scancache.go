package signals

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/recite-dev/recite/internal/fsutil"
)

// scanFormat is the version of the scan cache's layout and of the scan's
// code: bump it when a change to the code (not to a pattern) changes what
// a message yields. A change to a pattern changes the cache's fingerprint
// (rulesFingerprint) by itself, and so does another build of recite.
const scanFormat = 1

// ScanCache keeps what the stop-signal scan found in each message of one
// conversation log (Scanned), so that each prompt scans only the records
// added since the last scan (docs/signals.md#incremental-extraction). It
// is a JSON Lines file, one message's Scanned a line, appended to as the
// log grows (fsutil.AppendJSONLRing, the newest maxScanEntries kept): an
// entry is keyed by its message's Key and checked against the message's
// length and checksum, so a record rewritten in place is scanned again,
// and a line written by other rules (another recite) or torn by a crash
// is not used. The zero value is not usable: use OpenScanCache.
type ScanCache struct {
	entries map[string]Scanned
	fresh   []Scanned // scanned since OpenScanCache, in order
}

// scanLine is a line of the cache: a Scanned and the fingerprint of the
// rules that made it.
type scanLine struct {
	Rules string `json:"rules"`
	Scanned
}

// maxScanEntries is how many entries the cache keeps, the newest: more
// than the messages any reader of a log's tail takes.
const maxScanEntries = 4096

// OpenScanCache reads the scan cache at path. A missing file gives an
// empty cache, and a line that does not decode or was made by other rules
// is skipped: the cache only saves time, so a broken one costs a scan,
// never a wrong signal.
func OpenScanCache(path string) *ScanCache {
	c := &ScanCache{entries: map[string]Scanned{}}
	fp := rulesFingerprint()
	lines, _ := fsutil.ReadJSONL(path, func(l scanLine) bool { return l.Rules == fp })
	for _, l := range lines {
		c.entries[l.Key] = l.expand()
	}
	return c
}

// Scan returns the scan of msg: the cached one when the cache holds msg's
// key with its length and checksum, else ScanMessage(msg), kept.
func (c *ScanCache) Scan(msg Message) Scanned {
	key := msg.Source
	if key == "" {
		key = msg.ID
	}
	if e, ok := c.entries[key]; ok && e.Len == len(msg.Content) && e.Sum == crc32.ChecksumIEEE([]byte(msg.Content)) {
		return e
	}
	sc := newMatchers().scanMessage(msg)
	c.entries[key] = sc
	c.fresh = append(c.fresh, sc)
	return sc
}

// Fresh counts the messages Scan scanned rather than found in the cache.
func (c *ScanCache) Fresh() int { return len(c.fresh) }

// Save appends the messages scanned since OpenScanCache to the cache at
// path (fsutil.AppendJSONLRing: one write, the folder created, the file
// rewritten with the newest maxScanEntries once it holds twice that).
// Nothing is written when every message was found. Errors name the path.
func (c *ScanCache) Save(path string) error {
	if len(c.fresh) == 0 {
		return nil
	}
	fp := rulesFingerprint()
	lines := make([]scanLine, len(c.fresh))
	for i, sc := range c.fresh {
		lines[i] = scanLine{Rules: fp, Scanned: sc.compact()}
	}
	if err := fsutil.AppendJSONLRing(path, lines, maxScanEntries); err != nil {
		return fmt.Errorf("save scan cache %s: %w", path, err)
	}
	c.fresh = c.fresh[:0]
	return nil
}

// compact leaves out of sc the sources that repeat its Key (expand puts
// them back).
func (sc Scanned) compact() Scanned {
	sc.Signals = slices.Clone(sc.Signals)
	for i := range sc.Signals {
		if sc.Signals[i].Source == sc.Key {
			sc.Signals[i].Source = ""
		}
	}
	if sc.Run != nil && sc.Run.Source == sc.Key {
		r := *sc.Run
		r.Source = ""
		sc.Run = &r
	}
	return sc
}

// expand is compact undone.
func (l scanLine) expand() Scanned {
	sc := l.Scanned
	for i := range sc.Signals {
		if sc.Signals[i].Source == "" {
			sc.Signals[i].Source = sc.Key
		}
	}
	if sc.Run != nil && sc.Run.Source == "" {
		sc.Run.Source = sc.Key
	}
	return sc
}

// rulesFingerprint identifies the rules a Scanned was made by: the scan
// format and every pattern of the failure-line table, the prose rules and
// the normalisation. It is computed once.
func rulesFingerprint() string { return sharedFingerprint() }

var sharedFingerprint = sync.OnceValue(func() string {
	h := sha256.New()
	fmt.Fprintf(h, "format %d\n", scanFormat)
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintln(h, bi.Main.Version)
		for _, st := range bi.Settings {
			if st.Key == "vcs.revision" || st.Key == "vcs.modified" {
				fmt.Fprintln(h, st.Key, st.Value)
			}
		}
	}
	for _, r := range failureRules() {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%v%v%d%v%d\n", r.name, r.hint, r.pattern, r.unless, r.next+"\x00"+r.prev, r.summary, r.group, r.rank, r.family, r.key)
	}
	m := newMatchers()
	for _, re := range []fmt.Stringer{m.blockedWord, m.stopLine, m.rejection, m.words.blocked, m.words.stuck, m.words.failed, m.words.givingUp, m.words.still,
		m.words.byWork, m.words.negated, m.words.conditional, m.failWords, m.failNegated, m.rules.header} {
		fmt.Fprintln(h, re.String())
	}
	for _, rl := range m.norm.dedupRules {
		fmt.Fprintln(h, rl.re.String(), rl.repl)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
})
