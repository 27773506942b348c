package prompt

import (
	"fmt"
	"path"
	"strings"

	"github.com/recite-dev/recite/planning"
)

// File is a file's project-relative path and its text.
type File struct {
	Path string
	Text string
}

// Input is everything a target's prompt is assembled from. The engine
// reads the files; Assemble only arranges them.
type Input struct {
	// Target and Role name the target and its role template.
	Target, Role string
	// RoleTemplate is the role template's text.
	RoleTemplate string
	// System are the project's instruction files (AGENTS.md, CLAUDE.md).
	System []File
	// Tools is the tool-instructions file, if configured.
	Tools *File
	// Skills are skill files, loaded once into the stable prefix.
	Skills []File
	// FileTree is the file-tree section body ("" for none).
	FileTree string
	// Files are the contents of files the current task names (semi tier).
	Files []File
	// Project is the loaded planning tree; PlanningDir is its path relative
	// to the project root (".planning"), used to name sources.
	Project     *planning.Project
	PlanningDir string
	// Health lines (loop health and circuit breaker), for the semi tier and
	// the recitation.
	Health []string
	// Approach lines for the recitation (current approach, what failed).
	Approach []string
	// Preserved is the latest preservation block, if any.
	Preserved *File
	// Errors are recent errors verbatim, oldest first; ErrorSources name
	// where they were recorded.
	Errors       []string
	ErrorSources []string
	// Stops are stop signals (BLOCKED/STUCK lines, STOP: lines, rejected
	// tool uses) of the conversation log, verbatim, oldest first;
	// StopSources name the records they came from. They share the errors
	// section, and every shorter form of it keeps them all: Fit never cuts
	// a stop signal.
	Stops       []string
	StopSources []string
	// Messages are the conversation tail, oldest first; Conversation names
	// its log.
	Messages     []Message
	Conversation string
	// ToolSet and FixedTools are the tools block of the conversation
	// (Prompt.Tools); LowWater the share of the budget Fit keeps of the
	// messages when it must cut them (Prompt.LowWater).
	ToolSet    []string
	FixedTools bool
	LowWater   float64
	// Settled is the id of the last message of the history's settled
	// part (history.Pruned.Settled): what a compression pass may rewrite
	// only at an eviction. "" before the first eviction.
	Settled string
	// Extra are additional sections (the conversation coordinator's
	// learnings, epic/phase and loop/role layers); each is placed by its ID.
	Extra []Section
	// Demote keeps the demoted form of embedded documents between builds
	// (nil: none); an engine passes the same one to every Assemble.
	Demote *DemoteCache
	// Difficulty is the current task's routing tier, recited in the
	// recitation's task heading ("" for none).
	Difficulty string
}

