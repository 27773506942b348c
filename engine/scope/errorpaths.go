package scope

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/recite-dev/recite/engine/internal/ignore"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// ErrorPath is a project file named by a recorded error.
type ErrorPath struct {
	Path   string // slash path relative to the project root
	Line   int    // the line the error names, 0 when none
	Source string // where the error was recorded, e.g. ".planning/conversations/main.jsonl#01J…"
}

// ErrorPaths returns the existing project files named by recorded errors
// (docs/formats.md#files-that-always-enter: "Files referenced in error messages"): error signals
// (signals.FromMessages) of the last errorTailMessages messages of each
// conversation in convs, the errors of the latest preservation block in
// .planning/context-preserved.md, the error signals of the active loop
// file, and the errors recorded by open debug files. Each path appears
// once, at its first source.
func (sp *Scope) ErrorPaths(ctx context.Context, proj *planning.Project, convs []string) []ErrorPath {
	var texts []signals.Signal
	if len(convs) > 0 {
		if store, err := conversation.Open(filepath.Join(sp.dir, filepath.FromSlash(layout.ConversationsDir))); err == nil {
			store.Records = sp.records
			for _, id := range convs {
				if ctx.Err() != nil {
					break
				}
				recs, err := store.Tail(id, errorTailMessages)
				if err != nil {
					continue
				}
				msgs := make([]signals.Message, 0, len(recs))
				cmds := conversation.CallCommands(recs)
				for _, r := range recs {
					if r.Kind != conversation.KindMessage {
						continue
					}
					msgs = append(msgs, signals.Message{ID: r.ID, Role: r.Role, Content: capErrorText(r.Content), ToolName: r.ToolName, IsError: r.IsError,
						Source: layout.ConversationLog(id) + "#" + r.ID, Command: cmds[r.ToolCallID]})
				}
				for _, s := range signals.FromMessages(msgs) {
					if s.Kind == signals.KindError {
						texts = append(texts, s)
					}
				}
			}
		}
	}
	if src, err := ReadFile(sp.dir, layout.PreservedFile, MaxPreservedFile); err == nil {
		blocks, _ := signals.ParseBlocks(layout.PreservedFile, src)
		if b, ok := signals.Latest(blocks); ok {
			at := fmt.Sprintf("%s:%d", layout.PreservedFile, b.Line)
			for _, s := range b.Signals {
				if s.Kind != signals.KindError {
					continue
				}
				if s.Source == "" || strings.HasPrefix(s.Source, layout.PreservedFile) {
					s.Source = at
				} else {
					s.Source = at + " (recorded at " + s.Source + ")"
				}
				texts = append(texts, s)
			}
		}
	}
	if l := ActiveLoop(proj); l != nil {
		for _, s := range signals.FromLoop(l) {
			if s.Kind == signals.KindError {
				if !strings.HasPrefix(s.Source, layout.PlanningDir+"/") {
					s.Source = layout.PlanningDir + "/" + s.Source
				}
				texts = append(texts, s)
			}
		}
	}
	if proj != nil {
		for _, d := range proj.Debug {
			for _, s := range signals.FromDebug(d) {
				if s.Kind == signals.KindError {
					if !strings.HasPrefix(s.Source, layout.PlanningDir+"/") {
						s.Source = layout.PlanningDir + "/" + s.Source
					}
					texts = append(texts, s)
				}
			}
		}
	}
	var planDirs []string
	if proj != nil && proj.CurrentPlan != nil {
		for _, f := range proj.CurrentPlan.FilesModified {
			planDirs = append(planDirs, path.Dir(filepath.ToSlash(f)))
		}
		for _, t := range proj.CurrentPlan.Tasks {
			for _, f := range t.Files {
				planDirs = append(planDirs, path.Dir(filepath.ToSlash(f)))
			}
		}
	}
	var out []ErrorPath
	seen := map[string]bool{}
	for _, s := range texts {
		for _, c := range ExtractPaths(s.Text) {
			rel, ok := sp.projectFile(c.Path)
			if !ok && !strings.Contains(c.Path, "/") {
				rel, ok = sp.bareFile(c.Path, s.Text, planDirs)
			}
			if !ok || seen[rel] {
				continue
			}
			seen[rel] = true
			out = append(out, ErrorPath{Path: rel, Line: c.Line, Source: s.Source})
		}
	}
	return out
}

// bareFile resolves a file name printed without its directory (Go's test
// output says "handler_test.go:29", relative to the package) to a project
// file: it tries the directories named in the same error text (paths, and
// the trailing parts of package paths such as
// "example.com/shortlink/internal/api"), then the directories of the
// current plan's files, and keeps the name only when exactly one candidate
// exists, so a common name such as main.go is never guessed.
func (sp *Scope) bareFile(name, text string, planDirs []string) (string, bool) {
	var dirs []string
	for i, f := range strings.Fields(text) {
		if i > 400 {
			break
		}
		f = strings.Trim(f, "\"'`()[]{}<>,;:")
		if !strings.Contains(f, "/") || strings.Contains(f, "://") {
			continue
		}
		if strings.HasSuffix(f, "/"+name) || f == name {
			continue
		}
		parts := strings.Split(strings.Trim(f, "/"), "/")
		if ext := path.Ext(parts[len(parts)-1]); ext != "" {
			parts = parts[:len(parts)-1] // a file: its directory
		}
		for j := range parts {
			dirs = append(dirs, strings.Join(parts[j:], "/"))
		}
	}
	dirs = append(dirs, planDirs...)
	found := ""
	for _, d := range dirs {
		if d == "" || d == "." {
			continue
		}
		if rel, ok := sp.projectFile(d + "/" + name); ok {
			if found != "" && found != rel {
				return "", false
			}
			found = rel
		}
	}
	return found, found != ""
}

