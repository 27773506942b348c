package gitstore

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
)

var recitePrefixes = []string{".planning/conversations/", ".planning/context-preserved.md"}

var author = Signature{Name: "recite", Email: "recite@example.com", When: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}

// testRepo is a real repository driven by the git CLI with an isolated HOME.
type testRepo struct {
	t   *testing.T
	dir string
	env []string
}

func newRepo(t *testing.T) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git CLI not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home) // go-git reads ~/.gitconfig for global excludes
	r := &testRepo{t: t, dir: t.TempDir(), env: append(os.Environ(),
		"HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=user", "GIT_AUTHOR_EMAIL=user@example.com",
		"GIT_COMMITTER_NAME=user", "GIT_COMMITTER_EMAIL=user@example.com")}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *testRepo) write(rel, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *testRepo) read(rel string) []byte {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(rel)))
	if err != nil {
		r.t.Fatal(err)
	}
	return b
}

// base makes the first commit: a user file, a README and one conversation.
func (r *testRepo) base() {
	r.write("src/app.go", "package app\n")
	r.write("README.md", "readme\n")
	r.write(".planning/STATE.md", "state\n")
	r.write(".planning/conversations/c-001.jsonl", `{"id":"1"}`+"\n")
	r.write(".planning/context-preserved.md", "# preserved\n")
	r.git("add", ".")
	r.git("commit", "-q", "-m", "base")
}

