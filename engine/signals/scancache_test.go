package signals

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// TestScanCacheSameSignals: extracting through a scan cache saved by
// earlier processes, one prompt's messages at a time, gives exactly what
// Extract gives over all the messages, and scans only the new ones: on
// the shared real sessions (cut at their compaction) and the sample.
func TestScanCacheSameSignals(t *testing.T) {
	files := []string{"", "entireio__cli__cc_90f6622c5b_1_full.jsonl", "obsessiondb__chkit__fa_02322a2710_0_full.jsonl", "theogbrand__napoli-matcha__0c_c3173e5050_0_full.jsonl"}
	for _, file := range files {
		name := cmpOr(file, "sample")
		t.Run(name, func(t *testing.T) {
			msgs := sampleMessages()
			if file != "" {
				msgs = splitAtCompaction(t, filepath.Join(sharedtest.Dir(t), "transcripts", file)).msgs
			}
			want, _ := json.Marshal(Extract(nil, msgs, nil))
			path := filepath.Join(t.TempDir(), "c.json")
			steps := []int{len(msgs) / 3, len(msgs) / 3, len(msgs) - 1, len(msgs)}
			prev := 0
			for _, n := range steps {
				c := OpenScanCache(path)
				scans := make([]Scanned, n)
				for i, m := range msgs[:n] {
					scans[i] = c.Scan(m)
				}
				if c.Fresh() != n-prev && !(n == prev && c.Fresh() == 0) {
					t.Errorf("%d messages, %d cached: scanned %d", n, prev, c.Fresh())
				}
				if err := c.Save(path); err != nil {
					t.Fatal(err)
				}
				got, _ := json.Marshal(ExtractScanned(nil, scans, nil))
				if n == len(msgs) && string(got) != string(want) {
					t.Errorf("through the cache:\n%s\nExtract:\n%s", got, want)
				}
				prev = n
			}
		})
	}
}

// TestScanCacheInvalid: a line torn by a crash or made by other rules is
// not used, the lines before it are; a message whose content changed
// under its key is scanned again.
func TestScanCacheInvalid(t *testing.T) {
	msgs := sampleMessages()
	path := filepath.Join(t.TempDir(), "c.jsonl")
	c := OpenScanCache(path)
	for _, m := range msgs {
		c.Scan(m)
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	other := strings.Replace(lines[1], `"rules":"`+rulesFingerprint()+`"`, `"rules":"0000000000000000"`, 1)
	for name, tt := range map[string]struct {
		data  string
		fresh int
	}{
		"valid":       {string(good), 0},
		"torn":        {lines[0] + lines[1][:len(lines[1])/2], len(msgs) - 1},
		"other rules": {lines[0] + other + strings.Join(lines[2:], ""), 1},
		"missing":     {"", len(msgs)},
	} {
		if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
			t.Fatal(err)
		}
		c := OpenScanCache(path)
		for _, m := range msgs {
			c.Scan(m)
		}
		if c.Fresh() != tt.fresh {
			t.Errorf("%s: scanned %d, want %d", name, c.Fresh(), tt.fresh)
		}
	}
	// A message whose content changed under its key is scanned again,
	// also when its length is the same.
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	c = OpenScanCache(path)
	m := msgs[1]
	m.Content += "\nmore"
	c.Scan(m)
	m = msgs[2]
	m.Content = m.Content[:len(m.Content)-1] + "X"
	c.Scan(m)
	if c.Fresh() != 2 {
		t.Errorf("changed content: scanned %d", c.Fresh())
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
