package prompt

import (
	"crypto/sha256"
	"encoding/binary"
)

// Fingerprint returns a SHA-256 digest of everything Render reads from p
// (section ids, tiers, headings and bodies; every field of every message
// but its token count; the conversation, the tools block)
// and of opts, so two prompts with equal fingerprints render to the same
// bytes for the same provider. The engine keys its render cache with it, so
// a rebuild re-renders only the targets whose sections changed.
func Fingerprint(p *Prompt, provider string, opts RenderOptions) [sha256.Size]byte {
	h := sha256.New()
	str := func(s string) {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	num := func(v int) {
		var n [binary.MaxVarintLen64]byte
		h.Write(n[:binary.PutVarint(n[:], int64(v))])
	}
	flag := func(b bool) {
		if b {
			num(1)
		} else {
			num(0)
		}
	}
	optNum := func(v *int) {
		if v == nil {
			num(-1 << 62)
			return
		}
		num(*v)
	}
	str(provider)
	str(p.Target)
	str(p.Conversation) // the prompt_cache_key
	flag(p.FixedTools)
	num(len(p.Tools))
	for _, t := range p.Tools {
		str(t)
	}
	str(opts.OpenAISystemRole)
	str(opts.OpenAIAPI)
	str(opts.Model)
	num(opts.MaxTokens)
	num(opts.NumCtx)
	flag(opts.Stream)
	flag(opts.Prefill)
	str(opts.HuggingFaceAPI)
	if c := opts.Custom; c != nil {
		flag(true)
		str(c.Name)
		str(c.Model)
		str(c.Cache)
		num(c.MaxContext)
		num(c.MaxOutput)
		num(c.MinCacheable)
	} else {
		flag(false)
	}
	for _, v := range []*int{opts.Override.ContextWindow, opts.Override.MaxOutput, opts.Override.MinCacheable} {
		optNum(v)
	}
	if d := opts.Override.DeveloperRole; d != nil {
		flag(true)
		flag(*d)
	} else {
		flag(false)
	}
	num(len(p.Sections))
	for _, s := range p.Sections {
		str(s.ID)
		num(int(s.Tier))
		str(s.Heading)
		str(s.Body)
		num(s.Tokens) // cache breakpoints depend on the counts
	}
	num(len(p.Messages))
	for _, m := range p.Messages {
		str(m.ID)
		str(m.Role)
		str(m.Content)
		str(m.Agent)
		str(m.ToolCallID)
		str(m.ToolName)
		flag(m.IsError)
		num(len(m.ToolCalls))
		for _, c := range m.ToolCalls {
			str(c.ID)
			str(c.Name)
			str(c.Arguments)
			str(c.Signature)
		}
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
