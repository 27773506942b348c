// Package scope decides which files of a project may enter an agent's
// context and why: the ignore files and the current task type's exclude
// globs (Matcher, Files, Why), whether a file stays inside the project
// once its symbolic links are followed — one check for every file read
// into a prompt (ReadFile, FS) and every path a client names
// (InsideProject) — the
// never-exclude list of files named by the current plan, by recorded
// errors and by include lists (Compute, ErrorPaths, ExtractPaths), and the
// two sections built from them, the file tree and the files section
// (Sections). A watcher asks it what to watch (Compute's TaskFiles,
// TreeDirs).
//
// It may import engine/config, engine/prompt, engine/signals,
// engine/internal/ignore, engine/internal/layout, planning,
// planning/conversation and markdown; never engine.
package scope
