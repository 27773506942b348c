package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/internal/layout"
)

// MaxFilesModified bounds the files listed as modified: in a preservation
// block's working state, and in an iteration record.
const MaxFilesModified = 50

// ModifiedFiles returns the files of the project at dir that git reports modified,
// staged or untracked (gitstore.ModifiedFiles), relative to the project
// root, sorted, without recite's own outputs and files outside the project,
// cut to MaxFilesModified with a last "… and N more" entry. The status runs
// in a goroutine so ctx bounds the wait (go-git's status takes no context).
// Errors: gitstore.ErrNoRepository, a status error, or ctx's error.
func ModifiedFiles(ctx context.Context, dir string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root := gitstore.Root(abs)
	if root == "" {
		return nil, fmt.Errorf("%w: %s", gitstore.ErrNoRepository, dir)
	}
	prefix, err := filepath.Rel(root, abs)
	if err != nil {
		return nil, err
	}
	prefix = filepath.ToSlash(prefix)
	// recite's own outputs are never read: a conversation log the hook
	// just appended to would otherwise be hashed whole.
	own := func(repoPath string) bool {
		p, ok := repoPath, true
		if prefix != "." {
			p, ok = strings.CutPrefix(repoPath, prefix+"/")
		}
		return ok && layout.OwnOutput(p)
	}
	type result struct {
		files []string
		err   error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := gitstore.ModifiedFiles(abs, own)
		ch <- result{f, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		return nil, fmt.Errorf("git status: %w", ctx.Err())
	}
	if r.err != nil {
		return nil, r.err
	}
	out := projectFiles(prefix, r.files)
	if len(out) > MaxFilesModified {
		more := len(out) - MaxFilesModified
		out = append(out[:MaxFilesModified:MaxFilesModified], fmt.Sprintf("… and %d more", more))
	}
	return out, nil
}

// projectFiles turns repository paths (slash-separated, from the
// repository's root) into project-relative ones, given prefix, the
// project's folder in the repository ("." for its root): paths outside the
// project and recite's own outputs (layout.OwnOutput) are left out.
func projectFiles(prefix string, repoPaths []string) []string {
	var out []string
	for _, p := range repoPaths {
		if prefix != "." {
			rest, ok := strings.CutPrefix(p, prefix+"/")
			if !ok {
				continue
			}
			p = rest
		}
		if !layout.OwnOutput(p) {
			out = append(out, p)
		}
	}
	return out
}
