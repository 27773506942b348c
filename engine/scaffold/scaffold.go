// Package scaffold writes and keeps the files `recite init` puts in a
// project: `.planning/recite.yaml` (a commented default for the flavor),
// `.planning/prompts/.gitignore`, the `merge=union` line of
// `.gitattributes`, a default `.powerignore`, and the copy of recite.yaml's
// JSON Schema that editors read (docs/formats.md#files-recite-writes).
//
// It imports engine/config (file names), planning (flavor detection),
// templates, internal/fsutil and engine/internal/layout; never the engine.
package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/templates"
)

// Result lists what Init created or changed, project-relative.
type Result struct {
	Created []string `json:"created"`
	Updated []string `json:"updated"`
	Kept    []string `json:"kept"`
}

// Init scaffolds recite in the project at dir: `.planning/` (if absent),
// `.planning/recite.yaml` (a commented default for the flavor, gsd or
// fire), `.planning/prompts/.gitignore`, the `merge=union` line for
// conversation logs in `.gitattributes`, a default `.powerignore`, and
// the copy of recite.yaml's JSON Schema that the yaml-language-server line
// of recite.yaml names (config.SchemaFile, ignored by git). It
// never overwrites a file that exists; `.gitattributes` only gains the
// missing line. Running it twice changes nothing. An empty flavor is
// detected from an existing `.planning/` (fire when planning.Load finds the
// fire-flow layout, gsd otherwise).
func Init(dir, flavor string) (*Result, error) {
	if flavor == "" {
		flavor = "gsd"
		if proj, err := planning.Load(fsutil.DirFS(filepath.Join(dir, layout.PlanningDir))); err == nil && proj.Flavor == planning.FlavorFire {
			flavor = "fire"
		}
	}
	cfgText, err := templates.Init("recite.yaml", flavor)
	if err != nil {
		return nil, &layout.InputError{Err: err}
	}
	res := &Result{}
	if err := os.MkdirAll(filepath.Join(dir, layout.PromptsDir), 0o755); err != nil {
		return nil, err
	}
	gi, _ := templates.Init("prompts.gitignore", "")
	pi, _ := templates.Init("powerignore", "")
	for _, f := range []struct{ rel, text string }{
		{config.FileName, cfgText},
		{layout.PromptsDir + "/.gitignore", gi},
		{".powerignore", pi},
	} {
		p := filepath.Join(dir, filepath.FromSlash(f.rel))
		if _, err := os.Stat(p); err == nil {
			res.Kept = append(res.Kept, f.rel)
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if err := fsutil.WriteFile(p, []byte(f.text), 0o644); err != nil {
			return nil, err
		}
		res.Created = append(res.Created, f.rel)
	}
	if _, err := WriteSchemaCopy(dir); err != nil {
		return nil, err
	}
	ga, _ := templates.Init("gitattributes", "")
	changed, created, err := appendMissingLines(filepath.Join(dir, ".gitattributes"), ga)
	if err != nil {
		return nil, err
	}
	switch {
	case created:
		res.Created = append(res.Created, ".gitattributes")
	case changed:
		res.Updated = append(res.Updated, ".gitattributes")
	default:
		res.Kept = append(res.Kept, ".gitattributes")
	}
	return res, nil
}

// appendMissingLines adds the non-comment lines of want that path lacks,
// preceded by want's comments, keeping the file's own line endings.
func appendMissingLines(path, want string) (changed, created bool, err error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, false, err
	}
	created = errors.Is(err, fs.ErrNotExist)
	have := map[string]bool{}
	for _, l := range strings.Split(strings.ReplaceAll(string(old), "\r\n", "\n"), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var missing []string
	for _, l := range strings.Split(want, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && !have[t] {
			missing = append(missing, l)
		}
	}
	if len(missing) == 0 {
		return false, false, nil
	}
	var b strings.Builder
	b.Write(old)
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		b.WriteString("\n")
	}
	for _, l := range strings.Split(want, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	for _, l := range missing {
		b.WriteString(l + "\n")
	}
	text := b.String()
	if strings.Contains(string(old), "\r\n") {
		text = string(old) + strings.ReplaceAll(text[len(old):], "\n", "\r\n")
	}
	if err := fsutil.WriteFile(path, []byte(text), 0o644); err != nil {
		return false, false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, created, nil
}

// WriteSchemaCopy keeps config.SchemaFile, the copy of recite.yaml's JSON
// Schema that the yaml-language-server line of the recite.yaml `recite
// init` writes points editors to, equal to this recite's schema
// (templates.Schema): it writes the file when it is missing or differs,
// with the .gitignore that keeps .planning/.recite/ out of git. It
// reports whether it wrote the copy.
func WriteSchemaCopy(dir string) (bool, error) {
	path := filepath.Join(dir, filepath.FromSlash(config.SchemaFile))
	want := templates.Schema()
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, want) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	gi := filepath.Join(dir, layout.CacheDir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, fs.ErrNotExist) {
		body, err := templates.Init("prompts.gitignore", "")
		if err != nil {
			return false, err
		}
		if err := fsutil.WriteFile(gi, []byte(body), 0o644); err != nil {
			return false, err
		}
	}
	if err := fsutil.WriteFile(path, want, 0o644); err != nil {
		return false, fmt.Errorf("write %s: %w", config.SchemaFile, err)
	}
	return true, nil
}
