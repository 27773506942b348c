package budget

import (
	_ "embed" // the rank tables
	"encoding/binary"
	"math"
	"slices"
	"strings"
)

// The rank tables count the pieces the piece cache lacks without building
// the tokenizer's vocabulary. tiktoken-go builds each encoding's
// vocabulary as a Go map of every token (200,000 for o200k_base) the
// first time a codec is made, about 35 ms of CPU, which a build in a new
// process paid for one new word of a one-line edit. A rank table holds the
// same vocabulary as sorted bytes compiled into the binary: nothing is
// built, a lookup is a binary search over read-only data, and only the
// pages a lookup touches are read.
//
// The format (ranks/ENCODING.ranks), integers little-endian uint32: the
// number of tokens N, then N+1 offsets into the text, then the N ranks,
// then the text (the tokens' bytes concatenated, sorted by bytes). The
// rank of a token is its id, the order in which BPE merges it: lower
// merges first. TestRankTablesAreTheCodecs checks that each table is
// exactly its codec's vocabulary (go test -run TestRankTablesAreTheCodecs
// -update rewrites them from tiktoken-go after an upgrade), and
// TestCountPiecesExact that counts made with it equal the codec's.

//go:embed ranks/o200k_base.ranks
var o200kRanks string

//go:embed ranks/cl100k_base.ranks
var cl100kRanks string

// rankTable is one encoding's rank table (see above), a view of its bytes.
type rankTable struct {
	n              int
	offsets, ranks string
	text           string
}

// ranksOf returns the rank table of the encoding (o200k_base or
// cl100k_base); ok is false for a table that is not well formed.
func ranksOf(encoding string) (rankTable, bool) {
	data := o200kRanks
	if encoding == Cl100kBase {
		data = cl100kRanks
	}
	return parseRanks(data)
}

// parseRanks views data as a rank table, checking its lengths.
func parseRanks(data string) (rankTable, bool) {
	if len(data) < 4 {
		return rankTable{}, false
	}
	n := int(le32(data, 0))
	head := 4 + 4*(n+1) + 4*n
	if n <= 0 || len(data) < head {
		return rankTable{}, false
	}
	t := rankTable{n: n, offsets: data[4 : 4+4*(n+1)], ranks: data[4+4*(n+1) : head], text: data[head:]}
	if t.off(n) != len(t.text) {
		return rankTable{}, false
	}
	return t, true
}

func (t rankTable) off(i int) int { return int(le32(t.offsets, 4*i)) }

// le32 is the little-endian uint32 at s[i:i+4].
func le32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// rank returns the rank of token b, and false when b is not a token.
func (t rankTable) rank(b string) (uint32, bool) {
	lo, hi := 0, t.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if t.text[t.off(mid):t.off(mid+1)] < b {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < t.n && t.text[t.off(lo):t.off(lo+1)] == b {
		return le32(t.ranks, 4*lo), true
	}
	return 0, false
}

// maxRankedPiece is the longest piece, in bytes, counted with a rank
// table: the merge below costs the square of a piece's length, and longer
// pieces (runs of spaces or symbols) go to the codec.
const maxRankedPiece = 96

// count returns the number of tokens byte-pair encoding makes of piece
// (one piece of the encoding's split): 1 when piece is a token, else the
// parts left when the adjacent pair of parts whose joined bytes are the
// lowest-ranked token is merged, leftmost first, until no pair joins into
// a token. This is tiktoken's byte_pair_merge (tiktoken-go's
// codec.mergePairsScan), which BPE runs on each piece alone.
func (t rankTable) count(piece string) int {
	if _, ok := t.rank(piece); ok {
		return 1
	}
	// bounds[i] starts part i; the last is len(piece). rank[i] is the rank
	// of parts i and i+1 joined.
	bounds := make([]int, len(piece)+1)
	for i := range bounds {
		bounds[i] = i
	}
	ranks := make([]uint32, len(piece))
	pairRank := func(i int) uint32 {
		if i+2 >= len(bounds) {
			return math.MaxUint32
		}
		if r, ok := t.rank(piece[bounds[i]:bounds[i+2]]); ok {
			return r
		}
		return math.MaxUint32
	}
	for i := range ranks {
		ranks[i] = pairRank(i)
	}
	for len(bounds) > 2 {
		best, at := uint32(math.MaxUint32), -1
		for i, r := range ranks[:len(bounds)-2] {
			if r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		bounds = append(bounds[:at+1], bounds[at+2:]...)
		ranks = append(ranks[:at+1], ranks[at+2:]...)
		ranks[at] = pairRank(at)
		if at > 0 {
			ranks[at-1] = pairRank(at - 1)
		}
	}
	return len(bounds) - 1
}

// encodeRanks formats a rank table of tokens, tokens[i] the token of rank
// ranks[i], sorted here by bytes.
func encodeRanks(tokens []string, ranks []uint32) []byte {
	idx := make([]int, len(tokens))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(tokens[a], tokens[b]) })
	var text strings.Builder
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(tokens)))
	off := 0
	for _, i := range idx {
		b = binary.LittleEndian.AppendUint32(b, uint32(off))
		off += len(tokens[i])
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(off))
	for _, i := range idx {
		b = binary.LittleEndian.AppendUint32(b, ranks[i])
		text.WriteString(tokens[i])
	}
	return append(b, text.String()...)
}
