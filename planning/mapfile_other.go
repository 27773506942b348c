//go:build !unix

package planning

import "os"

// readBase returns the bytes of the parsed-file cache's base at path (see
// the Unix version, which maps it).
func readBase(path string) ([]byte, error) { return os.ReadFile(path) }
