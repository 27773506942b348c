package prompt

import (
	"encoding/json"
	"fmt"
)

// Gemini generateContent bodies,
// https://ai.google.dev/api/generate-content#method:-models.generatecontent.

type geminiFunctionCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type geminiFunctionResponse struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type geminiPart struct {
	Text             string                  `json:"text,omitempty"`
	FunctionCall     *geminiFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiFunctionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string                  `json:"thoughtSignature,omitempty"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiRequest struct {
	SystemInstruction *geminiContent  `json:"systemInstruction,omitempty"`
	Contents          []geminiContent `json:"contents"`
}

// geminiBody: systemInstruction with one part per non-empty tier (left out
// when there is none), contents with user and model roles starting with a
// user turn, consecutive same-role turns merged, a functionCall turn
// followed directly by its functionResponse turn (tool results paired by
// pairTools). Replayed calls carry the thoughtSignature recorded with them.
// For a model that validates signatures (Limit.ThoughtSignatures, Gemini
// 3), a step of the current turn whose first call has no signature is sent
// as text (unsignedSteps; Notes reports it), since Gemini 3 rejects it
// (https://ai.google.dev/gemini-api/docs/thought-signatures). The body has
// no model field: generateContent takes the model in the URL
// (models/MODEL:generateContent).
func geminiBody(p *Prompt, opts RenderOptions) geminiRequest {
	req := geminiRequest{Contents: []geminiContent{}}
	var sys []geminiPart
	for _, t := range []Tier{Stable, Semi} {
		if s := p.TierText(t); s != "" {
			sys = append(sys, geminiPart{Text: s})
		}
	}
	if len(sys) > 0 {
		req.SystemInstruction = &geminiContent{Parts: sys}
	}
	add := func(role string, parts ...geminiPart) {
		if n := len(req.Contents); n > 0 && req.Contents[n-1].Role == role {
			req.Contents[n-1].Parts = append(req.Contents[n-1].Parts, parts...)
			return
		}
		req.Contents = append(req.Contents, geminiContent{Role: role, Parts: parts})
	}
	steps := toolSteps(pairTools(p.Messages))
	flat := unsignedSteps(steps, opts.limit(Gemini))
	for i, st := range steps {
		switch {
		case len(st.calls) > 0:
			var parts []geminiPart
			if st.msg.Content != "" {
				parts = append(parts, geminiPart{Text: st.msg.Content})
			}
			for _, tc := range st.calls {
				if flat[i] {
					parts = append(parts, geminiPart{Text: "[tool call " + tc.Name + "] " + tc.Arguments})
					continue
				}
				parts = append(parts, geminiPart{FunctionCall: &geminiFunctionCall{Name: toolName(tc.Name), Args: argsObject(tc.Arguments)}, ThoughtSignature: tc.Signature})
			}
			add("model", parts...)
			for _, r := range st.results {
				if flat[i] {
					add("user", geminiPart{Text: "Tool result (" + r.ToolName + "): " + nonEmpty(r.Content)})
					continue
				}
				key := "content"
				if r.IsError {
					key = "error"
				}
				resp, _ := json.Marshal(map[string]string{key: r.Content})
				add("user", geminiPart{FunctionResponse: &geminiFunctionResponse{Name: toolName(r.ToolName), Response: resp}})
			}
		case st.msg.Role == "assistant":
			add("model", geminiPart{Text: nonEmpty(st.msg.Content)})
		default:
			add("user", geminiPart{Text: nonEmpty(st.msg.Content)})
		}
	}
	if dyn := p.DynamicContext(); dyn != "" {
		add("user", geminiPart{Text: dyn})
	}
	// The first content must be a user turn, and a functionCall must follow
	// a user turn: a tail that opens with a model turn gets the same
	// opening user turn as the anthropic body.
	if len(req.Contents) > 0 && req.Contents[0].Role != "user" {
		req.Contents = append([]geminiContent{{Role: "user", Parts: []geminiPart{{Text: "(conversation continues)"}}}}, req.Contents...)
	}
	if len(req.Contents) == 0 {
		req.Contents = append(req.Contents, geminiContent{Role: "user", Parts: []geminiPart{{Text: continueText}}})
	}
	return req
}

// currentTurn is the index of the first step of the current turn: the
// steps after the last user message (Gemini validates the signatures of
// the calls made since the user last spoke).
func currentTurn(steps []toolStep) int {
	for i := len(steps) - 1; i >= 0; i-- {
		if len(steps[i].calls) == 0 && steps[i].msg.Role == "user" {
			return i + 1
		}
	}
	return 0
}

// unsignedSteps marks, for a model that validates thought signatures, the
// steps of the current turn whose first call has no recorded signature
// (for parallel calls only the first carries one).
func unsignedSteps(steps []toolStep, l Limit) map[int]bool {
	out := map[int]bool{}
	if !l.ThoughtSignatures {
		return out
	}
	for i := currentTurn(steps); i < len(steps); i++ {
		if len(steps[i].calls) > 0 && steps[i].calls[0].Signature == "" {
			out[i] = true
		}
	}
	return out
}

// Note is something a renderer changed so that the provider accepts the
// body, for `recite status` to show.
type Note struct {
	Provider string `json:"provider"`
	Message  string `json:"message"`
}

// Notes returns what rendering p for provider with opts changes beyond
// the shape itself: for Gemini 3, the replayed tool calls of the current
// turn recorded without a thoughtSignature, which are sent as text. nil
// when nothing was changed.
func Notes(p *Prompt, provider string, opts RenderOptions) []Note {
	if provider != Gemini {
		return nil
	}
	steps := toolSteps(pairTools(p.Messages))
	flat := unsignedSteps(steps, opts.limit(Gemini))
	if len(flat) == 0 {
		return nil
	}
	calls := 0
	var first string
	for i := range steps {
		if flat[i] {
			if first == "" {
				first = steps[i].calls[0].ID
			}
			calls += len(steps[i].calls)
		}
	}
	return []Note{{Provider: Gemini, Message: fmt.Sprintf(
		"%d replayed tool %s of the current turn (first: %s) %s no thoughtSignature recorded; %s rejects such calls, so the gemini body carries them as text",
		calls, plural(calls, "call", "calls"), first, plural(calls, "has", "have"), opts.model(Gemini))}}
}
