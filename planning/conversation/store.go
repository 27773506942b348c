package conversation

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/oklog/ulid/v2"

	"github.com/recite-dev/recite/markdown"
)

// ArchiveDir is the folder under the conversations folder that archived logs
// move to.
const ArchiveDir = "archive"

// DefaultLockDir returns where the sidecar lock files of the conversations
// folder dir live: .recite/locks beside it, i.e. .planning/.recite/locks,
// which is not in git (DESIGN.md §2). Every process appending to dir must
// use the same folder.
func DefaultLockDir(dir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(dir)), ".recite", "locks")
}

// maxForkDepth bounds how many parents a fork chain may have.
const maxForkDepth = 64

// Store is the folder of conversation logs, .planning/conversations. Build it
// with [Open]. A Store is safe for concurrent use by several goroutines, and
// several processes may append to the same logs at once.
type Store struct {
	// Dir is the conversations folder.
	Dir string
	// Now is the clock stamped on records that have no time; tests set it.
	// Open sets it to time.Now.
	Now func() time.Time
	// NoSync skips the fsync after each append. Only benchmarks set it: it
	// gives up durability on power loss.
	NoSync bool
	// LockDir holds one empty lock file per conversation; Open sets it to
	// DefaultLockDir(Dir).
	LockDir string
	// LockPoll is how often a blocked append retries the lock; Open sets it
	// to 2 ms.
	LockPoll time.Duration

	mu      sync.Mutex
	last    time.Time
	entropy *ulid.MonotonicEntropy
}

// Open returns the store for the conversations folder dir, creating the
// folder if needed.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open conversations %s: %w", dir, err)
	}
	return &Store{
		Dir:      dir,
		LockDir:  DefaultLockDir(dir),
		Now:      time.Now,
		LockPoll: 2 * time.Millisecond,
		entropy:  ulid.Monotonic(rand.Reader, 0),
	}, nil
}

// Path returns the log path of conversation id, or an error wrapping
// [ErrInvalidID] when the id is invalid or the path would leave Dir.
func (s *Store) Path(id string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	name := id + ".jsonl"
	if !filepath.IsLocal(name) || filepath.Base(name) != name {
		return "", fmt.Errorf("%w %q: path leaves the conversations folder", ErrInvalidID, id)
	}
	return filepath.Join(s.Dir, name), nil
}

// existingPath returns the path of id's log, looking in the archive when it
// is not in Dir, or an error wrapping ErrNotFound.
func (s *Store) existingPath(id string) (string, error) {
	p, err := s.Path(id)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	a := filepath.Join(s.Dir, ArchiveDir, filepath.Base(p))
	if _, err := os.Stat(a); err == nil {
		return a, nil
	}
	return "", fmt.Errorf("%w: %q", ErrNotFound, id)
}

// lock takes the cross-process lock of conversation id, waiting until ctx is
// done.
func (s *Store) lock(ctx context.Context, id string) (*flock.Flock, error) {
	dir := s.LockDir
	if dir == "" {
		dir = DefaultLockDir(s.Dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", id, err)
	}
	fl := flock.New(filepath.Join(dir, id+".lock"))
	poll := s.LockPoll
	if poll <= 0 {
		poll = 2 * time.Millisecond
	}
	ok, err := fl.TryLockContext(ctx, poll)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", id, err)
	}
	if !ok {
		return nil, fmt.Errorf("lock %s: not acquired", id)
	}
	return fl, nil
}

// stamp fills the id, conversation and time of r. Times from the clock are
// made strictly increasing within this Store so records appended together
// keep their order under (timestamp, id) even with a coarse or fixed clock.
func (s *Store) stamp(id string, r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Conversation = id
	if r.Time.IsZero() {
		now := time.Now
		if s.Now != nil {
			now = s.Now
		}
		t := now().UTC()
		if !t.After(s.last) {
			t = s.last.Add(time.Nanosecond)
		}
		s.last = t
		r.Time = t
	}
	if r.ID == "" {
		if s.entropy == nil {
			s.entropy = ulid.Monotonic(rand.Reader, 0)
		}
		u, err := ulid.New(ulid.Timestamp(r.Time), s.entropy)
		if err != nil {
			return fmt.Errorf("new record id: %w", err)
		}
		r.ID = u.String()
	}
	return nil
}

