package engine

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recite-dev/recite/planning/conversation"
)

// Figures of TestManyClonesOneRemote: clones of one repository, the
// messages each appends to the shared conversation and to its own, and the
// seed of the order they go in.
const (
	clonesN        = 10
	clonesMessages = 100
	clonesSeed     = 15
)

// cloneState is one machine of TestManyClonesOneRemote: its work tree and
// the messages it has written so far.
type cloneState struct {
	n           int
	dir         string
	shared, own int
}

// TestManyClonesOneRemote is ten machines working through one bare remote
// with the real git binary: each clone appends clonesMessages messages to
// one shared conversation and as many to its own, in batches, and in a
// random (seeded) order of the clones and of `recite commit` (Engine.Commit),
// `git pull` (a merge, with the merge=union attribute `recite init`
// writes) and `git push` (a rejected push is followed by a pull and a push
// again, as a user would). At the end every clone holds the same history:
// 1,000 messages in the shared log and 100 in each clone's own, each
// exactly once (no line twice in the files, no id twice, no message lost),
// and no pull ever conflicted. See docs/architecture.md#concurrent-appends-and-merges.
func TestManyClonesOneRemote(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	t.Setenv("HOME", root)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(root, "gitconfig"))
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_DIR", "GIT_WORK_TREE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	ctx := context.Background()
	remote := filepath.Join(root, "remote.git")
	gitIn(t, root, "init", "-q", "--bare", "-b", "main", remote)
	seed := filepath.Join(root, "seed")
	if err := os.MkdirAll(filepath.Join(seed, PlanningDir), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, seed, "init", "-q", "-b", "main")
	gitIn(t, seed, "config", "user.name", "seed")
	gitIn(t, seed, "config", "user.email", "seed@example.com")
	if _, err := Init(seed, "gsd"); err != nil {
		t.Fatal(err)
	}
	createConversation(t, seed, "shared")
	gitIn(t, seed, "add", "-A")
	gitIn(t, seed, "commit", "-q", "-m", "seed")
	gitIn(t, seed, "push", "-q", remote, "main")

	clones := make([]*cloneState, clonesN)
	for i := range clones {
		c := &cloneState{n: i, dir: filepath.Join(root, fmt.Sprintf("clone%02d", i))}
		name := fmt.Sprintf("clone%02d", i)
		gitIn(t, root, "clone", "-q", "-c", "user.name="+name, "-c", "user.email="+name+"@example.com", "-c", "pull.rebase=false", remote, c.dir)
		createConversation(t, c.dir, c.ownID())
		clones[i] = c
	}
	var rejected, commits int
	rng := rand.New(rand.NewPCG(clonesSeed, clonesSeed))
	for left := 2 * clonesN * clonesMessages; left > 0; {
		c := clones[rng.IntN(clonesN)]
		switch op := rng.IntN(5); {
		case op < 3 && (c.shared < clonesMessages || c.own < clonesMessages):
			left -= c.appendBatch(t, ctx, rng)
			res, err := New(c.dir).Commit(ctx, CommitOptions{})
			if err != nil || res.Hash == "" {
				t.Fatalf("clone %d: recite commit = %+v, %v", c.n, res, err)
			}
			commits++
		case op == 3:
			c.pull(t)
		default:
			rejected += c.push(t)
		}
	}
	for _, c := range clones { // everyone publishes what is left
		rejected += c.push(t)
	}
	for _, c := range clones { // and takes what the others published
		c.pull(t)
	}
	merges := gitIn(t, remote, "rev-list", "--count", "--merges", "main")
	t.Logf("seed %d: %d commits, %s merges, %d rejected pushes", clonesSeed, commits, merges, rejected)
	if merges == "0" || rejected == 0 {
		t.Fatalf("%s merges, %d rejected pushes: the order never made two clones diverge, the test proves nothing", merges, rejected)
	}
	checkClones(t, remote, clones)
}

// ownID is the id of the clone's own conversation.
func (c *cloneState) ownID() string { return fmt.Sprintf("own-%02d", c.n) }