// Assemble builds the sections of one target's prompt in cache order.
func Assemble(in Input) *Prompt {
	p := &Prompt{Target: in.Target, Conversation: in.Conversation, Tools: in.ToolSet, FixedTools: in.FixedTools, LowWater: in.LowWater}
	proj := in.Project
	if proj == nil {
		proj = &planning.Project{}
	}
	src := func(rel string) string {
		if rel == "" {
			return ""
		}
		return path.Join(in.PlanningDir, rel)
	}

	// Stable tier.
	var sys strings.Builder
	sys.WriteString(in.Demote.demote(strings.TrimSpace(in.RoleTemplate), 3))
	sources := []string{"templates/roles/" + in.Role + ".md"}
	for _, f := range in.System {
		sys.WriteString("\n\n### " + f.Path + "\n\n")
		sys.WriteString(in.Demote.demote(strings.TrimSpace(f.Text), 4))
		sources = append(sources, f.Path)
	}
	p.Add(Section{ID: IDSystem, Heading: "System prompt", Sources: sources, Body: sys.String()})
	if in.Tools != nil {
		p.Add(Section{ID: IDTools, Heading: "Tool instructions", Sources: []string{in.Tools.Path}, Body: in.Demote.demote(strings.TrimSpace(in.Tools.Text), 3)})
	}
	if proj.Brief != nil && proj.Brief.Markdown != nil {
		p.Add(Section{ID: IDBrief, Heading: "Project brief", Sources: []string{src(proj.Brief.Path)}, Body: in.Demote.demote(strings.TrimSpace(stableBrief(proj.Brief.Markdown)), 3)})
	}
	if len(in.Skills) > 0 {
		var b strings.Builder
		var ss []string
		for i, f := range in.Skills {
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString("### " + f.Path + "\n\n" + in.Demote.demote(strings.TrimSpace(f.Text), 4))
			ss = append(ss, f.Path)
		}
		p.Add(Section{ID: IDSkills, Heading: "Skills", Sources: ss, Body: b.String()})
	}
	if in.FileTree != "" {
		p.Add(Section{ID: IDFileTree, Heading: "Project files", Sources: []string{".powerignore"}, Body: in.FileTree})
	}
	p.Add(planSection(proj, src, in.Demote))

	// Semi tier.
	p.Add(stateSection(proj, src, in))
	if len(in.Files) > 0 {
		var b strings.Builder
		var ss []string
		for i, f := range in.Files {
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString("### " + f.Path + "\n\n" + fence(f.Text, langOf(f.Path)))
			ss = append(ss, f.Path)
		}
		p.Add(Section{ID: IDFiles, Heading: "Files of the current task", Sources: ss, Body: b.String(), Shorter: shorterFiles(in.Files), ShorterNotes: shorterFilesNotes})
	}
	if len(in.Health) > 0 {
		var ss []string
		for _, l := range proj.Loops {
			ss = append(ss, src(l.Path))
		}
		p.Add(Section{ID: IDHealth, Heading: "Health", Sources: ss, Body: "- " + strings.Join(in.Health, "\n- ")})
	}

	// The extra sections carry planning documents (learnings, the epic
	// and phase files): their headings go below the section's.
	for _, x := range in.Extra {
		x.Body = in.Demote.demote(x.Body, 3)
		p.Add(x)
	}

	// Dynamic tier: conversation, preserved signals, errors, recitation last.
	if len(in.Messages) > 0 {
		p.Messages = make([]Message, len(in.Messages))
		for i, m := range in.Messages {
			m.Content = CleanControls(m.Content)
			p.Messages[i] = m
		}
		p.Add(Section{ID: IDConversation, Heading: "Conversation", Sources: []string{in.Conversation}})
	}
	if in.Preserved != nil {
		p.Add(Section{ID: IDPreserved, Heading: "Preserved stop signals (do not summarize)", Sources: []string{in.Preserved.Path}, Body: in.Demote.demote(strings.TrimSpace(in.Preserved.Text), 3)})
	}
	if len(in.Errors) > 0 || len(in.Stops) > 0 {
		s := Section{ID: IDErrors, Heading: errorsHeading(in), Sources: append(append([]string(nil), in.StopSources...), in.ErrorSources...), Body: signalsBody(in.Stops, in.Errors)}
		for _, keep := range []int{3, 1} {
			if len(in.Errors) > keep {
				s.Shorter = append(s.Shorter, signalsBody(in.Stops, in.Errors[len(in.Errors)-keep:]))
				s.ShorterNotes = append(s.ShorterNotes, fmt.Sprintf("kept the %d most recent of %d errors", keep, len(in.Errors)))
			}
		}
		p.Add(s)
	}
	p.Add(Section{ID: IDRecitation, Heading: "Recitation", Sources: recitationSources(proj, src), Body: Recite(recitationInput(proj, in))})
	return p
}

// fileCuts are the shares of the files' lines (percent) the shorter forms
// of the files section omit, tried in order by Fit: small steps first, so
// Fit stops close to the budget.
var fileCuts = []int{5, 10, 15, 20, 30, 45, 60, 75, 90}

// minFileLines is the fewest lines a shorter form keeps of a file.
const minFileLines = 8

// shorterFilesNotes say what each shorter form of the files section cut.
var shorterFilesNotes = func() []string {
	var out []string
	for _, pct := range fileCuts {
		out = append(out, fmt.Sprintf("omitted %d%% of the files' lines, from the middle of the longest files", pct))
	}
	return out
}()

