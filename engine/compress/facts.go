package compress

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// Iterations fills iters (record id → iteration, for messages
// and iteration records) and returns the current iteration, the highest of
// them. A record's own number wins. Otherwise the number is derived, so
// that conversations without numbers (written by the Claude Code hook,
// imported from an agent's transcript) compress too: an iteration record
// is the iteration after the record before it; with iteration records (the
// hook writes one per agent turn, at Stop), a message belongs to the
// iteration after the last record written before it; without any, each
// user prompt (a user message that is neither internal nor a compaction
// summary) begins the next iteration.
//
// A conversation that is the newest part of a longer log
// (Conversation.Earlier not zero) is numbered on from what lies before it:
// its first unnumbered iteration record follows the earlier ones, its
// messages before its first iteration record belong to that record's
// iteration, and without iteration records each prompt candidate
// (conversation.PromptCandidate, which the index counts) begins the next
// iteration, so that a message keeps its number while the window slides.
func Iterations(c *conversation.Conversation, iters map[string]int) int {
	type end struct {
		at time.Time
		id string
		n  int
	}
	var ends []end
	partial := c.Earlier != (conversation.Earlier{})
	cur, prev := 0, c.Earlier.Iterations
	for _, r := range c.Iterations {
		n := r.Iteration
		if n <= 0 {
			n = prev + 1
		}
		prev = n
		ends = append(ends, end{r.Time, r.ID, n})
		iters[r.ID] = n
		cur = max(cur, n)
	}
	j, last, prompts := 0, c.Earlier.Iterations, c.Earlier.Prompts
	if partial && len(ends) > 0 {
		last = ends[0].n - 1
	}
	var prevUser, prevAssistant string
	for k, r := range c.Messages {
		for j < len(ends) && (ends[j].at.Before(r.Time) || ends[j].at.Equal(r.Time) && ends[j].id < r.ID) {
			last = ends[j].n
			j++
		}
		var next *conversation.Record
		if k+1 < len(c.Messages) {
			next = &c.Messages[k+1]
		}
		if partial && conversation.PromptCandidate(&r) || !partial && turnPrompt(r, next, prevUser, prevAssistant) {
			prompts++
		}
		switch {
		case r.Role == conversation.RoleUser && !r.Internal:
			prevUser = strings.TrimSpace(r.Content)
		case r.Role == conversation.RoleAssistant && !r.Internal && r.Content != "":
			prevAssistant = strings.TrimSpace(r.Content)
		}
		n := r.Iteration
		switch {
		case n > 0:
		case len(ends) > 0 || c.Earlier.Iterations > 0:
			n = last + 1
		default:
			n = max(prompts, 1)
		}
		iters[r.ID] = n
		cur = max(cur, n)
	}
	return cur
}

// turnPrompt reports whether a user message r begins an agent turn: not
// internal, not a compaction summary or a tool result, and none of what
// the transcripts in ../shared/transcripts show users "saying" that is no
// prompt: Claude Code's built-in commands and their output (a
// "<command-name>…" message followed by "<local-command-stdout>…"; a
// custom command, followed by its expansion, is a prompt), its
// interruption marker ("[Request interrupted by user…"), aider's answers
// to its own questions ("Add file to the chat? (Y)es/(N)o/…"), a bare
// slash command ("/clear", "/ask"), and aider's echoes: in architect mode
// the architect's reply handed to the editor as a user message (equal to
// the previous assistant message), and a "/ask TEXT" prompt repeated as
// TEXT. next is the message after r (nil at the end); prevUser and
// prevAssistant are the texts of the last user and assistant messages
// before it.
func turnPrompt(r conversation.Record, next *conversation.Record, prevUser, prevAssistant string) bool {
	if !conversation.PromptCandidate(&r) {
		return false
	}
	c := strings.TrimSpace(r.Content)
	switch {
	case c == "",
		strings.HasPrefix(c, "<local-command-"),
		strings.HasPrefix(c, "[Request interrupted"),
		strings.Contains(c, "(Y)es/(N)o"),
		strings.HasPrefix(c, "/") && !strings.ContainsAny(c, " \n"),
		c == prevAssistant:
		return false
	case strings.HasPrefix(c, "<command-"):
		return next == nil || next.Role != conversation.RoleUser || !strings.HasPrefix(strings.TrimSpace(next.Content), "<local-command-stdout")
	case strings.HasPrefix(prevUser, "/"):
		if _, rest, ok := strings.Cut(prevUser, " "); ok && strings.TrimSpace(rest) == c {
			return false
		}
	}
	return true
}

