package mcp

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/recite-dev/recite/planning/conversation"
)

// FuzzDecodeFrame: any line is either one JSON-RPC message, which encodes
// back, or exactly one error response: valid JSON-RPC 2.0 with code -32700
// (not JSON) or -32600, and an id that is null or the line's own.
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"x"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"}]`, `{"id":1}`, `{"jsonrpc":"1.0","id":1,"method":"a"}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"a"}`, `{"jsonrpc":"2.0","id":1.5,"method":"a"}`,
		`{"jsonrpc":"2.0","id":1}`, `null`, `42`, `"x"`, `{`, "", " \r", "\x00", `{"jsonrpc":"2.0","method":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, reply := DecodeFrame(line)
		switch {
		case msg != nil && reply != nil:
			t.Fatal("both a message and a reply")
		case msg != nil:
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("decoded message does not encode: %v", err)
			}
		case reply != nil:
			var r struct {
				Version string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(reply, &r); err != nil || r.Version != "2.0" || r.Error == nil || r.Error.Message == "" {
				t.Fatalf("reply %s is not a JSON-RPC error: %v", reply, err)
			}
			if r.Error.Code != jsonrpc.CodeParseError && r.Error.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("reply code %d", r.Error.Code)
			}
			if r.Error.Code == jsonrpc.CodeParseError && json.Valid(line) {
				t.Fatalf("parse error for valid JSON %q", line)
			}
			if string(r.ID) != "null" && !strings.Contains(string(line), string(r.ID)) {
				t.Fatalf("reply id %s is not the line's", r.ID)
			}
		default:
			if len(strings.TrimSpace(string(line))) != 0 {
				t.Fatalf("non-blank line %q gave neither message nor reply", line)
			}
		}
	})
}

// decode is the SDK's argument handling for one tool (validate against
// the input schema, then unmarshal) followed by the tool's check.
func decode[In checker](t *testing.T, tool string, raw []byte) (In, error) {
	var in In
	s, err := InputSchema(tool)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		return in, err
	}
	if err := r.Validate(v); err != nil {
		return in, err
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, err
	}
	return in, in.check()
}

// FuzzToolArguments: whatever the arguments, decoding never panics, and
// what it accepts keeps the tools' promises: a valid conversation id and
// kind, known signal kinds, trigger and provider, and paths relative to the
// project that stay inside it by their spelling.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"conversation":"c","kind":"error","text":"x","command":"ls"}`, `{"conversation":"../x","kind":"message","text":"x"}`,
		`{"why":"a/../b"}`, `{"why":"a/../../b"}`, `{"include":["/etc"],"limit":3}`, `{"kinds":["error","stop"],"limit":1}`,
		`{"provider":"anthropic","target":"agent"}`, `{"trigger":"sabbath_rest"}`, `{"summary":"s","from_block":true}`,
		`{"why":"C:/x"}`, `{"why":"a:b"}`, `{"why":"x/"}`, `{"role":"user","kind":"message","conversation":"a.b-c_d","text":" y"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if in, err := decode[RecordInput](t, "record", raw); err == nil {
			if conversation.ValidateID(in.Conversation) != nil || !slices.Contains([]string{RecordMessage, RecordError, RecordBlocker}, in.Kind) || strings.TrimSpace(in.Text) == "" {
				t.Fatalf("record accepted %+v", in)
			}
		}
		if in, err := decode[StopSignalsInput](t, "stop_signals", raw); err == nil {
			for _, k := range in.Kinds {
				if !slices.Contains(signalKinds, k) {
					t.Fatalf("stop_signals accepted kind %q", k)
				}
			}
		}
		if in, err := decode[FilesInput](t, "files", raw); err == nil {
			for _, p := range append(slices.Clone(in.Include), in.Why) {
				if p == "" {
					continue
				}
				c := path.Clean(p)
				if strings.HasPrefix(p, "/") || c == ".." || strings.HasPrefix(c, "../") || strings.ContainsAny(p, "\\\x00") {
					t.Fatalf("files accepted path %q", p)
				}
			}
		}
		if in, err := decode[PromptInput](t, "prompt", raw); err == nil && !slices.Contains(providers, in.Provider) {
			t.Fatalf("prompt accepted provider %q", in.Provider)
		}
		if in, err := decode[PreserveInput](t, "preserve", raw); err == nil && !slices.Contains([]string{"", "manual", "compaction", "sabbath_rest"}, in.Trigger) {
			t.Fatalf("preserve accepted trigger %q", in.Trigger)
		}
		_, _ = decode[VerifySummaryInput](t, "verify_summary", raw)
		_, _ = decode[RecitationInput](t, "recitation", raw)
	})
}