// shorterFiles are the shorter forms of the files section, so Fit shortens
// the files being edited before it drops any section: each omits a share
// (fileCuts) of all the files' lines, taken one line at a time from the
// file with the most lines kept (the longest files are cut first, and a
// file keeps at least minFileLines), each cut file keeping its head and
// tail (headTail).
func shorterFiles(files []File) []string {
	lines := make([]int, len(files))
	total := 0
	for i, f := range files {
		lines[i] = strings.Count(strings.TrimRight(f.Text, "\n"), "\n") + 1
		total += lines[i]
	}
	var out []string
	for _, pct := range fileCuts {
		keep := append([]int(nil), lines...)
		for omit := total * pct / 100; omit > 0; omit-- {
			k := -1
			for i := range keep {
				if keep[i] > minFileLines && (k < 0 || keep[i] > keep[k]) {
					k = i
				}
			}
			if k < 0 {
				break
			}
			keep[k]--
		}
		var b strings.Builder
		for i, f := range files {
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString("### " + f.Path + "\n\n" + fence(headTail(f.Path, f.Text, keep[i]), langOf(f.Path)))
		}
		out = append(out, b.String())
	}
	return out
}

// headTail keeps keep lines of text: two thirds from the head, the rest
// from the tail, around a line "⟨PATH: N lines omitted to fit the token
// budget⟩".
func headTail(path, text string, keep int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if keep >= len(lines) {
		return text
	}
	h := keep * 2 / 3
	t := keep - h
	var b strings.Builder
	for _, l := range lines[:h] {
		b.WriteString(l + "\n")
	}
	n := len(lines) - keep
	fmt.Fprintf(&b, "⟨%s: %d %s omitted to fit the token budget⟩", path, n, plural(n, "line", "lines"))
	for _, l := range lines[len(lines)-t:] {
		b.WriteString("\n" + l)
	}
	return b.String()
}

// errorsHeading names the errors section by what it carries.
func errorsHeading(in Input) string {
	switch {
	case len(in.Stops) == 0:
		return "Recent errors (verbatim)"
	case len(in.Errors) == 0:
		return "Stop signals (verbatim)"
	}
	return "Stop signals and recent errors (verbatim)"
}

// signalsBody is the errors section's body: the stop signals, then the
// errors, each verbatim in a fence; with both, under "### Stop signals"
// and "### Errors".
func signalsBody(stops, errs []string) string {
	if len(stops) == 0 {
		return errorsBody(errs)
	}
	if len(errs) == 0 {
		return errorsBody(stops)
	}
	return "### Stop signals\n\n" + errorsBody(stops) + "\n\n### Errors\n\n" + errorsBody(errs)
}

func errorsBody(errs []string) string {
	var b strings.Builder
	for i, e := range errs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(fence(e, "text"))
	}
	return b.String()
}

// fence wraps text in a code fence longer than any backtick run inside it.
func fence(text, lang string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}

func langOf(p string) string {
	switch ext := strings.TrimPrefix(path.Ext(p), "."); ext {
	case "go", "ts", "tsx", "js", "jsx", "py", "rs", "java", "rb", "sh", "yaml", "yml", "json", "md", "sql", "css", "html", "toml":
		return ext
	}
	return ""
}

func phaseLabel(proj *planning.Project, ph *planning.Phase) string {
	l := "Phase " + ph.Number
	if n := len(proj.Phases); n > 0 {
		l += fmt.Sprintf(" of %d", n)
	}
	if ph.Name != "" {
		l += ": " + ph.Name
	}
	return l
}

