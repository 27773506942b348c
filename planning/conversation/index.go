package conversation

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"
)

// The sidecar index of a conversation log lives in IndexDir (by default
// .planning/.recite/index, not in git) as two files per conversation,
// named by its id and shared by the log in Dir and in the archive (docs/formats.md#conversation-index):
//
//   - ID.idx, the header: one line "recite-conversation-index 2 crc32c=XXXXXXXX"
//     (the Castagnoli CRC of the rest of the file, in hex), then one JSON
//     object, [indexHeader]. It describes the prefix [0, size) of the log
//     the index covers: its length, its newline count, the SHA-256 of its
//     first and last 4 KiB, the counts, the newest key, the merged Meta,
//     the torn lines, and the ledger of the newest records that may hold a
//     stop signal or an error.
//   - ID.ord, the read order: a 16-byte preamble ("RCXO", version 2 as a
//     little-endian uint32, the header's generation as a little-endian
//     uint64), then one 16-byte entry per record in read order (duplicate
//     ids dropped, sorted by (timestamp, id)), see [ordEntry].
//
// Both are caches: written without fsync, never trusted (the header's CRC
// and version, the preamble's generation, the log's size and hashes, and
// every entry's line boundaries and kind are checked before use), and
// rebuilt from the log whenever a check fails.

// indexVersion is the version of both index files. Version 2 added the
// entry flags, the prompt count and the ledger (ledger.go); a version 1
// index is rebuilt.
const indexVersion = 2

// indexMagic starts the header file.
const indexMagic = "recite-conversation-index"

// ordMagic starts the read-order file.
const ordMagic = "RCXO"

// ordPreamble and ordEntrySize are the sizes in bytes of the read-order
// file's preamble and of one entry.
const (
	ordPreamble  = 16
	ordEntrySize = 16
)

// hashWindow is how many bytes at each end of the indexed prefix the
// header's hashes cover.
const hashWindow = 4 << 10

// maxTorn is how many torn lines the header lists; more are counted.
const maxTorn = 32

// maxLineLen is the longest line an entry can describe (its length is a
// uint32).
const maxLineLen = 1<<32 - 1

// maxOffset is the first offset an entry cannot hold (48 bits).
const maxOffset = 1 << 48

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// indexHeader describes the indexed prefix of a log and what it holds.
type indexHeader struct {
	Version int `json:"v"`
	// Gen ties the header to its read-order file; a rebuild draws a new one.
	Gen uint64 `json:"gen"`
	// Size is the length in bytes of the indexed prefix of the log.
	Size int64 `json:"size"`
	// Lines is the number of newline bytes in the prefix: a torn line
	// found later than Size is line Lines+1 or after.
	Lines int `json:"lines"`
	// Head and Tail are the hex SHA-256 of the prefix's first and last
	// min(Size, 4096) bytes.
	Head string `json:"head"`
	Tail string `json:"tail"`
	// Entries, Messages and Iterations count the records in read order
	// (duplicates dropped) and among them the messages and iterations.
	Entries    int `json:"entries"`
	Messages   int `json:"messages"`
	Iterations int `json:"iterations"`
	// MaxTime and MaxID are the key of the last record in read order; a
	// record appended later with a smaller or equal key makes the log
	// unsorted and forces a rebuild.
	MaxTime time.Time `json:"max_ts,omitzero"`
	MaxID   string    `json:"max_id,omitempty"`
	// Activity is the newest timestamp of a message or iteration, Newest
	// that of any record.
	Activity time.Time `json:"activity,omitzero"`
	Newest   time.Time `json:"newest,omitzero"`
	// Meta is the merged metadata of the meta records, in read order.
	Meta Meta `json:"meta"`
	// Torn lists the first maxTorn lines that are not records; TornCount
	// counts them all.
	Torn      []tornLine `json:"torn,omitempty"`
	TornCount int        `json:"torn_count,omitempty"`
	// Prompts counts the messages flagged flagPrompt.
	Prompts int `json:"prompts,omitempty"`
	// StopRefs and ErrorRefs are the ledger: the read-order positions of
	// the newest maxLedger entries flagged flagStop and flagError,
	// ascending.
	StopRefs  []int `json:"stop_refs,omitempty"`
	ErrorRefs []int `json:"error_refs,omitempty"`
}

