//go:build !linux

package ignore

import "os"

// readDir returns the entries of dir unsorted (Walk sorts the result).
func readDir(dir string) ([]dirent, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	out := make([]dirent, 0, len(ents))
	for _, e := range ents {
		out = append(out, dirent{name: e.Name(), typ: e.Type()})
	}
	return out, err
}
