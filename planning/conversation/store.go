package conversation

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/markdown"
)

// ArchiveDir is the folder under the conversations folder that archived logs
// move to.
const ArchiveDir = "archive"

// DefaultLockDir returns where the sidecar lock files of the conversations
// folder dir live: .recite/locks beside it, i.e. .planning/.recite/locks,
// which is not in git (docs/formats.md#conversation-logs). Every process
// appending to dir must use the same folder.
func DefaultLockDir(dir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(dir)), ".recite", "locks")
}

// DefaultIndexDir returns where the sidecar indexes of the conversations
// folder dir live: .recite/index beside it, i.e. .planning/.recite/index,
// which is not in git (docs/formats.md#conversation-index).
func DefaultIndexDir(dir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(dir)), ".recite", "index")
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
	// IndexDir holds the sidecar index of each log (two files per
	// conversation, see Snapshot); Open sets it to DefaultIndexDir(Dir).
	IndexDir string
	// NoIndex makes readers index each log in memory from the whole file
	// instead of using and updating IndexDir (slow on long logs; for
	// read-only checkouts and for tests).
	NoIndex bool
	// Redact, when set, replaces the secrets of every record before it is
	// written (Create's meta record, every append; RedactRecord), after
	// its id and time are stamped, so the log — which git commits — never
	// holds one. RedactLog applies it to a log written before.
	Redact Redactor
	// RawDir, when set with Redact, keeps every record Redact changed as it
	// was, in RawDir/ID.jsonl (mode 0600, folder 0700; appended under the
	// conversation's lock before the log is written), for RawRecords. It
	// belongs in a folder git ignores.
	RawDir string
	// Records, when set, keeps the records this store's reads decode, for
	// every store that shares it (a process's readers; see RecordCache).
	Records *RecordCache

	// wrapLog, when set (tests), wraps the log file an append writes
	// through: a writer that fails after N bytes stands for a full disk.
	wrapLog func(fsutil.AppendFile) fsutil.AppendFile

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
		IndexDir: DefaultIndexDir(dir),
		Now:      time.Now,
		LockPoll: 2 * time.Millisecond,
		entropy:  ulid.Monotonic(rand.Reader, 0),
	}, nil
}

// Path returns the log path of conversation id, or an error wrapping
// [ErrInvalidID] when the id is invalid or the path would leave Dir, or
// [ErrLinkOutside] (naming the link and its target) when the log is a
// symbolic link whose target lies outside Dir.
func (s *Store) Path(id string) (string, error) {
	if err := ValidateID(id); err != nil {
		return "", err
	}
	name := id + ".jsonl"
	if !filepath.IsLocal(name) || filepath.Base(name) != name {
		return "", fmt.Errorf("%w %q: path leaves the conversations folder", ErrInvalidID, id)
	}
	p := filepath.Join(s.Dir, name)
	if err := linkInside(s.Dir, p); err != nil {
		return "", err
	}
	return p, nil
}

// linkInside returns nil unless p is a symbolic link whose target (after
// every link) is not inside dir (after its own links), or cannot be
// resolved: a dangling link is refused too, since appending to it would
// create its target wherever it points.
func linkInside(dir, p string) error {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, _ := os.Readlink(p)
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("%w: %s -> %s: %v", ErrLinkOutside, p, target, err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("%w: %s -> %s: %v", ErrLinkOutside, p, target, err)
	}
	if rel, err := filepath.Rel(realDir, real); err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%w: %s -> %s", ErrLinkOutside, p, real)
	}
	return nil
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

// errLockDir is wrapped when the lock folder cannot be created (a
// read-only checkout); readers then go without the lock and the index.
var errLockDir = errors.New("cannot create the lock folder")

// withLock runs fn holding the cross-process lock of conversation id (an
// advisory lock on LockDir/ID.lock, internal/fsutil.TryLock), waiting for
// it until ctx is done. Every writer of a log, and every reader that
// updates its index, takes it.
func (s *Store) withLock(ctx context.Context, id string, fn func() error) error {
	if err := ValidateID(id); err != nil {
		return err
	}
	dir := s.LockDir
	if dir == "" {
		dir = DefaultLockDir(s.Dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("lock %s: %w: %w", id, errLockDir, err)
	}
	poll := s.LockPoll
	if poll <= 0 {
		poll = 2 * time.Millisecond
	}
	unlock, ok, err := fsutil.TryLock(ctx, filepath.Join(dir, id+".lock"), poll)
	if err != nil {
		return fmt.Errorf("lock %s: %w", id, err)
	}
	if !ok {
		return fmt.Errorf("lock %s: not acquired", id)
	}
	defer func() { _ = unlock() }()
	return fn()
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
	return s.withLock(ctx, id, func() error {
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
		var raws []Record
		if raw := s.redact(&r); raw != nil {
			raws = append(raws, *raw)
		}
		err = s.keepRaw(id, raws)
		var b []byte
		if err == nil {
			b, err = encodeRecord(r)
		}
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
			// All or nothing: the log this call made goes (no other
			// writer has it: they take the same lock).
			_ = os.Remove(p)
			return fmt.Errorf("create %q: %w", id, err)
		}
		// A log of this id that existed before (deleted by hand) may have
		// left an index behind; it no longer matches.
		s.dropIndex(id)
		return nil
	})
}

