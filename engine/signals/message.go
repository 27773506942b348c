package signals

import (
	"regexp"
	"strings"
)

// matchers holds the compiled patterns of message extraction.
type matchers struct {
	blockedWord *regexp.Regexp
	stopLine    *regexp.Regexp
	errorLine   *regexp.Regexp
	rejection   *regexp.Regexp
	fence       *regexp.Regexp
	breakerWord *regexp.Regexp
}

func newMatchers() *matchers {
	return &matchers{
		blockedWord: regexp.MustCompile(`\b(BLOCKED|STUCK)\b`),
		stopLine:    regexp.MustCompile(`^\s*(?:[-*+]\s+|\d+[.)]\s+|>\s*)*(?:\*\*|__)?STOP(?:\*\*|__)?\s*(?::|—|--)`),
		errorLine:   regexp.MustCompile(`^(?:(?:error|Error|ERROR|fatal|Fatal|FATAL|panic|FAIL)(?:\[[^\]\n]*\])?:\s|Traceback \(most recent call last\):)`),
		rejection:   regexp.MustCompile(`^The user doesn't want to proceed with this tool use`),
		fence:       regexp.MustCompile("^ {0,3}(`{3,}|~{3,})"),
		breakerWord: regexp.MustCompile(`\b(TRIPPED|CIRCUIT BREAK)\b`),
	}
}

func (m *matchers) fromMessage(msg Message) []Signal {
	src := msg.Source
	if src == "" {
		src = msg.ID
	}
	base := Signal{Source: src, FirstSeen: msg.Timestamp, LastSeen: msg.Timestamp}
	isTool := msg.Role == "tool" || msg.ToolName != ""
	var out []Signal
	if isTool {
		if msg.IsError {
			s := base
			s.Kind = KindError
			if m.rejection.MatchString(strings.TrimSpace(msg.Content)) {
				s.Kind = KindStop
			}
			s.Text = msg.Content
			return []Signal{s}
		}
		for _, line := range strings.Split(strings.ReplaceAll(msg.Content, "\r\n", "\n"), "\n") {
			if m.errorLine.MatchString(line) {
				s := base
				s.Kind = KindError
				s.Text = line
				out = append(out, s)
			}
		}
		return out
	}
	if msg.Role != "user" && msg.Role != "assistant" {
		return nil
	}
	return m.fromText(msg.Content, base)
}

// fromText applies the BLOCKED/STUCK and STOP: line rules to prose,
// skipping fenced code.
func (m *matchers) fromText(text string, base Signal) []Signal {
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
		switch {
		case m.stopLine.MatchString(line):
			s := base
			s.Kind = KindStop
			s.Text = strings.TrimSpace(line)
			out = append(out, s)
		case m.blockedWord.MatchString(line):
			s := base
			s.Kind = KindBlocked
			s.Text = strings.TrimSpace(line)
			out = append(out, s)
		}
	}
	return out
}