func (r *testRepo) head() string {
	r.t.Helper()
	cmd := exec.Command("git", "rev-parse", "-q", "--verify", "HEAD")
	cmd.Dir, cmd.Env = r.dir, r.env
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

// userView is what must not change for the user: status, staged and
// unstaged diffs outside recite's paths.
type userView struct{ status, cached, diff string }

var excludeRecite = []string{"--", ".", ":(exclude).planning/conversations", ":(exclude).planning/context-preserved.md"}

func (r *testRepo) userView() userView {
	r.t.Helper()
	return userView{
		status: r.git(append([]string{"status", "--porcelain", "--untracked-files=all", "--ignored"}, excludeRecite...)...),
		cached: r.git(append([]string{"diff", "--cached"}, excludeRecite...)...),
		diff:   r.git(append([]string{"diff"}, excludeRecite...)...),
	}
}

func TestCommitPaths(t *testing.T) {
	tests := []struct {
		name string
		// setup prepares the repository and makes recite's changes.
		setup func(r *testRepo)
		// wantFiles is `git log -1 --name-only` of the new commit; nil means
		// no commit is expected.
		wantFiles []string
		// wantMode maps paths to their expected `git ls-tree` mode.
		wantMode map[string]string
		// absent lists paths that must not be in HEAD's tree.
		absent []string
		// unstaged lists paths that must not be in the index either.
		unstaged []string
		// kept is Result.Kept: tracked files missing from the work tree,
		// which must stay in HEAD (the history is append-only).
		kept []string
		// blocked is Result.Blocked.
		blocked []string
		// status is `git status --porcelain` of recite's paths after the
		// commit, as a set of lines; nil means clean.
		status []string
	}{
		{
			name:      "new conversation file",
			setup:     func(r *testRepo) { r.base(); r.write(".planning/conversations/c-002.jsonl", "{}\n") },
			wantFiles: []string{".planning/conversations/c-002.jsonl"},
		},
		{
			name: "second commit after appending to a log",
			setup: func(r *testRepo) {
				r.base()
				r.write(".planning/conversations/c-001.jsonl", `{"id":"1"}`+"\n"+`{"id":"2"}`+"\n")
				r.write(".planning/context-preserved.md", "# preserved\n\n## block 2\n")
			},
			wantFiles: []string{".planning/context-preserved.md", ".planning/conversations/c-001.jsonl"},
		},
		{
			name: "staged user changes stay staged",
			setup: func(r *testRepo) {
				r.base()
				r.write("src/app.go", "package app\n// staged\n")
				r.write("src/new.go", "package app\n")
				r.git("add", "src")
				r.git("rm", "-q", "--cached", "README.md")
				r.write(".planning/conversations/c-001.jsonl", "changed\n")
			},
			wantFiles: []string{".planning/conversations/c-001.jsonl"},
		},
		{
			name: "unstaged and partly staged user changes stay",
			setup: func(r *testRepo) {
				r.base()
				r.write("src/app.go", "package app\n// staged\n")
				r.git("add", "src/app.go")
				r.write("src/app.go", "package app\n// staged\n// unstaged\n")
				r.write("README.md", "unstaged\n")
				r.write(".planning/STATE.md", "user edits state\n")
				r.write(".planning/conversations/c-003.jsonl", "{}\n")
			},
			wantFiles: []string{".planning/conversations/c-003.jsonl"},
		},
		{
			name: "untracked user files stay untracked",
			setup: func(r *testRepo) {
				r.base()
				r.write("notes.txt", "untracked\n")
				r.write(".planning/phases/01/PLAN.md", "untracked plan\n")
				r.write(".planning/conversations/c-004.jsonl", "{}\n")
			},
			wantFiles: []string{".planning/conversations/c-004.jsonl"},
		},
		{
			name: "ignored .env is never staged or committed",
			setup: func(r *testRepo) {
				r.write(".gitignore", ".env\nscratch/\n")
				r.base()
				r.write(".env", "SECRET=1\n")
				r.write(".planning/conversations/.env", "SECRET=2\n")
				r.write(".planning/conversations/scratch/x.jsonl", "ignored dir\n")
				r.write(".planning/conversations/c-005.jsonl", "{}\n")
			},
			wantFiles: []string{".planning/conversations/c-005.jsonl"},
			absent:    []string{".env", ".planning/conversations/.env", ".planning/conversations/scratch/x.jsonl"},
			unstaged:  []string{".env", ".planning/conversations/.env", ".planning/conversations/scratch/x.jsonl"},
		},
		{
			name: "ignore rules in .planning/.gitignore and info/exclude",
			setup: func(r *testRepo) {
				r.base()
				r.write(".planning/.gitignore", "*.tmp\n")
				r.git("add", ".planning/.gitignore")
				r.git("commit", "-q", "-m", "ignore")
				r.write(".git/info/exclude", "*.bak\n")
				r.write(".planning/conversations/c-001.jsonl.tmp", "x")
				r.write(".planning/conversations/c-001.jsonl.bak", "x")
				r.write(".planning/conversations/c-006.jsonl", "{}\n")
			},
			wantFiles: []string{".planning/conversations/c-006.jsonl"},
			absent:    []string{".planning/conversations/c-001.jsonl.tmp", ".planning/conversations/c-001.jsonl.bak"},
			unstaged:  []string{".planning/conversations/c-001.jsonl.tmp", ".planning/conversations/c-001.jsonl.bak"},
		},
		{
			name: "tracked file matching an ignore rule is still updated, as git does",
			setup: func(r *testRepo) {
				r.base()
				r.write(".gitignore", "*.jsonl\n")
				r.git("add", ".gitignore")
				r.git("commit", "-q", "-m", "ignore jsonl")
				r.write(".planning/conversations/c-001.jsonl", "appended\n")
				r.write(".planning/conversations/c-new.jsonl", "untracked ignored\n")
			},
			wantFiles: []string{".planning/conversations/c-001.jsonl"},
			absent:    []string{".planning/conversations/c-new.jsonl"},
			unstaged:  []string{".planning/conversations/c-new.jsonl"},
		},
		{
			name: "archive move adds the new path and keeps the old (append-only)",
			setup: func(r *testRepo) {
				r.base()
				if err := os.MkdirAll(filepath.Join(r.dir, ".planning/conversations/archive"), 0o755); err != nil {
					r.t.Fatal(err)
				}
				if err := os.Rename(filepath.Join(r.dir, ".planning/conversations/c-001.jsonl"),
					filepath.Join(r.dir, ".planning/conversations/archive/c-001.jsonl")); err != nil {
					r.t.Fatal(err)
				}
			},
			wantFiles: []string{".planning/conversations/archive/c-001.jsonl"},
			kept:      []string{".planning/conversations/c-001.jsonl"},
			status:    []string{" D .planning/conversations/c-001.jsonl"},
		},
		{
			name: "a missing conversations folder is not committed as a deletion",
			setup: func(r *testRepo) {
				r.base()
				if err := os.RemoveAll(filepath.Join(r.dir, ".planning/conversations")); err != nil {
					r.t.Fatal(err)
				}
			},
			wantFiles: nil,
			kept:      []string{".planning/conversations/c-001.jsonl"},
			status:    []string{" D .planning/conversations/c-001.jsonl"},
		},
		{
			name: ".planning renamed away for a moment: nothing deleted, no commit",
			setup: func(r *testRepo) {
				r.base()
				if err := os.Rename(filepath.Join(r.dir, ".planning"), filepath.Join(r.dir, "away")); err != nil {
					r.t.Fatal(err)
				}
			},
			wantFiles: nil,
			kept:      []string{".planning/context-preserved.md", ".planning/conversations/c-001.jsonl"},
			status:    []string{" D .planning/context-preserved.md", " D .planning/conversations/c-001.jsonl"},
		},
		{
			name: "a missing log beside a new one: only the new one is committed",
			setup: func(r *testRepo) {
				r.base()
				if err := os.Remove(filepath.Join(r.dir, ".planning/conversations/c-001.jsonl")); err != nil {
					r.t.Fatal(err)
				}
				r.write(".planning/conversations/c-002.jsonl", "{}\n")
				r.write(".planning/context-preserved.md", "# preserved\n\n## block 2\n")
			},
			wantFiles: []string{".planning/context-preserved.md", ".planning/conversations/c-002.jsonl"},
			kept:      []string{".planning/conversations/c-001.jsonl"},
			status:    []string{" D .planning/conversations/c-001.jsonl"},
		},
		{
			name: "the user's staged deletion stays staged and is not committed",
			setup: func(r *testRepo) {
				r.base()
				r.git("rm", "-q", ".planning/conversations/c-001.jsonl")
				r.write(".planning/conversations/c-002.jsonl", "{}\n")
			},
			wantFiles: []string{".planning/conversations/c-002.jsonl"},
			kept:      []string{".planning/conversations/c-001.jsonl"},
			status:    []string{"D  .planning/conversations/c-001.jsonl"},
		},
		{
			name: "a folder where a tracked log was: the log is kept, the folder's files wait",
			setup: func(r *testRepo) {
				r.base()
				if err := os.Remove(filepath.Join(r.dir, ".planning/conversations/c-001.jsonl")); err != nil {
					r.t.Fatal(err)
				}
				r.write(".planning/conversations/c-001.jsonl/x.jsonl", "{}\n")
			},
			wantFiles: nil,
			kept:      []string{".planning/conversations/c-001.jsonl"},
			blocked:   []string{".planning/conversations/c-001.jsonl/x.jsonl"},
			status:    []string{" D .planning/conversations/c-001.jsonl", "?? .planning/conversations/c-001.jsonl/x.jsonl"},
		},
		{
			name: "a file where a tracked folder was: the folder's logs are kept, the file waits",
			setup: func(r *testRepo) {
				r.base()
				r.write(".planning/conversations/sub/a.jsonl", "{}\n")
				r.git("add", ".")
				r.git("commit", "-q", "-m", "sub")
				if err := os.RemoveAll(filepath.Join(r.dir, ".planning/conversations/sub")); err != nil {
					r.t.Fatal(err)
				}
				r.write(".planning/conversations/sub", "a file now\n")
				r.write(".planning/conversations/c-002.jsonl", "{}\n")
			},
			wantFiles: []string{".planning/conversations/c-002.jsonl"},
			kept:      []string{".planning/conversations/sub/a.jsonl"},
			blocked:   []string{".planning/conversations/sub"},
			status:    []string{" D .planning/conversations/sub/a.jsonl", "?? .planning/conversations/sub"},
		},
		{
			name: "file mode: executable and symlink",
			setup: func(r *testRepo) {
				r.base()
				r.write(".planning/conversations/run.sh", "#!/bin/sh\n")
				if err := os.Chmod(filepath.Join(r.dir, ".planning/conversations/run.sh"), 0o755); err != nil {
					r.t.Fatal(err)
				}
				if err := os.Symlink("c-001.jsonl", filepath.Join(r.dir, ".planning/conversations/latest")); err != nil {
					r.t.Fatal(err)
				}
			},
			wantFiles: []string{".planning/conversations/latest", ".planning/conversations/run.sh"},
			wantMode:  map[string]string{".planning/conversations/run.sh": "100755", ".planning/conversations/latest": "120000"},
		},
		{
			name: "names that sort around a directory keep git's tree order",
			setup: func(r *testRepo) {
				r.base()
				r.write(".planning/conversations-x", "user\n")
				r.write(".planning/conversations.md", "user\n")
				r.git("add", ".")
				r.git("commit", "-q", "-m", "neighbours")
				r.write(".planning/conversations/a-b.jsonl", "{}\n")
				r.write(".planning/conversations/a/b.jsonl", "{}\n")
				r.write(".planning/conversations/a.jsonl", "{}\n")
			},
			wantFiles: []string{".planning/conversations/a-b.jsonl", ".planning/conversations/a.jsonl", ".planning/conversations/a/b.jsonl"},
		},
		{
			name: "a recite path the user staged differently ends clean",
			setup: func(r *testRepo) {
				r.base()
				r.write(".planning/context-preserved.md", "# preserved\nstaged by user\n")
				r.git("add", ".planning/context-preserved.md")
				r.write(".planning/context-preserved.md", "# preserved\nstaged by user\nand more\n")
			},
			wantFiles: []string{".planning/context-preserved.md"},
		},
		{
			name: "empty repository gets a root commit and keeps the user's staged file",
			setup: func(r *testRepo) {
				r.write("staged.txt", "user\n")
				r.git("add", "staged.txt")
				r.write("untracked.txt", "user\n")
				r.write(".planning/conversations/c-001.jsonl", "{}\n")
				r.write(".planning/context-preserved.md", "# p\n")
			},
			wantFiles: []string{".planning/context-preserved.md", ".planning/conversations/c-001.jsonl"},
			absent:    []string{"staged.txt"},
		},
		{
			name: "nothing changed: no commit",
			setup: func(r *testRepo) {
				r.base()
				r.write("README.md", "user change\n")
			},
			wantFiles: nil,
		},
		{
			name: "only untracked ignored files: no commit",
			setup: func(r *testRepo) {
				r.write(".gitignore", ".env\n")
				r.base()
				r.write(".planning/conversations/.env", "SECRET\n")
			},
			wantFiles: nil,
			absent:    []string{".planning/conversations/.env"},
			unstaged:  []string{".planning/conversations/.env"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			tt.setup(r)
			before := r.userView()
			headBefore := r.head()
			indexBefore, _ := os.ReadFile(filepath.Join(r.dir, ".git", "index"))

			res, err := Committer{}.Commit(context.Background(), r.dir, recitePrefixes, "recite: commit", author)
			if err != nil {
				t.Fatalf("Commit: %v", err)
			}
			hash := res.Hash
			indexAfter, _ := os.ReadFile(filepath.Join(r.dir, ".git", "index"))
			if after := r.userView(); after != before {
				t.Errorf("user's view changed:\nbefore %+v\nafter  %+v", before, after)
			}
			st := strings.Split(strings.TrimRight(r.git("status", "--porcelain", "--untracked-files=all", "--", ".planning/conversations", ".planning/context-preserved.md"), "\n"), "\n")
			if st[0] == "" {
				st = nil
			}
			slices.Sort(st)
			if !slices.Equal(st, tt.status) {
				t.Errorf("status of recite paths after commit = %q, want %q", st, tt.status)
			}
			if !slices.Equal(res.Kept, tt.kept) || !slices.Equal(res.Blocked, tt.blocked) {
				t.Errorf("Kept %v, Blocked %v; want %v, %v", res.Kept, res.Blocked, tt.kept, tt.blocked)
			}
			for _, p := range tt.kept {
				if out := r.git("ls-tree", "-r", "--name-only", "HEAD", "--", p); out != p+"\n" {
					t.Errorf("kept file %s is not in HEAD (ls-tree %q): the commit deleted history", p, out)
				}
				if out := r.git("log", "--diff-filter=D", "--format=%H", "--", p); out != "" {
					t.Errorf("a commit deleted %s: %s", p, out)
				}
			}
			if tt.wantFiles == nil {
				if hash != "" || r.head() != headBefore {
					t.Errorf("commit %q made (HEAD %s → %s), want none", hash, headBefore, r.head())
				}
				if string(indexAfter) != string(indexBefore) {
					for i := range min(len(indexAfter), len(indexBefore)) {
						if indexAfter[i] != indexBefore[i] {
							t.Logf("first diff at %d: % x vs % x", i, indexBefore[i:i+16], indexAfter[i:i+16])
							break
						}
					}
					t.Error("index rewritten for a no-op")
				}
			} else {
				if hash == "" || hash != r.head() {
					t.Fatalf("hash %q, HEAD %q", hash, r.head())
				}
				files := strings.Fields(r.git("log", "-1", "--name-only", "--no-renames", "--format="))
				if !slices.Equal(files, tt.wantFiles) {
					t.Errorf("commit lists %v, want %v", files, tt.wantFiles)
				}
				if got := strings.TrimSpace(r.git("log", "-1", "--format=%an <%ae> %aI|%s")); got != "recite <recite@example.com> 2025-01-02T03:04:05+00:00|recite: commit" {
					t.Errorf("commit header %q", got)
				}
				if headBefore != "" {
					if p := strings.TrimSpace(r.git("rev-parse", "HEAD^")); p != headBefore {
						t.Errorf("parent %s, want %s", p, headBefore)
					}
				}
			}
			r.git("fsck", "--strict", "--no-dangling")
			for _, p := range tt.wantFiles {
				if slices.Contains(tt.absent, p) {
					continue
				}
				fi, err := os.Lstat(filepath.Join(r.dir, p))
				if err != nil {
					continue // deleted in this commit
				}
				want := ""
				if fi.Mode()&os.ModeSymlink != 0 {
					l, _ := os.Readlink(filepath.Join(r.dir, p))
					want = l
				} else {
					want = string(r.read(p))
				}
				if got := r.git("show", "HEAD:"+p); got != want {
					t.Errorf("HEAD:%s = %q, want %q", p, got, want)
				}
			}
			for p, mode := range tt.wantMode {
				if got := strings.Fields(r.git("ls-tree", "HEAD", "--", p)); len(got) == 0 || got[0] != mode {
					t.Errorf("mode of %s = %v, want %s", p, got, mode)
				}
			}
			if r.head() != "" {
				for _, p := range tt.absent {
					if out := r.git("ls-tree", "-r", "--name-only", "HEAD", "--", p); out != "" {
						t.Errorf("%s is in HEAD: %q", p, out)
					}
				}
			}
			for _, p := range tt.unstaged {
				if out := r.git("ls-files", "--", p); out != "" {
					t.Errorf("%s is in the index: %q", p, out)
				}
			}
		})
	}
}

func TestCommitPathsSubdirectoryProject(t *testing.T) {
	r := newRepo(t)
	r.write("README.md", "x\n")
	r.write("app/.planning/STATE.md", "s\n")
	r.git("add", ".")
	r.git("commit", "-q", "-m", "base")
	r.write("app/.planning/conversations/c.jsonl", "{}\n")
	r.write(".planning/conversations/other.jsonl", "not this project\n")
	hash, err := CommitPaths(context.Background(), filepath.Join(r.dir, "app"), recitePrefixes, "m", author)
	if err != nil || hash == "" {
		t.Fatalf("CommitPaths = %q, %v", hash, err)
	}
	if files := strings.Fields(r.git("log", "-1", "--name-only", "--format=")); !slices.Equal(files, []string{"app/.planning/conversations/c.jsonl"}) {
		t.Errorf("commit lists %v", files)
	}
}

func TestCommitPathsErrors(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(r *testRepo) string // returns repoDir
		prefix  []string
		sig     Signature
		wantErr error
	}{
		{
			name:    "no repository",
			setup:   func(r *testRepo) string { return t.TempDir() },
			wantErr: ErrNoRepository,
		},
		{
			name: "detached HEAD",
			setup: func(r *testRepo) string {
				r.base()
				r.git("checkout", "-q", "--detach")
				r.write(".planning/conversations/c-002.jsonl", "{}\n")
				return r.dir
			},
			wantErr: ErrDetachedHead,
		},
		{
			name: "prefix escaping the work tree",
			setup: func(r *testRepo) string {
				r.base()
				return r.dir
			},
			prefix: []string{"../elsewhere"},
		},
		{
			name: "prefix naming .git",
			setup: func(r *testRepo) string {
				r.base()
				return r.dir
			},
			prefix: []string{".git/config"},
		},
		{
			name: "no author anywhere",
			setup: func(r *testRepo) string {
				r.base()
				r.write(".planning/conversations/c-002.jsonl", "{}\n")
				return r.dir
			},
			sig:     Signature{},
			wantErr: ErrNoAuthor,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			dir := tt.setup(r)
			headBefore := r.head()
			prefixes := recitePrefixes
			if tt.prefix != nil {
				prefixes = tt.prefix
			}
			sig := author
			if tt.name == "no author anywhere" {
				sig = tt.sig
			}
			hash, err := CommitPaths(context.Background(), dir, prefixes, "m", sig)
			if err == nil {
				t.Fatalf("CommitPaths = %q, nil; want an error", hash)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			t.Logf("error: %v", err)
			if dir == r.dir && r.head() != headBefore {
				t.Error("HEAD moved")
			}
			if _, err := os.Stat(filepath.Join(r.dir, ".git", "index.lock")); err == nil {
				t.Error("index.lock left behind")
			}
		})
	}
}

