package scope

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/ignore"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
)

// maxSectionFileBytes bounds one file of the files section after its lines
// are cut, in bytes: a minified one-line file is cut by bytes too.
const maxSectionFileBytes = 64 << 10

// Sections fills in.FileTree (stable tier) and in.Files (semi tier) for
// target tg (issue "What enters context" §4), reading each file through
// redact (which replaces its secrets, given its project-relative path).
//
// The tree lists what the ignore files and the current task type's globs
// leave, breadth first to files.tree_depth levels and files.tree_max_entries
// lines; a directory not opened shows its entry count, a directory cut
// short ends with "… N more entries". It reads only the directories it
// shows (ignore.Matcher.ReadDir), so a 90,000-file monorepo costs a few
// hundred directory reads, not a walk. It leaves out .planning/: the
// planning tree reaches the prompt through its own sections, and its files
// (state, logs, prompt files, caches) change on every turn, which would
// break the stable prefix at this section; for the same reason
// never-exclude files are not added to the tree (they change with errors)
// but go to the files section. The tree depends only on directory names,
// the ignore files, recite.yaml and the current task type, so it is
// byte-identical between builds while those stay.
//
// The files section carries the current task's files (else the plan's
// files_modified), then the files named by recorded errors, then the
// target's include list: each once and not when another section already
// carries it (sectionSources: the system prompt, tools, skills, and the
// planning files behind the brief, plan, state, health and recitation
// sections), only regular files inside the project (not
// prompt files or caches), at most files.max_files. A file longer than files.file_max_lines keeps
// its head and tail around a pointer "⟨path: lines a–b omitted⟩" (lines of
// the file on disk, so the agent can read them back); binary files are
// named, not shown. Each file is redacted with its own path (so .env
// values are found), and the findings are reported with the prompt's.
func (sp *Scope) Sections(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project, in *prompt.Input, redact func(rel, text string) string) []markdown.Diagnostic {
	var diags []markdown.Diagnostic
	var convs []string
	if tg.Conversation != "" {
		convs = []string{tg.Conversation}
	}
	sc := sp.Compute(ctx, cfg, proj, convs, []config.Target{*tg}, nil)
	m, err := ignore.Load(sp.dir)
	if err != nil {
		return append(diags, markdown.Diagnostic{Path: ".powerignore", Message: fmt.Sprintf("file tree: %v", err)})
	}
	m.SetExtra(sc.Extra)
	if cfg.Files.TreeDepth > 0 {
		tree, err := sp.cachedTree(ctx, m, sc.Extra, cfg.Files.TreeDepth, cfg.Files.TreeMaxEntries)
		if err != nil {
			diags = append(diags, markdown.Diagnostic{Path: ".powerignore", Message: fmt.Sprintf("file tree: %v", err)})
		} else {
			in.FileTree = tree
		}
	}
	if cfg.Files.MaxFiles > 0 {
		// Each file once in the prompt: not again when the system prompt,
		// the tools or a skill already carries it.
		seen := sectionSources(proj, tg, in)
		for _, inc := range sc.TaskFiles {
			if len(in.Files) >= cfg.Files.MaxFiles {
				break
			}
			if seen[inc.Path] {
				continue
			}
			seen[inc.Path] = true
			rel, ok := sp.projectFile(inc.Path)
			if !ok || rel == layout.PlanningDir || strings.HasPrefix(rel, layout.PlanningDir+"/prompts/") || strings.HasPrefix(rel, layout.CacheDir+"/") {
				continue
			}
			f, err := sp.sectionFile(rel, cfg.Files.FileMaxLines, redact)
			if err != nil {
				diags = append(diags, markdown.Diagnostic{Path: rel, Message: fmt.Sprintf("files section: %v", err)})
				continue
			}
			in.Files = append(in.Files, f)
		}
	}
	return diags
}

