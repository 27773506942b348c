package claudecode_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/internal/gitstore/gittest"
	"github.com/recite-dev/recite/internal/sharedtest"
)

// healthLines are the lines of the recitation's Health part in out.
func healthLines(out string) []string {
	_, rest, ok := strings.Cut(out, "### Health\n")
	if !ok {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(l, "- ") {
			break
		}
		lines = append(lines, l)
	}
	return lines
}

// as is event for another session.
func as(event, session string) string {
	return strings.Replace(event, `"abc123"`, `"`+session+`"`, 1)
}

// TestOneHealthAcrossSessions: a new session is told the health of the
// project's loop history at SessionStart, at its first prompt and by the
// status line alike; it does not fall back to "no loop iterations
// recorded" because its own log has none yet. recite_every counts from
// the SessionStart that gave the recitation.
func TestOneHealthAcrossSessions(t *testing.T) {
	dir := enginetest.CopyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	gittest.CommitAll(t, dir)
	setReciteEvery(t, dir, "hooks:\n  recite_every: 2\n")
	// An earlier session: two turns that changed nothing but ended on an
	// error (iterations for the breaker).
	old := "earlier-session"
	for range 2 {
		hook(t, dir, "", as(evPrompt, old), claudecode.Options{})
		hook(t, dir, "", as(evFailure, old), claudecode.Options{})
		hook(t, dir, "", as(evStop, old), claudecode.Options{})
	}
	start, _ := hook(t, dir, "", evStartup, claudecode.Options{})
	want := healthLines(start)
	if len(want) == 0 || strings.Contains(start, "no loop iterations recorded") {
		t.Fatalf("SessionStart health %q, want the earlier session's:\n%s", want, start)
	}
	line := statusLine(t, dir, `{"cwd":"{{DIR}}"}`)
	var injected []int
	for i := 1; i <= 4; i++ {
		out, _ := hook(t, dir, "", evPrompt, claudecode.Options{})
		if ctx := promptOutput(t, out); ctx != "" {
			injected = append(injected, i)
			if got := healthLines(ctx); !slices.Equal(got[:1], want[:1]) {
				t.Errorf("prompt %d health %q, SessionStart said %q", i, got, want)
			}
		}
		if i == 1 {
			if got := statusLine(t, dir, `{"cwd":"{{DIR}}"}`); got != line {
				t.Errorf("status line after prompt 1 %q, before %q", got, line)
			}
		}
		hook(t, dir, "", evStop, claudecode.Options{})
	}
	if !slices.Equal(injected, []int{2, 4}) {
		t.Errorf("recitation at prompts %v, want [2 4] (recite_every 2 from SessionStart)", injected)
	}
}

// TestResumeRepeatsOnlyWhatWasLost: the open stop signals reach a
// session's context once: a resume prints only those the session was
// not given and did not see itself, and a compaction resets what the
// context holds to what the summary kept and the re-injection gave.
func TestResumeRepeatsOnlyWhatWasLost(t *testing.T) {
	dir := enginetest.HookProject(t)
	const key = "Error: connect ECONNREFUSED 127.0.0.1:5432"
	start, _ := hook(t, dir, "", evStartup, claudecode.Options{})
	if !strings.Contains(start, key) {
		t.Fatalf("startup lacks %q:\n%s", key, start)
	}
	resume := strings.Replace(evStartup, `"source":"startup"`, `"source":"resume"`, 1)
	for i := range 2 {
		out, _ := hook(t, dir, "", resume, claudecode.Options{})
		if strings.Contains(out, key) {
			t.Errorf("resume %d repeats what the session holds:\n%s", i+1, out)
		}
	}
	// The session's own error is in its context; another session's is not.
	hook(t, dir, "", evFailure2, claudecode.Options{})
	hook(t, dir, "", as(evFailure, "other"), claudecode.Options{})
	out, _ := hook(t, dir, "", resume, claudecode.Options{})
	if strings.Contains(out, `relation "invoices_v2" does not exist`) || !strings.Contains(out, "ECONNREFUSED 127.0.0.1:5433") {
		t.Errorf("resume after a new error elsewhere: want only the other session's error:\n%s", out)
	}
	if again, _ := hook(t, dir, "", resume, claudecode.Options{}); strings.Contains(again, "ECONNREFUSED 127.0.0.1:5433") {
		t.Errorf("the next resume repeats it:\n%s", again)
	}
	// A compaction whose summary lost everything: re-injected once, then
	// held.
	hook(t, dir, "", evPre, claudecode.Options{})
	hook(t, dir, "", evPostSm, claudecode.Options{})
	compact, _ := hook(t, dir, "", evCompact, claudecode.Options{})
	if !strings.Contains(compact, key) {
		t.Errorf("after the compaction the lost key line is not re-injected:\n%s", compact)
	}
	if out, _ := hook(t, dir, "", resume, claudecode.Options{}); strings.Contains(out, key) {
		t.Errorf("resume after the compaction repeats the re-injected signal:\n%s", out)
	}
}

// BenchmarkPromptManySessions times UserPromptSubmit and SessionStart in a
// project (examples/gsd: no loop file, so health comes from the
// conversations) whose store holds 15 earlier hook sessions of 10 turns
// each, as a project used for weeks leaves it: the health reads the
// project's loop history, not one log.
func BenchmarkPromptManySessions(b *testing.B) {
	dir := enginetest.CopyTree(b, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	gittest.CommitAll(b, dir)
	for s := range 15 {
		id := fmt.Sprintf("earlier-%02d", s)
		for range 10 {
			hook(b, dir, "", as(evPrompt, id), claudecode.Options{})
			hook(b, dir, "", as(evFailure, id), claudecode.Options{})
			hook(b, dir, "", as(evStop, id), claudecode.Options{})
		}
	}
	for _, bc := range []struct{ name, event string }{{"UserPromptSubmit", evPrompt}, {"SessionStart", evStartup}} {
		b.Run(bc.name, func(b *testing.B) {
			ev := strings.NewReplacer("{{DIR}}", dir, "{{T}}", "").Replace(bc.event)
			for b.Loop() {
				var out, errOut bytes.Buffer
				engine.RunClaudeHook(context.Background(), claudecode.Options{Deadline: noDeadline}, strings.NewReader(ev), &out, &errOut)
			}
		})
	}
}