// tornLine is one line of the log that is not a valid record.
type tornLine struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// encodeIndexHeader formats h as the header file's bytes.
func encodeIndexHeader(h *indexHeader) ([]byte, error) {
	body, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode index header: %w", err)
	}
	body = append(body, '\n')
	out := fmt.Appendf(nil, "%s %d crc32c=%08x\n", indexMagic, indexVersion, crc32.Checksum(body, castagnoli))
	return append(out, body...), nil
}

// errBadIndex is wrapped by every error that means "rebuild the index".
var errBadIndex = errors.New("conversation index unusable")

// decodeIndexHeader parses the header file's bytes, checking the magic,
// version and CRC and that the fields are in range. Every error wraps
// errBadIndex.
func decodeIndexHeader(data []byte) (*indexHeader, error) {
	first, body, ok := bytes.Cut(data, []byte{'\n'})
	if !ok {
		return nil, fmt.Errorf("%w: no header line", errBadIndex)
	}
	var ver int
	var sum uint32
	if n, err := fmt.Sscanf(string(first), indexMagic+" %d crc32c=%08x", &ver, &sum); n != 2 || err != nil {
		return nil, fmt.Errorf("%w: header line %q", errBadIndex, first)
	}
	if ver != indexVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", errBadIndex, ver, indexVersion)
	}
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return nil, fmt.Errorf("%w: checksum %08x, want %08x", errBadIndex, got, sum)
	}
	var h indexHeader
	if err := json.Unmarshal(body, &h); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadIndex, err)
	}
	switch {
	case h.Version != indexVersion:
		return nil, fmt.Errorf("%w: body version %d", errBadIndex, h.Version)
	case h.Size < 0 || h.Size >= maxOffset || h.Lines < 0 || int64(h.Lines) > h.Size:
		return nil, fmt.Errorf("%w: size %d, lines %d", errBadIndex, h.Size, h.Lines)
	case h.Entries < 0 || h.Messages < 0 || h.Iterations < 0 || h.Messages+h.Iterations > h.Entries || int64(h.Entries) > h.Size:
		return nil, fmt.Errorf("%w: %d entries, %d messages, %d iterations", errBadIndex, h.Entries, h.Messages, h.Iterations)
	case len(h.Head) != 64 || len(h.Tail) != 64:
		return nil, fmt.Errorf("%w: hashes", errBadIndex)
	case h.TornCount < len(h.Torn) || len(h.Torn) > maxTorn:
		return nil, fmt.Errorf("%w: torn lines", errBadIndex)
	}
	if err := h.checkLedger(); err != nil {
		return nil, err
	}
	return &h, nil
}

// ordEntry is one record of the read order: where its line is in the log,
// how many messages come before it in read order, its kind and flags. On
// disk it is 16 bytes, little-endian: the offset in 6 bytes, the line's
// length without its newline in 4, the message rank in 4, the kind in the
// low 4 bits of 1 (1 message, 2 iteration, 3 meta) with the flags in the
// high ones (ledger.go), and the low byte of the CRC-32C of the record's
// id, checked when the record is read.
type ordEntry struct {
	Off   int64
	Len   int64
	Rank  int // messages before this record in read order
	Kind  Kind
	Flags byte // flagPrompt, flagStop, flagError
	Check byte // idCheck of the record's id
}

// idCheck is the check byte of an entry for a record with id id.
func idCheck(id string) byte {
	return byte(crc32.Update(0, castagnoli, []byte(id)))
}

var kindCodes = map[Kind]byte{KindMessage: 1, KindIteration: 2, KindMeta: 3}

func kindOfCode(c byte) (Kind, bool) {
	switch c {
	case 1:
		return KindMessage, true
	case 2:
		return KindIteration, true
	case 3:
		return KindMeta, true
	}
	return "", false
}

