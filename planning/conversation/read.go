package conversation

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/recite-dev/recite/markdown"
)

// Read reads conversation id (from Dir, or from the archive) in read order:
// duplicates dropped, sorted by (timestamp, id). For a fork the parent's
// first ForkAt messages come first, following parents recursively. Torn or
// malformed lines come back as diagnostics naming file and line; the error
// is for a missing log ([ErrNotFound]), an invalid id, an unreadable file,
// or a fork cycle.
//
// Read holds every record in memory and parses the whole log: it is the
// reference the indexed readers (Snapshot, Window, Tail, Info) are tested
// against, and what a caller uses that needs all of a conversation at
// once. Callers that need its newest part use Window; callers that go
// through all of it once use Snapshot.Records.
func (s *Store) Read(id string) (*Conversation, []markdown.Diagnostic, error) {
	return s.read(id, nil)
}

func (s *Store) read(id string, chain []string) (*Conversation, []markdown.Diagnostic, error) {
	if slices.Contains(chain, id) || len(chain) > maxForkDepth {
		return nil, nil, fmt.Errorf("read %q: fork chain %s loops or is too deep", id, strings.Join(append(chain, id), " → "))
	}
	p, err := s.existingPath(id)
	if err != nil {
		return nil, nil, err
	}
	recs, diags, err := readLog(p)
	if err != nil {
		return nil, nil, fmt.Errorf("read %q: %w", id, err)
	}
	recs = Normalize(recs)
	c := build(id, recs, nil)
	if c.Meta.Parent == "" {
		return c, diags, nil
	}
	parent, pdiags, err := s.read(c.Meta.Parent, append(chain, id))
	if err != nil {
		return nil, nil, fmt.Errorf("read fork %q: %w", id, err)
	}
	return build(id, recs, inherit(parent.Messages, c.Meta.ForkAt)), append(pdiags, diags...), nil
}

// readLog parses the log at path line by line as ParseLog does, without
// holding the file's bytes.
func readLog(path string) ([]Record, []markdown.Diagnostic, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	var recs []Record
	var diags []markdown.Diagnostic
	_, err = scanLog(f, 0, st.Size(), 1, func(_, _ int64, line int, r *Record, bad string) error {
		if bad != "" {
			diags = append(diags, markdown.Diagnostic{Path: path, Line: line, Message: bad})
		} else {
			recs = append(recs, *r)
		}
		return nil
	})
	return recs, diags, err
}

func inherit(msgs []Record, at *int) []Record {
	n := len(msgs)
	if at != nil && *at >= 0 && *at < n {
		n = *at
	}
	return slices.Clone(msgs[:n])
}
