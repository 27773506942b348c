package history

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/recite-dev/recite/planning/conversation"
)

// conv builds messages from a compact script: "u" user, "a" assistant,
// "c:ID" assistant calling ID (several ids separated by +), "r:ID" tool
// result for ID, "e:ID" failed tool result. Each message's content is its
// script token and its id its position.
func conv(script string) []conversation.Record {
	var out []conversation.Record
	for i, tok := range strings.Fields(script) {
		r := conversation.Record{ID: "m" + strconv.Itoa(i), Kind: conversation.KindMessage, Content: tok}
		kind, arg, _ := strings.Cut(tok, ":")
		switch kind {
		case "u":
			r.Role = conversation.RoleUser
		case "a":
			r.Role = conversation.RoleAssistant
		case "c":
			r.Role = conversation.RoleAssistant
			for _, id := range strings.Split(arg, "+") {
				r.ToolCalls = append(r.ToolCalls, conversation.ToolCall{ID: id, Name: "bash", Arguments: "{}"})
			}
		case "r", "e":
			r.Role = conversation.RoleTool
			r.ToolCallID = arg
			r.IsError = kind == "e"
		}
		out = append(out, r)
	}
	return out
}

func script(recs []conversation.Record) string {
	var s []string
	for _, r := range recs {
		s = append(s, r.Content)
	}
	return strings.Join(s, " ")
}

func TestWindow(t *testing.T) {
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{"short", "u a u a", 20, "u a u a"},
		{"last n", "u a u a u a", 3, "a u a"},
		{"cut moves past a call", "u c:1 r:1 a u a", 4, "a u a"},
		{"parallel calls", "u c:1+2 r:1 r:2 a", 3, "a"},
		{"parallel calls kept", "u c:1+2 r:1 r:2 a", 4, "c:1+2 r:1 r:2 a"},
		{"split calls, interleaved", "u c:1 c:2 r:2 r:1 a", 4, "a"},
		{"split calls, interleaved kept", "u c:1 c:2 r:2 r:1 a", 5, "c:1 c:2 r:2 r:1 a"},
		{"unit larger than n kept whole", "u c:1 r:1", 1, "c:1 r:1"},
		{"orphan result dropped", "r:9 u a", 3, "u a"},
		{"orphan inside the window dropped", "u r:9 a", 2, "u a"},
		{"orphan at window start dropped", "u a r:9 a", 2, "a a"},
		{"default 200", strings.Repeat("u a ", 110), 0, strings.TrimSpace(strings.Repeat("u a ", 100))},
		{"empty", "", 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Window{N: tt.n}.Prune(context.Background(), conv(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if script(got) != tt.want {
				t.Errorf("got %q, want %q", script(got), tt.want)
			}
		})
	}
}

func TestTokens(t *testing.T) {
	count := func(s string) int { return len(s) } // one token a byte
	tests := []struct {
		name, in string
		budget   int
		want     string
	}{
		{"all fit", "u a", 100, "u a"},
		{"budget cuts", "u a u a", 2, "u a"},
		{"budget cuts later", "u a u a", 3, "a u a"},
		{"last exchange kept over budget", "u c:1 r:1 a", 1, "u c:1 r:1 a"},
		{"pair not split", "u c:1 r:1 u a", 1 + 1 + 3, "u a"},
		// c:1 counts 3 (content) + 4 ("bash") + 2 ("{}") = 9, r:1 counts 3.
		{"pair kept whole", "u c:1 r:1 u a", 1 + 1 + 9 + 3, "c:1 r:1 u a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Tokens{Budget: tt.budget, Count: count}.Prune(context.Background(), conv(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if script(got) != tt.want {
				t.Errorf("got %q, want %q", script(got), tt.want)
			}
		})
	}
}

func TestTokensNeedsCounter(t *testing.T) {
	if _, err := (Tokens{Budget: 10}).Prune(context.Background(), conv("u a")); err == nil {
		t.Error("no counter: want an error")
	}
}

type failing struct{}

func (failing) Summarize(context.Context, []conversation.Record) (string, error) {
	return "", errors.New("summarizer down")
}

