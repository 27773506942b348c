//go:build !windows

package fsutil

import (
	"io/fs"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// writeFile is renameio.WriteFile with the temporary file in path's
// folder, which spares renameio's probe of whether $TMPDIR shares path's
// filesystem (two temporary files and a rename per write).
func writeFile(path string, data []byte, perm fs.FileMode) error {
	return renameio.WriteFile(path, data, perm, renameio.WithTempDir(filepath.Dir(path)))
}
