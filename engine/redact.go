package engine

import (
	"context"
	"path/filepath"

	"github.com/recite-dev/recite/engine/secrets"
	"github.com/recite-dev/recite/planning/conversation"
)

// RedactKeyFile holds the project's placeholder key (secrets.KeyFile,
// docs/formats.md#secrets-in-committed-files): 64 hex digits and a
// newline, mode 0600, made the first time a prompt is redacted and kept
// out of git. Deleting the file changes every placeholder once.
const RedactKeyFile = secrets.KeyFile

// RawDir keeps the raw form of the records whose secrets were replaced
// when recite.yaml sets conversations.keep_raw: RawDir/ID.jsonl, mode
// 0600, inside the cache folder git ignores (secrets.RawDir).
const RawDir = secrets.RawDir

// SecretFinding is one secret in a file about to be committed: path,
// 1-based line and kind (secrets.Finding).
type SecretFinding = secrets.Finding

// SecretsError is Commit's refusal to commit files that hold secrets:
// every finding, in path and line order (secrets.Error).
type SecretsError = secrets.Error

// RedactFile is what RedactHistory did to one file (secrets.File).
type RedactFile = secrets.File

// RedactReport is the outcome of RedactHistory: the files it changed, in
// path order; never nil (secrets.Report).
type RedactReport = secrets.Report

// OpenConversations opens the conversation store of the project. Every
// record it writes has its secrets replaced by placeholders first (the
// redaction of prompts, with the project's key), since the logs are
// committed; with conversations.keep_raw the records as they were go to
// RawDir (secrets.Redactor.Wire, docs/formats.md#secrets-in-committed-files).
func (e *Engine) OpenConversations() (*conversation.Store, error) {
	s, err := conversation.Open(filepath.Join(e.dir, filepath.FromSlash(ConversationsDir)))
	if err != nil {
		return nil, err
	}
	s.Records = e.records
	if err := e.redactor.Wire(s); err != nil {
		return nil, err
	}
	return s, nil
}

// RedactHistory replaces the secrets already in the conversation logs
// (the archive included) and in context-preserved.md with their
// placeholders (`recite redact`, secrets.Redactor.Migrate): each file
// rewritten in place, atomically, under the lock its writers take; files
// without secrets are not written, so a second run changes nothing.
// Errors: *InputError without a .planning folder; the first failure to
// read or write a file.
func (e *Engine) RedactHistory(ctx context.Context) (*RedactReport, error) {
	if _, err := e.planningDir(); err != nil {
		return nil, err
	}
	if err := e.redactor.Init(); err != nil {
		return nil, err
	}
	store, err := e.OpenConversations()
	if err != nil {
		return nil, err
	}
	return e.redactor.Migrate(ctx, store)
}

// Redact returns text with every secret replaced by the project's stable
// placeholder, as prompts and conversation logs write it (no path rules;
// secrets.Redactor.Text). Front ends call it on text they are about to
// record.
func (e *Engine) Redact(text string) string { return e.redactor.Text("", text) }
