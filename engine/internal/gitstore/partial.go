package gitstore

import (
	"os"
	"path/filepath"
	"strings"
)

// This file holds what keeps a partial write out of the repository: the
// Committer's Content hook, which gives the part of a file that may be
// committed (a log up to its last whole record), and the removal of the
// temporary object files a failed commit leaves.

// committable returns the content of the work-tree file p to commit: the
// Committer's Content of it when set, else content itself.
func (s *state) committable(p string, content []byte) ([]byte, error) {
	if s.content == nil {
		return content, nil
	}
	return s.content(strings.TrimPrefix(p, s.project), content)
}

// tmpObjectPrefix names the temporary files go-git writes a loose object
// to, in objects/pack, before renaming it into place
// (storage/filesystem/dotgit newObjectWriter). git itself writes its
// temporary objects elsewhere (objects/XX/tmp_obj_*, objects/pack/tmp_pack_*).
const tmpObjectPrefix = "tmp_obj_"

// objectsDir returns the objects folder of the git directory gitDir: that
// of its common directory for a linked worktree.
func objectsDir(gitDir string) string {
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		return filepath.Join(common, "objects")
	}
	return filepath.Join(gitDir, "objects")
}

// tmpObjects returns the names of go-git's temporary object files in the
// objects folder of gitDir.
func tmpObjects(gitDir string) map[string]bool {
	ents, _ := os.ReadDir(filepath.Join(objectsDir(gitDir), "pack"))
	out := map[string]bool{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tmpObjectPrefix) {
			out[e.Name()] = true
		}
	}
	return out
}

// removeTmpObjects removes the temporary object files of gitDir that were
// not there before (tmpObjects before the commit): what a commit that
// failed half way, most often on a full disk, left behind, still taking
// the space. The commit holds .git/index.lock, so no other commit of
// recite's is writing objects at the same time.
func removeTmpObjects(gitDir string, before map[string]bool) {
	pack := filepath.Join(objectsDir(gitDir), "pack")
	for name := range tmpObjects(gitDir) {
		if !before[name] {
			_ = os.Remove(filepath.Join(pack, name))
		}
	}
}