// TestIndexLocked: while .git/index.lock exists nothing is written, as git
// itself behaves and go-git does not (docs/architecture.md#committing); once
// it is gone the retry commits and status is clean.
func TestIndexLocked(t *testing.T) {
	r := newRepo(t)
	r.base()
	r.write("src/app.go", "package app\n// staged\n")
	r.git("add", "src/app.go")
	r.write(".planning/conversations/c-001.md", "new\n")
	lock := filepath.Join(r.dir, ".git", "index.lock")
	index := filepath.Join(r.dir, ".git", "index")
	indexBytes := r.read(".git/index")
	if err := os.WriteFile(lock, indexBytes, 0o644); err != nil { // as a running git leaves it
		t.Fatal(err)
	}
	lockInfo, _ := os.Stat(lock)
	headBefore := r.head()
	objectsBefore := r.git("count-objects", "-v")

	c := Committer{LockWait: 300 * time.Millisecond, LockPoll: 20 * time.Millisecond}
	hash, err := c.CommitPaths(context.Background(), r.dir, recitePrefixes, "m", author)
	if !errors.Is(err, ErrIndexLocked) {
		t.Fatalf("CommitPaths = %q, %v; want ErrIndexLocked", hash, err)
	}
	t.Logf("error: %v", err)
	if r.head() != headBefore {
		t.Error("HEAD moved while the index was locked")
	}
	if b, _ := os.ReadFile(index); string(b) != string(indexBytes) {
		t.Error("index changed while locked")
	}
	if b, _ := os.ReadFile(lock); string(b) != string(indexBytes) {
		t.Error("lock file content changed")
	}
	if fi, _ := os.Stat(lock); fi == nil || !fi.ModTime().Equal(lockInfo.ModTime()) {
		t.Error("lock file touched")
	}
	if got := r.git("count-objects", "-v"); got != objectsBefore {
		t.Errorf("objects written while locked:\n%s\nvs\n%s", objectsBefore, got)
	}

	// A cancelled context ends the wait too.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CommitPaths(ctx, r.dir, recitePrefixes, "m", author); !errors.Is(err, ErrIndexLocked) {
		t.Errorf("cancelled: %v", err)
	}

	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	hash, err = c.CommitPaths(context.Background(), r.dir, recitePrefixes, "m", author)
	if err != nil || hash == "" {
		t.Fatalf("retry: %q, %v", hash, err)
	}
	if st := r.git("status", "--porcelain"); st != "M  src/app.go\n" {
		t.Errorf("status after retry:\n%s", st)
	}
	if files := r.git("log", "-1", "--name-only", "--format="); strings.TrimSpace(files) != ".planning/conversations/c-001.md" {
		t.Errorf("commit lists %q", files)
	}
}