// editToolWords are words of tool names (lower case, substrings) whose
// calls change the file their arguments name, across agents (the Claude
// Code hook has its exact list, editTools).
var editToolWords = []string{"edit", "write", "create", "patch", "replace", "insert"}

// Facts is what compression knows of the target's conversation.
type Facts struct {
	// Iters maps record ids to iterations (Iterations).
	Iters map[string]int
	// Iterations are per iteration (IterationFactsOf).
	Iterations map[int]*IterationFacts
	// Commits maps settled items (error record ids, ApproachID) to the
	// abbreviated hash of the commit that settled them.
	Commits map[string]string
	// Mentions are the texts of the messages up to the pass.
	Mentions []string
}

// IterationFacts is what compression needs to know of one iteration of
// the conversation.
type IterationFacts struct {
	// First and Last are the times of its first and last message.
	First, Last time.Time
	// Files are the project-relative files it changed: its iteration
	// record's files_modified and the files of its edit tool calls.
	Files []string
	// Failed reports failing tests, a non-zero exit or an error hash on its
	// iteration record; without a record, a failed tool result.
	Failed bool
	// Record reports that the iteration has an iteration record.
	Record bool
}

// IterationFactsOf gathers IterationFacts per iteration of c (iters as
// filled by Iterations; nil c has none), turning the files records and
// tool calls name into project paths with projectPath ("" drops one).
func IterationFactsOf(c *conversation.Conversation, iters map[string]int, projectPath func(string) string) map[int]*IterationFacts {
	facts := map[int]*IterationFacts{}
	if c == nil {
		return facts
	}
	at := func(n int) *IterationFacts {
		if facts[n] == nil {
			facts[n] = &IterationFacts{}
		}
		return facts[n]
	}
	addFile := func(f *IterationFacts, p string) {
		if p = projectPath(p); p != "" && !slices.Contains(f.Files, p) {
			f.Files = append(f.Files, p)
		}
	}
	for _, r := range c.Messages {
		n := iters[r.ID]
		if n <= 0 {
			continue
		}
		f := at(n)
		if f.First.IsZero() || r.Time.Before(f.First) {
			f.First = r.Time
		}
		if r.Time.After(f.Last) {
			f.Last = r.Time
		}
		if r.IsError && !f.Record {
			f.Failed = true
		}
		for _, p := range r.FilesModified {
			addFile(f, p)
		}
		for _, tc := range r.ToolCalls {
			if isTool(editToolWords, tc.Name) {
				addFile(f, ArgPath(tc.Arguments))
			}
		}
	}
	for _, r := range c.Iterations {
		n := iters[r.ID]
		if n <= 0 {
			continue
		}
		f := at(n)
		if !f.Record {
			// The record, when there is one, decides failure: an error
			// fixed within the iteration does not fail it.
			f.Record, f.Failed = true, false
		}
		if r.TestsPassing != nil && !*r.TestsPassing || r.ExitCode != nil && *r.ExitCode != 0 || r.ErrorHash != "" {
			f.Failed = true
		}
		for _, p := range r.FilesModified {
			addFile(f, p)
		}
	}
	return facts
}

// WindowEnd is the start of the first iteration from n on (up to pass)
// that has messages: a commit must come before it to settle something of
// an earlier iteration, so the answer is fixed once iteration n began and
// a commit made later never rewrites the prompt's prefix. ok is false when
// no such iteration exists yet.
func WindowEnd(facts map[int]*IterationFacts, n, pass int) (time.Time, bool) {
	for k := n; k <= pass; k++ {
		if f := facts[k]; f != nil && !f.First.IsZero() {
			return f.First, true
		}
	}
	return time.Time{}, false
}

// readTools are tool names (lower case, substrings) whose results are file
// contents.
var readTools = []string{"read", "view", "cat", "open_file", "get_file"}