// appendBatch appends up to 40 messages to the shared conversation and up
// to 40 to the clone's own, interleaved at random, through the store recite
// writes with (Engine.OpenConversations: locked, redacted, stamped), and
// returns how many it wrote.
func (c *cloneState) appendBatch(t *testing.T, ctx context.Context, rng *rand.Rand) int {
	t.Helper()
	s, err := New(c.dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	ns := min(1+rng.IntN(40), clonesMessages-c.shared)
	no := min(1+rng.IntN(40), clonesMessages-c.own)
	wrote := 0
	for ns > 0 || no > 0 {
		id, k := "shared", &c.shared
		if ns == 0 || (no > 0 && rng.IntN(2) == 0) {
			id, k = c.ownID(), &c.own
			no--
		} else {
			ns--
		}
		*k++
		rec := conversation.Record{Role: RoleUser, Agent: fmt.Sprintf("clone%02d", c.n), Content: fmt.Sprintf("clone %d message %d to %s", c.n, *k, id)}
		if _, err := s.AppendStamped(ctx, id, rec); err != nil {
			t.Fatalf("clone %d: append to %s: %v", c.n, id, err)
		}
		wrote++
	}
	return wrote
}

// pull runs `git pull` (a merge when both sides moved) and fails the test
// on a conflict.
func (c *cloneState) pull(t *testing.T) {
	t.Helper()
	if out, err := gitRun(c.dir, "pull", "-q", "--no-edit", "origin", "main"); err != nil {
		unmerged, _ := gitRun(c.dir, "ls-files", "-u")
		t.Fatalf("clone %d: git pull: %v\n%s\nunmerged:\n%s", c.n, err, out, unmerged)
	}
}

// push runs `git push`; a push the remote rejects (it moved on) is
// followed by a pull and a second push, which must go through. It returns
// 1 when the first push was rejected.
func (c *cloneState) push(t *testing.T) int {
	t.Helper()
	if _, err := gitRun(c.dir, "push", "-q", "origin", "main"); err == nil {
		return 0
	}
	c.pull(t)
	if out, err := gitRun(c.dir, "push", "-q", "origin", "main"); err != nil {
		t.Fatalf("clone %d: git push after a pull: %v\n%s", c.n, err, out)
	}
	return 1
}

// checkClones checks that every clone is at the remote's commit with a
// clean work tree and holds every message exactly once.
func checkClones(t *testing.T, remote string, clones []*cloneState) {
	t.Helper()
	head := gitIn(t, remote, "rev-parse", "main")
	logs := []string{"shared"}
	for _, c := range clones {
		logs = append(logs, c.ownID())
	}
	var first map[string][]byte
	for _, c := range clones {
		if got := gitIn(t, c.dir, "rev-parse", "HEAD"); got != head {
			t.Errorf("clone %d: HEAD %s, the remote has %s", c.n, got, head)
		}
		if st := gitIn(t, c.dir, "status", "--porcelain", "--untracked-files=no"); st != "" {
			t.Errorf("clone %d: work tree not clean:\n%s", c.n, st)
		}
		s, err := New(c.dir).OpenConversations()
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, id := range logs {
			want := clonesMessages
			if id == "shared" {
				want = clonesN * clonesMessages
			}
			files[id] = checkLog(t, c, s, id, want)
		}
		if first == nil {
			first = files
			continue
		}
		for id, b := range files {
			if !bytes.Equal(b, first[id]) {
				t.Errorf("clone %d: %s.jsonl differs from clone 0's", c.n, id)
			}
		}
	}
}

// checkLog reads conversation id in clone c: want messages, each of the
// expected texts once, no line of the file twice, no id twice; it returns
// the file's bytes.
func checkLog(t *testing.T, c *cloneState, s *conversation.Store, id string, want int) []byte {
	t.Helper()
	p, err := s.Path(id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("clone %d: %v", c.n, err)
	}
	lines, ids := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if lines[sc.Text()] {
			t.Errorf("clone %d: %s: a line twice: %s", c.n, id, sc.Text())
		}
		lines[sc.Text()] = true
	}
	conv, diags, err := s.Read(id)
	if err != nil || len(diags) > 0 {
		t.Fatalf("clone %d: read %s: %v %v", c.n, id, err, diags)
	}
	var texts []string
	for _, m := range conv.Messages {
		if ids[m.ID] {
			t.Errorf("clone %d: %s: id %s twice", c.n, id, m.ID)
		}
		ids[m.ID] = true
		texts = append(texts, m.Content)
	}
	if len(lines) != want+1 { // the meta record of Create, then the messages
		t.Errorf("clone %d: %s.jsonl has %d lines, want %d", c.n, id, len(lines), want+1)
	}
	var expect []string
	for n := range clonesN {
		if id != "shared" && id != fmt.Sprintf("own-%02d", n) {
			continue
		}
		for k := 1; k <= clonesMessages; k++ {
			expect = append(expect, fmt.Sprintf("clone %d message %d to %s", n, k, id))
		}
	}
	slices.Sort(texts)
	slices.Sort(expect)
	if len(texts) != want || !slices.Equal(texts, expect) {
		t.Errorf("clone %d: %s holds %d messages, want the %d written, each once", c.n, id, len(texts), want)
	}
	return b
}

// createConversation creates conversation id in the project at dir.
func createConversation(t *testing.T, dir, id string) {
	t.Helper()
	s, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(context.Background(), id, conversation.Meta{Title: id}); err != nil {
		t.Fatal(err)
	}
}

// gitRun runs git in dir and returns its combined output.
func gitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// gitIn runs git in dir, fails the test on an error and returns its
// output without the final newline.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitRun(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSuffix(out, "\n")
}