func planSection(proj *planning.Project, src func(string) string, dm *DemoteCache) Section {
	s := Section{ID: IDPlan, Heading: "Current plan"}
	var b strings.Builder
	if ph := proj.CurrentPhase; ph != nil {
		b.WriteString(phaseLabel(proj, ph) + "\n")
		if ph.Goal != "" {
			b.WriteString("Goal: " + ph.Goal + "\n")
		}
		if proj.Roadmap != nil {
			s.Sources = append(s.Sources, src(proj.Roadmap.Path))
		}
	}
	pl := proj.CurrentPlan
	if pl == nil {
		if b.Len() == 0 {
			return s
		}
		b.WriteString("\nNo plan without a summary in this phase.")
		s.Body = strings.TrimSpace(b.String())
		return s
	}
	s.Sources = append(s.Sources, src(pl.Path))
	b.WriteString("Plan file: " + src(pl.Path) + "\n\n")
	if md := pl.Markdown; md != nil {
		for _, fm := range md.FrontMatter {
			b.WriteString(fence(strings.TrimRight(fm.Raw, "\n"), "yaml") + "\n\n")
		}
		b.WriteString(dm.demote(strings.TrimSpace(md.Body), 3))
	}
	s.Body = strings.TrimSpace(b.String())
	return s
}

func stateSection(proj *planning.Project, src func(string) string, in Input) Section {
	s := Section{ID: IDState, Heading: "State"}
	st := proj.State
	var pos []string
	if st != nil {
		s.Sources = append(s.Sources, src(st.Path))
	}
	if ph := proj.CurrentPhase; ph != nil {
		pos = append(pos, "Position: "+phaseLabel(proj, ph))
	} else if st != nil && st.Phase != "" {
		pos = append(pos, "Phase: "+st.Phase)
	}
	if pl := proj.CurrentPlan; pl != nil {
		pos = append(pos, "Plan: "+pl.ID+" ("+src(pl.Path)+")")
	}
	pos = append(pos, treeStateLines(proj, src)...)
	if st != nil {
		// The last activity and the progress change with every edit: they
		// are recited (statusLines), not part of the snapshot.
		for _, kv := range [][2]string{{"Status", st.Status}, {"Stopped at", st.StoppedAt}, {"Resume file", st.ResumeFile}} {
			if kv[1] != "" {
				pos = append(pos, kv[0]+": "+kv[1])
			}
		}
	}
	var open []string
	planned, extra := blockerList(proj, in)
	for _, bl := range planned {
		// The file, not its line: a line above the blocker moves it, and
		// the snapshot would change with every decision added. A blocker a
		// stop signal repeats is listed once, with both sources.
		from := src(sourcePath(bl.Source))
		if bl.signal {
			from += ", stop signal"
		}
		open = append(open, blockerLabel(bl.Blocker)+" ("+from+")")
	}
	for _, l := range extra {
		open = append(open, l+" (stop signal)")
	}
	// The snapshot lists decisions in whole chunks; the newest ones, after
	// the last chunk, are among the 3 the recitation recites.
	var decisions []string
	for _, d := range proj.Decisions[:chunkedDecisions(len(proj.Decisions))] {
		decisions = append(decisions, d.Text)
	}
	render := func(maxBlockers, maxDecisions int) string {
		var b strings.Builder
		for _, l := range pos {
			b.WriteString("- " + cutText(l, 300) + "\n")
		}
		if len(open) > 0 {
			fmt.Fprintf(&b, "\nOpen blockers (%d):\n", len(open))
			for i, l := range open {
				if i == maxBlockers {
					fmt.Fprintf(&b, "- … and %d more\n", len(open)-maxBlockers)
					break
				}
				b.WriteString("- " + l + "\n")
			}
		}
		if len(decisions) > 0 {
			ds := decisions
			if len(ds) > maxDecisions {
				ds = ds[len(ds)-maxDecisions:]
			}
			fmt.Fprintf(&b, "\nDecisions %d to %d (the newest are recited):\n", len(decisions)-len(ds)+1, len(decisions))
			for _, d := range ds {
				b.WriteString("- " + cutText(d, 400) + "\n")
			}
		}
		return strings.TrimSpace(b.String())
	}
	s.Body = render(10, 5)
	s.Shorter = []string{render(3, 2), render(0, 0)}
	s.ShorterNotes = []string{"kept 3 open blockers and the 2 latest decisions", "kept the position only"}
	return s
}

// sourcePath is the path of "path:line".
func sourcePath(s string) string {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		return s[:i]
	}
	return s
}