// maxErrorText bounds the text of one message searched for error paths, in
// bytes: the head and the tail are kept (a stack trace names files at both
// ends), so a 10 MB tool output costs no more than 64 KiB.
const maxErrorText = 64 << 10

// capErrorText keeps the first and last maxErrorText/2 bytes of s.
func capErrorText(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	return strings.ToValidUTF8(s[:maxErrorText/2]+"\n"+s[len(s)-maxErrorText/2:], "")
}

// projectFile turns a path named in an error (relative to the project root,
// or absolute under it) into a slash path relative to the root when it is a
// regular file inside the project, following symbolic links only when they
// stay inside.
func (sp *Scope) projectFile(p string) (string, bool) {
	var rel string
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		r, ok := sp.relPath(p)
		if !ok {
			return "", false
		}
		rel = r
	} else {
		c, err := ignore.Clean(p)
		if err != nil || c == "." {
			return "", false
		}
		rel = c
	}
	if rel == ".git" || strings.HasPrefix(rel, ".git/") || strings.Contains(rel, "/.git/") {
		return "", false
	}
	abs := filepath.Join(sp.dir, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", false
	}
	if r, ok := sp.relPath(real); !ok || r == "." {
		return "", false
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return rel, true
}

// PathRef is a file path named in a text, with the line it names (0 when
// none).
type PathRef struct {
	Path string
	Line int
}

// ExtractPaths finds the file paths an error text names, in order of first
// appearance, each once: "internal/api/handler.go:42:", "at src/x.ts:10:5",
// "(/abs/proj/src/x.ts:10:5)", "src/x.ts(10,5)", `File "app/main.py", line
// 12`, "--> src/main.rs:3:1" or a bare "pkg/util/strings.go". A candidate
// contains a "/" or ends in an extension of 1–10 letters or digits; URLs,
// options ("-x") and names with characters paths rarely hold are left out.
// Paths come back cleaned but not checked: the caller keeps those that exist
// inside the project. At most maxErrorPaths are returned.
func ExtractPaths(text string) []PathRef {
	var out []PathRef
	seen := map[string]bool{}
	isDelim := func(r rune) bool {
		switch r {
		case ' ', '\t', '\n', '\r', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|', '=', '*':
			return true
		}
		return false
	}
	fields := strings.FieldsFunc(text, isDelim)
	for i, tok := range fields {
		if len(out) >= maxErrorPaths {
			break
		}
		p, line := splitLineSuffix(tok)
		if line == 0 && i+2 < len(fields) && fields[i+1] == "line" {
			// Python: File "x.py", line 12
			if n, err := strconv.Atoi(strings.TrimRight(fields[i+2], ":")); err == nil && n > 0 {
				line = n
			}
		}
		p = strings.TrimRight(p, ".:")
		if !pathLike(p) {
			continue
		}
		clean := path.Clean(p)
		if strings.HasPrefix(p, "/") {
			clean = "/" + strings.TrimPrefix(clean, "/")
		}
		if clean == "." || clean == "/" || clean == ".." || strings.HasPrefix(clean, "../") || seen[clean] {
			continue
		}
		seen[clean] = true
		out = append(out, PathRef{Path: clean, Line: line})
	}
	return out
}

// splitLineSuffix cuts ":42", ":42:5" and a trailing ":" from tok and
// returns the line.
func splitLineSuffix(tok string) (string, int) {
	tok = strings.TrimRight(tok, ":")
	i := strings.IndexByte(tok, ':')
	if i <= 0 {
		return tok, 0
	}
	rest := tok[i+1:]
	num := rest
	if j := strings.IndexByte(rest, ':'); j >= 0 {
		num = rest[:j]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		return tok, 0
	}
	return tok[:i], n
}

// pathLike reports whether s looks like a file path worth a stat.
func pathLike(s string) bool {
	if len(s) < 3 || len(s) > 1024 || strings.HasPrefix(s, "-") || strings.Contains(s, "://") || strings.Contains(s, "//") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '/', c == '.', c == '_', c == '-', c == '@', c == '+', c == '~', c == '$', c >= 0x80:
		default:
			return false
		}
	}
	base := s[strings.LastIndexByte(s, '/')+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot > 0 && dot < len(base)-1 && len(base)-dot-1 <= 10 {
		ext := base[dot+1:]
		letter := false
		for i := 0; i < len(ext); i++ {
			c := ext[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
			if c > '9' {
				letter = true
			}
		}
		if letter {
			return true
		}
	}
	return strings.Contains(strings.Trim(s, "/"), "/") && base != ""
}
