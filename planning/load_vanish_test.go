package planning

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vanishFS is a real folder whose listing of prompts/ is followed, before
// the caller stats the entries, by the removal of the temp file a parallel
// build had there: the race of two builds, made to happen every time.
type vanishFS struct {
	fs.FS
	dir, temp string
}

func (v vanishFS) ReadDir(name string) ([]fs.DirEntry, error) {
	list, err := fs.ReadDir(v.FS, name)
	if name == "prompts" {
		if rerr := os.Remove(filepath.Join(v.dir, filepath.FromSlash(v.temp))); rerr != nil {
			return nil, rerr
		}
	}
	return list, err
}

// TestLoadVanishedFileIsNoWarning loads a planning folder in which a temp
// file is listed and then removed before its stat, as when another build
// renames its temp file over a prompt file: no "cannot stat" diagnostic,
// the file is not in the project, and a file that cannot be stat'ed for
// another reason would still be one (the message is unchanged).
func TestLoadVanishedFileIsNoWarning(t *testing.T) {
	dir := t.TempDir()
	for rel, body := range map[string]string{
		"STATE.md":                  "# State\n",
		"prompts/agent.md":          "x\n",
		"prompts/agent.md.123.tmp":  "y\n",
		"prompts/agent.openai.json": "{}\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys := vanishFS{FS: os.DirFS(dir), dir: dir, temp: "prompts/agent.md.123.tmp"}
	for _, cache := range []*Cache{nil, NewCache()} {
		if cache != nil {
			// Put the temp file back: the cached run lists it afresh.
			if err := os.WriteFile(filepath.Join(dir, "prompts", "agent.md.123.tmp"), []byte("y\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := LoadCached(fsys, cache)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Diagnostics {
			if strings.Contains(d.Message, "cannot stat") {
				t.Errorf("cache %v: diagnostic for a vanished file: %s", cache != nil, d)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "prompts", "agent.md.123.tmp")); err == nil {
			t.Fatal("the temp file was not removed between listing and stat: the test proves nothing")
		}
	}
}
