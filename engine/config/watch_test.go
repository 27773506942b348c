package config

import (
	"strings"
	"testing"
	"time"
)

func TestWatchBlock(t *testing.T) {
	for _, tc := range []struct {
		name, src              string
		quiet, maxWait, commit time.Duration
		err                    string
	}{
		{name: "defaults", src: "context_window: 1000\n", quiet: 20 * time.Millisecond, maxWait: 250 * time.Millisecond, commit: time.Minute},
		{name: "all set", src: "watch:\n  quiet: 20ms\n  max_wait: 1s\n  commit_interval: 5m\n", quiet: 20 * time.Millisecond, maxWait: time.Second, commit: 5 * time.Minute},
		{name: "partial", src: "watch:\n  commit_interval: 30s\n", quiet: 20 * time.Millisecond, maxWait: 250 * time.Millisecond, commit: 30 * time.Second},
		{name: "negative", src: "tokenizer: o200k_base\nwatch:\n  quiet: -5ms\n", err: "recite.yaml:3: watch.quiet: expected a positive duration such as 30s, 10m or 1h, got \"-5ms\" (example: quiet: 20ms)"},
		{name: "max below quiet", src: "watch:\n  quiet: 300ms\n", err: "recite.yaml:1: watch.max_wait 250ms must be at least watch.quiet 300ms"},
		{name: "bad duration", src: "watch:\n  max_wait: soon\n", err: "recite.yaml:2:"},
		{name: "unknown key", src: "watch:\n  debounce: 1s\n", err: `recite.yaml:2: unknown key "debounce"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("recite.yaml", []byte(tc.src))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want prefix %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := c.Watch
			if time.Duration(w.Quiet) != tc.quiet || time.Duration(w.MaxWait) != tc.maxWait || time.Duration(w.CommitInterval) != tc.commit {
				t.Fatalf("watch block %+v, want quiet %v max_wait %v commit_interval %v", w, tc.quiet, tc.maxWait, tc.commit)
			}
		})
	}
}

// TestTemplateWatchBlock uncomments the watch block of the init template
// (templates/init/recite.yaml) and checks that it parses to the defaults
// it documents.
func TestTemplateWatchBlock(t *testing.T) {
	src := templateBlock(t, "watch")
	c, err := Parse("recite.yaml", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if want := Default().Watch; c.Watch != want {
		t.Errorf("template watch block %+v, want the defaults %+v", c.Watch, want)
	}
}
