package signals

import (
	"hash/crc32"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recite-dev/recite/planning"
)

// Scanned is what the stop-signal scan found in one message (ScanMessage):
// its signals, hashed, with what resolution needs of each, and what the
// message tells about the ones around it. It depends on the message alone,
// so a caller that keeps it (ScanCache) never scans a message twice;
// ExtractScanned puts a conversation's Scanned together. Its JSON form is
// the scan cache's (docs/signals.md#incremental-extraction).
type Scanned struct {
	// Key identifies the message: its Source, else its ID. Len is the
	// length of its content in bytes and Sum its CRC-32 (IEEE); a cached
	// entry whose Len or Sum differs is scanned again.
	Key string `json:"key"`
	Len int    `json:"len"`
	Sum uint32 `json:"sum"`
	// Signals are the message's stop signals, each with its Hash.
	Signals []ScannedSignal `json:"signals,omitempty"`
	// Run says what the message ran when it is a tool result; nil
	// otherwise.
	Run *Run `json:"run,omitempty"`
	// Kill reports a message that stops a process the agent started: a
	// KillShell, KillBash or TaskStop call's result, or a shell command
	// that runs kill, pkill or killall.
	Kill bool `json:"kill,omitempty"`
	// Said reports an assistant text; Fails one that calls what came
	// before it a failure ("the diff shows the output is wrong"): a
	// harmless probe since the agent's last text is then a real error
	// (probeFailure).
	Said  bool `json:"said,omitempty"`
	Fails bool `json:"fails,omitempty"`
}

// ScannedSignal is one signal of a Scanned message.
type ScannedSignal struct {
	Signal
	// Steps are the steps of the failed run that the error names
	// (runSteps, namedSteps): a later successful run of all of them
	// resolves it.
	Steps []string `json:"steps,omitempty"`
	// Tests are the tests failing in the error's text: a later run that
	// shows each of them passing resolves it.
	Tests []string `json:"tests,omitempty"`
	// Killed marks an error of a process ended by a signal (exit code
	// 130, 137, 143 or 144, a task "killed"): no error when the agent
	// stopped a process before it (Scanned.Kill).
	Killed bool `json:"killed,omitempty"`
}

// Run is what resolution knows of a tool result.
type Run struct {
	// Source and At say where and when it ran; Command is the call's
	// command as Message.Command gave it.
	Source  string    `json:"source,omitempty"`
	At      time.Time `json:"at,omitzero"`
	Command string    `json:"command,omitempty"`
	// Steps are the steps it ran (runSteps; the command itself for a tool
	// that is not a shell).
	Steps []string `json:"steps,omitempty"`
	// OK reports a result not flagged as an error whose output holds no
	// error but harmless probes.
	OK bool `json:"ok,omitempty"`
	// Passed are the tests its output shows passing.
	Passed []string `json:"passed,omitempty"`
}

// ScanMessage scans one message for stop signals (the rules of the
// package documentation and docs/signals.md). It is a pure function of
// msg.
func ScanMessage(msg Message) Scanned { return newMatchers().scanMessage(msg) }

