package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DirFS returns the file system of the folder dir, as os.DirFS does, for
// names that are not valid UTF-8 too. A Unix file name is any bytes but
// "/" and NUL, and io/fs refuses the ones that are not UTF-8
// (fs.ValidPath), so os.DirFS cannot open a planning file an editor or a
// tool saved under such a name ("invalid argument"); DirFS can, and the
// CLI shows the name escaped. Every other rule of fs.ValidPath holds: a
// name is unrooted and slash-separated, with no empty, "." or ".."
// element (other than "." itself), so it never leaves dir. Like os.DirFS
// it follows symbolic links. The result implements fs.StatFS,
// fs.ReadFileFS and fs.ReadDirFS.
func DirFS(dir string) fs.FS { return dirFS(dir) }

type dirFS string

// validName is fs.ValidPath without its UTF-8 check.
func validName(name string) bool {
	if name == "." {
		return true
	}
	if name == "" || strings.ContainsRune(name, 0) || filepath.Separator == '\\' && strings.ContainsAny(name, `\:`) {
		return false
	}
	for _, elem := range strings.Split(name, "/") {
		if elem == "" || elem == "." || elem == ".." {
			return false
		}
	}
	return true
}

// join returns the OS path of name in d, or a *fs.PathError for a name
// that is not valid.
func (d dirFS) join(op, name string) (string, error) {
	if !validName(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(string(d), filepath.FromSlash(name)), nil
}

// Open opens name.
func (d dirFS) Open(name string) (fs.File, error) {
	p, err := d.join("open", name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, relErr(err, name)
	}
	return f, nil
}

// Stat returns the fs.FileInfo of name.
func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	p, err := d.join("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, relErr(err, name)
	}
	return fi, nil
}

// ReadFile returns the content of name.
func (d dirFS) ReadFile(name string) ([]byte, error) {
	p, err := d.join("readfile", name)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, relErr(err, name)
	}
	return b, nil
}

// ReadDir returns the entries of the folder name, sorted by name.
func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := d.join("readdir", name)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, relErr(err, name)
	}
	return ents, nil
}

// relErr names name, not the OS path, in a *fs.PathError, as os.DirFS
// does.
func relErr(err error, name string) error {
	if pe, ok := err.(*fs.PathError); ok {
		pe.Path = name
	}
	return err
}
