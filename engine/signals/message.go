package signals

import (
	"regexp"
	"strings"
	"sync"
)

// matchers holds the compiled patterns of message extraction: the prose
// rules, the failure-line table, the key-line heuristics, the agent's
// words and the normalizer. They are compiled once, on first use
// (newMatchers), and only read after, so Extract, Verify and Fit share
// them across calls and goroutines.
type matchers struct {
	blockedWord *regexp.Regexp
	stopLine    *regexp.Regexp
	rejection   *regexp.Regexp
	fence       *regexp.Regexp
	breakerWord *regexp.Regexp
	norm        *normalizer
	words       *wordRules
	rules       *ruleSet
	heur        *heuristics
	tests       *testNames
	failWords   *regexp.Regexp
	failNegated *regexp.Regexp
}

// newMatchers returns the matchers, compiled on the first call.
func newMatchers() *matchers { return sharedMatchers() }

var sharedMatchers = sync.OnceValue(buildMatchers)

func buildMatchers() *matchers {
	return &matchers{
		blockedWord: regexp.MustCompile(`\b(BLOCKED|STUCK)\b`),
		stopLine:    regexp.MustCompile(`^\s*(?:[-*+]\s+|\d+[.)]\s+|>\s*)*(?:\*\*|__)?STOP(?:\*\*|__)?\s*(?::|—|--)`),
		rejection:   regexp.MustCompile(`^The user doesn't want to proceed with this tool use`),
		fence:       regexp.MustCompile("^ {0,3}(`{3,}|~{3,})"),
		breakerWord: regexp.MustCompile(`\b(TRIPPED|CIRCUIT BREAK)\b`),
		norm:        newNormalizer(),
		words:       newWordRules(),
		rules:       newRuleSet(),
		heur:        newHeuristics(),
		tests:       newTestNames(),
		failWords:   regexp.MustCompile(failWordsPattern),
		failNegated: regexp.MustCompile(failNegatedPattern),
	}
}

// fromMessage extracts the signals of one message: a tool result's errors
// and stops (fromTool), a user message's failed task notification
// (fromNotification), and the prose rules of user and assistant text
// (fromText).
func (m *matchers) fromMessage(msg Message) []Signal {
	src := msg.Source
	if src == "" {
		src = msg.ID
	}
	base := Signal{Source: src, FirstSeen: msg.Timestamp, LastSeen: msg.Timestamp}
	if msg.Role == "tool" || msg.ToolName != "" {
		return m.fromTool(msg, base)
	}
	switch msg.Role {
	case "user":
		var out []Signal
		if s, ok := m.fromNotification(msg, base); ok {
			out = append(out, s)
		} else {
			out = append(out, m.fromPasted(msg, base)...)
		}
		return append(out, m.fromText(msg.Content, base, false)...)
	case "assistant":
		return m.fromText(msg.Content, base, true)
	}
	return nil
}

// fromPasted reads the errors a user pasted into a prompt (a failing
// command's output, in a fence or not, or what Claude Code's `!` shell
// mode recorded: <bash-stdout>, <bash-stderr>) with the failure-line
// table, as a tool's output that did not fail as a whole: each error its
// key line and the lines around it, its command the <bash-input> when
// there is one. What Claude Code or a harness adds to a prompt (system
// reminders and instructions, slash-command echoes and their output) is
// not the user's and is left out (userText).
func (m *matchers) fromPasted(msg Message, base Signal) []Signal {
	text := userText(msg.Content)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	rules, _ := m.output()
	sc := rules.scan(text, m.normalizer())
	out := make([]Signal, 0, len(sc.findings))
	for i, f := range sc.findings {
		lo, hi := 0, len(sc.lines)
		if i > 0 {
			lo = sc.findings[i-1].at + 1
		}
		if i+1 < len(sc.findings) {
			hi = sc.findings[i+1].start
		}
		s := base
		s.Kind, s.KeyLine, s.Text = KindError, f.key, window(sc.lines, f, lo, hi)
		s.Command = tagValue(msg.Content, "bash-input")
		out = append(out, s)
	}
	return out
}

// userText is a prompt without what Claude Code and harnesses add to it:
// <system-reminder>, <system_instruction>, <local-command-caveat>,
// <command-name>, <command-message>, <command-args>,
// <local-command-stdout> and <bash-input> elements; the <bash-stdout> and
// <bash-stderr> tags of `!` shell mode become line breaks.
func userText(content string) string {
	if !strings.Contains(content, "<") {
		return content
	}
	for _, tag := range []string{"bash-stdout", "bash-stderr"} {
		content = strings.ReplaceAll(strings.ReplaceAll(content, "<"+tag+">", "\n"), "</"+tag+">", "\n")
	}
	for _, tag := range []string{"system-reminder", "system_instruction", "local-command-caveat", "command-name", "command-message", "command-args", "local-command-stdout", "bash-input"} {
		for {
			i := strings.Index(content, "<"+tag+">")
			if i < 0 {
				break
			}
			j := strings.Index(content[i:], "</"+tag+">")
			if j < 0 {
				content = content[:i]
				break
			}
			content = content[:i] + content[i+j+len(tag)+3:]
		}
	}
	return content
}

// tagValue is the trimmed text of the first <tag>…</tag> of s, or "".
func tagValue(s, tag string) string {
	_, v, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, "</"+tag+">")
	return strings.TrimSpace(v)
}

// fromText applies the BLOCKED/STUCK and STOP: line rules to prose, and
// in the agent's own text (agent) its lower-case words for a block or a
// failed approach (wordRules), skipping fenced code.
func (m *matchers) fromText(text string, base Signal, agent bool) []Signal {
	if !MayHoldStop(text, agent) {
		// The literal prefilter: no word any rule starts from.
		return nil
	}
	var out []Signal
	var fence string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if !strings.Contains(line, "```") && !strings.Contains(line, "~~~") {
			if fence != "" || !MayHoldStop(line, agent) {
				continue
			}
		} else if f := m.fence.FindStringSubmatch(line); f != nil {
			switch {
			case fence == "":
				fence = f[1]
			case f[1][0] == fence[0] && len(f[1]) >= len(fence) && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), f[1][:1])) == "":
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		s := base
		switch {
		case m.stopLine.MatchString(line):
			s.Kind, s.Text = KindStop, strings.TrimSpace(line)
		case m.blockedWord.MatchString(line):
			s.Kind, s.Text = KindBlocked, strings.TrimSpace(line)
		case agent:
			s.Kind, s.Text = m.wordRules().match(line)
		}
		if s.Kind != "" {
			out = append(out, s)
		}
	}
	return out
}

// output returns the failure-line table and heuristics.
func (m *matchers) output() (*ruleSet, *heuristics) { return m.rules, m.heur }

func (m *matchers) normalizer() *normalizer { return m.norm }

func (m *matchers) wordRules() *wordRules { return m.words }

func (m *matchers) testNames() *testNames { return m.tests }
