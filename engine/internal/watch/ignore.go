package watch

import (
	"path/filepath"
	"strings"
)

// IsEditorTemp reports whether the base name of path is an editor or tool
// artefact that never carries content (the artefacts listed under
// docs/architecture.md#editor-save-patterns): vim swap files (.x.swp, .x.swx,
// .x.swpx and the other .x.sw?), backups (x~), vim's write probe (4913 and
// other all-digit names), Emacs auto-save (#x#) and lock symlinks (.#x),
// JetBrains safe-write temps (x___jb_tmp___, x___jb_old___, x___jb_bak___),
// GNOME's .goutputstream-*, GNU sed -i temps (sedXXXXXX) and VS Code's
// x.vsctmp.
//
// All-digit names are also legitimate directory names (a phase folder "08"),
// so the Watcher applies this test to directories only after checking they
// are not directories.
func IsEditorTemp(path string) bool {
	name := filepath.Base(path)
	switch {
	case name == "" || name == "." || name == string(filepath.Separator):
		return false
	case strings.HasSuffix(name, "~"),
		strings.HasPrefix(name, ".#"),
		len(name) > 2 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"),
		strings.HasSuffix(name, "___jb_tmp___"),
		strings.HasSuffix(name, "___jb_old___"),
		strings.HasSuffix(name, "___jb_bak___"),
		strings.HasPrefix(name, ".goutputstream-"),
		strings.HasSuffix(name, ".vsctmp"),
		isSedTemp(name),
		isVimSwap(name),
		allDigits(name):
		return true
	}
	return false
}

// isVimSwap matches ".x.swp", ".x.swo" … ".x.saa" style swap names and
// ".x.swpx" (vim's swap existence probe).
func isVimSwap(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	ext := filepath.Ext(name)
	return len(ext) == 4 && strings.HasPrefix(ext, ".sw") || ext == ".swpx"
}

func allDigits(name string) bool {
	for _, r := range name {
		if r < '0' || r > '9' {
			return false
		}
	}
	return name != ""
}

// IsLockFile reports whether path is a GSD lock file: "STATE.md.lock" (or any
// "*.md.lock") and ".planning/.lock". Lock files come and go around every GSD
// write and carry no content.
func IsLockFile(path string) bool {
	name := filepath.Base(path)
	if strings.HasSuffix(name, ".md.lock") {
		return true
	}
	return name == ".lock" && filepath.Base(filepath.Dir(path)) == ".planning"
}

// IsRenameioTemp reports whether the base name of path looks like a temp file
// of github.com/google/renameio/v2 (recite's own atomic writes): "." plus the
// destination's base name plus a random non-negative int64 in decimal
// (renameio tempfile.go, openTempFile). Requiring ten or more digits keeps
// ordinary dot files such as ".v2" out; a random int64 has fewer than ten
// digits with a probability near 1e-9. Use it in an Options.Ignore predicate
// so recite's own writes never trigger a render
// (docs/architecture.md#no-self-trigger; pattern 18 of
// docs/architecture.md#editor-save-patterns).
func IsRenameioTemp(path string) bool {
	name := filepath.Base(path)
	if !strings.HasPrefix(name, ".") {
		return false
	}
	digits := len(name) - len(strings.TrimRight(name, "0123456789"))
	// "." + at least one name byte + at least ten digits.
	return digits >= 10 && len(name)-digits >= 2
}

// isSedTemp matches GNU sed -i temp files: "sed" plus six random letters or
// digits (pattern 7 of docs/architecture.md#editor-save-patterns).
func isSedTemp(name string) bool {
	if len(name) != 9 || !strings.HasPrefix(name, "sed") {
		return false
	}
	for _, r := range name[3:] {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}