func TestSummary(t *testing.T) {
	msgs := []conversation.Record{
		{ID: "1", Role: conversation.RoleUser, Content: "Implement JWT auth in auth.ts"},
		{ID: "2", Role: conversation.RoleAssistant, Content: "We decided to use RS256 instead of HS256.\nCreated the file.", FilesModified: []string{"auth.ts"}},
		{ID: "3", Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: "t1", Name: "bash", Arguments: `{"cmd":"go test"}`}}},
		{ID: "4", Role: conversation.RoleTool, ToolCallID: "t1", ToolName: "bash", IsError: true, Content: "--- FAIL: TestJWT\nauth_test.go:12: error: expect(received).toBe(expected)"},
		{ID: "5", Role: conversation.RoleAssistant, Content: "BLOCKED: need the signing key\nsome chatter"},
		{ID: "6", Role: conversation.RoleUser, Content: "ok continue"},
		{ID: "7", Role: conversation.RoleAssistant, Content: "done"},
	}
	got, err := Summary{Keep: 2}.Prune(context.Background(), msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].ID != "6" || got[2].ID != "7" || got[0].ID != "summary-5" || got[0].Role != conversation.RoleSystem {
		t.Fatalf("got %+v", got)
	}
	want := `Summary of earlier conversation (5 messages):
(extractive summary of 5 messages)
Stop signals (verbatim):
- failed tool result (bash):
--- FAIL: TestJWT
auth_test.go:12: error: expect(received).toBe(expected)
- [assistant] BLOCKED: need the signing key
Decisions:
- [assistant] We decided to use RS256 instead of HS256.
Files: auth.ts, auth_test.go`
	if got[0].Content != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got[0].Content, want)
	}
	// Keep cuts at a unit boundary: keeping 3 would split 3/4, so 5,6,7.
	got, _ = Summary{Keep: 3}.Prune(context.Background(), msgs)
	if len(got) != 4 || got[1].ID != "5" {
		t.Errorf("keep 3: %+v", got)
	}
	got, _ = Summary{Keep: 5}.Prune(context.Background(), msgs)
	if len(got) != 6 || got[1].ID != "3" {
		t.Errorf("keep 4: %+v", got)
	}
	// Nothing older: unchanged.
	got, _ = Summary{Keep: 10}.Prune(context.Background(), msgs)
	if len(got) != len(msgs) {
		t.Errorf("keep 10 changed the list: %d", len(got))
	}
	if _, err := (Summary{Keep: 2, Summarizer: failing{}}).Prune(context.Background(), msgs); err == nil || !strings.Contains(err.Error(), "summarizer down") {
		t.Errorf("failing summarizer: %v", err)
	}
}

func TestImportance(t *testing.T) {
	hi := 0.95
	msgs := []conversation.Record{
		{ID: "0", Role: conversation.RoleUser, Content: "start"},                                         // 0
		{ID: "1", Role: conversation.RoleAssistant, Content: "made it", FilesModified: []string{"a.go"}}, // 10
		{ID: "2", Role: conversation.RoleUser, Content: "No, wrong file"},                                // correction 8
		{ID: "3", Role: conversation.RoleAssistant, Content: "sure", Confidence: &hi},                    // 5
		{ID: "4", Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: "x"}}},       // unit with 5: 8
		{ID: "5", Role: conversation.RoleTool, ToolCallID: "x", IsError: true, Content: "boom"},
		{ID: "6", Role: conversation.RoleUser, Content: "thanks"}, // 0
	}
	wantScores := []int{0, 10, 8, 5, 0, 8, 0}
	for i, w := range wantScores {
		if s := Score(msgs, i); s != w {
			t.Errorf("Score(%d) = %d, want %d", i, s, w)
		}
	}
	tests := []struct {
		k    int
		want string
	}{
		{1, "1"},
		{2, "1 2"},       // 10, then 8s tie: unit 4-5 has size 2 (does not fit), 2 fits
		{3, "1 4 5"},     // 10, then the newer 8 (unit 4-5)
		{4, "1 2 4 5"},   // then 8 (message 2)
		{5, "1 2 3 4 5"}, // then 5
		{7, "0 1 2 3 4 5 6"},
	}
	for _, tt := range tests {
		got, err := Importance{K: tt.k}.Prune(context.Background(), msgs)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range got {
			ids = append(ids, r.ID)
		}
		if strings.Join(ids, " ") != tt.want {
			t.Errorf("K=%d: got %q, want %q", tt.k, strings.Join(ids, " "), tt.want)
		}
	}
}