// scanMessage is ScanMessage.
func (m *matchers) scanMessage(msg Message) Scanned {
	sc := Scanned{Key: msg.Source, Len: len(msg.Content), Sum: crc32.ChecksumIEEE([]byte(msg.Content))}
	if sc.Key == "" {
		sc.Key = msg.ID
	}
	sigs := m.fromMessage(msg)
	tool := msg.Role == "tool" || msg.ToolName != ""
	shell := tool && msg.Command != "" && (msg.ToolName == "Bash" || msg.ToolName == "" || msg.ToolName == "tool")
	var steps []string
	if shell {
		steps = runSteps(msg.Command)
	} else if c := oneLine(msg.Command); c != "" {
		steps = []string{c}
	}
	exit := exitCodeOf(msg.Content)
	task := m.killedTask(msg)
	for _, s := range sigs {
		if s.Kind == KindError && (killExit(exit) && tool || task) && m.ownKill(msg, s, steps) {
			// A process that only a signal ends (`journalctl -f`), or
			// `pkill` ending its own shell: the agent stopped it.
			continue
		}
		s.Text = cleanText(s.Text)
		if s.Hash == "" {
			s.Hash = m.normalizer().signalHash(s)
		}
		ss := ScannedSignal{Signal: s}
		if s.Kind == KindError {
			_, ss.Tests = m.testNames().find(s.Text)
			cmdSteps := steps
			if !tool && s.Command != "" {
				cmdSteps = runSteps(s.Command) // a task notification's
			}
			ss.Steps = namedSteps(cmdSteps, s.KeyLine)
			if slices.ContainsFunc(ss.Steps, contentStep) {
				ss.Steps = nil // an error in a log: no re-run resolves it
			}
			ss.Killed = killExit(exit) && tool || task
		}
		sc.Signals = append(sc.Signals, ss)
	}
	if tool {
		r := &Run{Source: sc.Key, At: msg.Timestamp, Command: msg.Command, Steps: steps, OK: !msg.IsError}
		for _, s := range sigs {
			if s.Kind == KindError && !s.Probe {
				r.OK = false
			}
		}
		r.Passed, _ = m.testNames().find(msg.Content)
		sc.Run = r
		sc.Kill = killsProcess(msg.ToolName, steps)
	} else if msg.Role == "assistant" {
		sc.Said, sc.Fails = true, m.probeFailure(msg.Content)
	}
	return sc
}

// killExit reports an exit code that says a signal ended the process:
// 130 (SIGINT), 137 (SIGKILL), 143 (SIGTERM), 144 (what Claude Code's
// shell reports for a process killed under it).
func killExit(code int) bool {
	return code == 130 || code == 137 || code == 143 || code == 144
}

// killedTask reports a user message holding the notification of a
// background task that was killed or died of a signal.
func (m *matchers) killedTask(msg Message) bool {
	if msg.Role != "user" || !strings.Contains(msg.Content, "<task-notification>") {
		return false
	}
	low := strings.ToLower(msg.Content)
	if strings.Contains(low, "<status>killed</status>") {
		return true
	}
	if i := strings.LastIndex(low, "exit code "); i >= 0 {
		d := low[i+len("exit code "):]
		j := 0
		for j < len(d) && digit(d[j]) {
			j++
		}
		n, _ := strconv.Atoi(d[:j])
		return killExit(n)
	}
	return false
}

// ownKill reports an error of a process the agent ended itself whatever
// came before: a follow command (followCommand) or a kill of its own
// shell (`pkill -f …` exiting 144), for a tool result; for a killed
// background task's notification, the task's command when it is a
// follow command.
func (m *matchers) ownKill(msg Message, s Signal, steps []string) bool {
	if msg.Role == "user" {
		return followCommand(notificationCommand(msg.Content))
	}
	return followCommand(msg.Command) || killsProcess(msg.ToolName, steps)
}

// notificationCommand is the command a background task's notification
// quotes in its summary (`Background command "ssh web1 "journalctl -f""
// failed with exit code 144`), or "".
func notificationCommand(text string) string {
	_, s, ok := strings.Cut(text, "<summary>")
	if !ok {
		return ""
	}
	s, _, _ = strings.Cut(s, "</summary>")
	i := strings.IndexByte(s, '"')
	j := strings.LastIndexByte(s, '"')
	if i < 0 || j <= i {
		return ""
	}
	return s[i+1 : j]
}

// killsProcess reports a tool call that stops a process: KillShell,
// KillBash, TaskStop, or shell steps running kill, pkill or killall.
func killsProcess(tool string, steps []string) bool {
	switch tool {
	case "KillShell", "KillBash", "TaskStop":
		return true
	}
	for _, st := range steps {
		st = strings.TrimLeft(st, "@")
		if f := strings.Fields(st); len(f) > 0 {
			if strings.HasPrefix(st, "@") || strings.Contains(f[0], "@") && len(f) > 1 {
				f = f[1:]
			}
			switch f[0] {
			case "kill", "pkill", "killall":
				return true
			}
		}
	}
	return false
}

