package secrets

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/recite-dev/recite/engine/internal/redact"
	"github.com/recite-dev/recite/planning/conversation"
)

// Finding is one secret in a file about to be committed: the
// project-relative path, the 1-based line and the kind of secret (the id
// of the rule that found it, as in a placeholder).
type Finding struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
}

// String is "path:line: kind".
func (f Finding) String() string { return fmt.Sprintf("%s:%d: %s", f.Path, f.Line, f.Kind) }

// Error is a commit's refusal to commit files that hold secrets
// (docs/formats.md#secrets-in-committed-files): every finding, in path and
// line order. The CLI prints one line per finding and exits 1.
type Error struct {
	Findings []Finding
}

// Error counts the secrets and the files and names the two ways out
// (`recite redact`, --allow-secrets).
func (e *Error) Error() string {
	files := map[string]bool{}
	for _, f := range e.Findings {
		files[f.Path] = true
	}
	return fmt.Sprintf("refusing to commit: %d %s in %d %s (run `recite redact` to replace them with placeholders, or commit them anyway with --allow-secrets)",
		len(e.Findings), plural(len(e.Findings), "secret", "secrets"), len(files), plural(len(files), "file", "files"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Scan returns the secrets in content, the content of a history file
// about to be committed (path relative to the project, slash-separated),
// found with the rules that redact what recite writes: a conversation log
// (a .jsonl path) record by record, each text of a record scanned as
// conversation.RedactRecord redacts it (a line that is not a record is
// scanned as text), so a log recite wrote or `recite redact` migrated has
// none; any other file as text (docs/formats.md#secrets-in-committed-files).
// Lines are 1-based, a record's findings on its line. Scanning never makes
// the key file. Errors: rules that do not compile, no key to be had.
func (r *Redactor) Scan(path string, content []byte) ([]Finding, error) {
	rules, err := r.scanner()
	if err != nil {
		return nil, err
	}
	var out []Finding
	add := func(line int, fs []redact.Finding) {
		for _, f := range fs {
			out = append(out, Finding{Path: path, Line: line + f.Line - 1, Kind: f.Kind})
		}
	}
	if !strings.HasSuffix(path, ".jsonl") {
		_, fs := rules.Redact("", string(content))
		add(1, fs)
		return out, nil
	}
	for i, line := range bytes.Split(content, []byte("\n")) {
		recs, diags := conversation.ParseLog(path, line)
		if len(recs) == 1 {
			var fs []redact.Finding
			conversation.RedactRecord(&recs[0], func(text string) (string, int) {
				o, f := rules.Redact("", text)
				fs = append(fs, f...)
				return o, len(f)
			})
			for k := range fs {
				fs[k].Line = 1 // the record's line, whatever line of a text
			}
			add(i+1, fs)
		} else if len(diags) > 0 {
			_, fs := rules.Redact("", string(line))
			add(i+1, fs)
		}
	}
	return out, nil
}

// scanner returns the rules that find secrets for Scan: the Redactor's
// own when the project has its key, else rules under a key of this
// Redactor alone (findings do not depend on the key), so that a commit
// never makes the key file and the cache folder appear.
func (r *Redactor) scanner() (*redact.Redactor, error) {
	if _, err := os.Stat(filepath.Join(r.dir, filepath.FromSlash(KeyFile))); err == nil {
		if err := r.Init(); err != nil {
			return nil, err
		}
		return r.cache.r, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache != nil {
		return r.cache.r, nil
	}
	if r.scanOnly == nil {
		key, err := redact.NewKey()
		if err != nil {
			return nil, err
		}
		if r.scanOnly, err = redact.New(key); err != nil {
			return nil, err
		}
	}
	return r.scanOnly, nil
}
