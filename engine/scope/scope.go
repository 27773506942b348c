package scope

import (
	"context"
	"fmt"
	"strings"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/ignore"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// FileEntry is one project file that may enter an agent's context.
type FileEntry struct {
	Path string `json:"path"`
	// NeverExclude says who named the file when it is in context only
	// because something names it ("" otherwise).
	NeverExclude string `json:"never_exclude,omitempty"`
}

// errorTailMessages is how many of a conversation's last messages are
// searched for error-named files.
const errorTailMessages = 200

// maxErrorPaths bounds the candidate paths taken from one error text, so a
// huge log cannot make a build stat thousands of names.
const maxErrorPaths = 64

// Scope answers which files of one project may enter context and why. It
// keeps the file tree between builds (the tree is rebuilt only when a file
// it was built from changed), so one Scope serves one project for an
// Engine's lifetime; it is not safe for concurrent builds.
type Scope struct {
	dir  string
	tree *treeCache
	// records keeps the conversation records read (ShareRecords).
	records *conversation.RecordCache
}

// New returns the Scope of the project rooted at dir.
func New(dir string) *Scope { return &Scope{dir: dir} }

// ShareRecords makes the conversation reads of the scope (ErrorPaths)
// share the records c keeps with the process's other readers.
func (sp *Scope) ShareRecords(c *conversation.RecordCache) { sp.records = c }

// relPath is p relative to the project root (layout.RelPath).
func (sp *Scope) relPath(p string) (string, bool) { return layout.RelPath(sp.dir, p) }

// Set is what decides the files of one build: the never-exclude list and
// the task type with its exclude globs.
type Set struct {
	// Includes are the never-exclude entries: each path once, with the
	// first reason that named it.
	Includes []ignore.Include
	// TaskFiles are the current task's files, then error-named files, then
	// include lists: the candidates of the files section, in order.
	TaskFiles []ignore.Include
	// TaskType is the current task type, "" for none; TypeWhy says where
	// it came from.
	TaskType string
	TypeWhy  string
	// Extra are the task type's exclude globs, as ignore patterns naming
	// recite.yaml (or the default) as their source.
	Extra []ignore.ExtraPattern
}

// Compute computes the file scope for the given conversations (the
// targets' `conversation:` ids), the include lists of targetIncludes and
// extra --include paths. Problems reading a
// conversation or the preservation file are skipped: a missing log must not
// change which files exist.
func (sp *Scope) Compute(ctx context.Context, cfg *config.Config, proj *planning.Project, convs []string, targetIncludes []config.Target, extra []string) Set {
	var sc Set
	seen := map[string]bool{}
	add := func(to *[]ignore.Include, p, why string) {
		c, err := ignore.Clean(p)
		if err != nil || c == "." {
			return
		}
		*to = append(*to, ignore.Include{Path: c, Reason: why})
		if !seen[c] {
			seen[c] = true
			sc.Includes = append(sc.Includes, ignore.Include{Path: c, Reason: why})
		}
	}
	var planFiles, taskFiles, errFiles, incFiles []ignore.Include
	if pl := proj.CurrentPlan; pl != nil {
		for _, f := range pl.FilesModified {
			add(&planFiles, f, "the current plan ("+layout.PlanningDir+"/"+pl.Path+" files_modified)")
		}
		for _, t := range pl.Tasks {
			for _, f := range t.Files {
				var to *[]ignore.Include = &planFiles
				if proj.NextTask != nil && t.Line == proj.NextTask.Line {
					to = &taskFiles
				}
				add(to, f, "the current plan's task "+t.Text)
			}
		}
	}
	for _, ep := range sp.ErrorPaths(ctx, proj, convs) {
		add(&errFiles, ep.Path, "error at "+ep.Source)
	}
	for _, t := range targetIncludes {
		for _, f := range t.Include {
			add(&incFiles, f, "recite.yaml include of target "+t.Name)
		}
	}
	for _, f := range extra {
		add(&incFiles, f, "--include")
	}
	// The files section: the current task's files (else the plan's
	// files_modified), the files named by errors, then include lists.
	if len(taskFiles) == 0 {
		taskFiles = planFiles
	}
	sc.TaskFiles = append(append(append(sc.TaskFiles, taskFiles...), errFiles...), incFiles...)
	sc.TaskType, sc.TypeWhy = taskType(&cfg.Files, proj)
	if sc.TaskType != "" && sc.TaskType != config.TypeTesting {
		for i, g := range cfg.Files.TaskTypes[sc.TaskType] {
			file, line := config.FileName, cfg.Files.Line(sc.TaskType, i)
			if line == 0 {
				file = "recite default files.task_types." + sc.TaskType
			}
			sc.Extra = append(sc.Extra, ignore.ExtraPattern{Pattern: g, File: file, Line: line, Note: "task type " + sc.TaskType + ", " + sc.TypeWhy})
		}
	}
	return sc
}

// taskType picks the current task type (docs/formats.md#task-type-exclusions):
// the first of the current plan's front matter keys task_type, type and
// subsystem whose value is a configured task type or "testing" ("tdd" counts
// as testing), else the task type whose keywords (files.task_keywords, or its
// own name) appear as whole words in the current task's name. When the name
// matches several types, testing wins (it includes everything); any other tie
// gives no type. It returns the type and where it came from, or "" twice.
func taskType(f *config.Files, proj *planning.Project) (string, string) {
	pl := proj.CurrentPlan
	if pl == nil {
		return "", ""
	}
	known := func(t string) bool {
		_, ok := f.TaskTypes[t]
		return ok || t == config.TypeTesting
	}
	if md := pl.Markdown; md != nil {
		for _, key := range []string{"task_type", "type", "subsystem"} {
			v, ok := md.Meta(key)
			if !ok {
				continue
			}
			v = strings.ToLower(strings.Trim(strings.TrimSpace(v), `"'`))
			if v == "tdd" {
				v = config.TypeTesting
			}
			if known(v) {
				return v, "front matter " + key + " of " + layout.PlanningDir + "/" + pl.Path
			}
		}
	}
	t := proj.NextTask
	if t == nil || len(f.TaskKeywords) == 0 && len(f.TaskTypes) == 0 {
		return "", ""
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(t.Text), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r >= 0x80)
	}) {
		words[w] = true
	}
	types := f.Types()
	if _, ok := f.TaskTypes[config.TypeTesting]; !ok {
		types = append(types, config.TypeTesting)
	}
	var hits []string
	var hitWord string
	for _, typ := range types {
		kws, ok := f.TaskKeywords[typ]
		if !ok {
			kws = []string{typ}
		}
		for _, k := range kws {
			if words[strings.ToLower(k)] {
				hits = append(hits, typ)
				if hitWord == "" || typ == config.TypeTesting {
					hitWord = k
				}
				break
			}
		}
	}
	where := fmt.Sprintf("%s/%s:%d", layout.PlanningDir, pl.Path, t.Line)
	for _, h := range hits {
		if h == config.TypeTesting {
			return h, fmt.Sprintf("keyword %q of the current task (%s)", hitWord, where)
		}
	}
	if len(hits) == 1 {
		return hits[0], fmt.Sprintf("keyword %q of the current task (%s)", hitWord, where)
	}
	return "", ""
}

// ActiveLoop is the loop the health section shows
// (planning.Project.CurrentLoop).
func ActiveLoop(proj *planning.Project) *planning.Loop { return proj.CurrentLoop() }
