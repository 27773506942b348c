package planning

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/recite-dev/recite/markdown"
)

// diskPhase is one phase folder (or loose phase files) found on disk.
type diskPhase struct {
	number, name, dir string
	plans             []*Plan
}

// scanPhases reads phases/ of the view: each folder whose name starts with
// a phase number, after an optional project code (phaseFolderName), its
// flat plans and summaries and a nested plans/ folder; files directly in
// phases/ whose name starts with a number ("11-PLAN.md") join the phase of
// that number. Folders sharing a number are merged, with a diagnostic.
// Plan and summary files it cannot place in a phase are diagnostics
// (unplaced), never silence (docs/formats.md#phase-folders).
func (l *loader) scanPhases(byPath map[string]*walked) []*diskPhase {
	return l.scanPhaseFolders(byPath, "phases", l.v.prefix+"phases/")
}

// scanPhaseFolders reads the phase folders under root, a logical path of
// the view ("phases", or an archive "milestones/v1.0-phases"); base is
// root's real path with a trailing slash.
func (l *loader) scanPhaseFolders(byPath map[string]*walked, root, base string) []*diskPhase {
	var out []*diskPhase
	index := map[string]*diskPhase{}
	summaries := map[*diskPhase][]phaseFile{}
	var lost unplaced
	depth := strings.Count(root, "/") + 1
	for i := range l.files {
		w := &l.files[i]
		if w.lpath == "" || !strings.HasPrefix(w.lpath, root+"/") {
			continue
		}
		parts := strings.Split(w.lpath, "/")[depth-1:]
		isPlanFile := w.role == "plan" || w.role == "summary"
		var dp *diskPhase
		switch {
		case len(parts) == 2:
			if !isPlanFile {
				continue
			}
			if dp = l.phaseFor(parts[1], false, base, index, &out); dp == nil {
				lost.add(w.path, w.path)
			}
		default:
			dp = l.phaseFor(parts[1], true, base, index, &out)
			if !isPlanFile {
				continue
			}
			if dp == nil {
				lost.add(base+parts[1], w.path)
			} else if len(parts) > 4 || (len(parts) == 4 && parts[2] != "plans") {
				lost.add(path.Dir(w.path), w.path)
				isPlanFile = false
			}
		}
		if dp == nil || !isPlanFile {
			continue
		}
		name := parts[len(parts)-1]
		kind, key := classifyPhaseFile(name)
		id, pure := planIdentity(name, key, dp.number)
		if kind == kindSummary {
			summaries[dp] = append(summaries[dp], phaseFile{path: w.path, key: key, id: id})
			if root == "phases" {
				l.checkFrontMatter(w) // front matter diagnostics
			}
			continue
		}
		dp.plans = append(dp.plans, &Plan{Path: w.path, ID: planID(name), pairKey: key, pairID: id, pureID: pure})
	}
	if root == "phases" {
		lost.report(l, strings.TrimSuffix(base, "/"))
	}
	byReal := map[string]*walked{}
	for _, w := range byPath {
		byReal[w.path] = w
	}
	for _, dp := range out {
		pairPlans(dp.plans, summaries[dp])
		if root != "phases" {
			// History: which plans are done is all a finished milestone's
			// phase needs; the front matter pass reads their diagnostics.
			continue
		}
		for _, pl := range dp.plans {
			w := byReal[pl.Path]
			if doc := l.readDoc(w, false); doc != nil {
				l.plan(w, pl, doc)
			} else {
				pl.Failure = w.failure
			}
		}
	}
	return out
}

