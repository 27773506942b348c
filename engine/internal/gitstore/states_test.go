package gitstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitFails runs git in r and returns its combined output, failing the test
// when git succeeds.
func (r *testRepo) gitFails(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	if err == nil {
		r.t.Fatalf("git %s succeeded, want a failure\n%s", strings.Join(args, " "), out)
	}
	return string(out)
}

// at is r working in another directory (a linked worktree) with the same
// environment.
func (r *testRepo) at(dir string) *testRepo {
	return &testRepo{t: r.t, dir: dir, env: r.env}
}

// TestLinkedWorktree commits from a linked worktree (`git worktree add`):
// the commit lands on the worktree's branch, the main worktree's branch,
// HEAD and index stay as they were, and the commit's tree is the one
// `git add PATHS && git commit -- PATHS` makes in a twin worktree with the
// same changes.
func TestLinkedWorktree(t *testing.T) {
	r := newRepo(t)
	r.base()
	wtDir := filepath.Join(t.TempDir(), "linked")
	twinDir := filepath.Join(t.TempDir(), "twin")
	r.git("worktree", "add", "-q", "-b", "side", wtDir)
	r.git("worktree", "add", "-q", "-b", "twin", twinDir)
	mainIndex := r.read(".git/index")
	mainHead := r.git("rev-parse", "main")
	wt, twin := r.at(wtDir), r.at(twinDir)
	for _, w := range []*testRepo{wt, twin} {
		w.write(".planning/conversations/c-001.jsonl", "{\"id\":\"1\"}\n{\"id\":\"2\"}\n")
		w.write(".planning/conversations/c-002.jsonl", "{\"id\":\"3\"}\n")
		w.write("src/app.go", "package app // changed, not committed\n")
	}
	res, err := Committer{}.Commit(context.Background(), wtDir, recitePrefixes, "history", author)
	if err != nil {
		t.Fatalf("Commit in the linked worktree: %v", err)
	}
	if res.Hash == "" {
		t.Fatal("nothing committed")
	}
	if got := strings.TrimSpace(wt.git("rev-parse", "side")); got != res.Hash {
		t.Errorf("branch side = %s, want the new commit %s", got, res.Hash)
	}
	if got := r.git("rev-parse", "main"); got != mainHead {
		t.Errorf("branch main moved: %s → %s", mainHead, got)
	}
	if !bytes.Equal(r.read(".git/index"), mainIndex) {
		t.Error("the main worktree's index changed")
	}
	if got := r.git("symbolic-ref", "HEAD"); strings.TrimSpace(got) != "refs/heads/main" {
		t.Errorf("main worktree HEAD = %q", got)
	}
	twin.git("add", "--", ".planning/conversations/", ".planning/context-preserved.md")
	twin.git("commit", "-q", "-m", "history", "--", ".planning/conversations/", ".planning/context-preserved.md")
	if a, b := wt.git("rev-parse", "side^{tree}"), twin.git("rev-parse", "twin^{tree}"); a != b {
		t.Errorf("tree %s, git commit -- PATHS made %s", a, b)
	}
	if a, b := wt.git("status", "--porcelain"), twin.git("status", "--porcelain"); a != b {
		t.Errorf("status after the commit:\n%s\ngit's:\n%s", a, b)
	}
	wt.git("fsck", "--no-progress")
}

// inProgress sets up a repository in the middle of a git operation and
// returns what the error must say.
type inProgress struct {
	name  string
	setup func(r *testRepo)
	want  string
	// gitRefuses is set when `git commit -- PATHS` refuses too (during a
	// merge or a cherry-pick: "cannot do a partial commit"); git 2.39
	// commits the paths during a revert, a rebase, an am or a bisect and
	// with unmerged files elsewhere, and the test checks that it does.
	gitRefuses bool
}

// conflict makes branches main and other that change src/app.go
// differently, leaving main checked out.
func conflict(r *testRepo) {
	r.base()
	r.git("checkout", "-q", "-b", "other")
	r.write("src/app.go", "package app // other\n")
	r.git("commit", "-q", "-am", "other")
	r.git("checkout", "-q", "main")
	r.write("src/app.go", "package app // main\n")
	r.git("commit", "-q", "-am", "main")
}

