package signals

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/internal/sharedtest"
)

func TestVerifySmoothedAndFaithful(t *testing.T) {
	sigs := Extract(sampleProject(), sampleMessages(), nil)
	smoothed := "We worked on the login flow. Some issues were encountered and a few approaches were tried; the team is waiting on external input."
	lost := Verify(smoothed, sigs)
	if len(lost) != len(sigs) {
		t.Errorf("smoothed summary: %d of %d lost, want all", len(lost), len(sigs))
	}
	block := ReinjectBlock(lost)
	for _, s := range sigs {
		if s.Kind == KindError && !strings.Contains(block, cleanText(s.Text)) {
			t.Errorf("reinject block lacks error %q", s.Text)
		}
	}
	// A faithful summary built from each signal's key, reworded around it:
	// wrapped in backticks or quotes, final punctuation dropped, quotes made
	// typographic, whitespace re-flowed.
	var sb strings.Builder
	for i, s := range sigs {
		k := Key(s)
		switch i % 3 {
		case 0:
			fmt.Fprintf(&sb, "- The agent hit `%s`.\n", k)
		case 1:
			fmt.Fprintf(&sb, "- Noted: \"%s\"\n", strings.ReplaceAll(k, " ", "\n   "))
		default:
			fmt.Fprintf(&sb, "* %s!\n", strings.NewReplacer("'", "’").Replace(k))
		}
	}
	sb.WriteString("The circuit breaker is in WARNING.\n")
	if lost := Verify(sb.String(), sigs); len(lost) != 0 {
		t.Errorf("faithful summary lost %d: %+v", len(lost), lost)
	}
	if ReinjectBlock(nil) != "" {
		t.Error("ReinjectBlock(nil) not empty")
	}
}

func TestVerifyRules(t *testing.T) {
	tests := []struct {
		name    string
		sig     Signal
		summary string
		lost    bool
	}{
		{"error key line kept in backticks", Signal{Kind: KindError, Text: "Exit code 2\nsrc/a.ts(1,2): error TS2322: Type 'x' is wrong."}, "fixed `src/a.ts(1,2): error TS2322: Type 'x' is wrong`", false},
		{"error paraphrased", Signal{Kind: KindError, Text: "Exit code 2\nsrc/a.ts(1,2): error TS2322: Type 'x' is wrong."}, "a type error in a.ts", true},
		{"error prefix stripped", Signal{Kind: KindError, Text: "Error: unknown flag: --disable-all"}, "the unknown flag: --disable-all failed", false},
		{"error path dropped is lost", Signal{Kind: KindError, Text: "error: Cannot find module '@x/core' from '/a/b.ts'"}, "`Cannot find module '@x/core'`", true},
		{"tool_use_error tags", Signal{Kind: KindError, Text: "<tool_use_error>File does not exist.</tool_use_error>"}, "File does not exist", false},
		{"blocked by id", Signal{Kind: KindBlocked, Text: "Stripe fails", ID: "BLOCKER-005"}, "still blocked by BLOCKER-005.", false},
		{"blocked id not a prefix", Signal{Kind: KindBlocked, Text: "Stripe fails", ID: "BLOCKER-005"}, "BLOCKER-0051", true},
		{"approach key phrase", Signal{Kind: KindFailedApproach, Text: "[Iteration 1-3] Direct fix in auth.ts", Detail: "x"}, "Tried a direct fix in auth.ts already", false},
		{"approach lost", Signal{Kind: KindFailedApproach, Text: "Mock the token service"}, "tried mocks", true},
		{"breaker by state", Signal{Kind: KindCircuitBreaker, Text: "WARNING (same error 3x)", ID: "WARNING"}, "Circuit breaker: warning", false},
		{"breaker lost", Signal{Kind: KindCircuitBreaker, Text: "TRIPPED (spin 5/5)", ID: "TRIPPED"}, "circuit breaker healthy", true},
		{"stop by user words", Signal{Kind: KindStop, Text: "The user doesn't want to proceed with this tool use. The user said:\nshould we dry-run? 🤔"}, `"should we dry-run?"`, false},
		{"stop lost", Signal{Kind: KindStop, Text: "STOP: no migrations"}, "continue", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lost := Verify(tt.summary, []Signal{tt.sig})
			if (len(lost) == 1) != tt.lost {
				t.Errorf("Verify lost=%v, want %v (key %q)", len(lost) == 1, tt.lost, Key(tt.sig))
			}
		})
	}
}