// Create starts conversation id with one meta record carrying meta. It
// returns an error wrapping [ErrExists] if the conversation exists (also
// when archived), or [ErrInvalidID].
func (s *Store) Create(ctx context.Context, id string, meta Meta) error {
	p, err := s.Path(id)
	if err != nil {
		return err
	}
	fl, err := s.lock(ctx, id)
	if err != nil {
		return err
	}
	defer func() { _ = fl.Unlock() }()
	if _, err := s.existingPath(id); err == nil {
		return fmt.Errorf("create %q: %w", id, ErrExists)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %q: %w", id, ErrExists)
		}
		return fmt.Errorf("create %q: %w", id, err)
	}
	m := meta
	r := Record{Kind: KindMeta, Meta: &m}
	if err := s.stamp(id, &r); err != nil {
		_ = f.Close()
		return err
	}
	b, err := encodeRecord(r)
	if err == nil {
		_, err = f.Write(b)
	}
	if err == nil && !s.NoSync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("create %q: %w", id, err)
	}
	return nil
}

// Append adds recs to conversation id, which must exist (else an error
// wrapping [ErrNotFound]). Missing ids become ULIDs, missing times come from
// the clock, and Conversation is set to id. All records go out in one Write
// on an O_APPEND descriptor under the conversation's lock, then the file is
// fsynced (TRAPS.md B4); when Append returns nil, the records are durable.
// recs are not modified.
func (s *Store) Append(ctx context.Context, id string, recs ...Record) error {
	_, err := s.appendRecords(ctx, id, recs, false, nil)
	return err
}

// AppendStamped is Append returning the records as written, in order: with
// their id, time, kind and conversation set (`conversation say` reports the
// new message's position from its id). On error it returns nil.
func (s *Store) AppendStamped(ctx context.Context, id string, recs ...Record) ([]Record, error) {
	var out []Record
	if _, err := s.appendRecords(ctx, id, recs, false, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// AppendNew is Append for records that may already be in the log (imports):
// records whose id is present in the conversation's own log, or repeated
// within recs, are skipped. It returns how many records were appended.
func (s *Store) AppendNew(ctx context.Context, id string, recs ...Record) (int, error) {
	return s.appendRecords(ctx, id, recs, true, nil)
}

// appendRecords appends recs (see Append and AppendNew); when written is
// not nil, the stamped records are appended to it.
func (s *Store) appendRecords(ctx context.Context, id string, recs []Record, onlyNew bool, written *[]Record) (int, error) {
	p, err := s.Path(id)
	if err != nil {
		return 0, err
	}
	if len(recs) == 0 {
		return 0, nil
	}
	fl, err := s.lock(ctx, id)
	if err != nil {
		return 0, err
	}
	defer func() { _ = fl.Unlock() }()

	f, err := os.OpenFile(p, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("append to %q: %w", id, ErrNotFound)
		}
		return 0, fmt.Errorf("append to %q: %w", id, err)
	}
	defer func() { _ = f.Close() }()

	var present map[string]bool
	if onlyNew {
		data, err := io.ReadAll(f)
		if err != nil {
			return 0, fmt.Errorf("append to %q: %w", id, err)
		}
		old, _ := ParseLog(p, data)
		present = make(map[string]bool, len(old)+len(recs))
		for _, r := range old {
			present[r.ID] = true
		}
	}

	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("append to %q: %w", id, err)
	}
	var buf bytes.Buffer
	if size := st.Size(); size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return 0, fmt.Errorf("append to %q: %w", id, err)
		}
		if last[0] != '\n' {
			buf.WriteByte('\n') // torn tail: start on a new line
		}
	}
	n := 0
	for _, r := range recs {
		if onlyNew && r.ID != "" {
			if present[r.ID] {
				continue
			}
			present[r.ID] = true
		}
		if r.Kind == "" {
			r.Kind = KindMessage
		}
		if err := s.stamp(id, &r); err != nil {
			return 0, err
		}
		b, err := encodeRecord(r)
		if err != nil {
			return 0, err
		}
		buf.Write(b)
		n++
		if written != nil {
			*written = append(*written, r)
		}
	}
	if n == 0 {
		return 0, nil
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return 0, fmt.Errorf("append to %q: %w", id, err)
	}
	if !s.NoSync {
		if err := f.Sync(); err != nil {
			return 0, fmt.Errorf("append to %q: sync: %w", id, err)
		}
	}
	return n, nil
}

