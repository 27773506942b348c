package engine

import (
	"crypto/sha1" // #nosec G505 -- GSD names its session folders by SHA-1; not a security use
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/planning"
)

// GSD picks the active workstream from, in order, its --ws flag,
// GSD_WORKSTREAM, a pointer kept per terminal session in the temporary
// folder, and .planning/active-workstream (get-shit-done's
// references/workstream-flag.md and bin/lib/planning-workspace.cjs at
// gsd-build/get-shit-done bdcaab2). recite has no --ws: a target's
// `workstream:` in recite.yaml comes first, then GSD_WORKSTREAM and the
// session pointer, read here, and then the tree's own rules in package
// planning (docs/formats.md#workstreams).

// WorkstreamEnv is the environment variable GSD reads for the active
// workstream.
const WorkstreamEnv = "GSD_WORKSTREAM"

// workstreamSessionEnv are the variables GSD derives a session key from, in
// its order (WORKSTREAM_SESSION_ENV_KEYS in planning-workspace.cjs).
var workstreamSessionEnv = [...]string{
	"GSD_SESSION_KEY", "CODEX_THREAD_ID", "CLAUDE_SESSION_ID", "CLAUDE_CODE_SSE_PORT",
	"OPENCODE_SESSION_ID", "GEMINI_SESSION_ID", "CURSOR_SESSION_ID", "WINDSURF_SESSION_ID",
	"TERM_SESSION_ID", "WT_SESSION", "TMUX_PANE", "ZELLIJ_SESSION_NAME",
}

var (
	// sessionTokenRe is what GSD replaces by '_' in a session token.
	sessionTokenRe = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)
	// envKeyRe is what GSD replaces by '-' in a lower-cased variable name.
	envKeyRe = regexp.MustCompile(`[^a-z0-9]+`)
)

// sessionToken is GSD's sanitizeWorkstreamSessionToken: runs of other
// characters made '_', '_' trimmed at both ends, at most 160 bytes.
func sessionToken(v string) string {
	t := strings.Trim(sessionTokenRe.ReplaceAllString(strings.TrimSpace(v), "_"), "_")
	if len(t) > 160 {
		t = t[:160]
	}
	return t
}

// workstreamSessionKey is GSD's getWorkstreamSessionKey without its tty
// probe (which GSD itself skips when stdin is not a terminal, as it is for
// recite's hooks and watch): the first session variable set, as
// "name-token", else TTY or SSH_TTY as "tty-token"; "" when none is set.
func workstreamSessionKey(getenv func(string) string) string {
	for _, k := range workstreamSessionEnv {
		if t := sessionToken(getenv(k)); t != "" {
			return envKeyRe.ReplaceAllString(strings.ToLower(k), "-") + "-" + t
		}
	}
	for _, k := range []string{"TTY", "SSH_TTY"} {
		if t := sessionToken(getenv(k)); t != "" {
			return "tty-" + strings.TrimPrefix(t, "dev_")
		}
	}
	return ""
}

// workstreamSessionFile is where GSD keeps the session's pointer for the
// planning tree at pdir: TMPDIR/gsd-workstream-sessions/ID/KEY, ID the
// first 16 hex digits of the SHA-1 of the tree's real path
// (getSessionScopedWorkstreamFile); "" without a session key.
func workstreamSessionFile(getenv func(string) string, pdir string) string {
	key := workstreamSessionKey(getenv)
	if key == "" {
		return ""
	}
	abs, err := filepath.EvalSymlinks(pdir)
	if err != nil {
		abs, _ = filepath.Abs(pdir)
	}
	sum := sha1.Sum([]byte(abs)) // #nosec G401 -- GSD's folder name, not a security use
	return filepath.Join(os.TempDir(), "gsd-workstream-sessions", hex.EncodeToString(sum[:])[:16], key)
}

// workstreamOptions are the load options of the planning tree at pdir for
// the target tg (nil: the project as a whole): the target's workstream:
// (a name without a folder keeps its last good render), else
// GSD_WORKSTREAM, else the session pointer (a name without a folder is a
// diagnostic, and the tree decides).
func (e *Engine) workstreamOptions(pdir string, tg *config.Target) planning.LoadOptions {
	if tg != nil && tg.Workstream != "" {
		return planning.LoadOptions{Workstream: tg.Workstream, WorkstreamSource: "recite.yaml target " + tg.Name, Strict: true}
	}
	if v := strings.TrimSpace(e.getenv(WorkstreamEnv)); v != "" {
		return planning.LoadOptions{Workstream: v, WorkstreamSource: WorkstreamEnv}
	}
	if f := workstreamSessionFile(e.getenv, pdir); f != "" {
		if b, err := os.ReadFile(f); err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if n := strings.TrimSpace(first); n != "" {
				return planning.LoadOptions{Workstream: n, WorkstreamSource: "the GSD session pointer " + f}
			}
		}
	}
	return planning.LoadOptions{}
}
