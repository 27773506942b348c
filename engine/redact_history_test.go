package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/internal/gitstore/gittest"
	"github.com/recite-dev/recite/engine/signals"
)

// The secrets of these tests: a Stripe key (enginetest.TestSecret), a
// GitHub token and an AWS key id, each found by the real rules.
const (
	ghToken = "ghp_k3Yq8xWb2NvR7pLm4TzH9cJd6FsA1uE5oQiG"
	awsKey  = "AKIAZ7VQ4XMN3RBTWQJL"
)

var placeholderRe = regexp.MustCompile(`⟨secret:[a-z0-9-]+:[0-9a-f]{8}⟩`)

// noSecretIn fails when the file at p holds one of the test secrets, and
// returns its content.
func noSecretIn(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{enginetest.TestSecret, ghToken, awsKey} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("%s holds %s:\n%s", p, s, b)
		}
	}
	return string(b)
}

// TestEveryLogWriterRedacts: the records `conversation say`, `conversation
// run` (the user's text, the agent's failure and its iteration record),
// and the three importers write hold placeholders,
// never the secrets; with conversations.keep_raw the raw records are kept
// beside them (mode 0600) and ReadRaw shows them, while Read shows the
// placeholders.
func TestEveryLogWriterRedacts(t *testing.T) {
	ctx := context.Background()
	yaml := "agent:\n  command: \"cat >/dev/null; echo token " + ghToken + " >&2; exit 3\"\nconversations:\n  keep_raw: true\n"
	dir := enginetest.Project(t, yaml, nil)
	enginetest.WriteTestRedactKey(t, dir)
	e := New(dir)
	cs, err := e.Conversations()
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Create(ctx, "dev", ConversationMeta{Title: "keys " + awsKey}); err != nil {
		t.Fatal(err)
	}
	said, err := cs.Say(ctx, SayOptions{ID: "dev", Role: RoleUser, Text: "use " + enginetest.TestSecret + " for payments"})
	if err != nil {
		t.Fatal(err)
	}
	if !placeholderRe.MatchString(said.Record.Content) {
		t.Errorf("Say returned %q", said.Record.Content)
	}
	var ae *AgentError
	if _, err := cs.Run(ctx, RunOptions{ID: "dev", Text: "deploy with " + awsKey}); !errors.As(err, &ae) {
		t.Fatalf("Run = %v, want the agent's failure", err)
	}
	imports := map[string]string{
		ImportClaudeCode: `{"type":"user","uuid":"u1","timestamp":"2026-02-12T03:40:18Z","message":{"role":"user","content":"my token is ` + ghToken + `"}}` + "\n",
		ImportAider:      "# aider chat started at 2026-01-05 10:00:00\n\n#### set the key " + enginetest.TestSecret + "\n\n> ok\n",
		ImportCodex:      `{"timestamp":"2026-03-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"key ` + awsKey + `"}]}}` + "\n",
	}
	for format, text := range imports {
		p := filepath.Join(t.TempDir(), "session-"+format+".jsonl")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := e.Import(ctx, ImportOptions{Format: format, Path: p, ID: "imp-" + format})
		if err != nil || res.Appended == 0 {
			t.Fatalf("import %s = %+v, %v", format, res, err)
		}
	}
	// The MCP record tool writes through the same store
	// (engine/mcp: TestRecordWritesConversation).
	for _, id := range []string{"dev", "imp-claude-code", "imp-aider", "imp-codex"} {
		log := noSecretIn(t, filepath.Join(dir, filepath.FromSlash(ConversationLog(id))))
		if !placeholderRe.MatchString(log) {
			t.Errorf("%s has no placeholder:\n%s", id, log)
		}
		raw := filepath.Join(dir, filepath.FromSlash(RawDir), id+".jsonl")
		fi, err := os.Stat(raw)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("raw store of %s: %v, %v", id, fi, err)
		}
	}
	c, _, err := cs.Read("dev")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.Meta.Title, awsKey) || !placeholderRe.MatchString(c.Messages[0].Content) {
		t.Errorf("Read: title %q, first message %q", c.Meta.Title, c.Messages[0].Content)
	}
	rc, _, n, err := cs.ReadRaw("dev")
	if err != nil || n != 4 { // the meta record, say, and run's text and failure
		t.Fatalf("ReadRaw: %d raw records, %v", n, err)
	}
	if !strings.Contains(rc.Messages[0].Content, enginetest.TestSecret) || !strings.Contains(rc.Meta.Title, awsKey) {
		t.Errorf("ReadRaw: title %q, first message %q", rc.Meta.Title, rc.Messages[0].Content)
	}
	if gi, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(CacheDir), ".gitignore")); err != nil || !strings.Contains(string(gi), "*") {
		t.Errorf("the cache folder's .gitignore: %q, %v", gi, err)
	}
}

