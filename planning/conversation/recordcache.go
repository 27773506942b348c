package conversation

import (
	"os"
	"slices"
	"sync"
	"sync/atomic"
)

// RecordCache keeps the records a process decoded from conversation logs,
// so that every reader in it decodes each record once: the stores that
// share a RecordCache (Store.Records) share what they decoded. A build's
// health, history and error paths, a hook's recitation and status summary,
// read the same newest records of a log; with one RecordCache they read
// them in one pass.
//
// Records are kept per log file under the identity of what was read: the
// file itself (os.SameFile: a log replaced by a rename is another file)
// and the generation of its index (a rebuilt index is another), and each
// record by its line's offset and length and its id's check byte, the
// entry that points to it. An append keeps them (the lines it adds are
// new offsets); a rewrite drops them. At most RecordCacheBytes of lines are
// kept per log, as they are first read; records read past that are
// decoded each time. A RecordCache is safe for concurrent use; the zero
// value is not: use NewRecordCache.
type RecordCache struct {
	mu      sync.Mutex
	logs    map[string]*cachedLog
	decoded atomic.Int64
}

// RecordCacheBytes bounds the log lines a RecordCache keeps the records of,
// per log, in bytes (the newest parts a build and a hook read are a few
// MiB; see docs/formats.md#conversation-index).
const RecordCacheBytes = 32 << 20

// NewRecordCache returns an empty RecordCache.
func NewRecordCache() *RecordCache {
	return &RecordCache{logs: map[string]*cachedLog{}}
}

// Decoded counts the records decoded from log lines by the reads of the
// stores sharing c (those found in c are not counted): the cost of what
// was read, for tests and benchmarks. Building or extending an index is
// not counted.
func (c *RecordCache) Decoded() int64 {
	if c == nil {
		return 0
	}
	return c.decoded.Load()
}

// cachedLog is what a RecordCache holds of one log file.
type cachedLog struct {
	file  os.FileInfo
	gen   uint64
	bytes int64
	recs  map[int64]cachedRecord
}

// cachedRecord is one decoded record and the entry it was read for.
type cachedRecord struct {
	n     int64
	check byte
	r     Record
}

// logRecords returns the cache of the log of v (path, file, index
// generation), emptied when the file or the generation changed; nil when
// c is nil or v has no on-disk index (a log indexed in memory is read
// afresh each time).
func (c *RecordCache) logRecords(v *logView) *cachedLog {
	if c == nil || v.file == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	l := c.logs[v.path]
	if l == nil || l.gen != v.hdr.Gen || !os.SameFile(l.file, v.file) {
		l = &cachedLog{file: v.file, gen: v.hdr.Gen, recs: map[int64]cachedRecord{}}
		c.logs[v.path] = l
	}
	return l
}

// get returns the record of e from l, a copy the caller owns.
func (c *RecordCache) get(l *cachedLog, e ordEntry) (Record, bool) {
	c.mu.Lock()
	cr, ok := l.recs[e.Off]
	c.mu.Unlock()
	if !ok || cr.n != e.Len || cr.check != e.Check {
		return Record{}, false
	}
	return cloneRecord(cr.r), true
}

// put keeps r, the record of e, in l while l holds less than
// RecordCacheBytes of lines.
func (c *RecordCache) put(l *cachedLog, e ordEntry, r *Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := l.recs[e.Off]; ok || l.bytes+e.Len > RecordCacheBytes {
		return
	}
	l.recs[e.Off] = cachedRecord{n: e.Len, check: e.Check, r: cloneRecord(*r)}
	l.bytes += e.Len
}

// cloneRecord is a copy of r that shares no slice or pointer with it.
func cloneRecord(r Record) Record {
	r.ToolCalls = slices.Clone(r.ToolCalls)
	r.FilesModified = slices.Clone(r.FilesModified)
	for _, p := range []**int{&r.ExitCode, &r.OutputLines} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	if r.Confidence != nil {
		v := *r.Confidence
		r.Confidence = &v
	}
	if r.TestsPassing != nil {
		v := *r.TestsPassing
		r.TestsPassing = &v
	}
	if r.Meta != nil {
		m := *r.Meta
		m.Deliverables, m.Tags = slices.Clone(m.Deliverables), slices.Clone(m.Tags)
		if m.ForkAt != nil {
			v := *m.ForkAt
			m.ForkAt = &v
		}
		r.Meta = &m
	}
	return r
}

// decode returns the record of e, read through lr: from l (the view's
// records in its store's RecordCache, nil for none) when it holds it, else
// decoded (and counted, and kept in l).
func (v *logView) decode(lr *lineReader, l *cachedLog, e ordEntry) (Record, error) {
	if l != nil {
		if r, ok := v.memo.get(l, e); ok {
			return r, nil
		}
	}
	r, err := lr.record(e)
	if err != nil {
		return r, err
	}
	if v.memo != nil {
		v.memo.decoded.Add(1)
		if l != nil {
			v.memo.put(l, e, &r)
		}
	}
	return r, nil
}