func recitationSources(proj *planning.Project, src func(string) string) []string {
	var ss []string
	if proj.State != nil {
		ss = append(ss, src(proj.State.Path))
	}
	if proj.CurrentPlan != nil {
		ss = append(ss, src(proj.CurrentPlan.Path))
	}
	return ss
}

func recitationInput(proj *planning.Project, in Input) RecitationInput {
	var r RecitationInput
	if ph := proj.CurrentPhase; ph != nil {
		r.Phase = phaseLabel(proj, ph)
		r.Goal = ph.Goal
		if proj.State != nil && proj.State.Status != "" {
			r.Phase += " (" + proj.State.Status + ")"
		}
	} else {
		r.Phase = noPhaseLine(proj)
	}
	if ws := proj.Workstream; ws != nil {
		r.Phase = "Workstream " + ws.Name + ": " + r.Phase
	}
	if pl := proj.CurrentPlan; pl != nil {
		r.Plan = "Plan " + pl.ID
		if title := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(pl.Title, "Plan "+pl.ID), ":")); title != "" {
			r.Plan += ": " + title
		}
		next := -1
		if proj.NextTask != nil {
			r.Next = proj.NextTask.Text
			r.Files = proj.NextTask.Files
			for i := range pl.Tasks {
				if pl.Tasks[i].Line == proj.NextTask.Line {
					next = i
					break
				}
			}
		}
		if len(r.Files) == 0 {
			r.Files = pl.FilesModified
		}
		for i, t := range pl.Tasks {
			r.Tasks = append(r.Tasks, TaskLine{Text: t.Text, Done: t.State == "done", Current: i == next})
		}
	}
	treeNextStep(proj, &r)
	r.Approach = in.Approach
	for _, d := range proj.Decisions {
		r.Decisions = append(r.Decisions, d.Text)
	}
	planned, extra := blockerList(proj, in)
	for _, pr := range []string{"P0", "P1", "P2", "P3", ""} {
		for _, bl := range planned {
			if bl.Priority == pr {
				r.Blockers = append(r.Blockers, blockerLabel(bl.Blocker))
			}
		}
	}
	// The BLOCKED stop signals in this prompt are open blockers too: the
	// recitation never says "none open" next to one. One that repeats a
	// blocker of the planning tree is that blocker, listed once.
	r.Blockers = append(r.Blockers, extra...)
	r.Health = in.Health
	r.Status = statusLines(proj)
	r.Difficulty = in.Difficulty
	return r
}

// blockerLabel is "ID [P1] title"; an id derived from the source position
// (no id in the file) is left out.
func blockerLabel(bl planning.Blocker) string {
	var parts []string
	if bl.ID != "" && bl.ID != bl.Source {
		parts = append(parts, bl.ID)
	}
	if bl.Priority != "" {
		parts = append(parts, "["+bl.Priority+"]")
	}
	parts = append(parts, bl.Title)
	return strings.Join(parts, " ")
}

// blockerIDs returns the ids of the open blockers that have one.
func blockerIDs(proj *planning.Project) []string {
	var ids []string
	for _, bl := range openBlockers(proj) {
		if bl.ID != "" && bl.ID != bl.Source {
			ids = append(ids, bl.ID)
		}
	}
	return ids
}

// openBlockers returns the open blockers, each id once: when the same id is
// recorded in several files (a state file's summary and BLOCKERS.md), the
// entry from BLOCKERS.md wins, else the first.
func openBlockers(proj *planning.Project) []planning.Blocker {
	var out []planning.Blocker
	index := map[string]int{}
	for _, bl := range proj.Blockers {
		if bl.Status != "open" {
			continue
		}
		if bl.ID != "" && bl.ID != bl.Source {
			if i, ok := index[bl.ID]; ok {
				if strings.HasPrefix(bl.Source, "BLOCKERS.md") && !strings.HasPrefix(out[i].Source, "BLOCKERS.md") {
					out[i] = bl
				}
				continue
			}
			index[bl.ID] = len(out)
		}
		out = append(out, bl)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