// sectionSources returns the project files (slash paths from the project
// root) whose content another section of the prompt already carries, so
// the files section does not repeat them ("each file once", issue 6
// review: a plan naming .planning/STATE.md in files_modified put it in
// full next to the State section): the system prompt's files, the tools
// file and the skills; the planning files the planning model reads into
// the brief, current plan, state, health and recitation sections (brief,
// roadmap, state, the current plan, loop files, the files of blockers and
// decisions); the preservation file; the target's conversation log; and
// the sources of the extra sections (conversation layers).
func sectionSources(proj *planning.Project, tg *config.Target, in *prompt.Input) map[string]bool {
	seen := map[string]bool{}
	for _, f := range in.System {
		seen[f.Path] = true
	}
	for _, f := range in.Skills {
		seen[f.Path] = true
	}
	if in.Tools != nil {
		seen[in.Tools.Path] = true
	}
	if in.Preserved != nil {
		seen[in.Preserved.Path] = true
	}
	seen[layout.PreservedFile] = true
	if tg.Conversation != "" {
		seen[layout.ConversationLog(tg.Conversation)] = true
	}
	for _, x := range in.Extra {
		for _, src := range x.Sources {
			seen[src] = true
		}
	}
	addPlanning := func(rel string) {
		if rel != "" {
			seen[layout.PlanningDir+"/"+rel] = true
		}
	}
	if proj == nil {
		return seen
	}
	if proj.Brief != nil {
		addPlanning(proj.Brief.Path)
	}
	if proj.Roadmap != nil {
		addPlanning(proj.Roadmap.Path)
	}
	if proj.State != nil {
		addPlanning(proj.State.Path)
	}
	if proj.CurrentPlan != nil {
		addPlanning(proj.CurrentPlan.Path)
	}
	for _, l := range proj.Loops {
		addPlanning(l.Path)
	}
	for _, b := range proj.Blockers {
		addPlanning(sourceFile(b.Source))
	}
	for _, d := range proj.Decisions {
		addPlanning(sourceFile(d.Source))
	}
	return seen
}

// sourceFile is the path of a "path:line" source.
func sourceFile(src string) string {
	if i := strings.LastIndexByte(src, ':'); i > 0 {
		if _, err := strconv.Atoi(src[i+1:]); err == nil {
			return src[:i]
		}
	}
	return src
}

// sectionFile reads one file for the files section: cut to maxLines (head
// and tail around a "⟨path: lines a–b omitted⟩" pointer) and to
// maxSectionFileBytes, redacted with its own path.
func (sp *Scope) sectionFile(rel string, maxLines int, redact func(rel, text string) string) (prompt.File, error) {
	b, err := os.ReadFile(filepath.Join(sp.dir, filepath.FromSlash(rel)))
	if err != nil {
		return prompt.File{}, err
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return prompt.File{Path: rel, Text: fmt.Sprintf("⟨%s: binary file, %d bytes, not shown⟩", rel, len(b))}, nil
	}
	text := strings.TrimPrefix(string(b), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = cutLines(rel, text, maxLines, maxSectionFileBytes)
	text = redact(rel, text)
	return prompt.File{Path: rel, Text: text}, nil
}

// cutLines keeps the head and tail of text when it has more than maxLines
// lines or more than maxBytes bytes: up to two thirds of each limit for
// the head, the rest for the tail, whole lines only, around a pointer line
// naming the omitted lines of the file as it is on disk, so the agent can
// read them back.
func cutLines(rel, text string, maxLines, maxBytes int) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) <= maxLines && len(text) <= maxBytes {
		return text
	}
	headLines, headBytes := maxLines*2/3, maxBytes*2/3
	h, size := 0, 0
	for h < len(lines) && h < headLines && size+len(lines[h])+1 <= headBytes {
		size += len(lines[h]) + 1
		h++
	}
	tailLines, tailBytes := maxLines-1-h, maxBytes-size
	t := 0
	size = 0
	for t < len(lines)-h && t < tailLines && size+len(lines[len(lines)-1-t])+1 <= tailBytes {
		size += len(lines[len(lines)-1-t]) + 1
		t++
	}
	if h+t >= len(lines) {
		return text
	}
	var b strings.Builder
	for _, l := range lines[:h] {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "⟨%s: lines %d–%d omitted⟩", rel, h+1, len(lines)-t)
	for _, l := range lines[len(lines)-t:] {
		b.WriteString("\n" + l)
	}
	return b.String()
}
