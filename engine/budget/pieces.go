package budget

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"

	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/tiktoken-go/tokenizer"
)

// The pre-tokenizer patterns of the two encodings: BPE runs on each match
// ("piece") of the pattern independently, so a text's count is the sum of
// its pieces' counts, and a piece's count depends on the piece alone.
// Copied exactly from tiktoken-go/tokenizer's codec/o200k_base.go and
// codec/cl100k_base.go, which take them from OpenAI tiktoken's
// tiktoken_ext/openai_public.py. The codec package (imported through
// tokenizer) registers a generated matcher for each exact string, which
// regexp2.MustCompile then returns; TestPiecePatternsAreTheCodecs checks
// the strings against the codecs'.
const (
	o200kPattern  = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

var (
	o200kSplit  = sync.OnceValue(func() *regexp2.Regexp { return regexp2.MustCompile(o200kPattern, regexp2.None) })
	cl100kSplit = sync.OnceValue(func() *regexp2.Regexp { return regexp2.MustCompile(cl100kPattern, regexp2.None) })
)

// The piece-count cache sits under the text cache: when a text's hash is
// not cached (a section changed), the text is split into pieces, and when
// every piece's count is known the count is their sum, without building
// the codec. A counter without an on-disk cache (no CacheDir, or NoCache)
// does not split: its pieces would start empty in every process, and once
// its codec is built the split costs about what it saves.
//
// On disk it is one file per encoding in Options.CacheDir,
// token-pieces-ENCODING.bin (docs/formats.md#token-count-cache):
//
//	magic "RTKP", version (uint16), length of the encoding's name (uint16),
//	the name, the number of pieces (uint32), the length in bytes of their
//	text (uint32), then per piece, in the pieces' byte order, the end of
//	its text (uint32) and its count in tokens (uint16), then the pieces'
//	text (the pieces concatenated), and last the CRC-32C (Castagnoli) of
//	everything before it.
//
// Integers are little-endian. The pieces are sorted and unique, so a
// lookup is a binary search over the loaded bytes and loading builds no
// map. A file that fails any check (a torn write, a flipped bit, another
// version or encoding, pieces out of order, a count of zero or more tokens
// than bytes) is ignored and replaced at the next Save, never trusted. It
// holds at most maxPieces pieces and maxPieceText bytes of piece text
// (under 1.5 MB), the pieces this process used first; a piece longer than
// maxPieceLen bytes is not cached, so a text holding one is tokenised.

// pieceMagic and pieceVersion start the piece file.
const (
	pieceMagic   = "RTKP"
	pieceVersion = 1
)

// Bounds of the piece cache: pieces in the file, bytes of piece text in
// the file, and the length in bytes of a piece worth caching (its count,
// at most one token per byte, then fits the file's uint16). A norish-sized
// project's planning files hold about 25,000 distinct pieces of 7 bytes on
// average.
const (
	maxPieces    = 1 << 16
	maxPieceText = 1 << 20
	maxPieceLen  = 1 << 10
)

// pieceIndexSize is the size in bytes of one piece's index entry.
const pieceIndexSize = 4 + 2

// pieceCache is a Counter's piece counts; Counter.mu guards it.
type pieceCache struct {
	loaded bool
	file   pieceTable     // read from CacheDir on the first text-cache miss
	used   []uint64       // bit i: this process used file's piece i
	added  map[string]int // pieces counted by this process that file lacks
	fresh  int            // pieces added since the last Save
}

// pieceTable is a piece file's pieces as loaded, looked up by binary search.
type pieceTable struct {
	index []byte // per piece: the end of its text in text, and its count
	text  string // the pieces, concatenated in byte order
}

type pieceEntry struct {
	piece string
	count int
}

func (t *pieceTable) len() int { return len(t.index) / pieceIndexSize }

func (t *pieceTable) end(i int) int {
	return int(binary.LittleEndian.Uint32(t.index[i*pieceIndexSize:]))
}

// piece returns the i-th piece.
func (t *pieceTable) piece(i int) string {
	start := 0
	if i > 0 {
		start = t.end(i - 1)
	}
	return t.text[start:t.end(i)]
}

// count returns the i-th piece's count in tokens.
func (t *pieceTable) count(i int) int {
	return int(binary.LittleEndian.Uint16(t.index[i*pieceIndexSize+4:]))
}

// find returns the index of piece p and whether the table holds it.
func (t *pieceTable) find(p string) (int, bool) {
	n := t.len()
	i := sort.Search(n, func(i int) bool { return t.piece(i) >= p })
	return i, i < n && t.piece(i) == p
}

// encodePieces formats pieces (sorted, unique, each of 1 to maxPieceLen
// bytes with a count of 1 to its length) for encoding as the piece file's
// bytes.
func encodePieces(encoding string, pieces []pieceEntry) []byte {
	textLen := 0
	for _, e := range pieces {
		textLen += len(e.piece)
	}
	b := make([]byte, 0, 16+len(encoding)+len(pieces)*pieceIndexSize+textLen+4)
	b = append(b, pieceMagic...)
	b = binary.LittleEndian.AppendUint16(b, pieceVersion)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(encoding)))
	b = append(b, encoding...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(pieces)))
	b = binary.LittleEndian.AppendUint32(b, uint32(textLen))
	end := 0
	for _, e := range pieces {
		end += len(e.piece)
		b = binary.LittleEndian.AppendUint32(b, uint32(end))
		b = binary.LittleEndian.AppendUint16(b, uint16(e.count))
	}
	for _, e := range pieces {
		b = append(b, e.piece...)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodePieces parses a piece file written for encoding. Every error wraps
// errBadCache.
func decodePieces(encoding string, data []byte) (pieceTable, error) {
	var t pieceTable
	if len(data) < 4+2+2+4+4+4 {
		return t, fmt.Errorf("%w: piece file of %d bytes", errBadCache, len(data))
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return t, fmt.Errorf("%w: piece file checksum", errBadCache)
	}
	if !bytes.HasPrefix(body, []byte(pieceMagic)) {
		return t, fmt.Errorf("%w: piece file magic", errBadCache)
	}
	b := body[4:]
	if v := binary.LittleEndian.Uint16(b); v != pieceVersion {
		return t, fmt.Errorf("%w: piece file version %d", errBadCache, v)
	}
	n := int(binary.LittleEndian.Uint16(b[2:]))
	b = b[4:]
	if len(b) < n+8 || string(b[:n]) != encoding {
		return t, fmt.Errorf("%w: piece file not for %s", errBadCache, encoding)
	}
	b = b[n:]
	count, textLen := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	b = b[8:]
	if count > maxPieces || textLen > maxPieceText || uint64(len(b)) != uint64(count)*pieceIndexSize+uint64(textLen) {
		return t, fmt.Errorf("%w: %d pieces of %d bytes in %d bytes", errBadCache, count, textLen, len(b))
	}
	index, text := b[:count*pieceIndexSize], b[count*pieceIndexSize:]
	var prev []byte
	start := 0
	for i := range int(count) {
		end := int(binary.LittleEndian.Uint32(index[i*pieceIndexSize:]))
		tokens := int(binary.LittleEndian.Uint16(index[i*pieceIndexSize+4:]))
		if end <= start || end > len(text) || end-start > maxPieceLen {
			return t, fmt.Errorf("%w: piece %d ends at %d", errBadCache, i, end)
		}
		p := text[start:end]
		if tokens == 0 || tokens > len(p) {
			return t, fmt.Errorf("%w: piece %d of %d bytes counts %d tokens", errBadCache, i, len(p), tokens)
		}
		if i > 0 && bytes.Compare(prev, p) >= 0 {
			return t, fmt.Errorf("%w: piece %d out of order", errBadCache, i)
		}
		if !utf8.Valid(p) {
			return t, fmt.Errorf("%w: piece %d is not UTF-8", errBadCache, i)
		}
		prev, start = p, end
	}
	if start != len(text) {
		return t, fmt.Errorf("%w: %d bytes of piece text after the last piece", errBadCache, len(text)-start)
	}
	return pieceTable{index: index, text: string(text)}, nil
}

// entries returns the table's pieces in order.
func (t *pieceTable) entries() []pieceEntry {
	out := make([]pieceEntry, t.len())
	for i := range out {
		out[i] = pieceEntry{t.piece(i), t.count(i)}
	}
	return out
}

// piecePath is the piece file of the counter's encoding, "" when the
// counter has no on-disk cache (and so does not count by pieces).
func (c *Counter) piecePath() string {
	if c.opts.CacheDir == "" || c.opts.NoCache {
		return ""
	}
	return filepath.Join(c.opts.CacheDir, "token-pieces-"+c.name+".bin")
}

// readPieceFile returns the pieces of the piece file at path, none when it
// is missing or unusable.
func readPieceFile(encoding, path string) pieceTable {
	data, err := os.ReadFile(path)
	if err != nil {
		return pieceTable{}
	}
	t, err := decodePieces(encoding, data)
	if err != nil {
		return pieceTable{}
	}
	return t
}

// splitPieces returns the pieces of s, valid UTF-8: the matches of the
// encoding's pre-tokenizer pattern, as substrings of s. The codec takes
// each match's String(), the same bytes when s is valid UTF-8; the byte
// ranges of FindAllStringIndex save a Match and a string per piece. It
// errors only when the matcher does (it has no time limit).
func (c *Counter) splitPieces(s string) ([]string, error) {
	re := o200kSplit
	if c.name == Cl100kBase {
		re = cl100kSplit
	}
	ranges, err := re().FindAllStringIndex(s, -1)
	if err != nil {
		return nil, err
	}
	pieces := make([]string, len(ranges))
	for i, r := range ranges {
		pieces[i] = s[r[0]:r[1]]
	}
	return pieces, nil
}

// countPieces counts s, valid UTF-8, from the piece cache when it holds
// every piece of s; else it encodes the pieces the cache lacks, each on
// its own (or s whole, when they are more than a quarter of its pieces),
// and stores their counts. It reports false when s must be
// counted by codec.Count instead (the split or the codec failed).
//
// A piece's count in s is its count alone: the codec splits a text into
// the same pieces by the same pattern and merges bytes within each piece
// only (docs/providers.md#token-counting). The pattern looks ahead at
// white space, so a piece cut out of s could split differently on its
// own; a piece that does is not counted alone, and s is encoded whole
// instead, its tokens attributed to its pieces.
func (c *Counter) countPieces(s string) (int, bool) {
	pieces, err := c.splitPieces(s)
	if err != nil {
		return 0, false
	}
	n, missing := c.lookupPieces(pieces)
	if len(missing) == 0 {
		return n, true
	}
	// A few new pieces among known ones (an edit): counted with the rank
	// table. Mostly new text (a cold count) is encoded by the codec, as
	// below, which costs less per piece once built.
	if len(missing) <= maxRankedMissing && len(missing)*4 <= len(pieces) && !c.opts.noRanks {
		if m, ok := c.countRanked(pieces, missing); ok {
			return n + m, true
		}
	}
	codec, err := c.loadCodec()
	if err != nil {
		return 0, false
	}
	if len(missing)*4 > len(pieces) {
		// Mostly new text (a cold count): one encoding of the whole
		// costs less than one per piece.
		return c.countWhole(codec, s, pieces)
	}
	alone := make([]string, 0, len(missing))
	counts := make([]int, 0, len(missing))
	seen := make(map[string]int, len(missing))
	for _, i := range missing {
		p := pieces[i]
		if m, ok := seen[p]; ok {
			n += m
			continue
		}
		sub, err := c.splitPieces(p)
		if err != nil || len(sub) != 1 {
			return c.countWhole(codec, s, pieces)
		}
		_, tokens, err := codec.Encode(p)
		if err != nil {
			return c.countWhole(codec, s, pieces)
		}
		seen[p] = len(tokens)
		alone, counts = append(alone, p), append(counts, len(tokens))
		n += len(tokens)
	}
	c.storePieces(alone, counts)
	return n, true
}

// maxRankedMissing is how many pieces a text may lack in the piece cache
// for them to be counted with the encoding's rank table (ranks.go), at a
// few microseconds each (when they are at most a quarter of its pieces);
// more build the codec, whose vocabulary costs as much as a few thousand
// of them but which then counts faster.
const maxRankedMissing = 1024

// countRanked counts the missing pieces of pieces with the encoding's
// rank table, without the codec, and stores their counts; ok is false
// (nothing stored) when one cannot be counted so: longer than
// maxRankedPiece, or split otherwise on its own (see countPieces).
func (c *Counter) countRanked(pieces []string, missing []int) (n int, ok bool) {
	tab, ok := ranksOf(c.name)
	if !ok {
		return 0, false
	}
	alone := make([]string, 0, len(missing))
	counts := make([]int, 0, len(missing))
	seen := make(map[string]int, len(missing))
	for _, i := range missing {
		p := pieces[i]
		if m, ok := seen[p]; ok {
			n += m
			continue
		}
		if len(p) > maxRankedPiece {
			return 0, false
		}
		if sub, err := c.splitPieces(p); err != nil || len(sub) != 1 {
			return 0, false
		}
		m := tab.count(p)
		seen[p] = m
		alone, counts = append(alone, p), append(counts, m)
		n += m
	}
	c.storePieces(alone, counts)
	return n, true
}

// countWhole encodes s, split into pieces, whole and stores the counts of
// its pieces when the codec's tokens fall within them (attribute).
func (c *Counter) countWhole(codec tokenizer.Codec, s string, pieces []string) (int, bool) {
	_, tokens, err := codec.Encode(s)
	if err != nil {
		return 0, false
	}
	if counts, ok := attribute(pieces, tokens); ok {
		c.storePieces(pieces, counts)
	}
	return len(tokens), true
}

// attribute returns how many of tokens (the codec's, in order) fall in each
// of pieces, by their lengths in bytes, and false when a token straddles
// two pieces or the lengths do not add up: then our split is not the
// codec's, and no piece count can be trusted.
func attribute(pieces, tokens []string) ([]int, bool) {
	counts := make([]int, len(pieces))
	t := 0
	for i, p := range pieces {
		for rest := len(p); rest > 0; t++ {
			if t == len(tokens) || len(tokens[t]) == 0 || len(tokens[t]) > rest {
				return nil, false
			}
			rest -= len(tokens[t])
			counts[i]++
		}
	}
	return counts, t == len(tokens)
}

// lookupPieces returns the sum of the counts of the pieces the piece
// cache holds and the indexes of those it lacks.
func (c *Counter) lookupPieces(pieces []string) (n int, missing []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadPiecesLocked()
	pc := &c.pieces
	for i, p := range pieces {
		if m, ok := pc.added[p]; ok {
			n += m
			continue
		}
		j, ok := pc.file.find(p)
		if !ok {
			missing = append(missing, i)
			continue
		}
		pc.used[j/64] |= 1 << (j % 64)
		n += pc.file.count(j)
	}
	return n, missing
}

// storePieces adds the counts of the pieces the cache lacks, at most
// maxPieces of them per process.
func (c *Counter) storePieces(pieces []string, counts []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadPiecesLocked()
	pc := &c.pieces
	for i, p := range pieces {
		if len(p) > maxPieceLen || counts[i] == 0 || len(pc.added) >= maxPieces {
			continue
		}
		if _, ok := pc.added[p]; ok {
			continue
		}
		if j, ok := pc.file.find(p); ok {
			pc.used[j/64] |= 1 << (j % 64)
			continue
		}
		pc.added[strings.Clone(p)] = counts[i] // not to keep s alive
		pc.fresh++
	}
}

// loadPiecesLocked reads the piece file once. c.mu is held.
func (c *Counter) loadPiecesLocked() {
	pc := &c.pieces
	if pc.loaded {
		return
	}
	pc.loaded = true
	pc.file = readPieceFile(c.name, c.piecePath())
	pc.used = make([]uint64, (pc.file.len()+63)/64)
	pc.added = make(map[string]int)
}

// savePieces writes the piece file when pieces were added since the last
// Save: the pieces this counter added or used, then the others of the file
// (re-read, so that pieces another process saved meanwhile are kept) while
// they fit the bounds.
func (c *Counter) savePieces() error {
	p := c.piecePath()
	if p == "" {
		return nil
	}
	c.mu.Lock()
	pc := &c.pieces
	if pc.fresh == 0 {
		c.mu.Unlock()
		return nil
	}
	added := make([]pieceEntry, 0, len(pc.added))
	for piece, n := range pc.added {
		added = append(added, pieceEntry{piece, n})
	}
	var used []pieceEntry
	for i := range pc.file.len() {
		if pc.used[i/64]&(1<<(i%64)) != 0 {
			used = append(used, pieceEntry{pc.file.piece(i), pc.file.count(i)})
		}
	}
	pc.fresh = 0
	c.mu.Unlock()
	slices.SortFunc(added, func(a, b pieceEntry) int { return strings.Compare(a.piece, b.piece) })
	disk := readPieceFile(c.name, p)
	entries := boundedUnion(mergeSorted(added, used), &disk)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("save token piece counts: %w", err)
	}
	if err := fsutil.OverwriteFile(p, encodePieces(c.name, entries), 0o644); err != nil {
		return fmt.Errorf("save token piece counts: %w", err)
	}
	return nil
}

