//go:build unix

package planning

import (
	"fmt"
	"os"
	"syscall"
)

// readBase returns the bytes of the parsed-file cache's base at path,
// mapped read-only rather than read: a new process then neither copies the
// megabytes of a large tree's base nor faults in fresh pages for the copy,
// and decodes the entries it uses from the page cache. The mapping is
// never unmapped: the entries' strings are slices of it for the cache's
// lifetime. That is sound because the base is only ever replaced by a
// rename (SaveFile, fsutil.WriteNoSync), never written in place, so the
// mapped file's bytes never change; a process that truncated it in place
// would fault the reader. An empty file, or one that cannot be mapped, is
// read.
func readBase(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if size := st.Size(); st.Mode().IsRegular() && size > 0 && size == int64(int(size)) {
		data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
		if err == nil {
			return data, nil
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read parsed-file cache: %w", err)
	}
	return data, nil
}