// Append adds recs to conversation id, which must exist (else an error
// wrapping [ErrNotFound]). Missing ids become ULIDs, missing times come from
// the clock, and Conversation is set to id. All records go out in one Write
// on an O_APPEND descriptor under the conversation's lock, then the file is
// fsynced; when Append returns nil, the records are durable. The log is not
// read: the sidecar index is extended over the new records (its files are
// not fsynced; a lost update is redone by the next reader). recs are not
// modified.
func (s *Store) Append(ctx context.Context, id string, recs ...Record) error {
	_, err := s.appendRecords(ctx, id, recs, false, nil)
	return err
}

// AppendStamped is Append returning the records as written, in order: with
// their id, time, kind and conversation set (`conversation say` reports the
// new message's position with MessageNumber). On error it returns nil.
func (s *Store) AppendStamped(ctx context.Context, id string, recs ...Record) ([]Record, error) {
	var out []Record
	if _, err := s.appendRecords(ctx, id, recs, false, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// AppendNew is Append for records that may already be in the log (imports):
// records whose id is present in the conversation's own log, or repeated
// within recs, are skipped. It reads the whole log (streaming, holding only
// the ids) to know which are present. It returns how many records were
// appended.
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
	n := 0
	err = s.withLock(ctx, id, func() error {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("append to %q: %w", id, ErrNotFound)
			}
			return fmt.Errorf("append to %q: %w", id, err)
		}
		defer func() { _ = f.Close() }()
		buf, given, err := s.encodeAppend(f, id, recs, onlyNew, written)
		if err != nil || len(buf) == 0 {
			return err
		}
		if err := s.keepRaw(id, given.raws); err != nil {
			return err
		}
		var w fsutil.AppendFile = f
		if s.wrapLog != nil {
			w = s.wrapLog(f)
		}
		if err := fsutil.AppendAll(p, w, given.size, buf, s.NoSync); err != nil {
			if given.healed || !errors.Is(err, fsutil.ErrAppendUndone) {
				s.dropIndex(id)
			}
			return fmt.Errorf("append to %q: %w", id, err)
		}
		n = given.records
		if given.ids && !onlyNew || given.healed {
			// An id the caller chose may repeat one already in the log,
			// which only a full read can tell: the next reader rebuilds.
			s.dropIndex(id)
		} else if !s.NoIndex {
			if v, err := s.refreshIndex(id, p, f); err == nil {
				v.done() // f stays open for the deferred Close
			}
		}
		return nil
	})
	return n, err
}

// appendInfo says what encodeAppend encoded: how many records, whether
// any came with an id of the caller's, the records Redact changed as they
// were, the log's size before the append, and whether a torn tail was
// moved out of the log first (healTail).
type appendInfo struct {
	records int
	ids     bool
	raws    []Record
	size    int64
	healed  bool
}

// encodeAppend stamps and encodes recs for one Write to the log f: a
// leading newline when f ends in a torn line, then one line per record,
// skipping (when onlyNew) records whose id f already holds.
func (s *Store) encodeAppend(f *os.File, id string, recs []Record, onlyNew bool, written *[]Record) ([]byte, appendInfo, error) {
	var info appendInfo
	var present map[string]bool
	if onlyNew {
		var err error
		if present, err = logIDs(f); err != nil {
			return nil, info, fmt.Errorf("append to %q: %w", id, err)
		}
	}
	st, err := f.Stat()
	if err != nil {
		return nil, info, fmt.Errorf("append to %q: %w", id, err)
	}
	var buf bytes.Buffer
	info.size = st.Size()
	if info.size > 0 {
		size, torn, err := s.healTail(f, id, info.size)
		if err != nil {
			return nil, info, fmt.Errorf("append to %q: %w", id, err)
		}
		info.healed = size != info.size
		info.size = size
		if torn {
			buf.WriteByte('\n') // a whole record without its newline: end it
		}
	}
	for _, r := range recs {
		if r.ID != "" {
			if onlyNew && present[r.ID] {
				continue
			}
			if onlyNew {
				present[r.ID] = true
			}
			info.ids = true
		}
		if r.Kind == "" {
			r.Kind = KindMessage
		}
		if err := s.stamp(id, &r); err != nil {
			return nil, info, err
		}
		if raw := s.redact(&r); raw != nil {
			info.raws = append(info.raws, *raw)
		}
		b, err := encodeRecord(r)
		if err != nil {
			return nil, info, err
		}
		buf.Write(b)
		info.records++
		if written != nil {
			*written = append(*written, r)
		}
	}
	if info.records == 0 {
		return nil, info, nil
	}
	return buf.Bytes(), info, nil
}