func inProgressCases() []inProgress {
	return []inProgress{
		{name: "merge", setup: func(r *testRepo) {
			conflict(r)
			r.gitFails("merge", "-q", "other")
		}, want: "a merge is in progress (MERGE_HEAD)", gitRefuses: true},
		{name: "merge without conflicts", setup: func(r *testRepo) {
			conflict(r)
			r.write("src/app.go", "package app // other\n")
			r.git("commit", "-q", "-am", "same as other")
			r.git("merge", "-q", "--no-commit", "--no-ff", "other")
		}, want: "a merge is in progress (MERGE_HEAD)", gitRefuses: true},
		{name: "cherry-pick", setup: func(r *testRepo) {
			conflict(r)
			r.gitFails("cherry-pick", "other")
		}, want: "a cherry-pick is in progress (CHERRY_PICK_HEAD)", gitRefuses: true},
		{name: "revert", setup: func(r *testRepo) {
			conflict(r)
			r.write("src/app.go", "package app // third\n")
			r.git("commit", "-q", "-am", "third")
			r.gitFails("revert", "--no-edit", "HEAD~1")
		}, want: "a revert is in progress (REVERT_HEAD)", gitRefuses: false},
		{name: "rebase", setup: func(r *testRepo) {
			conflict(r)
			r.gitFails("rebase", "other")
		}, want: "a rebase is in progress (rebase-merge)", gitRefuses: false},
		{name: "rebase stopped without a conflict", setup: func(r *testRepo) {
			conflict(r)
			r.env = append(r.env, "GIT_SEQUENCE_EDITOR=sed -i -e s/^pick/edit/")
			r.git("rebase", "-q", "-i", "HEAD~1")
		}, want: "a rebase is in progress (rebase-merge)", gitRefuses: false},
		{name: "am", setup: func(r *testRepo) {
			conflict(r)
			patch := r.git("format-patch", "-1", "--stdout", "other")
			r.write("other.patch", patch)
			r.gitFails("am", "other.patch")
		}, want: "a git am is in progress (rebase-apply)", gitRefuses: false},
		{name: "bisect", setup: func(r *testRepo) {
			conflict(r)
			r.git("bisect", "start")
			r.git("bisect", "bad")
			r.git("bisect", "good", "HEAD~1")
		}, want: "a bisect is in progress (BISECT_LOG)", gitRefuses: false},
		{name: "unmerged files without an operation", setup: func(r *testRepo) {
			conflict(r)
			r.write("src/app.go", "package app // stashed\n")
			r.git("stash", "-q")
			r.write("src/app.go", "package app // changed again\n")
			r.git("commit", "-q", "-am", "again")
			r.gitFails("stash", "pop", "-q")
		}, want: "the index has unmerged files (src/app.go)", gitRefuses: false},
	}
}

// TestOperationInProgress refuses to commit while a merge, rebase,
// cherry-pick, revert, am or bisect is in progress, or the index holds
// unmerged entries: ErrInProgress naming the operation, and nothing
// written (HEAD, the branch, the index). Where `git commit -- PATHS`
// refuses too, the test checks that it does.
func TestOperationInProgress(t *testing.T) {
	for _, tt := range inProgressCases() {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			tt.setup(r)
			r.write(".planning/conversations/c-001.jsonl", "{\"id\":\"1\"}\n{\"id\":\"new\"}\n")
			head, branch, index := r.head(), r.git("rev-parse", "main"), r.read(".git/index")
			err := Committer{}.Check(r.dir, recitePrefixes...)
			if !errors.Is(err, ErrInProgress) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want ErrInProgress saying %q", err, tt.want)
			}
			_, err = Committer{}.Commit(context.Background(), r.dir, recitePrefixes, "history", author)
			if !errors.Is(err, ErrInProgress) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Commit = %v, want ErrInProgress saying %q", err, tt.want)
			}
			t.Logf("refused: %v", err)
			if r.head() != head || r.git("rev-parse", "main") != branch || !bytes.Equal(r.read(".git/index"), index) {
				t.Error("HEAD, the branch or the index changed")
			}
			if _, err := os.Stat(filepath.Join(r.dir, ".git", "index.lock")); err == nil {
				t.Error("index.lock left behind")
			}
			if tt.gitRefuses {
				out := r.gitFails("commit", "-m", "x", "--", ".planning/conversations/")
				t.Logf("git: %s", strings.TrimSpace(out))
			} else {
				r.git("commit", "-q", "-m", "x", "--", ".planning/conversations/")
			}
		})
	}
}