// mergeSorted merges two sorted lists of distinct pieces (a piece in both
// is kept once, a's).
func mergeSorted(a, b []pieceEntry) []pieceEntry {
	out := make([]pieceEntry, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch cmp := strings.Compare(a[0].piece, b[0].piece); {
		case cmp < 0:
			out, a = append(out, a[0]), a[1:]
		case cmp > 0:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// boundedUnion returns, sorted, the pieces of mine (sorted) that fit the
// bounds, then those of disk that mine lacks, in disk's order, while they
// fit.
func boundedUnion(mine []pieceEntry, disk *pieceTable) []pieceEntry {
	text := 0
	k := 0
	for k < len(mine) && k < maxPieces && text+len(mine[k].piece) <= maxPieceText {
		text += len(mine[k].piece)
		k++
	}
	mine = mine[:k]
	var others []pieceEntry
	j := 0
	for i := 0; i < disk.len() && len(mine)+len(others) < maxPieces; i++ {
		p := disk.piece(i)
		for j < len(mine) && mine[j].piece < p {
			j++
		}
		if j < len(mine) && mine[j].piece == p || text+len(p) > maxPieceText {
			continue
		}
		text += len(p)
		others = append(others, pieceEntry{p, disk.count(i)})
	}
	return mergeSorted(mine, others)
}
