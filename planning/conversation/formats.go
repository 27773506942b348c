package conversation

import (
	"io"
	"path/filepath"
	"regexp"
	"strings"
)

// The transcript formats Importer knows, by the names the command line
// uses.
const (
	FormatClaudeCode = "claude-code"
	FormatAider      = "aider"
	FormatCodex      = "codex"
)

// Importer returns the reader of a transcript format (FormatClaudeCode,
// FormatAider or FormatCodex); false for an unknown one.
func Importer(format string) (func(io.Reader) ([]Record, Report, error), bool) {
	switch format {
	case FormatClaudeCode:
		return ImportClaudeCode, true
	case FormatAider:
		return ImportAider, true
	case FormatCodex:
		return ImportCodex, true
	}
	return nil, false
}

// importIDUnsafe matches the runs of characters a conversation id cannot hold.
var importIDUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ImportID derives a conversation id from a transcript's file name: the
// base name without its extension (and aider's ".aider.chat.history"),
// unsafe characters replaced by "-", leading non-alphanumerics dropped, cut
// to 128 characters; the format's name when nothing valid is left.
func ImportID(path, format string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	base = strings.TrimSuffix(base, ".aider.chat.history")
	id := importIDUnsafe.ReplaceAllString(base, "-")
	id = strings.TrimLeft(id, "._-")
	if len(id) > 128 {
		id = id[:128]
	}
	if id == "" || ValidateID(id) != nil {
		return format
	}
	return id
}