// TestIndexExtensions: a split index (`git update-index --split-index`,
// extension "link") and a sparse index (`git sparse-checkout set
// --sparse-index`, extension "sdir") are refused with ErrIndexExtension
// naming the extension and the command that turns it off; nothing is
// written; after that command the commit works and git agrees the paths
// are clean.
func TestIndexExtensions(t *testing.T) {
	tests := []struct {
		name, ext  string
		setup, fix []string
	}{
		{"split index", "link", []string{"update-index", "--split-index"}, []string{"update-index", "--no-split-index"}},
		{"sparse index", "sdir", []string{"sparse-checkout", "set", "--sparse-index", ".planning", "src"}, []string{"sparse-checkout", "reapply", "--no-sparse-index"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			r.base()
			r.write("docs/guide.md", "guide\n")
			r.git("add", "docs")
			r.git("commit", "-q", "-m", "docs")
			r.git(tt.setup...)
			r.write(".planning/conversations/c-001.jsonl", "{\"id\":\"1\"}\n{\"id\":\"new\"}\n")
			head, index := r.head(), r.read(".git/index")
			_, err := Committer{}.Commit(context.Background(), r.dir, recitePrefixes, "history", author)
			if !errors.Is(err, ErrIndexExtension) || !strings.Contains(err.Error(), `"`+tt.ext+`"`) || !strings.Contains(err.Error(), "git "+strings.Join(tt.fix, " ")) {
				t.Fatalf("Commit = %v, want ErrIndexExtension naming %q and `git %s`", err, tt.ext, strings.Join(tt.fix, " "))
			}
			t.Logf("refused: %v", err)
			if r.head() != head || !bytes.Equal(r.read(".git/index"), index) {
				t.Error("HEAD or the index changed")
			}
			r.git(tt.fix...)
			res, err := Committer{}.Commit(context.Background(), r.dir, recitePrefixes, "history", author)
			if err != nil || res.Hash == "" {
				t.Fatalf("after git %s: Commit = %+v, %v", strings.Join(tt.fix, " "), res, err)
			}
			if st := r.git("status", "--porcelain", "--", ".planning"); st != "" {
				t.Errorf("git status after the commit:\n%s", st)
			}
			r.git("fsck", "--no-progress")
		})
	}
}

// TestSparseCheckout: with core.sparseCheckout and recite's paths outside
// the checkout (`git sparse-checkout set src`, where git marks their
// entries skip-worktree), Commit refuses with ErrSparse naming the path
// and `git sparse-checkout add`; once the folder is added, it commits.
// A sparse checkout that holds recite's paths commits at once.
func TestSparseCheckout(t *testing.T) {
	r := newRepo(t)
	r.base()
	r.git("sparse-checkout", "set", "--no-sparse-index", "src")
	if tags := r.git("ls-files", "-t", ".planning/conversations/c-001.jsonl"); !strings.HasPrefix(tags, "S ") {
		t.Fatalf("git ls-files -t = %q, want the log outside the sparse checkout", tags)
	}
	r.write(".planning/conversations/c-009.jsonl", "{\"id\":\"9\"}\n")
	head := r.head()
	_, err := Committer{}.Commit(context.Background(), r.dir, recitePrefixes, "history", author)
	if !errors.Is(err, ErrSparse) || !strings.Contains(err.Error(), ".planning/conversations") || !strings.Contains(err.Error(), "git sparse-checkout add .planning") {
		t.Fatalf("Commit = %v, want ErrSparse naming the path and the fix", err)
	}
	t.Logf("refused: %v", err)
	if r.head() != head {
		t.Error("HEAD moved")
	}
	_ = os.Remove(filepath.Join(r.dir, ".planning/conversations/c-009.jsonl"))
	r.git("sparse-checkout", "add", ".planning")
	if tags := r.git("ls-files", "-t", ".planning/conversations/c-001.jsonl"); !strings.HasPrefix(tags, "H ") {
		t.Fatalf("git ls-files -t = %q after the add", tags)
	}
	r.write(".planning/conversations/c-009.jsonl", "{\"id\":\"9\"}\n")
	res, err := Committer{}.Commit(context.Background(), r.dir, recitePrefixes, "history", author)
	if err != nil || res.Hash == "" {
		t.Fatalf("Commit inside the sparse checkout = %+v, %v", res, err)
	}
	if st := r.git("status", "--porcelain"); st != "" {
		t.Errorf("git status after the commit:\n%s", st)
	}
}