func FuzzVerify(f *testing.F) {
	f.Add("summary with `boom`", "Exit code 1\nboom", "BLOCKER-1")
	f.Add("", "", "")
	f.Add("“quoted”", "<tool_use_error></tool_use_error>", "-")
	f.Fuzz(func(t *testing.T, summary, text, id string) {
		sigs := []Signal{
			{Kind: KindError, Text: text}, {Kind: KindBlocked, Text: text, ID: id},
			{Kind: KindFailedApproach, Text: text}, {Kind: KindCircuitBreaker, Text: text, ID: id}, {Kind: KindStop, Text: text},
		}
		lost := Verify(summary, sigs)
		if len(lost) > len(sigs) {
			t.Fatal("more lost than given")
		}
		// A summary that is the signal's own key keeps it.
		for _, s := range sigs {
			if l := Verify(Key(s), []Signal{s}); len(l) != 0 {
				t.Errorf("%s signal %q lost from its own key %q", s.Kind, s.Text, Key(s))
			}
		}
	})
}

// transcript is what readTranscript collects from a Claude Code JSONL
// session: the messages before the compact boundary and the compact
// summary after it.
type transcript struct {
	msgs    []Message
	summary string
}

// readTranscript is a minimal Claude Code transcript reader for these
// tests only (the real importer lives elsewhere): user/assistant text
// blocks and tool_result blocks before the first `system` entry with
// subtype compact_boundary, and the user entry with isCompactSummary after
// it.
func readTranscript(t *testing.T, path string) transcript {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type block struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ToolUseID string          `json:"tool_use_id"`
		IsError   bool            `json:"is_error"`
		Content   json.RawMessage `json:"content"`
	}
	type entry struct {
		Type             string `json:"type"`
		Subtype          string `json:"subtype"`
		UUID             string `json:"uuid"`
		Timestamp        string `json:"timestamp"`
		IsCompactSummary bool   `json:"isCompactSummary"`
		Message          struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	text := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var bs []block
		if json.Unmarshal(raw, &bs) != nil {
			return ""
		}
		var parts []string
		for _, b := range bs {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "")
	}
	var tr transcript
	after := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		var e entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		src := fmt.Sprintf("%s:%d", filepath.Base(path), n)
		if e.Type == "system" && e.Subtype == "compact_boundary" {
			after = true
			continue
		}
		if after {
			if e.IsCompactSummary && tr.summary == "" {
				tr.summary = text(e.Message.Content)
			}
			continue
		}
		if e.Type != "user" && e.Type != "assistant" {
			continue
		}
		ts, _ := time.Parse(time.RFC3339Nano, e.Timestamp)
		var s string
		if json.Unmarshal(e.Message.Content, &s) == nil {
			tr.msgs = append(tr.msgs, Message{ID: e.UUID, Role: e.Type, Content: s, Timestamp: ts, Source: src})
			continue
		}
		var bs []block
		if err := json.Unmarshal(e.Message.Content, &bs); err != nil {
			continue
		}
		for _, b := range bs {
			switch b.Type {
			case "text":
				tr.msgs = append(tr.msgs, Message{ID: e.UUID, Role: e.Type, Content: b.Text, Timestamp: ts, Source: src})
			case "tool_result":
				tr.msgs = append(tr.msgs, Message{ID: b.ToolUseID, Role: "tool", ToolName: "tool", IsError: b.IsError, Content: text(b.Content), Timestamp: ts, Source: src})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !after || tr.summary == "" {
		t.Fatalf("%s: no compact boundary or summary", path)
	}
	return tr
}

// TestVerifyRealCompactions runs Extract and Verify over the three Claude
// Code sessions in /work/shared/transcripts. The expected numbers were
// checked against the files with jq (see the report of this package).
func TestVerifyRealCompactions(t *testing.T) {
	dir := filepath.Join(sharedtest.ModuleRoot(), "..", "shared", "transcripts")
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		t.Skipf("shared transcripts not found at %s (../shared next to the module root); skipping", dir)
	}
	tests := []struct {
		file         string
		before, lost int
		kept         []string // keys of the signals the summary kept
	}{
		// 4 is_error results + 3 "Error:"/"fatal:" lines in results not
		// flagged as errors (--format, --verbose, git fatal) = 7 errors, all
		// lost; 5 tool rejections = 5 stops, whose user words the summary
		// quotes under "All User Messages".
		{"entireio__cli__cc_90f6622c5b_1_full.jsonl", 12, 7, []string{
			"what does lint say now",
			"_why_ is it removing these lines",
			"should we dry-run by default? what should we name the inverse flag",
			"Q: do we handle multiple commits for a single checkpoint",
			"we are in Project: Troy (mark this for milestone:R1 as well",
		}},
		// 9 is_error results in 4 distinct errors (5× "File has not been
		// read yet", 2× Cannot find module, rebase, turbo verify) + 3 marker
		// lines (6× expect(received).toBe(expected), script typecheck exit
		// 126, Missing CLICKHOUSE_URL); only "File has not been read yet"
		// survives verbatim.
		{"obsessiondb__chkit__fa_02322a2710_0_full.jsonl", 7, 6, []string{"File has not been read yet"}},
		// One TypeScript error, kept word for word in backticks.
		{"theogbrand__napoli-matcha__0c_c3173e5050_0_full.jsonl", 1, 0, []string{
			"tests/daytona_sandbox.test.ts(22,27): error TS2322: Type 'boolean' is not assignable to type 'void | Promise<void",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tr := readTranscript(t, filepath.Join(dir, tt.file))
			sigs := Extract(nil, tr.msgs, nil)
			lost := Verify(tr.summary, sigs)
			isLost := map[string]bool{}
			for _, s := range lost {
				isLost[string(s.Kind)+s.Hash] = true
			}
			var kept []string
			for _, s := range sigs {
				mark := "LOST"
				if !isLost[string(s.Kind)+s.Hash] {
					mark = "kept"
					kept = append(kept, Key(s))
				}
				if testing.Verbose() {
					t.Logf("%s %s ×%d %s key=%q", mark, s.Kind, s.Count, s.Source, Key(s))
				}
			}
			if len(sigs) != tt.before || len(lost) != tt.lost || strings.Join(kept, "|") != strings.Join(tt.kept, "|") {
				t.Errorf("signals %d lost %d kept %q; want %d, %d, %q", len(sigs), len(lost), kept, tt.before, tt.lost, tt.kept)
			}
		})
	}
}

