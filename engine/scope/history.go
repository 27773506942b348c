package scope

import (
	"slices"
	"strings"

	"github.com/recite-dev/recite/engine/internal/ignore"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/planning/conversation"
)

// HistoryFile reports whether the project-relative slash path p is one of
// recite's own history files, the only files Commit commits:
// context-preserved.md, and a log .planning/conversations/ID.jsonl or
// .planning/conversations/archive/ID.jsonl with a valid conversation id.
// Other files under the conversations folder (a .gitignore, notes, a raw
// export) are the user's, for the user's own git.
func HistoryFile(p string) bool {
	if p == layout.PreservedFile {
		return true
	}
	rest, ok := strings.CutPrefix(p, layout.ConversationsDir+"/")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, conversation.ArchiveDir+"/")
	id, ok := strings.CutSuffix(rest, ".jsonl")
	return ok && !strings.Contains(id, "/") && conversation.ValidateID(id) == nil
}

// HistorySelector is the engine's Commit's gitstore.Committer.Select: recite's history
// files (HistoryFile) that, when git does not track them yet, no ignore
// file of the project excludes — .gitignore files, .git/info/exclude and
// .powerignore, as engine/internal/ignore matches them (git's own rules;
// gitstore applies git's excludes again, the global file included).
// Tracked files are committed whatever the ignore files say, as git
// commits them.
type HistorySelector struct {
	m       *ignore.Matcher
	ignored []string // untracked history files an ignore file excludes
}

// NewHistorySelector loads the project's ignore files. Errors: an ignore
// file that cannot be read.
func NewHistorySelector(dir string) (*HistorySelector, error) {
	m, err := ignore.Load(dir)
	if err != nil {
		return nil, err
	}
	return &HistorySelector{m: m}, nil
}

// Select is the Select of gitstore.Committer (path relative to the
// project).
func (h *HistorySelector) Select(path string, tracked bool) bool {
	if !HistoryFile(path) {
		return false
	}
	if !tracked && h.m.Match(path, false).Ignored {
		h.ignored = append(h.ignored, path)
		return false
	}
	return true
}

// IgnoredWith is the sorted union of the history files the selector left
// out and those git's excludes left out (gitstore.Result.Ignored, where
// only history files and the folders that hold them count: an ignored
// .env beside the logs is not recite's).
func (h *HistorySelector) IgnoredWith(git []string) []string {
	out := slices.Clone(h.ignored)
	for _, p := range git {
		if HistoryFile(p) || p == layout.ConversationsDir+"/" || p == layout.ConversationsDir+"/"+conversation.ArchiveDir+"/" {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
