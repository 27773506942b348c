package layers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/internal/redact"
)

// rsaKey is a PEM private key of n body lines (not a real key).
func rsaKey(n int) string {
	return "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n", n) + "-----END RSA PRIVATE KEY-----\n"
}

// TestCutterEdges: where the message cutter meets redaction: a message that
// fits once redacted, a token kept once, a key longer than the cutter's reach
// (docs/formats.md#budget-and-cuts).
func TestCutterEdges(t *testing.T) {
	const body = "MIIEpAIBAAKCAQEA0Z3VS5JJ"
	const token = "ghp_Ab3dE6gH9jK2mN5pQ8rS1tU4vW7xY0zA1bC3"
	t.Run("a message that fits once redacted is kept whole, once", func(t *testing.T) {
		var b strings.Builder
		for i := 0; b.Len() < 300<<10; i++ {
			fmt.Fprintf(&b, "line %06d\n", i)
			if i%100 == 99 {
				b.WriteString(rsaKey(25))
			}
		}
		out := testCutter(t, nil).CapMessage("m", b.String())
		if strings.Count(out, "line 000050\n") != 1 || strings.Contains(out, "bytes omitted") || strings.Contains(out, body) {
			t.Errorf("capMessage kept %d bytes, with duplicates, a marker or a key body", len(out))
		}
	})
	t.Run("a token kept once is reported once", func(t *testing.T) {
		var found []string
		text := "use " + token + " now\n" + strings.Repeat("w w w w\n", 1500) + token + "\n"
		out := testCutter(t, &found).CutError("errors", "m", text)
		if len(found) != 1 || strings.Contains(out, token[:10]) {
			t.Errorf("reported %q", found)
		}
	})
	t.Run("a key longer than the reach is withheld at both cuts", func(t *testing.T) {
		c := testCutter(t, nil)
		big := rsaKey(200) // about 13 KB
		errOut := c.CutError("errors", "m", strings.Repeat("w ", 2000)+big+"after")
		msgOut := c.CapMessage("m", strings.Repeat("w ", 300<<10)+big+strings.Repeat("w ", (MaxMessageBytes/3)/2-3000))
		for name, out := range map[string]string{"error": errOut, "message": msgOut} {
			if strings.Contains(out, body) {
				t.Errorf("%s: key lines reached the output", name)
			}
		}
	})
}

// BenchmarkCapMessagePEMs cuts a 10 MB tool result made of PEM keys, which
// redaction shrinks about 50 times: the redacted window must grow
// geometrically, not by a fixed step re-redacted from the start.
func BenchmarkCapMessagePEMs(b *testing.B) {
	text := strings.Repeat(rsaKey(25), (10<<20)/len(rsaKey(25)))
	for b.Loop() {
		testCutter(b, nil).CapMessage("m", text)
	}
}

// testCutter is a Cutter redacting with a fresh key, as the engine's
// redactor does, reporting to *found.
func testCutter(tb testing.TB, found *[]string) Cutter {
	tb.Helper()
	key, err := redact.NewKey()
	if err != nil {
		tb.Fatal(err)
	}
	r, err := redact.New(key)
	if err != nil {
		tb.Fatal(err)
	}
	return NewCutter(r.Redact, found)
}
