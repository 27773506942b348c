//go:build !linux

package ignore

import (
	"os"
	"path/filepath"
)

// dirHandle is a directory to read; elsewhere than on Linux it is its path.
type dirHandle struct{ path string }

func openDir(path string) (dirHandle, error) { return dirHandle{path: path}, nil }

func (h dirHandle) openChild(name, _ string) (dirHandle, error) {
	return dirHandle{path: filepath.Join(h.path, name)}, nil
}

func (h dirHandle) close() {}

// readDir returns the entries of dir unsorted.
func readDir(dir string) ([]dirent, error) {
	return dirHandle{path: dir}.entries(nil, "")
}

// entries appends the entries of h to out, unsorted; each entry's path
// is prefix followed by its name.
func (h dirHandle) entries(out []dirent, prefix string) ([]dirent, error) {
	f, err := os.Open(h.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	for _, e := range ents {
		p := prefix + e.Name()
		out = append(out, dirent{path: p, name: p[len(prefix):], typ: e.Type()})
	}
	return out, err
}