// TestIndexLockReleasedDuringWait: the lock is removed while CommitPaths
// waits, and the commit goes through.
func TestIndexLockReleasedDuringWait(t *testing.T) {
	r := newRepo(t)
	r.base()
	r.write(".planning/conversations/c-002.jsonl", "{}\n")
	lock := filepath.Join(r.dir, ".git", "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	go func() {
		// Remove the lock once CommitPaths has certainly seen it: when no
		// commit happened yet and some polls passed. The outcome does not
		// depend on this timing; only how long the call waits does.
		<-waiting
		time.Sleep(100 * time.Millisecond)
		_ = os.Remove(lock)
	}()
	close(waiting)
	c := Committer{LockWait: 30 * time.Second, LockPoll: 10 * time.Millisecond}
	hash, err := c.CommitPaths(context.Background(), r.dir, recitePrefixes, "m", author)
	if err != nil || hash == "" {
		t.Fatalf("CommitPaths = %q, %v", hash, err)
	}
	if st := r.git("status", "--porcelain"); st != "" {
		t.Errorf("status:\n%s", st)
	}
}

func TestModifiedFiles(t *testing.T) {
	r := newRepo(t)
	r.write(".gitignore", "*.log\n")
	r.base()
	r.write("src/app.go", "package app\n// staged\n")
	r.git("add", "src/app.go")
	r.write("README.md", "unstaged\n")
	r.write("new.txt", "untracked\n")
	r.write("debug.log", "ignored\n")
	if err := os.Remove(filepath.Join(r.dir, ".planning/STATE.md")); err != nil {
		t.Fatal(err)
	}
	got, err := ModifiedFiles(r.dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The git CLI is the oracle.
	var want []string
	for _, line := range strings.Split(strings.TrimRight(r.git("status", "--porcelain", "--untracked-files=all"), "\n"), "\n") {
		want = append(want, line[3:])
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("ModifiedFiles = %v, git status says %v", got, want)
	}
	if _, err := ModifiedFiles(t.TempDir(), nil); !errors.Is(err, ErrNoRepository) {
		t.Errorf("no repository: %v", err)
	}
}

// TestModifiedFilesSkip: the paths skip names are hidden from the walk and
// from the result (a committed log that grew, an untracked log, a folder
// of them), while every other change is listed as git lists it.
func TestModifiedFilesSkip(t *testing.T) {
	r := newRepo(t)
	r.base()
	r.write(".planning/conversations/c-001.jsonl", `{"id":"1"}`+"\n"+`{"id":"2"}`+"\n")
	r.write(".planning/conversations/c-002.jsonl", `{"id":"1"}`+"\n")
	r.write(".planning/STATE.md", "state, edited\n")
	r.write("src/new.go", "package app\n")
	skip := func(p string) bool { return strings.HasPrefix(p, ".planning/conversations/") }
	got, err := ModifiedFiles(r.dir, skip)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(strings.TrimRight(r.git("status", "--porcelain", "--untracked-files=all"), "\n"), "\n") {
		if p := line[3:]; !skip(p) {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) || len(want) != 2 {
		t.Errorf("ModifiedFiles with skip = %v, want git's %v without the logs", got, want)
	}
	// The walk itself never lists a hidden path.
	wt := hiding{osfs.New(r.dir), skip}
	infos, err := wt.ReadDir(".planning/conversations")
	if err != nil || len(infos) != 0 {
		t.Errorf("hidden folder lists %d entries (%v), want none", len(infos), err)
	}
	if infos, err := wt.ReadDir(".planning"); err != nil || len(infos) == 0 {
		t.Errorf(".planning lists %d entries (%v), want its files", len(infos), err)
	}
}

// TestNoRootCommit: with NoRootCommit an unborn branch is refused before the
// index lock is taken, and the user's staged first files stay staged; once
// the user made the first commit the same call commits.
func TestNoRootCommit(t *testing.T) {
	r := newRepo(t)
	r.write("staged.txt", "user\n")
	r.git("add", "staged.txt")
	r.write(".planning/conversations/c-001.jsonl", "{}\n")
	before := r.userView()
	c := Committer{NoRootCommit: true}
	if err := c.Check(r.dir); !errors.Is(err, ErrNoCommits) {
		t.Errorf("Check before the first commit = %v, want ErrNoCommits", err)
	}
	if err := (Committer{}).Check(r.dir); err != nil {
		t.Errorf("Check without NoRootCommit = %v, want nil", err)
	}
	if err := c.Check(t.TempDir()); !errors.Is(err, ErrNoRepository) {
		t.Errorf("Check outside a repository = %v, want ErrNoRepository", err)
	}
	hash, err := c.CommitPaths(context.Background(), r.dir, recitePrefixes, "m", author)
	if !errors.Is(err, ErrNoCommits) {
		t.Fatalf("CommitPaths = %q, %v; want ErrNoCommits", hash, err)
	}
	if !strings.Contains(err.Error(), "main") {
		t.Errorf("error %q does not name the branch", err)
	}
	if r.head() != "" {
		t.Error("a commit was made")
	}
	if after := r.userView(); after != before {
		t.Errorf("user view changed:\nbefore %+v\nafter  %+v", before, after)
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".git", "index.lock")); err == nil {
		t.Error("index.lock left behind")
	}
	r.git("commit", "-q", "-m", "first")
	hash, err = c.CommitPaths(context.Background(), r.dir, recitePrefixes, "m", author)
	if err != nil || hash == "" {
		t.Fatalf("after the first commit: CommitPaths = %q, %v", hash, err)
	}
	if got := r.git("show", "--name-only", "--format=", "HEAD"); got != ".planning/conversations/c-001.jsonl\n" {
		t.Errorf("commit holds %q", got)
	}
	if err := c.Check(r.dir); err != nil {
		t.Errorf("Check on a branch with commits = %v, want nil", err)
	}
	r.git("checkout", "-q", "--detach")
	if err := c.Check(r.dir); !errors.Is(err, ErrDetachedHead) {
		t.Errorf("Check on a detached HEAD = %v, want ErrDetachedHead", err)
	}
}

// TestBeyondSymlink: with .planning a symbolic link to a folder elsewhere,
// git refuses to add files through it, and so does recite, before writing
// anything (committing them would replace the tracked link with a folder).
func TestBeyondSymlink(t *testing.T) {
	r := newRepo(t)
	r.write("README.md", "r\n")
	r.write("planning-real/conversations/c-001.jsonl", "{}\n")
	if err := os.Symlink("planning-real", filepath.Join(r.dir, ".planning")); err != nil {
		t.Fatal(err)
	}
	r.git("add", ".")
	r.git("commit", "-q", "-m", "base")
	r.write("planning-real/conversations/c-002.jsonl", "{}\n")
	headBefore := r.head()

	cmd := exec.Command("git", "add", ".planning/conversations/c-002.jsonl")
	cmd.Dir, cmd.Env = r.dir, r.env
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "beyond a symbolic link") {
		t.Fatalf("git add through the link: %v %s; the oracle changed", err, out)
	}
	if err := (Committer{}).Check(r.dir, recitePrefixes...); !errors.Is(err, ErrBeyondSymlink) {
		t.Errorf("Check = %v, want ErrBeyondSymlink", err)
	}
	hash, err := CommitPaths(context.Background(), r.dir, recitePrefixes, "m", author)
	if !errors.Is(err, ErrBeyondSymlink) {
		t.Fatalf("CommitPaths = %q, %v; want ErrBeyondSymlink", hash, err)
	}
	t.Logf("error: %v", err)
	if r.head() != headBefore {
		t.Error("HEAD moved")
	}
	if got := strings.Fields(r.git("ls-tree", "HEAD", "--", ".planning")); len(got) == 0 || got[0] != "120000" {
		t.Errorf(".planning in HEAD is %v, want the symbolic link", got)
	}
	if _, err := os.Stat(filepath.Join(r.dir, ".git", "index.lock")); err == nil {
		t.Error("index.lock left behind")
	}
}
