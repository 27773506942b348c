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
		}
		return append(out, m.fromText(msg.Content, base, false)...)
	case "assistant":
		return m.fromText(msg.Content, base, true)
	}
	return nil
}

// fromText applies the BLOCKED/STUCK and STOP: line rules to prose, and
// in the agent's own text (agent) its lower-case words for a block or a
// failed approach (wordRules), skipping fenced code.
func (m *matchers) fromText(text string, base Signal, agent bool) []Signal {
	var out []Signal
	var fence string
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if f := m.fence.FindStringSubmatch(line); f != nil {
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
