package signals

import (
	"strings"

	"github.com/recite-dev/recite/planning/conversation"
)

// quietTool reports a tool whose successful output is not command output
// (a file read, a search, a web page, a subagent's prose, an MCP
// service's data): only a failed call of it is an error. Every other tool
// (Bash, BashOutput, TaskOutput, one not named) has its output scanned.
func quietTool(name string) bool {
	if strings.HasPrefix(name, "mcp__") {
		return true
	}
	switch name {
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead", "Glob", "Grep", "LS", "WebFetch", "WebSearch",
		"TodoWrite", "TodoRead", "Task", "Agent", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet", "TaskStop", "ExitPlanMode",
		"EnterPlanMode", "AskUserQuestion", "Skill", "SlashCommand", "ListMcpResourcesTool", "ReadMcpResourceTool", "ToolSearch",
		"SendMessage", "aider":
		return true
	}
	return false
}

// fromTool extracts the signals of a tool result: a rejected call is a
// stop; otherwise every error of its output (scan: one per distinct cause
// line of the failure-line table, at most maxFindings) is an error signal
// with its key line and the call's command. A failed call whose output
// matches no rule is one error keyed by heuristicKey. An error that is
// the only one of a failed call keeps the whole output as its text;
// others keep the lines around their key (window). Successful output of
// a quiet tool is not scanned.
func (m *matchers) fromTool(msg Message, base Signal) []Signal {
	content := msg.Content
	if msg.IsError && m.rejection.MatchString(strings.TrimSpace(content)) {
		s := base
		s.Kind = KindStop
		s.Text = content
		return []Signal{s}
	}
	if !msg.IsError && quietTool(msg.ToolName) {
		return nil
	}
	base.Kind = KindError
	base.Command = msg.Command
	exit := exitCodeOf(content)
	if !msg.IsError {
		exit = 0
	}
	rules, heur := m.output()
	sc := rules.scan(content, m.normalizer())
	if len(sc.findings) == 0 {
		if !msg.IsError {
			return nil
		}
		s := base
		s.Text = content
		s.KeyLine = heur.heuristicKey(sc.stripped)
		s.Probe = isProbe(msg.ToolName, msg.Command, exit, s.KeyLine, content)
		return []Signal{s}
	}
	out := make([]Signal, 0, len(sc.findings))
	for i, f := range sc.findings {
		s := base
		s.KeyLine = f.key
		if msg.IsError && len(sc.findings) == 1 {
			s.Text = content
		} else {
			lo, hi := 0, len(sc.lines)
			if i > 0 {
				lo = sc.findings[i-1].at + 1
			}
			if i+1 < len(sc.findings) {
				hi = sc.findings[i+1].start
			}
			s.Text = window(sc.lines, f, lo, hi)
		}
		s.Probe = isProbe(msg.ToolName, msg.Command, exit, s.KeyLine, content)
		if k, ok := sc.norms[s.KeyLine]; ok && !isBareExit(s.KeyLine) {
			s.Hash = hashNormalized(k) // signalHash, its normalisation known
		}
		out = append(out, s)
	}
	return out
}

// fromNotification reads a failed background task's notification
// (conversation.ParseTaskNotification) in a user message: an error whose
// key line is the notification's summary and whose command is the task's
// subject ("Push to remote").
func (m *matchers) fromNotification(msg Message, base Signal) (Signal, bool) {
	if !strings.Contains(msg.Content, "<task-notification>") {
		return Signal{}, false
	}
	n, ok := conversation.ParseTaskNotification(msg.Content)
	if !ok || !n.Failed() || n.Summary == "" {
		return Signal{}, false
	}
	s := base
	s.Kind = KindError
	s.KeyLine = n.Summary
	s.Text = strings.TrimSpace(n.Summary + "\n" + n.Result)
	s.Command = n.Subject()
	if s.Command == "" {
		s.Command = "background task " + n.TaskID
	}
	return s, true
}