// Read reads conversation id (from Dir, or from the archive) in read order:
// duplicates dropped, sorted by (timestamp, id). For a fork the parent's
// first ForkAt messages come first, following parents recursively. Torn or
// malformed lines come back as diagnostics naming file and line; the error
// is for a missing log ([ErrNotFound]), an invalid id, an unreadable file,
// or a fork cycle.
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
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, nil, fmt.Errorf("read %q: %w", id, err)
	}
	recs, diags := ParseLog(p, data)
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

func inherit(msgs []Record, at *int) []Record {
	n := len(msgs)
	if at != nil && *at >= 0 && *at < n {
		n = *at
	}
	return slices.Clone(msgs[:n])
}

// tailBlock is the size of the blocks Tail reads backwards.
const tailBlock = 64 << 10

// Tail returns the last n messages of conversation id in read order,
// reading the log backwards in 64 KiB blocks from its end, so its cost
// depends on n and the message sizes, not on the length of the log. A fork
// with fewer than n own messages takes the rest from its parent. Malformed
// lines are skipped silently (Read reports them). Tail assumes the log's
// tail is roughly in time order, as appends and union merges leave it: a
// record further back than the last n messages with a later timestamp is not
// seen.
func (s *Store) Tail(id string, n int) ([]Record, error) {
	if n <= 0 {
		return nil, nil
	}
	p, err := s.existingPath(id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("tail %q: %w", id, err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("tail %q: %w", id, err)
	}
	seen := map[string]bool{}
	var msgs []Record
	take := func(line []byte) {
		if len(bytes.TrimSpace(line)) == 0 {
			return
		}
		r, bad := parseLine(bytes.TrimSuffix(line, []byte{'\r'}))
		if bad != "" || r.Kind != KindMessage || seen[r.ID] {
			return
		}
		seen[r.ID] = true
		msgs = append(msgs, r)
	}
	pos := st.Size()
	var carry []byte
	for pos > 0 && len(msgs) < n {
		size := int64(tailBlock)
		if pos < size {
			size = pos
		}
		pos -= size
		data := make([]byte, size, int(size)+len(carry))
		if _, err := f.ReadAt(data, pos); err != nil {
			return nil, fmt.Errorf("tail %q: %w", id, err)
		}
		data = append(data, carry...)
		carry = nil
		if pos > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				carry = data
				continue
			}
			carry, data = data[:i], data[i+1:]
		}
		for len(data) > 0 && len(msgs) < n {
			i := bytes.LastIndexByte(data, '\n')
			take(data[i+1:])
			if i < 0 {
				break
			}
			data = data[:i]
		}
	}
	slices.SortFunc(msgs, compareRecords)
	if len(msgs) > n {
		msgs = msgs[len(msgs)-n:]
	}
	if len(msgs) < n {
		head, err := readHeadMeta(f)
		if err != nil {
			return nil, fmt.Errorf("tail %q: %w", id, err)
		}
		if head.Parent != "" {
			parent, _, err := s.read(head.Parent, []string{id})
			if err != nil {
				return nil, fmt.Errorf("tail fork %q: %w", id, err)
			}
			inh := inherit(parent.Messages, head.ForkAt)
			if k := n - len(msgs); len(inh) > k {
				inh = inh[len(inh)-k:]
			}
			msgs = append(inh, msgs...)
		}
	}
	return msgs, nil
}

// readHeadMeta merges the meta records at the start of a log (the ones
// Create and Fork write), stopping at the first other record.
func readHeadMeta(f *os.File) (Meta, error) {
	var m Meta
	br := bufio.NewReader(io.NewSectionReader(f, 0, 1<<62))
	for i := 0; i < 16; i++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			r, bad := parseLine(bytes.TrimSpace(line))
			if bad == "" {
				if r.Kind != KindMeta {
					break
				}
				if r.Meta != nil {
					mergeMeta(&m, *r.Meta)
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return m, err
		}
	}
	return m, nil
}

