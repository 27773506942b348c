package enginetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/recite-dev/recite/planning/conversation"
)

// HookLogOptions shape a log WriteHookLog generates.
type HookLogOptions struct {
	// Conversation is the log's conversation id ("cc-" + the session id,
	// as the hook names it).
	Conversation string
	// Messages is how many messages the log holds.
	Messages int
	// IterationEvery, when positive, writes an iteration record (a Stop's
	// turn record) after every IterationEvery messages; 0 writes none.
	IterationEvery int
	// Seed makes the content; the same options always give the same bytes.
	Seed uint64
}

// WriteHookLog writes a conversation log shaped as `recite hook
// claude-code` records a Claude Code session (engine/claudecode): a meta
// record, then turns of a prompt (source claude-code:UserPromptSubmit),
// 2–18 tool calls each recorded as the assistant's call and the tool's
// result (PostToolUse; about one in 16 a failure, PostToolUseFailure, the
// result with is_error), and the turn's last reply (Stop). Ids are ULIDs of the
// records' times, times nanosecond-precise and increasing, contents of the
// sizes real sessions show (tool results from a line to about 4 KB:
// command output, numbered file reads, edits, searches). Records are
// encoded as conversation.Record, the hook's own type; the test
// TestHookLogShape checks the field sets against a real session replayed
// through the hook.
func WriteHookLog(w io.Writer, opts HookLogOptions) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &hookLogGen{opts: opts, rnd: rand.New(rand.NewPCG(opts.Seed, 0x7265636974650001)), words: strings.Fields(hookLogWords),
		t: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), enc: json.NewEncoder(bw)}
	if err := g.put(conversation.Record{Kind: conversation.KindMeta, Meta: &conversation.Meta{AgentType: "claude-code", Title: "Claude Code session " + strings.TrimPrefix(opts.Conversation, "cc-")}}); err != nil {
		return err
	}
	for g.msgs < opts.Messages {
		if err := g.turn(); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// hookLogGen is the state of one WriteHookLog.
type hookLogGen struct {
	opts  HookLogOptions
	rnd   *rand.Rand
	t     time.Time
	words []string
	seq   uint64
	msgs  int
	calls int
	enc   *json.Encoder
}

// put writes r with its id, conversation, time and agent filled in.
func (g *hookLogGen) put(r conversation.Record) error {
	g.t = g.t.Add(time.Duration(1+g.rnd.IntN(4000)) * time.Millisecond).Add(time.Duration(g.rnd.IntN(1_000_000)))
	g.seq++
	r.ID, r.Conversation, r.Time = ulidOf(g.t, g.seq), g.opts.Conversation, g.t
	if r.Kind != conversation.KindMeta {
		r.Agent = "claude-code"
	}
	return g.enc.Encode(r)
}

// message writes a message record, and after every IterationEvery
// messages an iteration record.
func (g *hookLogGen) message(r conversation.Record) error {
	if g.msgs >= g.opts.Messages {
		return nil
	}
	r.Kind = conversation.KindMessage
	if err := g.put(r); err != nil {
		return err
	}
	g.msgs++
	if n := g.opts.IterationEvery; n > 0 && g.msgs%n == 0 {
		lines := 3 + g.rnd.IntN(20)
		it := conversation.Record{Kind: conversation.KindIteration, Content: "Updated the handler and re-ran the tests.", OutputLines: &lines, Source: "claude-code:Stop"}
		if g.rnd.IntN(2) == 0 {
			it.FilesModified = []string{g.path()}
		}
		if g.rnd.IntN(3) == 0 {
			it.ErrorHash = fmt.Sprintf("%016x", g.rnd.Uint64())
		}
		return g.put(it)
	}
	return nil
}

// turn writes one prompt, its tool calls and the reply.
func (g *hookLogGen) turn() error {
	if err := g.message(conversation.Record{Role: conversation.RoleUser, Content: g.prompt(), Source: "claude-code:UserPromptSubmit"}); err != nil {
		return err
	}
	for range 2 + g.rnd.IntN(17) {
		g.calls++
		id := fmt.Sprintf("toolu_01%022d", g.calls)
		name, args, out, failed := g.tool()
		// The call and its result come in one event, and carry its name.
		source := "claude-code:PostToolUse"
		if failed {
			source = "claude-code:PostToolUseFailure"
		}
		if err := g.message(conversation.Record{Role: conversation.RoleAssistant, Provider: "anthropic",
			ToolCalls: []conversation.ToolCall{{ID: id, Name: name, Arguments: args}}, Source: source}); err != nil {
			return err
		}
		res := conversation.Record{Role: conversation.RoleTool, Content: out, ToolCallID: id, ToolName: name, Source: source, IsError: failed}
		if err := g.message(res); err != nil {
			return err
		}
	}
	return g.message(conversation.Record{Role: conversation.RoleAssistant, Provider: "anthropic", Content: g.reply(), Source: "claude-code:Stop"})
}

// hookLogWords are the words of generated prose.
const hookLogWords = "the handler test config route request response cache session build lint error value path file module package function returns reads writes update check token index window record prompt state plan phase order"

// words is n words of prose.
func (g *hookLogGen) prose(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.word())
	}
	return b.String()
}