// followCommand reports a command that runs until it is stopped
// (`journalctl -f`, `tail -f`, `kubectl logs -f`, `docker logs -f`,
// `watch`, `top`): a signal's exit code is how it ends.
func followCommand(cmd string) bool {
	for _, s := range shellSegments(cmd) {
		_, w, inner := unwrapStep(dropRedirections(s.words))
		if inner != "" && followCommand(inner) {
			return true
		}
		if len(w) == 0 {
			continue
		}
		switch w[0] {
		case "watch", "top", "htop":
			return true
		case "tail", "journalctl", "kubectl", "docker", "stern", "less":
			for _, a := range w[1:] {
				if a == "-f" || a == "-F" || a == "--follow" || strings.HasPrefix(a, "--follow=") || a == "-fu" || a == "-xef" || a == "-ef" ||
					w[0] == "journalctl" && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'f') {
					return true
				}
			}
		}
	}
	return false
}

// probeFailure reports an assistant text calling what just happened a
// failure: "failed", "is failing", "wrong", "broken", "mismatch",
// "unexpected", "should have …", "still missing" — not negated.
func (m *matchers) probeFailure(text string) bool {
	if !strings.ContainsAny(text, "fFwWbBmMuUsS") {
		return false
	}
	for _, loc := range m.failWords.FindAllStringIndex(text, -1) {
		if !m.failNegated.MatchString(text[:loc[0]]) {
			return true
		}
	}
	return false
}

// failNegatedPattern matches the end of the text before a failure word
// that negates it ("nothing failed", "is not wrong", "didn't fail").
const failNegatedPattern = `(?i)(?:\b(?:not|no|nothing|never|none|without)|n't)\s+(?:\w+\s+)?$`

// failWordsPattern is probeFailure's pattern.
const failWordsPattern = `(?i)\b(?:fail(?:s|ed|ing|ure)|broken|wrong|mismatch(?:es|ed)?|unexpected(?:ly)?|should(?:n't| not)? (?:have|be|exist|match|contain)|still (?:missing|not there|differ(?:s|ent)?))\b`

// ExtractScanned puts the Scanned messages of a conversation (in order)
// together with the project's and the iterations' signals, exactly as
// Extract does with the messages themselves: deduplicated by (Kind, Hash),
// ordered by kind then first appearance, errors the messages resolved
// later carrying ResolvedBy. A probe the agent calls a failure right after
// it (Scanned.Fails) is a real error; an error of a process killed by a
// signal (ScannedSignal.Killed) after the agent stopped one (Scanned.Kill)
// is none.
func ExtractScanned(p *planning.Project, scans []Scanned, iters []IterationRecord) []Signal {
	c := newCollector(nil)
	rv := newResolver()
	killed := false
	var probes []int // collector indexes of probes since the last assistant text
	for _, sc := range scans {
		if sc.Run != nil {
			rv.run(*sc.Run)
		}
		if sc.Said {
			if sc.Fails {
				for _, i := range probes {
					c.out[i].Probe = false
				}
			}
			probes = probes[:0]
		}
		for _, s := range sc.Signals {
			if s.Killed && killed {
				continue
			}
			i := c.add(s.Signal)
			if i >= 0 && s.Kind == KindError {
				rv.occur(s)
				if s.Probe && c.out[i].Probe {
					probes = append(probes, i)
				}
			}
		}
		killed = killed || sc.Kill
	}
	for _, s := range FromIterations(iters) {
		c.add(s)
	}
	for _, s := range FromProject(p) {
		c.add(s)
	}
	out := c.result()
	return MarkResolved(out, rv.resolve(out))
}

// Extract gathers every stop signal of a project, its conversation messages
// and its iteration records, deduplicated by (Kind, Hash) and ordered by
// kind then first appearance (see the package documentation for the rules
// of each source). Errors the conversation resolved later (Resolve) carry
// ResolvedBy. p, msgs and iters may each be nil. It is ExtractScanned of
// each message's ScanMessage.
func Extract(p *planning.Project, msgs []Message, iters []IterationRecord) []Signal {
	m := newMatchers()
	scans := make([]Scanned, len(msgs))
	for i, msg := range msgs {
		scans[i] = m.scanMessage(msg)
	}
	return ExtractScanned(p, scans, iters)
}

// FromMessages extracts the stop signals of conversation messages (not
// deduplicated, nothing resolved), following the rules in the package
// documentation.
func FromMessages(msgs []Message) []Signal {
	m := newMatchers()
	var out []Signal
	for _, msg := range msgs {
		out = append(out, m.fromMessage(msg)...)
	}
	return out
}
