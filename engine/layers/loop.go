package layers

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// Loop is the loop and role layer: the role and agent, which
// iteration this is (the conversation's iteration records, of maxIter —
// recite.yaml's agent.max_iterations — else of the active loop's maximum),
// the files modified so far (docs/formats.md#conversation-layers: the
// deliverables so far), and what failed in the last recorded
// iteration. It reads iteration
// records and the messages of recorded iterations only, so a new plain
// message does not change it (docs/architecture.md#earlier-tiers-never-move).
func Loop(c *conversation.Conversation, tg *config.Target, active *planning.Loop, maxIter int) prompt.Section {
	s := prompt.Section{ID: prompt.IDLoop, Heading: "Loop and role", Sources: []string{layout.ConversationLog(c.ID)}}
	var b strings.Builder
	role := "Role: " + tg.Role
	if c.Meta.AgentType != "" {
		role += "; agent: " + c.Meta.AgentType
	}
	if maxIter > 0 {
		s.Sources = append(s.Sources, config.FileName)
	} else if l := active; l != nil {
		maxIter = l.MaxIterations
		if maxIter > 0 {
			s.Sources = append(s.Sources, layout.PlanningDir+"/"+l.Path)
		}
	}
	if len(c.Iterations) == 0 && c.Meta.AgentType == "" {
		return s
	}
	b.WriteString(role + "\n")
	if len(c.Iterations) == 0 {
		s.Body = strings.TrimSpace(b.String())
		return s
	}
	last := c.Iterations[len(c.Iterations)-1]
	n := last.Iteration
	if n == 0 {
		n = c.Earlier.Iterations + len(c.Iterations)
	}
	line := fmt.Sprintf("This iteration: %d", n+1)
	if maxIter > 0 {
		line += fmt.Sprintf(" of %d", maxIter)
	}
	b.WriteString(line + "\n")
	var facts []string
	if last.ExitCode != nil {
		facts = append(facts, fmt.Sprintf("agent exit %d", *last.ExitCode))
	}
	if last.OutputLines != nil {
		facts = append(facts, fmt.Sprintf("%d output lines", *last.OutputLines))
	}
	if last.Confidence != nil {
		facts = append(facts, "confidence "+strconv.FormatFloat(*last.Confidence, 'f', -1, 64))
	}
	if last.TestsPassing != nil {
		if *last.TestsPassing {
			facts = append(facts, "tests passing")
		} else {
			facts = append(facts, "tests failing")
		}
	}
	if len(last.FilesModified) > 0 {
		facts = append(facts, "files "+strings.Join(last.FilesModified, ", "))
	}
	if len(facts) > 0 {
		fmt.Fprintf(&b, "Iteration %d: %s\n", n, strings.Join(facts, "; "))
	}
	var touched []string
	for _, it := range c.Iterations {
		for _, f := range it.FilesModified {
			if f = strings.TrimSpace(f); f != "" && !slices.Contains(touched, f) {
				touched = append(touched, f)
			}
		}
	}
	if len(touched) > 1 || len(touched) == 1 && !slices.Contains(last.FilesModified, touched[0]) {
		b.WriteString("Files modified so far: " + strings.Join(touched, ", ") + "\n")
	}
	var failed []string
	if last.IsError || (last.TestsPassing != nil && !*last.TestsPassing) {
		if t := textutil.FirstLine(last.Content); t != "" {
			failed = append(failed, t)
		}
	}
	for _, m := range c.Messages {
		if m.Iteration == n && m.IsError && !m.Internal {
			t := textutil.FirstLine(m.Content)
			if m.ToolName != "" {
				t += " (" + m.ToolName + ")"
			}
			if !slices.Contains(failed, t) {
				failed = append(failed, t)
			}
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "What failed in iteration %d:\n", n)
		for _, f := range failed {
			b.WriteString("- " + f + "\n")
		}
	} else if last.Content != "" {
		fmt.Fprintf(&b, "Iteration %d notes: %s\n", n, textutil.FirstLine(last.Content))
	}
	s.Body = strings.TrimSpace(b.String())
	return s
}
