package ignore

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// direntBufSize is the getdents64 buffer: glibc's readdir uses 32 KiB too.
const direntBufSize = 32 << 10

// readDir returns the entries of dir unsorted (Walk sorts the result),
// without "." and "..". It calls open, getdents64 and close directly:
// os.Open also registers the descriptor with the poller (two fcntl calls)
// and os.File.ReadDir allocates an fs.DirEntry per name, together about a
// tenth of a walk of the 90,716-file mktree tree (BenchmarkWalk profile).
// Entries whose type the file system does not report (DT_UNKNOWN) are
// lstat-ed.
func readDir(dir string) ([]dirent, error) {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, direntBufSize)
	var out []dirent
	for {
		n, err := syscall.Getdents(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		b := buf[:n]
		for len(b) >= 19 {
			// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, fmt.Errorf("ignore: %s: bad directory entry", dir)
			}
			dtype := b[18]
			name := b[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			b = b[reclen:]
			if len(name) == 0 || name[0] == '.' && (len(name) == 1 || len(name) == 2 && name[1] == '.') {
				continue
			}
			d := dirent{name: string(name)}
			switch dtype {
			case syscall.DT_REG:
			case syscall.DT_DIR:
				d.typ = fs.ModeDir
			case syscall.DT_LNK:
				d.typ = fs.ModeSymlink
			case syscall.DT_UNKNOWN:
				st, err := os.Lstat(filepath.Join(dir, d.name))
				if err != nil {
					continue // removed meanwhile
				}
				d.typ = st.Mode().Type()
			default:
				d.typ = fs.ModeIrregular
			}
			out = append(out, d)
		}
	}
}