// TestWorktreeConfigExtension: a repository with extensions.worktreeConfig
// (set by `git sparse-checkout` and some `git worktree` setups), which
// go-git's PlainOpen refuses, still commits, lists modified files and
// reads HEAD.
func TestWorktreeConfigExtension(t *testing.T) {
	r := newRepo(t)
	r.base()
	r.git("config", "extensions.worktreeConfig", "true")
	r.write(".planning/conversations/c-001.jsonl", "{\"id\":\"1\"}\n{\"id\":\"2\"}\n")
	files, err := ModifiedFiles(r.dir, nil)
	if err != nil || !slices.Equal(files, []string{".planning/conversations/c-001.jsonl"}) {
		t.Errorf("ModifiedFiles = %q, %v", files, err)
	}
	res, err := Committer{}.Commit(context.Background(), r.dir, recitePrefixes, "history", author)
	if err != nil || res.Hash == "" {
		t.Fatalf("Commit = %+v, %v", res, err)
	}
	if h := HeadOf(r.dir); !h.ok || h.hash.String() != res.Hash {
		t.Errorf("HeadOf = %+v, want %s", h, res.Hash)
	}
	if got := r.git("config", "extensions.worktreeConfig"); strings.TrimSpace(got) != "true" {
		t.Errorf("extensions.worktreeConfig = %q after the commit", got)
	}
}

// TestCommitSelectAndScan: Select keeps a file out (neither committed nor
// kept), Scan sees exactly the files about to change with their content,
// and Scan errors stop the commit, after every file was shown, before any
// object is written; the
// untracked files .gitignore excludes are listed in Ignored.
func TestCommitSelectAndScan(t *testing.T) {
	r := newRepo(t)
	r.base()
	r.write(".planning/conversations/.gitignore", ".env\nprivate/\n")
	r.write(".planning/conversations/.env", "TOKEN=x\n")
	r.write(".planning/conversations/private/p.jsonl", "{}\n")
	r.write(".planning/conversations/notes.txt", "not a log\n")
	r.write(".planning/conversations/c-001.jsonl", "{\"id\":\"1\"}\n{\"id\":\"2\"}\n")
	r.write(".planning/conversations/c-002.jsonl", "{\"id\":\"3\"}\n")
	sel := func(p string, tracked bool) bool {
		return strings.HasSuffix(p, ".jsonl") || p == ".planning/context-preserved.md"
	}
	var scanned []string
	refuse := errors.New("refused")
	objects := r.git("count-objects", "-v")
	head, index := r.head(), r.read(".git/index")
	c := Committer{Select: sel, Scan: func(p string, content []byte) error {
		scanned = append(scanned, p+"="+string(content))
		return refuse
	}}
	if _, err := c.Commit(context.Background(), r.dir, recitePrefixes, "history", author); !errors.Is(err, refuse) {
		t.Fatalf("Commit = %v, want the Scan error", err)
	}
	if want := []string{".planning/conversations/c-001.jsonl={\"id\":\"1\"}\n{\"id\":\"2\"}\n", ".planning/conversations/c-002.jsonl={\"id\":\"3\"}\n"}; !slices.Equal(scanned, want) {
		t.Errorf("scanned %q, want %q (every change, then stop)", scanned, want)
	}
	if r.git("count-objects", "-v") != objects || r.head() != head || !bytes.Equal(r.read(".git/index"), index) {
		t.Error("objects, HEAD or the index changed after a refused scan")
	}
	scanned = nil
	c.Scan = func(p string, content []byte) error { scanned = append(scanned, p); return nil }
	res, err := c.Commit(context.Background(), r.dir, recitePrefixes, "history", author)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".planning/conversations/c-001.jsonl", ".planning/conversations/c-002.jsonl"}; !slices.Equal(scanned, want) {
		t.Errorf("scanned %q, want %q", scanned, want)
	}
	files := r.git("show", "--name-only", "--format=", res.Hash)
	if files != ".planning/conversations/c-001.jsonl\n.planning/conversations/c-002.jsonl\n" {
		t.Errorf("committed:\n%s", files)
	}
	if want := []string{".planning/conversations/.env", ".planning/conversations/private/"}; !slices.Equal(res.Ignored, want) {
		t.Errorf("Ignored = %q, want %q", res.Ignored, want)
	}
	if len(res.Kept) != 0 {
		t.Errorf("Kept = %q", res.Kept)
	}
	r.git("fsck", "--no-progress")
}