// word is one word of prose.
func (g *hookLogGen) word() string { return g.words[g.rnd.IntN(len(g.words))] }

// path is a source file of the project.
func (g *hookLogGen) path() string {
	return fmt.Sprintf("internal/%s/%s_%d.go", g.word(), g.word(), g.rnd.IntN(40))
}

func (g *hookLogGen) prompt() string {
	return "Please " + g.prose(8+g.rnd.IntN(40)) + "."
}

func (g *hookLogGen) reply() string {
	var b strings.Builder
	for i := range 1 + g.rnd.IntN(8) {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "- `%s`: %s.", g.path(), g.prose(6+g.rnd.IntN(24)))
	}
	return "Done. " + g.prose(5) + ":\n\n" + b.String()
}

// tool is one tool call: its name, JSON arguments, result and whether it
// failed.
func (g *hookLogGen) tool() (name, args, out string, failed bool) {
	failed = g.rnd.IntN(16) == 0
	p := g.path()
	switch k := g.rnd.IntN(10); {
	case k < 4:
		cmd := []string{"go test ./...", "go vet ./...", "git status --short", "npm run lint", "make build"}[g.rnd.IntN(5)]
		args = fmt.Sprintf(`{"command":%q,"description":%q}`, cmd+" 2>&1", g.prose(4))
		var b strings.Builder
		for range 1 + g.rnd.IntN(30) {
			fmt.Fprintf(&b, "ok  \tgithub.com/acme/app/%s\t0.%03ds\n", strings.TrimSuffix(p, ".go"), g.rnd.IntN(1000))
		}
		out = strings.TrimSuffix(b.String(), "\n")
		if g.rnd.IntN(30) == 0 {
			out = "" // a command that prints nothing
		}
		if failed {
			out = fmt.Sprintf("Exit code 1\n--- FAIL: TestHandler%d (0.00s)\n    %s:%d: got %d, want 200\nFAIL\ngithub.com/acme/app/internal\t0.%03ds", g.rnd.IntN(50), p, 10+g.rnd.IntN(300), 400+g.rnd.IntN(100), g.rnd.IntN(1000))
		}
		return "Bash", args, out, failed
	case k < 7:
		args = fmt.Sprintf(`{"file_path":"/home/dev/app/%s"}`, p)
		var b strings.Builder
		for i := range 5 + g.rnd.IntN(60) {
			fmt.Fprintf(&b, "%6d\t%s\n", i+1, g.prose(2+g.rnd.IntN(8)))
		}
		out = b.String()
		if failed {
			out = "<tool_use_error>File does not exist.</tool_use_error>"
		}
		return "Read", args, out, failed
	case k < 9:
		args = fmt.Sprintf(`{"file_path":"/home/dev/app/%s","old_string":%q,"new_string":%q}`, p, g.prose(6), g.prose(7))
		out = "The file /home/dev/app/" + p + " has been updated successfully."
		if failed {
			out = "<tool_use_error>String to replace not found in file.</tool_use_error>"
		}
		return "Edit", args, out, failed
	default:
		args = fmt.Sprintf(`{"pattern":%q,"output_mode":"content"}`, g.word())
		var b strings.Builder
		for range 1 + g.rnd.IntN(20) {
			fmt.Fprintf(&b, "%s:%d:\t%s\n", g.path(), 1+g.rnd.IntN(400), g.prose(3+g.rnd.IntN(6)))
		}
		return "Grep", args, strings.TrimSuffix(b.String(), "\n"), false
	}
}

// crockford is the ULID alphabet.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ulidOf is a ULID (github.com/ulid/spec) of t's milliseconds whose 80
// random bits are seq, so ids are unique and increase with seq.
func ulidOf(t time.Time, seq uint64) string {
	var b [26]byte
	ms := uint64(t.UnixMilli())
	for i := 9; i >= 0; i-- {
		b[i] = crockford[ms&31]
		ms >>= 5
	}
	r := seq * 0x9E3779B97F4A7C15 // spread, as random bits look
	for i := 25; i >= 10; i-- {
		b[i] = crockford[r&31]
		r >>= 5
		if i == 13 {
			r = seq
		}
	}
	return string(b[:])
}
