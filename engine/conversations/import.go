package conversations

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning/conversation"
)

// The transcript formats Import reads (docs/formats.md#conversation-logs).
const (
	// ImportClaudeCode is a Claude Code session transcript (JSONL).
	ImportClaudeCode = conversation.FormatClaudeCode
	// ImportAider is an aider chat history (.aider.chat.history.md).
	ImportAider = conversation.FormatAider
	// ImportCodex is a Codex CLI session file (rollout JSONL,
	// conversation.ImportCodex).
	ImportCodex = conversation.FormatCodex
)

// ImportOptions are the inputs of Import.
type ImportOptions struct {
	// Format is ImportClaudeCode, ImportAider or ImportCodex.
	Format string
	// Path is the transcript file (relative to the working directory, as
	// the user named it).
	Path string
	// ID is the conversation to import into; empty derives one from Path
	// (conversation.ImportID).
	ID string
}

// ImportResult is the outcome of Import.
type ImportResult struct {
	// Conversation is the conversation imported into; Created is true when
	// Import created it.
	Conversation string `json:"conversation"`
	Created      bool   `json:"created"`
	// Appended records were new; Present were in the log already (records
	// keep ids derived from the source, so a second import adds nothing).
	Appended int `json:"appended"`
	Present  int `json:"already_present"`
	// Renamed records had an id the log already gives another record
	// (two transcripts of one session number their lines alike): they were
	// imported under the id + "~" + a hash of their place in the source,
	// so nothing is dropped and importing the file again adds nothing.
	Renamed int `json:"renamed,omitempty"`
	// Report accounts for the transcript's entries; its diagnostics name
	// opts.Path.
	Report conversation.Report `json:"report"`
}

// placeRecords gives every record of recs whose id the log of conversation
// id already holds for another record (conversation.PlaceKey differs) the
// id + "~" + a hash of its key, and returns how many it renamed.
func placeRecords(ctx context.Context, store *conversation.Store, id string, recs []conversation.Record) (int, error) {
	keys, err := store.RecordKeys(ctx, id)
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range recs {
		k, taken := keys[recs[i].ID]
		own := conversation.PlaceKey(recs[i])
		if !taken || k == own || recs[i].Time.IsZero() {
			continue
		}
		sum := sha256.Sum256([]byte(own))
		recs[i].ID += "~" + hex.EncodeToString(sum[:4])
		n++
	}
	return n, nil
}

// Import turns the transcript at opts.Path into records and appends the
// new ones to a conversation of h's project, creating it (agent type: the
// format; title: the file's base name) when needed. The transcript is read
// before the project is touched, its bytes reported through h.Progress.
// Errors (*InputError unless said otherwise): an invalid id, an unreadable
// file, a file not in the format (nothing created), a project without a
// .planning folder; a transcript that fails mid-read (plain error naming
// the file); failures to write the log.
func Import(ctx context.Context, h Host, opts ImportOptions) (*ImportResult, error) {
	read, ok := conversation.Importer(opts.Format)
	if !ok {
		return nil, &InputError{Err: fmt.Errorf("import %q: want %s, %s or %s", opts.Format, ImportClaudeCode, ImportAider, ImportCodex)}
	}
	id := opts.ID
	if id == "" {
		id = conversation.ImportID(opts.Path, opts.Format)
	}
	if err := conversation.ValidateID(id); err != nil {
		return nil, &InputError{Err: err}
	}
	recs, rep, err := readTranscript(h, opts, read)
	if err != nil {
		return nil, err
	}
	cs, err := New(h)
	if err != nil {
		return nil, err
	}
	res := &ImportResult{Conversation: id, Report: rep}
	err = cs.store.Create(ctx, id, conversation.Meta{AgentType: opts.Format, Title: filepath.Base(opts.Path)})
	switch {
	case err == nil:
		res.Created = true
	case errors.Is(err, conversation.ErrExists):
	default:
		return nil, inputError(err)
	}
	if !res.Created {
		if res.Renamed, err = placeRecords(ctx, cs.store, id, recs); err != nil {
			return nil, inputError(err)
		}
	}
	n, err := cs.store.AppendNew(ctx, id, recs...)
	if err != nil {
		return nil, inputError(err)
	}
	res.Appended, res.Present = n, len(recs)-n
	if res.Renamed > 0 {
		res.Report.Diagnostics = append(res.Report.Diagnostics, markdown.Diagnostic{Message: fmt.Sprintf(
			"%d records had ids the conversation's log already gives other records (another transcript of the same session?): imported under ids ending in ~HASH, not dropped", res.Renamed)})
	}
	for i := range res.Report.Diagnostics {
		res.Report.Diagnostics[i].Path = opts.Path
	}
	return res, nil
}

// readTranscript opens and reads opts.Path with read, the bytes read
// reported through h.Progress.
func readTranscript(h Host, opts ImportOptions, read func(io.Reader) ([]Record, conversation.Report, error)) ([]Record, conversation.Report, error) {
	f, err := os.Open(opts.Path)
	if err != nil {
		return nil, conversation.Report{}, &InputError{Err: fmt.Errorf("import %s: %w", opts.Format, err)}
	}
	defer func() { _ = f.Close() }()
	var r io.Reader = f
	if st, err := f.Stat(); err == nil {
		r = h.Progress(f, "reading "+filepath.Base(opts.Path), st.Size())
	}
	recs, rep, err := read(r)
	var fe *conversation.FormatError
	if errors.As(err, &fe) {
		// The wrong importer: nothing is created.
		return nil, rep, &InputError{Err: fmt.Errorf("%s %w", opts.Path, err)}
	}
	if err != nil {
		return nil, rep, fmt.Errorf("%s: %w", opts.Path, err)
	}
	return recs, rep, nil
}
