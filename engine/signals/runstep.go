package signals

import (
	"slices"
	"strings"
)

// runSteps names what a command line ran, for resolution
// (docs/signals.md#resolution): one step per simple command, each its
// program and its target arguments once the wrappers around it are
// taken off. So:
//
//   - leading `cd DIR`, output redirections (`2>&1`, `> out.log`), pipes
//     into output filters (`| tail -30`, `| grep x`) and trailing `|| true`
//     or `; echo …` are set aside: they do not change what ran;
//   - wrappers are unwrapped (unwrapStep): environment assignments
//     (`CI=1`, `env -i FOO=1`), `sudo [-u user]`, `timeout [-s SIG]
//     DURATION`, `time`, `nice`, `nohup`, `stdbuf`, `bash -c '…'` (and sh,
//     zsh), `ssh [options] HOST '…'` (the host stays part of the step),
//     `docker exec [options] CONTAINER …` and `kubectl exec … -- …` (the
//     container or pod stays too);
//   - a step is its program followed by its arguments that are not flags
//     (words not starting with "-"), in order: `go test -count=1 ./api` and
//     `go test ./api` ran the same thing, `psql -c "SELECT 1"` and `psql
//     -c "SELECT * FROM t"` did not, nor did `timeout 10 ssh h cmd` and
//     `timeout 10 nmap h`.
//
// A command of another tool ("Write /src/a.go", "Read /src/a.go") is one
// step, itself. An empty command has none.
func runSteps(cmd string) []string {
	cmd = strings.TrimSpace(cmd)
	if cmd == "" {
		return nil
	}
	return stepsOf(cmd, 0)
}

// maxUnwrap bounds the nesting of `bash -c` and `ssh` command strings.
const maxUnwrap = 4

func stepsOf(cmd string, depth int) []string {
	segs := shellSegments(cmd)
	var out []string
	for i, s := range segs {
		if i > 0 && segs[i-1].op == "|" && isOutputFilter(firstWord(s.words)) {
			continue
		}
		if i > 0 && (segs[i-1].op == "||" || segs[i-1].op == ";") && quietTail(s.words) {
			continue
		}
		w := dropRedirections(s.words)
		if len(w) == 0 || w[0] == "cd" || w[0] == "pushd" || w[0] == "popd" || w[0] == "export" || w[0] == "set" || w[0] == "source" || w[0] == "." {
			continue
		}
		prefix, w, inner := unwrapStep(w)
		if inner != "" && depth < maxUnwrap {
			for _, st := range stepsOf(inner, depth+1) {
				out = append(out, prefix+st)
			}
			continue
		}
		if len(w) == 0 {
			if prefix != "" {
				out = append(out, strings.TrimSpace(prefix))
			}
			continue
		}
		out = append(out, prefix+stepName(w))
	}
	return out
}

func firstWord(w []string) string {
	if len(w) == 0 {
		return ""
	}
	return w[0]
}

// quietTail reports a command that only reports on the one before it
// (`|| true`, `; echo "exit: $?"`, `|| :`).
func quietTail(w []string) bool {
	switch firstWord(w) {
	case "true", "echo", ":", "printf":
		return true
	}
	return false
}

// dropRedirections removes redirection words, and the file after a bare
// `>`, `>>`, `2>` or `<`.
func dropRedirections(words []string) []string {
	var w []string
	for i := 0; i < len(words); i++ {
		word := words[i]
		if isRedirection(word) {
			continue
		}
		if t := strings.TrimLeft(word, "0123456789&"); t == ">" || t == ">>" || t == "<" {
			i++ // the file
			continue
		}
		if strings.HasPrefix(strings.TrimLeft(word, "0123456789&"), ">") || strings.HasPrefix(word, "<") && !strings.HasPrefix(word, "<(") {
			continue // >file, 2>err.log, <input, <<EOF
		}
		w = append(w, word)
	}
	return w
}

// stepName is a simple command's words (no wrapper left) as a step: the
// program, then its arguments that are not flags, in order.
func stepName(w []string) string {
	var sb strings.Builder
	sb.WriteString(w[0])
	for _, a := range w[1:] {
		if a == "" || strings.HasPrefix(a, "-") {
			continue
		}
		sb.WriteString(" " + strings.Join(strings.Fields(a), " "))
	}
	return sb.String()
}

