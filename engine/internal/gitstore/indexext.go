package gitstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// errIndexFormat is a git index file indexExtensions cannot follow.
var errIndexFormat = errors.New("not a git index recite can read")

// indexExtensions returns the signatures of the extensions of the git index
// file b, in file order, following git's index format
// (Documentation/gitformat-index.txt): a 12-byte header ("DIRC", version
// 2 to 4, entry count), the entries (62 bytes of stat data, a SHA-1 and
// flags, 2 more bytes of flags when the extended bit is set in version 3
// and later, then the path: NUL-padded to a multiple of 8 bytes in versions
// 2 and 3, prefix-compressed and NUL-terminated in version 4), then
// extensions (4-byte signature, 4-byte size, data) up to the trailing
// 20-byte checksum. It lets an error name the extension go-git refused
// (go-git's decoder reports only "unknown extension"). Errors: a file
// that does not follow the format.
func indexExtensions(b []byte) ([]string, error) {
	const hashSize, header, fixed = 20, 12, 62
	if len(b) < header+hashSize || string(b[:4]) != "DIRC" {
		return nil, errIndexFormat
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: version %d", errIndexFormat, version)
	}
	count := binary.BigEndian.Uint32(b[8:12])
	end := len(b) - hashSize
	off := header
	for i := uint32(0); i < count; i++ {
		if off+fixed > end {
			return nil, fmt.Errorf("%w: entry %d is cut short", errIndexFormat, i)
		}
		flags := binary.BigEndian.Uint16(b[off+60 : off+62])
		start := off
		off += fixed
		if version >= 3 && flags&0x4000 != 0 {
			off += 2
		}
		if off > end {
			return nil, fmt.Errorf("%w: entry %d is cut short", errIndexFormat, i)
		}
		if version == 4 {
			// A varint (bytes to strip from the previous path), then the
			// rest of the path and a NUL.
			for off < end && b[off]&0x80 != 0 {
				off++
			}
			off++
			n := bytes.IndexByte(b[min(off, end):end], 0)
			if n < 0 {
				return nil, fmt.Errorf("%w: entry %d has no end", errIndexFormat, i)
			}
			off += n + 1
			continue
		}
		n := bytes.IndexByte(b[off:end], 0)
		if n < 0 {
			return nil, fmt.Errorf("%w: entry %d has no end", errIndexFormat, i)
		}
		// git pads each entry with 1 to 8 NULs to a multiple of 8 bytes.
		off = start + (off-start+n+8)&^7
		if off > end {
			return nil, fmt.Errorf("%w: entry %d is cut short", errIndexFormat, i)
		}
	}
	var exts []string
	for off+8 <= end {
		sig := string(b[off : off+4])
		size := binary.BigEndian.Uint32(b[off+4 : off+8])
		if uint64(size) > uint64(end-off-8) {
			return nil, fmt.Errorf("%w: extension %q is cut short", errIndexFormat, sig)
		}
		exts = append(exts, sig)
		off += 8 + int(size)
	}
	if off != end {
		return nil, fmt.Errorf("%w: %d stray bytes before the checksum", errIndexFormat, end-off)
	}
	return exts, nil
}