// TestRunErrorHashOfRedactedText: the iteration record of a failed run
// carries the hash of the error as the log keeps it, so the hash of a
// secret is never committed.
func TestRunErrorHashOfRedactedText(t *testing.T) {
	ctx := context.Background()
	dir := enginetest.Project(t, "agent:\n  command: \"cat >/dev/null; echo key "+ghToken+" >&2; exit 1\"\n", nil)
	enginetest.WriteTestRedactKey(t, dir)
	e := New(dir)
	cs, _ := e.Conversations()
	if err := cs.Create(ctx, "c", ConversationMeta{}); err != nil {
		t.Fatal(err)
	}
	_, _ = cs.Run(ctx, RunOptions{ID: "c", Text: "go"})
	c, _, err := cs.Read("c")
	if err != nil || len(c.Iterations) != 1 {
		t.Fatalf("iterations %v, %v", c.Iterations, err)
	}
	it := c.Iterations[0]
	if strings.Contains(it.Content, ghToken) || it.ErrorHash == "" {
		t.Fatalf("iteration record %+v", it)
	}
	if got := signals.Hash(it.Content); got != it.ErrorHash {
		t.Errorf("error hash %s, want the hash of the redacted text %s", it.ErrorHash, got)
	}
}

// TestCommitRefusesSecrets: a log written before redaction (raw, by
// hand) makes Commit refuse with every finding as path:line: kind, and
// nothing is committed; AllowSecrets commits it and reports the findings;
// RedactHistory migrates it (and context-preserved.md), after which the
// commit goes through; a second RedactHistory replaces nothing.
func TestCommitRefusesSecrets(t *testing.T) {
	ctx := context.Background()
	dir := enginetest.CopyTree(t, enginetest.Example("gsd"))
	gittest.CommitAll(t, dir)
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	logRel := ConversationLog("old")
	rec := func(id, content string) string {
		return `{"id":"` + id + `","conversation":"old","kind":"message","ts":"2026-01-01T00:00:0` + id + `Z","role":"user","content":"` + content + `"}` + "\n"
	}
	// The torn last line is never committed (docs/formats.md#torn-records),
	// so its secret is no finding.
	old := rec("1", "plain") + rec("2", "token "+ghToken) + rec("3", "ok") + "{torn " + awsKey + "\n"
	if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(ConversationsDir)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(logRel)), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(PreservedFile)), []byte("# Preserved\n\nError: key "+enginetest.TestSecret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, head := gittest.HeadCommit(t, dir)
	e := New(dir)
	_, err := e.Commit(ctx, CommitOptions{})
	var se *SecretsError
	if !errors.As(err, &se) {
		t.Fatalf("Commit = %v, want a *SecretsError", err)
	}
	want := []string{PreservedFile + ":3: stripe-access-token", logRel + ":2: github-pat"}
	var got []string
	for _, f := range se.Findings {
		got = append(got, f.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, now := gittest.HeadCommit(t, dir); now.Hash != head.Hash {
		t.Error("a commit was made")
	}
	rep, err := e.RedactHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Replaced() != 3 || len(rep.Files) != 2 {
		t.Errorf("RedactHistory = %+v, want 3 values in 2 files", rep)
	}
	noSecretIn(t, filepath.Join(dir, filepath.FromSlash(logRel)))
	noSecretIn(t, filepath.Join(dir, filepath.FromSlash(PreservedFile)))
	res, err := e.Commit(ctx, CommitOptions{})
	if err != nil || res.Hash == "" {
		t.Fatalf("Commit after the migration = %+v, %v", res, err)
	}
	if rep, err := e.RedactHistory(ctx); err != nil || len(rep.Files) != 0 {
		t.Errorf("second RedactHistory = %+v, %v", rep, err)
	}
	// A secret added by hand again (the torn line first moved out of the
	// log): --allow-secrets commits it.
	p := filepath.Join(dir, filepath.FromSlash(logRel))
	b, _ := os.ReadFile(p)
	b = b[:bytes.LastIndex(b[:len(b)-1], []byte("\n"))+1]
	if err := os.WriteFile(p, append(b, rec("5", "again "+ghToken)...), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = e.Commit(ctx, CommitOptions{AllowSecrets: true})
	if err != nil || res.Hash == "" || len(res.Secrets) != 1 || res.Secrets[0].String() != logRel+":4: github-pat" {
		t.Errorf("Commit with AllowSecrets = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("{torn")) {
		t.Errorf("the torn line is still in the log:\n%s", b)
	}
}

// TestCommitOnlyHistoryFiles: under the conversations folder only the
// logs are committed (a .gitignore or notes beside them are the user's),
// and an untracked log that .powerignore or .gitignore excludes is left
// out and listed in Ignored; a tracked one is committed, as git does.
func TestCommitOnlyHistoryFiles(t *testing.T) {
	ctx := context.Background()
	dir := enginetest.CopyTree(t, enginetest.Example("gsd"))
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ConversationsDir+"/tracked.jsonl", "{\"id\":\"1\"}\n")
	gittest.CommitAll(t, dir)
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	write(".powerignore", ".planning/conversations/private-*\n.planning/conversations/tracked.jsonl\n")
	write(ConversationsDir+"/.gitignore", "scratch.jsonl\n")
	write(ConversationsDir+"/notes.md", "mine\n")
	write(ConversationsDir+"/scratch.jsonl", "{\"id\":\"2\"}\n")
	write(ConversationsDir+"/private-x.jsonl", "{\"id\":\"3\"}\n")
	write(ConversationsDir+"/archive/old.jsonl", "{\"id\":\"4\"}\n")
	write(ConversationsDir+"/new.jsonl", "{\"id\":\"5\"}\n")
	write(ConversationsDir+"/tracked.jsonl", "{\"id\":\"1\"}\n{\"id\":\"6\"}\n")
	res, err := New(dir).Commit(ctx, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, c := gittest.HeadCommit(t, dir)
	tree, _ := c.Tree()
	var files []string
	_ = tree.Files().ForEach(func(f *object.File) error {
		if strings.HasPrefix(f.Name, ConversationsDir) {
			files = append(files, f.Name)
		}
		return nil
	})
	wantFiles := []string{ConversationsDir + "/archive/old.jsonl", ConversationsDir + "/new.jsonl", ConversationsDir + "/tracked.jsonl"}
	if strings.Join(files, " ") != strings.Join(wantFiles, " ") {
		t.Errorf("committed %q, want %q", files, wantFiles)
	}
	if wantIgnored := []string{ConversationsDir + "/private-x.jsonl", ConversationsDir + "/scratch.jsonl"}; strings.Join(res.Ignored, " ") != strings.Join(wantIgnored, " ") {
		t.Errorf("Ignored = %q, want %q", res.Ignored, wantIgnored)
	}
}
