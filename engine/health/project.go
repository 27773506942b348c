package health

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// HealthIterations is how many of the newest iteration records of each
// conversation the project's health is evaluated on (Iterations): the
// window of the circuit breaker's counters for a conversation-driven loop.
// It is far above every threshold (stall, spin and decline count at most
// a few iterations), and it bounds what is read of a long log.
const HealthIterations = 100

// Iterations returns the iterations the project's health is evaluated on
// and where they came from (a loop file or a conversation log, "" when
// none): the active loop's Loop Progress rows when it has any, else the
// project's loop history (HistoryConversations: the targets'
// conversations and the most recently active conversations that hold
// iteration records, back to HealthIterations of them), the newest
// HealthIterations records of each, merged in time order. A session
// counts in it from its first iteration record, so a new session that has
// none yet (a hook's SessionStart, its first prompt) and `recite status`
// evaluate the same history: health never changes because a session
// started (docs/architecture.md#one-health). `recite status`, the
// recitation the agent hooks print, the status line, the prompts and
// preservation blocks all evaluate these, so they report the same health.
// They are found through each log's index, among its newest TailMaxBytes
// of records (Store.Iterations): no other record is read, so the cost
// grows neither with a log's length nor with the messages between its
// iteration records (16 bytes of index each), and a log without any
// costs nothing. store may be nil (no conversations); a log that cannot
// be read is a diagnostic and is left out.
func Iterations(ctx context.Context, store *conversation.Store, cfg *config.Config, active *planning.Loop) ([]signals.IterationRecord, string, []markdown.Diagnostic) {
	if active != nil && len(active.Iterations) > 0 {
		return signals.IterationsFromLoop(active), layout.PlanningDir + "/" + active.Path, nil
	}
	if store == nil {
		return nil, "", nil
	}
	var recs []conversation.Record
	ids, diags := HistoryConversations(ctx, cfg, store)
	for _, id := range ids {
		own, _, wdiags, err := store.Iterations(ctx, id, HealthIterations, TailMaxBytes)
		diags = append(diags, wdiags...)
		if err != nil {
			diags = append(diags, markdown.Diagnostic{Path: layout.ConversationLog(id), Message: fmt.Sprintf("health: %v", err)})
			continue
		}
		for i := range own {
			if own[i].Conversation == "" {
				own[i].Conversation = id
			}
		}
		recs = append(recs, own...)
	}
	if len(recs) == 0 {
		return nil, "", diags
	}
	slices.SortStableFunc(recs, func(a, b conversation.Record) int { return a.Time.Compare(b.Time) })
	return IterationRecords(recs), layout.ConversationLog(recs[len(recs)-1].Conversation), diags
}

// HistoryConversations are the conversations of the project's loop
// history, sorted by id: the targets' conversations, and the conversations
// holding iteration records, most recently active first, until they hold
// HealthIterations records between them (their index says how many each
// holds, so a log is not read to learn it has none). A session that has
// recorded no iteration yet is not among them until it does, so its
// start changes nothing. Diagnostics are the conversations that cannot
// be listed.
func HistoryConversations(ctx context.Context, cfg *config.Config, store *conversation.Store) ([]string, []markdown.Diagnostic) {
	seen := map[string]bool{}
	var ids []string
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, t := range cfg.Targets {
		add(t.Conversation)
	}
	infos, diags, err := store.Infos(ctx)
	if err != nil {
		return ids, append(diags, markdown.Diagnostic{Path: layout.ConversationsDir, Message: err.Error()})
	}
	slices.SortFunc(infos, func(a, b conversation.Info) int {
		return cmp.Or(b.LastActivity.Compare(a.LastActivity), cmp.Compare(a.ID, b.ID))
	})
	held := 0
	for _, in := range infos {
		if held >= HealthIterations {
			break
		}
		if in.Iterations == 0 {
			continue
		}
		add(in.ID)
		held += in.Iterations
	}
	slices.Sort(ids)
	return ids, diags
}

// Project evaluates the project's health on its iterations (Iterations)
// with recite.yaml's circuit_breaker thresholds: a Report without signals
// or conversations. store is the conversation store to read through; nil
// opens the project's when it has a conversations folder. The diagnostics
// are Iterations'.
func Project(ctx context.Context, dir string, store *conversation.Store, cfg *config.Config, active *planning.Loop) (*Report, []markdown.Diagnostic) {
	var diags []markdown.Diagnostic
	// A project without conversations has none to read (and gets no
	// folder from a build).
	if convDir := filepath.Join(dir, filepath.FromSlash(layout.ConversationsDir)); store == nil && dirExists(convDir) {
		var err error
		if store, err = conversation.Open(convDir); err != nil {
			diags = append(diags, markdown.Diagnostic{Path: layout.ConversationsDir, Message: err.Error()})
		}
	}
	iters, source, idiags := Iterations(ctx, store, cfg, active)
	rep := &Report{Iterations: len(iters), IterationSource: source, Conversations: []string{}, Signals: []signals.Signal{},
		Health: signals.Evaluate(iters, cfg.CircuitBreaker.Effective())}
	rep.BreakerLine = rep.Health.BreakerLine()
	return rep, append(diags, relDiags(dir, idiags)...)
}

// PromptHealth computes the prompt's health and approach lines (Lines,
// ApproachLines) from the project's health (Project): the active loop's
// rows, else the conversations' iteration records, as `recite status`
// reports them; health lines are none when there is no iteration. store
// is as Project's.
func PromptHealth(ctx context.Context, dir string, store *conversation.Store, cfg *config.Config, active *planning.Loop) (health, approach []string) {
	rep, _ := Project(ctx, dir, store, cfg, active)
	return Lines(rep, active), ApproachLines(active)
}

// dirExists reports a directory at path.
func dirExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// relDiags makes the diagnostics' paths project-relative where they are
// inside dir.
func relDiags(dir string, diags []markdown.Diagnostic) []markdown.Diagnostic {
	for i, d := range diags {
		if rel, ok := layout.RelPath(dir, d.Path); ok {
			diags[i].Path = rel
		}
	}
	return diags
}

// newestConversations returns the ids of the n conversations of store
// most recently active, newest first (ties by id).
func newestConversations(store *conversation.Store, n int) ([]string, []markdown.Diagnostic) {
	list, diags, err := store.ListDiagnosed()
	if err != nil {
		return nil, append(diags, markdown.Diagnostic{Path: layout.ConversationsDir, Message: err.Error()})
	}
	slices.SortFunc(list, func(a, b conversation.Summary) int {
		return cmp.Or(b.LastActivity.Compare(a.LastActivity), cmp.Compare(a.ID, b.ID))
	})
	var ids []string
	for _, s := range list[:min(n, len(list))] {
		ids = append(ids, s.ID)
	}
	return ids, diags
}