// TestLostIndexes: a signal known in several forms (raw and redacted) is
// kept when the summary keeps any form, lost only when it keeps none.
func TestLostIndexes(t *testing.T) {
	raw := []Signal{
		{Kind: KindError, Text: "Error: auth failed for key sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
		{Kind: KindError, Text: "Error: listen tcp :8080: bind: address already in use"},
		{Kind: KindBlocked, Text: "waiting for the key sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
	}
	red := []Signal{
		{Kind: KindError, Text: "Error: auth failed for key ⟨secret:stripe-access-token:a97adb35⟩"},
		raw[1],
		{Kind: KindBlocked, Text: "waiting for the key ⟨secret:stripe-access-token:a97adb35⟩"},
	}
	tests := []struct {
		summary string
		want    []int
	}{
		{"Some issues were encountered.", []int{0, 1, 2}},
		{"We saw `auth failed for key sk_live_4eC39HqLyjWDarjtT1zdp7dc`.", []int{1, 2}},
		{"We saw `auth failed for key ⟨secret:stripe-access-token:a97adb35⟩` and are waiting for the key ⟨secret:stripe-access-token:a97adb35⟩.", []int{1}},
		{"listen tcp :8080: bind: address already in use; waiting for the key sk_live_4eC39HqLyjWDarjtT1zdp7dc", []int{0}},
	}
	for _, tt := range tests {
		if got := LostIndexes(tt.summary, raw, red); !slices.Equal(got, tt.want) {
			t.Errorf("%q: lost %v, want %v", tt.summary, got, tt.want)
		}
		// One form alone is Verify.
		if got, want := len(LostIndexes(tt.summary, raw)), len(Verify(tt.summary, raw)); got != want {
			t.Errorf("%q: one form lost %d, Verify %d", tt.summary, got, want)
		}
	}
	if LostIndexes("x") != nil {
		t.Error("no forms: want nil")
	}
}