// randomConv builds a random conversation with tool calls (single,
// parallel, split over several assistant messages), results in any order,
// some missing and some orphaned.
func randomConv(rng *rand.Rand) []conversation.Record {
	var toks []string
	next := 0
	n := rng.IntN(40)
	var pending []string
	for range n {
		switch rng.IntN(6) {
		case 0:
			toks = append(toks, "u")
		case 1:
			toks = append(toks, "a")
		case 2, 3:
			k := 1 + rng.IntN(3)
			var ids []string
			for range k {
				next++
				ids = append(ids, strconv.Itoa(next))
			}
			pending = append(pending, ids...)
			toks = append(toks, "c:"+strings.Join(ids, "+"))
		case 4:
			if len(pending) > 0 {
				j := rng.IntN(len(pending))
				kind := "r:"
				if rng.IntN(4) == 0 {
					kind = "e:"
				}
				toks = append(toks, kind+pending[j])
				pending = append(pending[:j], pending[j+1:]...)
			}
		case 5:
			toks = append(toks, "r:orphan"+strconv.Itoa(rng.IntN(100)))
		}
	}
	return conv(strings.Join(toks, " "))
}

func checkIntegrity(t *testing.T, name string, in, out []conversation.Record) {
	t.Helper()
	inIdx := map[string]int{}
	for i, r := range in {
		inIdx[r.ID] = i
	}
	// Subsequence of the input, except a leading summary message.
	last := -1
	for k, r := range out {
		if strings.HasPrefix(r.ID, "summary-") && k == 0 {
			continue
		}
		i, ok := inIdx[r.ID]
		if !ok || i <= last {
			t.Fatalf("%s: output is not a subsequence of the input\nin:  %s\nout: %s", name, script(in), script(out))
		}
		last = i
	}
	// No orphan tool results, no call separated from a result it has in the input.
	calls := map[string]bool{}
	outIDs := map[string]bool{}
	for _, r := range out {
		outIDs[r.ID] = true
	}
	for _, r := range out {
		for _, c := range r.ToolCalls {
			calls[c.ID] = true
		}
		if r.Role == conversation.RoleTool && !calls[r.ToolCallID] {
			t.Fatalf("%s: orphan tool result %s\nin:  %s\nout: %s", name, r.Content, script(in), script(out))
		}
	}
	for i, r := range in {
		if r.Role != conversation.RoleTool || !calls[r.ToolCallID] {
			continue
		}
		// The call is in the output: its result must be too (when the call
		// came before it in the input).
		for j := range i {
			for _, c := range in[j].ToolCalls {
				if c.ID == r.ToolCallID && !outIDs[r.ID] && outIDs[in[j].ID] {
					t.Fatalf("%s: call %s kept without its result\nin:  %s\nout: %s", name, c.ID, script(in), script(out))
				}
			}
		}
	}
}

func TestPropertyNoOrphans(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	count := func(s string) int { return 1 + len(s)/4 }
	for i := range 1000 {
		in := randomConv(rng)
		n := rng.IntN(12)
		strategies := map[string]Strategy{
			"window":     Window{N: n},
			"tokens":     Tokens{Budget: rng.IntN(60), Count: count},
			"summary":    Summary{Keep: n},
			"importance": Importance{K: n},
		}
		for name, s := range strategies {
			orig := script(in)
			out, err := s.Prune(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if script(in) != orig {
				t.Fatalf("%s modified its input", name)
			}
			checkIntegrity(t, name+" #"+strconv.Itoa(i), in, out)
		}
	}
}
