package config

import (
	"strings"
	"testing"
)

func TestConversationsBlock(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		keepRaw   bool
		err       string
	}{
		{name: "default", src: "context_window: 1000\n"},
		{name: "keep raw", src: "conversations:\n  keep_raw: true\n", keepRaw: true},
		{name: "off", src: "conversations:\n  keep_raw: false\n"},
		{name: "not a boolean", src: "conversations:\n  keep_raw: sometimes\n", err: "recite.yaml:2:"},
		{name: "unknown key", src: "conversations:\n  raw: true\n", err: `recite.yaml:2: unknown key "raw"`},
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
			if c.Conversations.KeepRaw != tc.keepRaw {
				t.Errorf("keep_raw = %v, want %v", c.Conversations.KeepRaw, tc.keepRaw)
			}
		})
	}
}