// HasStopSignal reports whether a message of the conversation states a
// stop signal as signals.FromMessages reads them: BLOCKED, STUCK or STOP
// in text, or a failed tool result that is one (a rejected tool use and
// what the user said). Like the conversation layer's Stops, it reads tool results only
// when they failed and other text only when it names a stop word.
func HasStopSignal(m prompt.Message) bool {
	if m.Role == "tool" || m.ToolName != "" {
		if !m.IsError {
			return false
		}
	} else if !strings.Contains(m.Content, "BLOCKED") && !strings.Contains(m.Content, "STUCK") && !strings.Contains(m.Content, "STOP") {
		return false
	}
	for _, s := range signals.FromMessages([]signals.Message{{ID: m.ID, Role: m.Role, Content: m.Content, ToolName: m.ToolName, IsError: m.IsError}}) {
		if s.Kind != signals.KindError {
			return true
		}
	}
	return false
}

// ApproachID keys iteration n's approach in Facts.Commits.
func ApproachID(n int) string { return fmt.Sprintf("approach:%d", n) }

// isReadTool reports whether any of names is a read tool (readTools).
func isReadTool(names ...string) bool { return isTool(readTools, names...) }

// isTool reports whether any of names contains one of kinds, ignoring
// case.
func isTool(kinds []string, names ...string) bool {
	for _, n := range names {
		n = strings.ToLower(n)
		for _, r := range kinds {
			if n != "" && strings.Contains(n, r) {
				return true
			}
		}
	}
	return false
}

// ArgPath is the file a read call names: its file_path, path or filename
// argument ("" when the arguments are not a JSON object or name none).
func ArgPath(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	for _, k := range []string{"file_path", "path", "filename", "file"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func langCode(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".txt", "":
		return false
	}
	return true
}

func taskText(proj *planning.Project) string {
	if nt := proj.NextTask; nt != nil {
		return nt.Text + " " + nt.Action + " " + strings.Join(nt.Files, " ")
	}
	if pl := proj.CurrentPlan; pl != nil {
		return pl.Title + " " + pl.Objective
	}
	return ""
}

// skillUsed reports whether a skill file serves the current task (docs/formats.md#compression: a
// skill that was loaded but not applied is forgotten): its name shares a keyword with
// the task, the plan's skills_to_apply names it, or a conversation message
// cites its name.
func skillUsed(skill string, taskWords []string, proj *planning.Project, msgs []string) bool {
	words := SkillWords(skill)
	if sharesWord(taskWords, words) {
		return true
	}
	name := strings.TrimSuffix(path.Base(skill), path.Ext(skill))
	if strings.EqualFold(name, "SKILL") {
		name = path.Base(path.Dir(skill))
	}
	if pl := proj.CurrentPlan; pl != nil && pl.Markdown != nil {
		if raw, ok := pl.Markdown.Meta("skills_to_apply"); ok && strings.Contains(raw, name) {
			return true
		}
	}
	for _, m := range msgs {
		if strings.Contains(m, name) {
			return true
		}
	}
	return false
}

func sharesWord(a, b []string) bool {
	for _, w := range b {
		for _, v := range a {
			if v == w {
				return true
			}
		}
	}
	return false
}

// UpcomingTasks are the texts of the (at most 3) tasks after the next one:
// the rest of the current plan, then the following plans of the phase.
func UpcomingTasks(proj *planning.Project) []string {
	var out []string
	pl := proj.CurrentPlan
	if pl == nil {
		return nil
	}
	seen := proj.NextTask == nil
	for _, t := range pl.Tasks {
		if !seen {
			seen = t.Line == proj.NextTask.Line
			continue
		}
		if t.State != "done" {
			out = append(out, strings.Join([]string{t.Text, t.Action, strings.Join(t.Files, " ")}, " "))
		}
	}
	if ph := proj.CurrentPhase; ph != nil {
		after := false
		for _, other := range ph.Plans {
			if other == pl {
				after = true
				continue
			}
			if after && !other.Done {
				for _, t := range other.Tasks {
					out = append(out, strings.Join([]string{t.Text, t.Action, strings.Join(t.Files, " ")}, " "))
				}
			}
		}
	}
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}