// Summary describes one conversation for listing.
type Summary struct {
	ID           string    `json:"id"`
	AgentType    string    `json:"agent_type,omitempty"`
	Title        string    `json:"title,omitempty"`
	Parent       string    `json:"parent,omitempty"`
	Messages     int       `json:"messages"`
	LastActivity time.Time `json:"last_activity"`
}

// List summarises every conversation in Dir (not the archive), sorted by id.
// Files whose name is not a valid id are ignored, and a conversation that
// cannot be read (a fork whose parent is gone) is left out: ListDiagnosed
// reports it.
func (s *Store) List() ([]Summary, error) {
	out, _, err := s.ListDiagnosed()
	return out, err
}

// ListDiagnosed is List with a diagnostic for each conversation it left out
// because it cannot be read (its log's path and the reason), so one broken
// fork does not hide the others. The error is for a Dir that cannot be
// listed.
func (s *Store) ListDiagnosed() ([]Summary, []markdown.Diagnostic, error) {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("list conversations: %w", err)
	}
	var out []Summary
	var diags []markdown.Diagnostic
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() || ValidateID(id) != nil {
			continue
		}
		c, _, err := s.Read(id)
		if err != nil {
			diags = append(diags, markdown.Diagnostic{Path: filepath.Join(s.Dir, e.Name()), Message: fmt.Sprintf("conversation %q left out: %v", id, err)})
			continue
		}
		out = append(out, Summary{
			ID: id, AgentType: c.Meta.AgentType, Title: c.Meta.Title, Parent: c.Meta.Parent,
			Messages: len(c.Messages), LastActivity: c.LastActivity,
		})
	}
	return out, diags, nil
}

// Fork creates conversation newID as a branch of id after its first at
// messages: one meta record naming the parent and at, nothing copied. Read
// of the fork yields the parent's first at messages, then the fork's own.
// at must be within 0..len(parent messages).
func (s *Store) Fork(ctx context.Context, id string, at int, newID string) error {
	parent, _, err := s.Read(id)
	if err != nil {
		return fmt.Errorf("fork %q: %w", id, err)
	}
	if at < 0 || at > len(parent.Messages) {
		return fmt.Errorf("fork %q at %d: out of range 0..%d", id, at, len(parent.Messages))
	}
	return s.Create(ctx, newID, Meta{
		AgentType: parent.Meta.AgentType, Epic: parent.Meta.Epic, Phase: parent.Meta.Phase,
		Parent: id, ForkAt: &at,
	})
}

// Archive moves conversation id's log to Dir/archive/. Read and Tail still
// find it there; List does not.
func (s *Store) Archive(ctx context.Context, id string) error {
	p, err := s.Path(id)
	if err != nil {
		return err
	}
	fl, err := s.lock(ctx, id)
	if err != nil {
		return err
	}
	defer func() { _ = fl.Unlock() }()
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("archive %q: %w", id, ErrNotFound)
	}
	dir := filepath.Join(s.Dir, ArchiveDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("archive %q: %w", id, err)
	}
	dst := filepath.Join(dir, filepath.Base(p))
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("archive %q: %w in the archive", id, ErrExists)
	}
	if err := os.Rename(p, dst); err != nil {
		return fmt.Errorf("archive %q: %w", id, err)
	}
	return nil
}

// ArchiveOlderThan archives every listed conversation whose last activity
// is more than d before now, and returns their ids in order.
func (s *Store) ArchiveOlderThan(ctx context.Context, d time.Duration, now time.Time) ([]string, error) {
	list, err := s.List()
	if err != nil {
		return nil, err
	}
	var done []string
	for _, c := range list {
		if now.Sub(c.LastActivity) <= d {
			continue
		}
		if err := s.Archive(ctx, c.ID); err != nil {
			return done, err
		}
		done = append(done, c.ID)
	}
	return done, nil
}