// unwrapStep takes the wrappers off a simple command (runSteps). It
// returns what stays part of the step's name (the ssh host, the docker
// container: "@web1 "), the words left, and a command string to read
// again (the argument of `bash -c`, the remote command of ssh) when there
// is one.
func unwrapStep(w []string) (prefix string, rest []string, inner string) {
	for len(w) > 0 {
		switch verb := w[0]; {
		case isAssignment(verb):
			w = w[1:]
		case verb == "env":
			w = skipOptions(w[1:], "uSC")
		case verb == "sudo":
			w = skipOptions(w[1:], "ugCDhpRrtTU")
		case verb == "timeout":
			w = skipOptions(w[1:], "sk")
			if len(w) > 0 {
				w = w[1:] // the duration
			}
		case verb == "time" || verb == "nohup" || verb == "exec" || verb == "command" && len(w) > 1 && w[1] != "-v" && w[1] != "-V":
			w = skipOptions(w[1:], "")
		case verb == "nice" || verb == "ionice" || verb == "stdbuf":
			w = skipOptions(w[1:], "ncnpoei")
		case (verb == "bash" || verb == "sh" || verb == "zsh" || verb == "dash") && len(w) > 2 && (w[1] == "-c" || w[1] == "-lc" || w[1] == "-ec" || w[1] == "-xc"):
			return prefix, nil, strings.Join(w[2:], " ")
		case verb == "ssh":
			host, remote := sshTarget(w[1:])
			if host == "" {
				return prefix, w, ""
			}
			prefix += "@" + host + " "
			if len(remote) == 0 {
				return prefix, nil, ""
			}
			return prefix, nil, strings.Join(remote, " ")
		case verb == "docker" && len(w) > 2 && w[1] == "exec":
			r := skipOptions(w[2:], "euwd")
			if len(r) < 2 {
				return prefix, w, ""
			}
			prefix += "@" + r[0] + " "
			w = r[1:]
		case verb == "kubectl" && len(w) > 2 && w[1] == "exec":
			i := slices.Index(w, "--")
			if i < 0 || i+1 >= len(w) {
				return prefix, w, ""
			}
			target := ""
			for _, a := range skipOptions(w[2:i], "ncf") {
				target = a
				break
			}
			prefix += "@" + target + " "
			w = w[i+1:]
		default:
			return prefix, w, ""
		}
	}
	return prefix, w, ""
}

// isAssignment reports an environment assignment word (NAME=value).
func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := w[j]
		if !(c == '_' || letter(c) || j > 0 && digit(c)) {
			return false
		}
	}
	return true
}

// skipOptions drops the leading options of a wrapper's arguments: words
// starting with "-" (and "--" itself); a short option named in withValue
// ("u" for `sudo -u user`) takes the next word as its value unless it is
// attached (`-upostgres`), a long option with "=" carries its own.
func skipOptions(w []string, withValue string) []string {
	for len(w) > 0 && strings.HasPrefix(w[0], "-") {
		o := w[0]
		w = w[1:]
		if o == "--" {
			break
		}
		if len(o) == 2 && o[1] != '-' && strings.IndexByte(withValue, o[1]) >= 0 && len(w) > 0 {
			w = w[1:]
		}
		if o == "--user" || o == "--group" || o == "--signal" || o == "--kill-after" || o == "--namespace" || o == "--container" || o == "--workdir" || o == "--env" {
			if len(w) > 0 {
				w = w[1:]
			}
		}
	}
	return w
}

// sshTarget reads ssh's arguments: the host (the first word that is not
// an option or an option's value) and the remote command after it.
func sshTarget(args []string) (string, []string) {
	const withValue = "bcDEeFIiJLlmOopQRSWw"
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if len(a) == 2 && strings.IndexByte(withValue, a[1]) >= 0 {
				i++
			}
			continue
		}
		return a, args[i+1:]
	}
	return "", nil
}

// namedSteps are the steps of a failed run that its error names: those
// whose program or first argument (its subcommand: "rebase" of `git
// rebase origin/main`) the key line holds as a word, longer than two
// characters; all steps when it names none (a bare exit code, an error
// that names neither), for then any of them may have failed.
func namedSteps(steps []string, key string) []string {
	low := strings.ToLower(key)
	var out []string
	for _, st := range steps {
		f := strings.Fields(strings.TrimLeft(st, "@"))
		if strings.HasPrefix(st, "@") && len(f) > 0 {
			f = f[1:] // the host
		}
		for k, w := range f {
			if k > 1 {
				break
			}
			w = strings.ToLower(w[strings.LastIndexByte(w, '/')+1:])
			if len(w) > 2 && containsWord(low, w) {
				out = append(out, st)
				break
			}
		}
	}
	if len(out) == 0 {
		return steps
	}
	return out
}

// coversSteps reports whether a run of steps ran every one of want.
func coversSteps(ran, want []string) bool {
	if len(want) == 0 {
		return false
	}
	for _, w := range want {
		if !slices.Contains(ran, w) {
			return false
		}
	}
	return true
}

// contentStep reports a step that shows stored content rather than doing
// something: a log or a file (`journalctl`, `tail app.log`, `cat`, `grep
// ERROR app.log`), a CI run's log (`gh run view`), a container's or a
// pod's logs, git history. An error it shows is in that content: running
// it again and seeing no error (another view of it, or of something else)
// resolves nothing, so such errors are resolved only by their tests
// passing (docs/signals.md#resolution).
func contentStep(step string) bool {
	f := strings.Fields(step)
	if len(f) > 0 && strings.HasPrefix(f[0], "@") {
		f = f[1:]
	}
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "cat", "head", "tail", "less", "more", "bat", "zcat", "journalctl", "dmesg", "grep", "egrep", "fgrep", "rg", "awk", "sed", "jq":
		return true
	}
	if len(f) < 2 {
		return false
	}
	switch f[0] + " " + f[1] {
	case "kubectl logs", "docker logs", "git log", "git show", "git diff", "git blame", "heroku logs", "fly logs", "vercel logs", "stern ":
		return true
	case "gh run":
		return len(f) > 2 && f[2] == "view"
	case "docker compose", "docker-compose":
		return slices.Contains(f[2:], "logs")
	}
	return false
}
