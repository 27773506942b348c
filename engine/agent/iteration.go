package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning/conversation"
)

// NextIteration is the number of the iteration a new run of c starts: one
// more than the last iteration record's number (or than the count of
// iteration records, for records without one, those before a window
// counted: Conversation.Earlier).
func NextIteration(c *conversation.Conversation) int {
	n := c.Earlier.Iterations + len(c.Iterations)
	if k := len(c.Iterations); k > 0 && c.Iterations[k-1].Iteration > n {
		n = c.Iterations[k-1].Iteration
	}
	return n + 1
}

// runSnapshot is what `git status` shows of the project at one moment:
// each modified, staged or untracked path (project-relative, recite's own
// outputs left out; see ModifiedFiles) with the size, mode and mtime of the
// file, or nil when it is deleted.
type runSnapshot map[string]*runFileSig

type runFileSig struct {
	size  int64
	mode  os.FileMode
	mtime time.Time
}

// snapshotRun records the project's modified files when it is inside a git
// repository; ok is false otherwise, or when git status fails.
func snapshotRun(ctx context.Context, dir string) (runSnapshot, bool) {
	files, err := ModifiedFiles(ctx, dir)
	if err != nil {
		return nil, false
	}
	st := runSnapshot{}
	for _, f := range files {
		if strings.HasPrefix(f, "… and ") {
			continue // past ModifiedFiles' cut
		}
		if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f))); err == nil {
			st[f] = &runFileSig{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime()}
		} else {
			st[f] = nil
		}
	}
	return st, true
}

// runChangedFiles lists the paths whose state differs between two snapshots:
// modified after but not before, modified before but not after (reverted
// or committed), or modified in both with a different size, mode or mtime.
// Sorted.
func runChangedFiles(before, after runSnapshot) []string {
	var out []string
	same := func(a, b *runFileSig) bool {
		if a == nil || b == nil {
			return a == b
		}
		return a.size == b.size && a.mode == b.mode && a.mtime.Equal(b.mtime)
	}
	for p, a := range after {
		if b, ok := before[p]; !ok || !same(a, b) {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// committedFiles lists the project files that differ between the trees of
// the commits HEAD named before a run and names now: the files the commits
// made during the run changed (or, when HEAD moved to an unrelated branch,
// every file the two trees hold differently; an unborn HEAD is an empty
// tree). Paths are project-relative and slash-separated, files outside the
// project and recite's own outputs (layout.OwnOutput) are left out, sorted, at
// most MaxFilesModified of them. It is nil, without opening anything but
// HEAD, when HEAD did not move, and nil on any git failure (the record then
// holds what git status saw).
func committedFiles(ctx context.Context, dir string, before gitstore.Head) []string {
	prefix, paths, ok := gitstore.ChangedSince(ctx, dir, before)
	if !ok {
		return nil
	}
	out := projectFiles(prefix, paths)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxFilesModified {
		out = out[:MaxFilesModified:MaxFilesModified]
	}
	return out
}

// Tracker tells the files an agent run modified: it records the project's
// git status and HEAD before the run, and compares them after it.
type Tracker struct {
	dir    string
	before runSnapshot
	head   gitstore.Head
	inGit  bool
}

// Track records the state of the project at dir before a run: its
// modified files (ModifiedFiles, with each file's size, mode and mtime)
// and the commit HEAD names, when it is inside a git repository.
func Track(ctx context.Context, dir string) *Tracker {
	t := &Tracker{dir: dir}
	t.before, t.inGit = snapshotRun(ctx, dir)
	if t.inGit {
		t.head = gitstore.HeadOf(dir)
	}
	return t
}

// Modified lists the project files the run changed: those whose git status
// entry differs from the one recorded by Track (modified, reverted or
// committed, or modified again), plus the files of the commits the run
// made (HEAD before the run against HEAD now), sorted. It is nil outside a
// git repository.
func (t *Tracker) Modified(ctx context.Context) []string {
	if !t.inGit {
		return nil
	}
	var files []string
	if after, ok := snapshotRun(ctx, t.dir); ok {
		files = runChangedFiles(t.before, after)
	}
	// Files the agent committed are gone from git status: take them from
	// the commits the run made (only when HEAD moved).
	return mergeFiles(files, committedFiles(ctx, t.dir, t.head))
}

// mergeFiles is the sorted union of two sorted file lists, nil when both
// are empty.
func mergeFiles(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	out := append(slices.Clip(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// IterationRecord is the record `recite conversation run` appends after the
// agent ran: iteration n, the files it modified (git status before and
// after, plus the files of the commits it made; nil when unknown: not a
// git repository), how many lines it printed, its exit code, and for a
// failed run the error (its text, cut to maxIterationError bytes, and the
// hash of the whole normalized text).
func IterationRecord(n int, agent string, reply string, code int, runErr error, files []string) conversation.Record {
	lines := 0
	if t := strings.TrimRight(reply, "\n"); t != "" {
		lines = strings.Count(t, "\n") + 1
	}
	rec := conversation.Record{Kind: conversation.KindIteration, Agent: agent, Iteration: n,
		FilesModified: files, ExitCode: &code, OutputLines: &lines}
	if runErr != nil {
		text := runErr.Error()
		rec.IsError = true
		rec.ErrorHash = signals.Hash(text)
		if len(text) > maxIterationError {
			text = text[:maxIterationError] + "\n… (cut; the error message holds it all)"
		}
		rec.Content = text
	}
	return rec
}

// maxIterationError bounds the error text an iteration record repeats from
// the run's error message, in bytes.
const maxIterationError = 2 << 10