// logIDs returns the ids of the valid records in the log f, reading it
// line by line.
func logIDs(f *os.File) (map[string]bool, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	_, err = scanLog(f, 0, st.Size(), 1, func(_, _ int64, _ int, r *Record, bad string) error {
		if bad == "" {
			ids[r.ID] = true
		}
		return nil
	})
	return ids, err
}

// RecordKeys returns, for each valid record of conversation id's own log,
// its identity in a source (PlaceKey): what an importer compares when a
// record's id is already taken, so a record of another file that happens
// to get the same id is told apart from the same record imported again.
// It reads the whole log, holding only the keys. Errors: an invalid id, a
// missing log (ErrNotFound), an unreadable file.
func (s *Store) RecordKeys(ctx context.Context, id string) (map[string]string, error) {
	p, err := s.existingPath(id)
	if err != nil {
		return nil, err
	}
	keys := map[string]string{}
	err = s.withLock(ctx, id, func() error {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		_, err = scanLog(f, 0, st.Size(), 1, func(_, _ int64, _ int, r *Record, bad string) error {
			if bad == "" {
				keys[r.ID] = PlaceKey(*r)
			}
			return nil
		})
		return err
	})
	return keys, err
}

// PlaceKey is a record's identity in its source, left unchanged by the
// store's redaction: its kind, role, event, tool call id and time.
func PlaceKey(r Record) string {
	kind := r.Kind
	if kind == "" {
		kind = KindMessage // as the store writes it
	}
	return fmt.Sprintf("%s|%s|%s|%s|%d", kind, r.Role, r.Event, r.ToolCallID, r.Time.UnixNano())
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
// fork does not hide the others. Each summary comes from the log's index
// (see Info), so listing costs what the indexes do, not what the logs
// hold. The error is for a Dir that cannot be listed.
func (s *Store) ListDiagnosed() ([]Summary, []markdown.Diagnostic, error) {
	infos, diags, err := s.Infos(context.Background())
	if err != nil {
		return nil, nil, err
	}
	var out []Summary
	for _, info := range infos {
		out = append(out, info.Summary)
	}
	return out, diags, nil
}

// Infos describes every conversation in Dir (not the archive), sorted by
// id, as ListDiagnosed lists them, with what the index knows of each
// (Info: its iteration records, records and size), so a caller that
// needs only some conversations' records can pick them first. The error
// is for a Dir that cannot be listed; a conversation that cannot be read
// is a diagnostic and left out.
func (s *Store) Infos(ctx context.Context) ([]Info, []markdown.Diagnostic, error) {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("list conversations: %w", err)
	}
	var out []Info
	var diags []markdown.Diagnostic
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() || ValidateID(id) != nil {
			continue
		}
		info, _, err := s.Info(ctx, id)
		if err != nil {
			diags = append(diags, markdown.Diagnostic{Path: filepath.Join(s.Dir, e.Name()), Message: fmt.Sprintf("conversation %q left out: %v", id, err)})
			continue
		}
		out = append(out, info)
	}
	return out, diags, nil
}

// Fork creates conversation newID as a branch of id after its first at
// messages: one meta record naming the parent and at, nothing copied. Read
// of the fork yields the parent's first at messages, then the fork's own.
// at must be within 0..len(parent messages).
func (s *Store) Fork(ctx context.Context, id string, at int, newID string) error {
	parent, _, err := s.Info(ctx, id)
	if err != nil {
		return fmt.Errorf("fork %q: %w", id, err)
	}
	if at < 0 || at > parent.Messages {
		return fmt.Errorf("fork %q at %d: out of range 0..%d", id, at, parent.Messages)
	}
	return s.Create(ctx, newID, Meta{
		AgentType: parent.Meta.AgentType, Epic: parent.Meta.Epic, Phase: parent.Meta.Phase,
		Parent: id, ForkAt: &at,
	})
}

// Archive moves conversation id's log to Dir/archive/. Read and Tail still
// find it there (its index stays valid); List does not.
func (s *Store) Archive(ctx context.Context, id string) error {
	p, err := s.Path(id)
	if err != nil {
		return err
	}
	return s.withLock(ctx, id, func() error {
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
	})
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