// archivedPhases reads the phase folders GSD's complete-milestone moved
// under milestones/vX.Y-phases/: history, joined only with the roadmap's
// archived phases and never the current phase
// (docs/formats.md#finished-milestones).
func (l *loader) archivedPhases(byPath map[string]*walked) []*diskPhase {
	roots := map[string]string{}
	for _, w := range byPath {
		rest, ok := strings.CutPrefix(w.lpath, "milestones/")
		if !ok {
			continue
		}
		dir, _, ok := strings.Cut(rest, "/")
		if ok && strings.HasPrefix(dir, "v") && strings.HasSuffix(dir, "-phases") {
			roots["milestones/"+dir] = w.path[:len(w.path)-len(w.lpath)] + "milestones/" + dir + "/"
		}
	}
	keys := make([]string, 0, len(roots))
	for k := range roots {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []*diskPhase
	for _, k := range keys {
		out = append(out, l.scanPhaseFolders(byPath, k, roots[k])...)
	}
	return out
}

// unplaced gathers the plan and summary files under phases/ that belong to
// no phase, by the place that loses them: a loose file directly in phases/
// without a phase number, a folder whose name has none, or a subfolder of
// a phase folder other than plans/.
type unplaced struct {
	places []string
	files  map[string][]string
}

func (u *unplaced) add(place, file string) {
	if u.files == nil {
		u.files = map[string][]string{}
	}
	if _, ok := u.files[place]; !ok {
		u.places = append(u.places, place)
	}
	u.files[place] = append(u.files[place], file)
}

// report adds one diagnostic per place.
func (u *unplaced) report(l *loader, root string) {
	code := ""
	if l.code != "" {
		code = fmt.Sprintf("; project_code %s from config.json", l.code)
	}
	for _, place := range u.places {
		files := u.files[place]
		what, verb := fmt.Sprintf("1 plan or summary file (%s)", path.Base(files[0])), "is"
		if len(files) > 1 {
			what, verb = fmt.Sprintf("%d plan or summary files (%s, …)", len(files), path.Base(files[0])), "are"
		}
		switch {
		case place == files[0]:
			l.diag(place, 0, "plan or summary file directly in phases/ whose name has no phase number; not placed in any phase")
		case path.Dir(place) == root:
			l.diag(place, 0, "folder name has no phase number (want NN-slug or CODE-NN-slug%s); its %s %s not read", code, what, verb)
		default:
			l.diag(place, 0, "%s in a subfolder of a phase folder %s not read: plans are read from the phase folder and its plans/ folder only", what, verb)
		}
	}
}

// roadmap is parseRoadmap, once per version of the file.
func (l *loader) roadmap(w *walked, doc *markdown.Document) []roadmapPhase {
	return l.cache.derive(w.entry, "roadmap", func() any { return parseRoadmap(w.path, doc) }).([]roadmapPhase)
}

// plan is parsePlan, once per version of the file and completion (the
// tasks of a plan with a summary are done).
func (l *loader) plan(w *walked, pl *Plan, doc *markdown.Document) {
	key := "plan"
	if pl.Done {
		key = "plan-done"
	}
	q := l.cache.derive(w.entry, key, func() any {
		q := &Plan{Done: pl.Done}
		parsePlan(q, doc)
		return q
	}).(*Plan)
	pl.Markdown, pl.Title, pl.Type, pl.Objective = doc, q.Title, q.Type, q.Objective
	pl.FilesModified, pl.Tasks = q.FilesModified, q.Tasks
}

// phaseFor returns the disk phase for a folder (isDir; its name may carry
// a project code, see phaseFolderName) or loose file name under the phase
// root whose real path is base ("phases/", with a trailing slash),
// creating it; nil when the name has no phase number.
func (l *loader) phaseFor(name string, isDir bool, base string, index map[string]*diskPhase, out *[]*diskPhase) *diskPhase {
	numbered := name
	if isDir {
		numbered = phaseFolderName(name, l.code)
	}
	num := NormalizePhase(numbered)
	if num == "" {
		return nil
	}
	dp, ok := index[num]
	if !ok {
		dp = &diskPhase{number: num}
		index[num] = dp
		*out = append(*out, dp)
	}
	if isDir {
		dir := base + name
		switch {
		case dp.dir == "":
			dp.dir = dir
			m := phaseNumRe.FindStringSubmatch(numbered)
			dp.name = strings.TrimLeft(numbered[len(m[1]):], "-_ .")
		case dp.dir != dir:
			if base == l.v.prefix+"phases/" {
				// Archived milestones hold history only: no diagnostic.
				l.diag(dir, 0, "phase folder has the same number (%s) as %s; their plans are merged", num, dp.dir)
			}
			dp.dir = dir // keep the last, but remember both plans
			if dp.name == "" {
				m := phaseNumRe.FindStringSubmatch(numbered)
				dp.name = strings.TrimLeft(numbered[len(m[1]):], "-_ .")
			}
		}
	}
	return dp
}

// planID is the plan id from a file name: "03-02" from "03-02-PLAN.md",
// else the name without its extension.
func planID(name string) string {
	base := strings.TrimSuffix(name, path.Ext(name))
	if m := planIDRe.FindString(base); m != "" {
		return m
	}
	return base
}

// mergePhases joins roadmap phases with disk phases by normalised number:
// roadmap order first, then disk-only phases by number. A roadmap phase
// inside a `<details>` archive that has no folder under phases/ takes the
// folder of the same number under milestones/vX.Y-phases/ (archived), if
// any. A phase's status is the roadmap's explicit complete, deferred or
// in_progress (`[x]`, `[-]`, `[~]`, a Progress table, a heading marker),
// else the disk's: complete when every plan has a summary, in_progress
// when some do, planned when plans exist, else the roadmap's not_started:
// progress is derived from disk, never from counters
// (docs/formats.md#the-roadmap).
func mergePhases(rps []roadmapPhase, disk, archived []*diskPhase) []*Phase {
	byNum := map[string]*diskPhase{}
	for _, d := range disk {
		byNum[d.number] = d
	}
	oldNum := map[string]*diskPhase{}
	for _, d := range archived {
		if _, ok := oldNum[d.number]; !ok {
			oldNum[d.number] = d
		}
	}
	used := map[string]bool{}
	out := make([]*Phase, 0, len(rps)+len(disk))
	for _, rp := range rps {
		ph := &Phase{Number: rp.number, Name: rp.name, Goal: rp.goal, Line: rp.line, Archived: rp.archived, Plans: []*Plan{}}
		d, ok := byNum[rp.number]
		if ok {
			used[rp.number] = true
		} else if rp.archived {
			d, ok = oldNum[rp.number]
		}
		if ok {
			ph.Dir = d.dir
			if d.plans != nil {
				ph.Plans = d.plans
			}
			if ph.Name == "" {
				ph.Name = d.name
			}
		}
		ph.Status = phaseStatus(rp.status, ph)
		out = append(out, ph)
	}
	var rest []*Phase
	for _, d := range disk {
		if used[d.number] {
			continue
		}
		ph := &Phase{Number: d.number, Name: d.name, Dir: d.dir, Plans: d.plans, OnlyOnDisk: len(rps) > 0}
		if ph.Plans == nil {
			ph.Plans = []*Plan{}
		}
		ph.Status = phaseStatus("", ph)
		rest = append(rest, ph)
	}
	sort.SliceStable(rest, func(i, j int) bool { return comparePhase(rest[i].Number, rest[j].Number) < 0 })
	return append(out, rest...)
}

func phaseStatus(explicit string, ph *Phase) string {
	switch explicit {
	case StatusComplete, StatusDeferred, StatusInProgress:
		return explicit
	}
	n, done := len(ph.Plans), ph.PlansDone()
	switch {
	case n > 0 && done >= n:
		return StatusComplete
	case done > 0:
		return StatusInProgress
	case n > 0:
		return StatusPlanned
	case explicit != "":
		return explicit
	}
	return StatusNotStarted
}

// resolvePosition sets Milestone, CurrentPhase, CurrentPlan, NextTask and
// NextAction (docs/formats.md#current-position). A milestone the state
// file calls complete or not started has no current phase. Otherwise the
// current phase is the state's front matter active_phase, else its
// current_phase or the position section's Phase field ("None" and "Not
// started" name no phase); when that phase is complete, or none is named,
// the first open phase of the front matter next_phases, then
// HANDOFF.json's phase; else the first phase not complete, deferred or
// archived, in roadmap order, among the phases the roadmap declares (all
// phases when it declares none). The current plan is the first plan of
// that phase without a summary, in name order; the next task is its first
// task not done (see nextTask).
func resolvePosition(p *Project) {
	st := p.State
	p.Milestone = milestoneOf(p)
	if st != nil && p.NextAction == nil && st.NextAction != "" {
		text := st.NextAction
		if len(st.NextPhases) > 0 {
			text += " " + strings.Join(st.NextPhases, ", ")
		}
		p.NextAction = &Action{Text: text, Source: srcRef(st.Path, metaKeyLine(st.Markdown, "next_action"))}
	}
	if m := p.Milestone.Status; m == MilestoneComplete || m == MilestoneNotStarted {
		if p.NextAction == nil {
			p.NextAction = &Action{Text: nextMilestoneStep(p), Source: p.Milestone.Source}
		}
		return
	}
	known := func(v string) string {
		if num := statePhaseNumber(v); num != "" && p.phase(num) != nil {
			return num
		}
		return ""
	}
	var num string
	if st != nil {
		for _, c := range []struct {
			v    string
			line int
		}{{st.ActivePhase, metaKeyLine(st.Markdown, "active_phase")}, {st.Phase, st.PhaseLine}} {
			if n := statePhaseNumber(c.v); n != "" {
				if p.phase(n) == nil {
					p.Diagnostics = append(p.Diagnostics, Diagnostic{Path: st.Path, Line: c.line,
						Message: fmt.Sprintf("current phase %s is neither in the roadmap nor in phases/", n)})
					continue
				}
				num = n
				break
			}
		}
		if num == "" || p.phase(num).Status == StatusComplete {
			for _, np := range st.NextPhases {
				if n := known(np); n != "" && p.phase(n).Status != StatusComplete {
					num = n
					break
				}
			}
		}
	}
	if num == "" && p.Handoff != nil {
		num = known(p.Handoff.Phase)
	}
	if num != "" {
		p.CurrentPhase = p.phase(num)
	} else {
		for _, ph := range p.Phases {
			if ph.Status != StatusComplete && ph.Status != StatusDeferred && !ph.Archived && !ph.OnlyOnDisk {
				p.CurrentPhase = ph
				break
			}
		}
	}
	if p.CurrentPhase == nil {
		return
	}
	for _, pl := range p.CurrentPhase.Plans {
		if !pl.Done {
			p.CurrentPlan = pl
			break
		}
	}
	p.NextTask = nextTask(p.CurrentPlan)
}

// phase returns the phase with the normalised number, or nil.
func (p *Project) phase(num string) *Phase {
	for _, ph := range p.Phases {
		if ph.Number == num {
			return ph
		}
	}
	return nil
}
