package prompt

import (
	"reflect"
	"testing"
)

// TestFingerprintCoversFields: every field Render reads changes the
// fingerprint, and a new field in Section, Message, ToolCall or
// RenderOptions fails here until Fingerprint hashes it.
func TestFingerprintCoversFields(t *testing.T) {
	for typ, want := range map[reflect.Type]int{
		reflect.TypeOf(Message{}):       10, // Tokens is not rendered; placeholder is set by pairTools only
		reflect.TypeOf(ToolCall{}):      4,
		reflect.TypeOf(RenderOptions{}): 10,
		reflect.TypeOf(Section{}):       9, // Sources, Pinned, Shorter* are not rendered
	} {
		if got := typ.NumField(); got != want {
			t.Errorf("%s has %d fields, Fingerprint knows %d: hash the new one (or say why Render ignores it)", typ, got, want)
		}
	}
	base := func() *Prompt {
		return &Prompt{Target: "t",
			Sections: []Section{{ID: IDSystem, Tier: Stable, Heading: "h", Body: "b"}},
			Messages: []Message{{ID: "1", Role: "assistant", Content: "c", Agent: "a", ToolCallID: "x", ToolName: "n", ToolCalls: []ToolCall{{ID: "i", Name: "n", Arguments: "{}"}}}},
		}
	}
	opts := RenderOptions{OpenAISystemRole: "system", Model: "m", MaxTokens: 1}
	ref := Fingerprint(base(), Anthropic, opts)
	if Fingerprint(base(), Anthropic, opts) != ref {
		t.Fatal("fingerprint is not deterministic")
	}
	muts := map[string]func(p *Prompt, o *RenderOptions) string{
		"target":       func(p *Prompt, o *RenderOptions) string { p.Target = "u"; return Anthropic },
		"conversation": func(p *Prompt, o *RenderOptions) string { p.Conversation = "c.jsonl"; return OpenAI },
		"fixed tools":  func(p *Prompt, o *RenderOptions) string { p.FixedTools = true; return Anthropic },
		"tools":        func(p *Prompt, o *RenderOptions) string { p.Tools = []string{"n"}; return Anthropic },
		"provider":     func(p *Prompt, o *RenderOptions) string { return OpenAI },
		"id":           func(p *Prompt, o *RenderOptions) string { p.Sections[0].ID = IDTools; return Anthropic },
		"tier":         func(p *Prompt, o *RenderOptions) string { p.Sections[0].Tier = Semi; return Anthropic },
		"heading":      func(p *Prompt, o *RenderOptions) string { p.Sections[0].Heading = "H"; return Anthropic },
		"body":         func(p *Prompt, o *RenderOptions) string { p.Sections[0].Body = "B"; return Anthropic },
		"msg id":       func(p *Prompt, o *RenderOptions) string { p.Messages[0].ID = "2"; return Anthropic },
		"role":         func(p *Prompt, o *RenderOptions) string { p.Messages[0].Role = "user"; return Anthropic },
		"content":      func(p *Prompt, o *RenderOptions) string { p.Messages[0].Content = "C"; return Anthropic },
		"agent":        func(p *Prompt, o *RenderOptions) string { p.Messages[0].Agent = "A"; return Anthropic },
		"call id":      func(p *Prompt, o *RenderOptions) string { p.Messages[0].ToolCallID = "y"; return Anthropic },
		"tool name":    func(p *Prompt, o *RenderOptions) string { p.Messages[0].ToolName = "m"; return Anthropic },
		"is error":     func(p *Prompt, o *RenderOptions) string { p.Messages[0].IsError = true; return Anthropic },
		"call": func(p *Prompt, o *RenderOptions) string {
			p.Messages[0].ToolCalls[0].Arguments = "[]"
			return Anthropic
		},
		"system role": func(p *Prompt, o *RenderOptions) string { o.OpenAISystemRole = "developer"; return Anthropic },
		"model":       func(p *Prompt, o *RenderOptions) string { o.Model = "n"; return Anthropic },
		"max tokens":  func(p *Prompt, o *RenderOptions) string { o.MaxTokens = 2; return Anthropic },
		"openai api":  func(p *Prompt, o *RenderOptions) string { o.OpenAIAPI = OpenAIResponses; return Anthropic },
		"num ctx":     func(p *Prompt, o *RenderOptions) string { o.NumCtx = 9; return Anthropic },
		"stream":      func(p *Prompt, o *RenderOptions) string { o.Stream = true; return Anthropic },
		"prefill":     func(p *Prompt, o *RenderOptions) string { o.Prefill = true; return Anthropic },
		"window": func(p *Prompt, o *RenderOptions) string {
			n := 5
			o.Override.ContextWindow = &n
			return Anthropic
		},
		"output": func(p *Prompt, o *RenderOptions) string {
			n := 5
			o.Override.MaxOutput = &n
			return Anthropic
		},
		"min cacheable": func(p *Prompt, o *RenderOptions) string {
			n := 0
			o.Override.MinCacheable = &n
			return Anthropic
		},
		"developer": func(p *Prompt, o *RenderOptions) string {
			d := false
			o.Override.DeveloperRole = &d
			return Anthropic
		},
		"tokens":    func(p *Prompt, o *RenderOptions) string { p.Sections[0].Tokens = 7; return Anthropic },
		"signature": func(p *Prompt, o *RenderOptions) string { p.Messages[0].ToolCalls[0].Signature = "s"; return Anthropic },
		// Length-prefixed strings: moving a byte between fields is a change.
		"boundary": func(p *Prompt, o *RenderOptions) string {
			p.Sections[0].Heading, p.Sections[0].Body = "hb", ""
			return Anthropic
		},
	}
	for name, mut := range muts {
		p, o := base(), opts
		prov := mut(p, &o)
		if Fingerprint(p, prov, o) == ref {
			t.Errorf("changing %s leaves the fingerprint unchanged", name)
		}
	}
}
