package ignore

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// direntBufSize is the getdents64 buffer: glibc's readdir uses 32 KiB too.
const direntBufSize = 32 << 10

// direntBufs recycles getdents64 buffers: a fresh 32 KiB per directory
// would be a gigabyte of garbage on the 90,716-file mktree tree (31,674
// directories).
var direntBufs = sync.Pool{New: func() any { return new([direntBufSize]byte) }}

// dirHandle is an open directory. Walk opens each directory relative to
// its parent's descriptor (openat), so the kernel resolves one name
// instead of the whole path from the root.
type dirHandle struct {
	fd   int
	root string // the directory Walk started from
	rel  string // slash path below root, "" for root itself
}

// path is the directory's path, for errors.
func (h dirHandle) path() string { return filepath.Join(h.root, filepath.FromSlash(h.rel)) }

const openDirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// openDir opens directory path (following a symbolic link: the project
// may be reached through one).
func openDir(path string) (dirHandle, error) {
	return openDirAt(unix.AT_FDCWD, path, 0, dirHandle{root: path})
}

// openChild opens directory name inside h, whose slash path below the
// walk's root is rel, not following a symbolic link (the entry was a
// directory when read; a link put in its place since is not entered).
func (h dirHandle) openChild(name, rel string) (dirHandle, error) {
	return openDirAt(h.fd, name, unix.O_NOFOLLOW, dirHandle{root: h.root, rel: rel})
}

func openDirAt(dirfd int, name string, flags int, h dirHandle) (dirHandle, error) {
	for {
		fd, err := unix.Openat(dirfd, name, openDirFlags|flags, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return dirHandle{fd: -1}, &fs.PathError{Op: "open", Path: h.path(), Err: err}
		}
		h.fd = fd
		return h, nil
	}
}

func (h dirHandle) close() { _ = unix.Close(h.fd) }

// readDir returns the entries of directory path unsorted, without "." and
// "..".
func readDir(path string) ([]dirent, error) {
	h, err := openDir(path)
	if err != nil {
		return nil, err
	}
	defer h.close()
	return h.entries(nil, "")
}

// entries appends the entries of h to out, unsorted, without "." and "..".
// Each entry's path is prefix followed by its name, in one allocation.
// It calls getdents64 directly: os.Open also registers the descriptor with
// the poller (two fcntl calls) and os.File.ReadDir allocates an
// fs.DirEntry per name, together about a tenth of a walk of the mktree
// tree (BenchmarkWalk profile). Entries whose type the file system does
// not report (DT_UNKNOWN) are lstat-ed (fstatat relative to h).
func (h dirHandle) entries(out []dirent, prefix string) ([]dirent, error) {
	bufp := direntBufs.Get().(*[direntBufSize]byte)
	defer direntBufs.Put(bufp)
	buf := bufp[:]
	for {
		n, err := unix.Getdents(h.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readdirent", Path: h.path(), Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		b := buf[:n]
		for len(b) >= 19 {
			// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, fmt.Errorf("ignore: %s: bad directory entry", h.path())
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
			full := prefix + string(name) // the conversion does not allocate
			d := dirent{path: full, name: full[len(prefix):]}
			switch dtype {
			case unix.DT_REG:
			case unix.DT_DIR:
				d.typ = fs.ModeDir
			case unix.DT_LNK:
				d.typ = fs.ModeSymlink
			case unix.DT_UNKNOWN:
				var st unix.Stat_t
				if err := fstatat(h.fd, d.name, &st); err != nil {
					continue // removed meanwhile
				}
				d.typ = modeType(st.Mode)
			default:
				d.typ = fs.ModeIrregular
			}
			out = append(out, d)
		}
	}
}

// fstatat is lstat of name inside directory dirfd.
func fstatat(dirfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

// modeType is the fs type bits of a stat mode.
func modeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
