package claudecode

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/recite-dev/recite/engine/signals"
)

// promptLead opens the recitation the UserPromptSubmit hook returns.
const promptLead = "recite: where this project stands now (recitation from .planning/)."

// recitationKind names the session's recitation state file
// (.planning/.recite/hooks/ID.recitation.json).
const recitationKind = "recitation"

// recitationState is what the session was last given of the recitation:
// the hash of the block last injected ("" when none, or when a compaction
// dropped it from the context) and the prompts since.
type recitationState struct {
	Hash  string `json:"hash"`
	Since int    `json:"since"`
}

// recitationHash identifies what a recitation block says, for the rhythm
// of promptRecitation: its text with the circuit breaker's counters left
// out ("- Circuit breaker: HEALTHY (stall: 1/5 | …)" counts as
// "- Circuit breaker: HEALTHY"). The counters move at every turn of the
// loop; a block that differs only in them waits for hooks.recite_every,
// while a new task, plan, decision, blocker, health state or breaker
// state re-injects it at once (docs/architecture.md#one-rhythm).
func recitationHash(rec string) string {
	lines := strings.Split(rec, "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "- Circuit breaker: "); ok {
			if j := strings.Index(rest, " ("); j >= 0 {
				lines[i] = "- Circuit breaker: " + rest[:j]
			}
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:8])
}

// promptRecitation adds the recitation block to a UserPromptSubmit's
// output as additionalContext, in Claude Code's documented JSON
// (hookContextJSON; docs/providers.md#the-recitation-at-a-prompt), when it differs from the last one the session was
// given or when hooks.recite_every prompts have passed since (Engine.
// ReciteEvery; 0 never adds it). The block is Engine.Recitation's, the
// text SessionStart prints (a lenient load of the planning tree, no build
// and no token count), redacted and cut to the output limit. The
// session's count lives in .planning/.recite/hooks/ID.recitation.json,
// changed under the session lock.
func (h *claudeHook) promptRecitation(ctx context.Context, res *result) error {
	text, err := h.promptRecitationText(ctx, res)
	if err != nil || text == "" {
		return err
	}
	out, err := hookContextJSON(h.ev.HookEventName, text)
	if err != nil {
		return err
	}
	res.out, res.json = out, true
	return nil
}

// promptRecitationText is the recitation a prompt adds to the context
// (promptRecitation's rhythm), led, redacted and cut to the output limit;
// "" when the prompt gets none.
func (h *claudeHook) promptRecitationText(ctx context.Context, res *result) (string, error) {
	every := h.e.ReciteEvery()
	if every <= 0 || h.conv == "" {
		return "", nil
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	rec, diags, err := h.e.Recitation(ctx)
	for _, d := range diags {
		res.notef("%s: %s", h.ev.HookEventName, d)
	}
	if err != nil || rec == "" {
		return "", err
	}
	inject := false
	err = h.locked(ctx, func() error {
		var st recitationState
		h.readState(recitationKind, &st)
		st.Since++
		if sum := recitationHash(rec); sum != st.Hash || st.Since >= every {
			inject, st = true, recitationState{Hash: sum}
		}
		return h.writeState(recitationKind, st)
	})
	if err != nil || !inject {
		return "", err
	}
	return signals.CutUTF16(h.e.RedactText(promptLead+"\n\n"+rec), h.limit()), nil
}

// sessionRecited notes what a SessionStart gave the session of the
// recitation, for promptRecitation: after a compaction nothing (the
// summary replaced what earlier prompts were given), else the recitation
// when the output carries it whole (rec, as SessionStart rendered it).
func (h *claudeHook) sessionRecited(ctx context.Context, rec, out string) error {
	if h.conv == "" {
		return nil
	}
	return h.locked(ctx, func() error {
		if h.ev.Source != "compact" && rec != "" && strings.Contains(out, rec) {
			return h.writeState(recitationKind, recitationState{Hash: recitationHash(rec)})
		}
		err := os.Remove(h.statePath(recitationKind))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
}

// hookContextJSON is Claude Code's JSON output adding text to the context
// at event (hooks reference, https://code.claude.com/docs/en/hooks,
// "UserPromptSubmit decision control"): exactly
// {"hookSpecificOutput":{"hookEventName":EVENT,"additionalContext":TEXT}}
// on one line, HTML characters unescaped.
func hookContextJSON(event, text string) (string, error) {
	v := struct {
		Out struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}{}
	v.Out.Event, v.Out.Context = event, text
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("hook output: %w", err)
	}
	return b.String(), nil
}
