// Package ignore decides which project files may enter an agent's context:
// gitignore semantics exactly as git 2.39 applies them (checked row by row
// against a table of real `git check-ignore` verdicts and against real
// `git ls-files`), plus recite's .powerignore on top
// (docs/formats.md#powerignore).
//
// # Files read
//
//   - .powerignore at the root, gitignore syntax, highest rank;
//   - .gitignore in every directory, patterns relative to that directory,
//     deeper files outranking shallower ones;
//   - .git/info/exclude, lowest rank.
//
// The first file (in that order) holding a matching line decides, and in a
// file the last matching line wins. core.excludesFile (the user's global
// ignore file) is not read, so the answer does not depend on the machine.
// Only entries named .git are skipped without a pattern: there are no
// hidden defaults.
//
// # Why not a library
//
// The reachable libraries get the oracle wrong (go test -run
// TestOracleCandidates -v: sabhiram/go-gitignore 54 and go-git/v5
// plumbing/format/gitignore 43 of 4,888 rows). Both are structurally wrong: a
// directory pattern matches everything below it as a prefix, so a later "!"
// line re-includes a file inside an excluded directory, and "dir/*" + "!dir/"
// re-includes dir/xyz; both glob with path.Match or regexps, which do not know
// "[!0-9]" (the table of docs/formats.md#powerignore gives git's verdicts).
// go-git's pattern parser keeps no line numbers and drops escapes, so there
// was nothing to build on; github.com/git-pkgs/gitignore and
// denormal/go-gitignore are not served by the module proxy here. The package
// therefore ports git's own code: wildmatch.c (wildmatch.go) and the pattern
// rules of dir.c (pattern.go), and walks directories the way git's
// read_directory does, never entering an excluded one.
//
// # Entry points
//
// List (Load + Walk) gives the files in context; Explain says why a path is in
// or out, like `git check-ignore -v`; Include entries (files that always
// enter, docs/architecture.md#never-excluded-files) override every ignore
// file; SetExtra adds the task-type excludes of recite.yaml; ReadDir lists one
// directory for the file-tree section without walking the rest.
//
// # No hidden defaults
//
// The package excludes nothing of its own apart from .git: the default
// exclusions are the .powerignore `recite init` writes, whose single
// source is templates/init/powerignore (TestDefaultPowerignore checks what
// that file keeps out and in).
package ignore