// putOrdEntry writes e into b[:ordEntrySize].
func putOrdEntry(b []byte, e ordEntry) {
	var off [8]byte
	binary.LittleEndian.PutUint64(off[:], uint64(e.Off))
	copy(b[0:6], off[:6])
	binary.LittleEndian.PutUint32(b[6:10], uint32(e.Len))
	binary.LittleEndian.PutUint32(b[10:14], uint32(e.Rank))
	b[14] = kindCodes[e.Kind] | e.Flags&flagBits
	b[15] = e.Check
}

// decodeOrdEntries parses the entries in b (a multiple of ordEntrySize
// bytes) into out. It checks each kind and that each line lies inside the
// first size bytes of the log; errors wrap errBadIndex.
func decodeOrdEntries(b []byte, size int64, out []ordEntry) ([]ordEntry, error) {
	if len(b)%ordEntrySize != 0 {
		return out, fmt.Errorf("%w: %d bytes of entries", errBadIndex, len(b))
	}
	for ; len(b) > 0; b = b[ordEntrySize:] {
		var off [8]byte
		copy(off[:6], b[0:6])
		e := ordEntry{
			Off:  int64(binary.LittleEndian.Uint64(off[:])),
			Len:  int64(binary.LittleEndian.Uint32(b[6:10])),
			Rank: int(binary.LittleEndian.Uint32(b[10:14])),
		}
		k, ok := kindOfCode(b[14] & kindBits)
		e.Flags, e.Check = b[14]&^kindBits, b[15]
		if !ok || e.Flags&^flagBits != 0 || e.Flags != 0 && k != KindMessage || e.Len == 0 || e.Off+e.Len > size {
			return out, fmt.Errorf("%w: entry at %d", errBadIndex, e.Off)
		}
		e.Kind = k
		out = append(out, e)
	}
	return out, nil
}

// ordPreambleBytes returns the read-order file's preamble for gen.
func ordPreambleBytes(gen uint64) []byte {
	b := make([]byte, ordPreamble)
	copy(b, ordMagic)
	binary.LittleEndian.PutUint32(b[4:8], indexVersion)
	binary.LittleEndian.PutUint64(b[8:16], gen)
	return b
}

// checkOrdPreamble reports whether b is the preamble for gen.
func checkOrdPreamble(b []byte, gen uint64) error {
	if len(b) < ordPreamble || !bytes.Equal(b[:ordPreamble], ordPreambleBytes(gen)) {
		return fmt.Errorf("%w: read-order file of another generation", errBadIndex)
	}
	return nil
}

// indexFiles returns the header and read-order paths of conversation id.
func (s *Store) indexFiles(id string) (hdr, ord string) {
	dir := s.IndexDir
	if dir == "" {
		dir = DefaultIndexDir(s.Dir)
	}
	return filepath.Join(dir, id+".idx"), filepath.Join(dir, id+".ord")
}

// loadIndexHeader reads and decodes the header file at path.
func loadIndexHeader(path string) (*indexHeader, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadIndex, err)
	}
	return decodeIndexHeader(data)
}

// writeInPlace overwrites path with data where it stands, without fsync:
// the index files are caches, rebuilt when lost, and only writers holding
// the conversation's lock write or read them. A write torn by a crash
// leaves a header whose CRC fails, so the next reader rebuilds. (A
// temporary file renamed over path costs a directory update, which on
// ext4 is most of the cost of an append.)
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		var st os.FileInfo
		if st, err = f.Stat(); err == nil && st.Size() > int64(len(data)) {
			err = f.Truncate(int64(len(data)))
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readOrdEntries reads entries [from, to) of the read-order file ord.
func readOrdEntries(ord io.ReaderAt, size int64, from, to int, out []ordEntry) ([]ordEntry, error) {
	if from >= to {
		return out, nil
	}
	b := make([]byte, (to-from)*ordEntrySize)
	if _, err := ord.ReadAt(b, ordPreamble+int64(from)*ordEntrySize); err != nil {
		return out, fmt.Errorf("%w: read entries %d..%d: %v", errBadIndex, from, to, err)
	}
	return decodeOrdEntries(b, size, out)
}
