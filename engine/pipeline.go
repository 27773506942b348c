package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
)

// targetBuild is one target's build: its report, and the pipeline state
// behind it that the report does not show — the fitted prompt, the target,
// configuration and planning tree it was built from, and the render
// records a write adds to RendersFile.
type targetBuild struct {
	report  *TargetReport
	prompt  *prompt.Prompt
	target  *config.Target
	cfg     *config.Config
	proj    *planning.Project
	renders []RenderRecord
	// diags are the target's own diagnostics (from assembling it), kept
	// so a watch render that skips the target reports them again.
	diags []Diagnostic
}

// conversation is the id of the target's conversation, "" for none.
func (b *targetBuild) conversation() string {
	if b.target == nil {
		return ""
	}
	return b.target.Conversation
}

// build builds (write) or checks the targets that only accepts (all when
// only is nil), and returns the report with each target's build.
func (e *Engine) build(ctx context.Context, write bool, only func(*config.Target) bool) (*Report, []*targetBuild, error) {
	e.report(Progress{Stage: "reading the planning tree"})
	cfg, found, proj, err := e.load()
	if err != nil {
		return nil, nil, err
	}
	counter, err := e.Counter(cfg.Tokenizer)
	if err != nil {
		return nil, nil, &InputError{Err: err}
	}
	rep := &Report{Flavor: string(proj.Flavor), Tokenizer: cfg.Tokenizer, ContextWindow: cfg.ContextWindow, ConfigFound: found, Thresholds: cfg.Thresholds}
	for _, d := range proj.Diagnostics {
		d.Path = PlanningDir + "/" + d.Path
		rep.Diagnostics = append(rep.Diagnostics, d)
	}
	if write {
		if err := e.ensureDirs(); err != nil {
			return nil, nil, err
		}
	}
	var builds []*targetBuild
	streams := map[string]*planning.Project{}
	for i := range cfg.Targets {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		tg := &cfg.Targets[i]
		if only != nil && !only(tg) {
			continue
		}
		e.report(Progress{Stage: "building target " + tg.Name, Done: int64(i), Total: int64(len(cfg.Targets)), Unit: "targets"})
		tproj, err := e.targetProject(tg, proj, streams, rep)
		if err != nil {
			return nil, nil, err
		}
		tb, diags := e.assemble(ctx, cfg, tg, tproj)
		tb.diags = diags
		rep.Diagnostics = append(rep.Diagnostics, diags...)
		if err := e.renderTarget(tb, write, counter, rep); err != nil {
			return nil, nil, err
		}
		rep.Targets = append(rep.Targets, tb.report)
		builds = append(builds, tb)
	}
	if write {
		e.recordRenders(builds)
		e.recordPasses(builds)
	}
	sortDiagnostics(rep.Diagnostics)
	return rep, builds, nil
}

// targetProject is the planning tree a target is built from: proj, or
// for a target naming a workstream (docs/formats.md#workstreams) the tree
// read with that stream active, loaded once per build and stream (in
// streams), its diagnostics that proj lacks added to rep.
func (e *Engine) targetProject(tg *config.Target, proj *planning.Project, streams map[string]*planning.Project, rep *Report) (*planning.Project, error) {
	if tg.Workstream == "" || (proj.Workstream != nil && proj.Workstream.Name == tg.Workstream) {
		return proj, nil
	}
	if p, ok := streams[tg.Workstream]; ok {
		return p, nil
	}
	pdir, err := e.planningDir()
	if err != nil {
		return nil, err
	}
	p, err := e.loadPlanningFor(pdir, tg)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, d := range proj.Diagnostics {
		seen[d.String()] = true
	}
	for _, d := range p.Diagnostics {
		if !seen[d.String()] {
			d.Path = PlanningDir + "/" + d.Path
			rep.Diagnostics = append(rep.Diagnostics, d)
		}
	}
	streams[tg.Workstream] = p
	return p, nil
}

// sortDiagnostics orders diagnostics by path, then line, stably.
func sortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
}

// renderTarget renders the target's prompt in each of its providers'
// shapes and, with write, writes the files that changed, concurrently:
// each write ends with an fsync, and the filesystem commits concurrent
// syncs together. When a planning file feeding the prompt failed to parse,
// the last good render stays in place (restored when the file is gone).
// Diagnostics (a provider's context window under the pinned sections) go
// to rep.
func (e *Engine) renderTarget(tb *targetBuild, write bool, counter *budget.Counter, rep *Report) error {
	tr, tg := tb.report, tb.target
	tr.Kept = parseFailure(tb.proj)
	keptAny := false
	var writes []pendingWrite
	wait := func() error {
		var first error
		for _, w := range writes {
			r := <-w.done
			tr.Files[w.file].Written = r.written
			if r.err != nil && first == nil {
				first = r.err
			}
		}
		writes = nil
		return first
	}
	for _, prov := range tg.Providers {
		body, tokens, cuts, err := e.renderProvider(tb, prov, counter)
		if err != nil {
			_ = wait()
			return err
		}
		rep.Diagnostics = append(rep.Diagnostics, renderNotes(tb, prov)...)
		if limit := providerLimit(tb, prov); limit < tr.Budget && tokens > limit {
			rep.Diagnostics = append(rep.Diagnostics, Diagnostic{Path: config.FileName, Line: tg.Line, Message: fmt.Sprintf(
				"target %q, provider %s: the pinned sections alone take %d tokens, over the %d that %s's context window of %d leaves beside the reply (set targets[].capabilities.%s.max_context to change it)",
				tg.Name, prov, tokens, limit, tg.ModelFor(prov), tg.Limits(prov).ContextWindow, prov)})
		}
		caps, _ := tb.cfg.Catalog().Lookup(prov)
		rel := PromptsDir + "/" + tg.Name + caps.Ext
		fr := FileReport{Provider: prov, Path: rel, Bytes: len(body), Tokens: tokens, Cuts: cuts}
		old, _ := os.ReadFile(filepath.Join(e.dir, rel))
		fr.PrefixBytes = commonPrefix(old, body)
		if tr.Kept != "" && e.hasLastGood(rel, old) {
			// Leave the last good render in place.
			if write && old == nil {
				if err := e.restoreLastGood(rel); err != nil {
					_ = wait()
					return err
				}
			}
			if old != nil {
				fr.Bytes, fr.PrefixBytes = len(old), len(old)
			}
			keptAny = true
			tr.Files = append(tr.Files, fr)
			continue
		}
		if write {
			w := pendingWrite{file: len(tr.Files), done: make(chan writeResult, 1)}
			go func() {
				written, err := e.writeIfChanged(rel, body, old)
				w.done <- writeResult{written, err}
			}()
			writes = append(writes, w)
		}
		fr.Cache = e.cacheEconomics(tb, &fr, old, body, write)
		tr.Files = append(tr.Files, fr)
	}
	if err := wait(); err != nil {
		return err
	}
	if !keptAny {
		// Nothing to keep on a first build: the fresh render was written.
		tr.Kept = ""
	}
	return nil
}

// renderNotes are the diagnostics of what rendering the target's prompt
// for provider had to change so the provider accepts it (prompt.Notes),
// placed at the target's conversation log when it has one.
func renderNotes(tb *targetBuild, provider string) []Diagnostic {
	var out []Diagnostic
	for _, n := range prompt.Notes(tb.prompt, provider, tb.target.RenderOptions(provider)) {
		d := Diagnostic{Path: config.FileName, Line: tb.target.Line, Message: fmt.Sprintf("target %q, provider %s: %s", tb.target.Name, provider, n.Message)}
		if c := tb.conversation(); c != "" {
			d.Path, d.Line = ConversationLog(c), 0
		}
		out = append(out, d)
	}
	return out
}

// pendingWrite is a prompt file being written: its index in
// TargetReport.Files and where the outcome arrives.
type pendingWrite struct {
	file int
	done chan writeResult
}

type writeResult struct {
	written bool
	err     error
}

// parseFailure names the first folder or file of the planning tree that
// could not be read (planning.Project.Failures: a prompt without it would
// look valid and say less; docs/formats.md#unreadable-files), else the first
// file feeding the prompt (the state file, the current plan) that could not
// be read (binary, over the size limit) or whose front matter failed to
// parse, or returns "".
func parseFailure(proj *planning.Project) string {
	if len(proj.Failures) > 0 {
		return "kept the last good render: " + PlanningDir + "/" + proj.Failures[0].String()
	}
	check := func(rel string, md *markdown.Document, failed *planning.Diagnostic) string {
		if failed != nil {
			return PlanningDir + "/" + failed.String()
		}
		if md == nil {
			return ""
		}
		for _, fm := range md.FrontMatter {
			if !fm.Valid {
				for _, d := range md.Diagnostics {
					if d.Line >= fm.Line && d.Line <= fm.EndLine {
						return fmt.Sprintf("%s/%s:%d: %s", PlanningDir, rel, d.Line, d.Message)
					}
				}
				return fmt.Sprintf("%s/%s:%d: invalid front matter", PlanningDir, rel, fm.Line)
			}
		}
		return ""
	}
	if proj.State != nil {
		if r := check(proj.State.Path, proj.State.Markdown, proj.State.Failure); r != "" {
			return "kept the last good render: " + r
		}
	}
	if proj.CurrentPlan != nil {
		if r := check(proj.CurrentPlan.Path, proj.CurrentPlan.Markdown, proj.CurrentPlan.Failure); r != "" {
			return "kept the last good render: " + r
		}
	}
	return ""
}

// providerLimit is the token budget of one provider's file: the target's
// budget, or the prompt limit of the model the body names (its window less
// the reply, prompt.Limit.PromptLimit; the target's capabilities override
// the window) when that is smaller.
func providerLimit(tb *targetBuild, provider string) int {
	return min(tb.report.Budget, tb.target.Limits(provider).PromptLimit(tb.target.MaxTokens))
}

// render returns prompt.Render(p, provider, opts), from the render cache
// when the target's prompt for this provider has the same fingerprint as
// at the previous build: a rebuild re-renders only the targets whose
// sections changed (docs/architecture.md#watch-equals-build). One body is kept per target
// and provider.
func (e *Engine) render(target string, p *prompt.Prompt, provider string, opts prompt.RenderOptions) ([]byte, error) {
	fp := prompt.Fingerprint(p, provider, opts)
	key := target + "\x00" + provider
	e.rendersMu.Lock()
	c, ok := e.renders[key]
	e.rendersMu.Unlock()
	if ok && c.fingerprint == fp {
		return c.body, nil
	}
	body, err := prompt.Render(p, provider, opts)
	if err != nil {
		return nil, err
	}
	e.rendersMu.Lock()
	e.renderCalls++
	if e.renders == nil {
		e.renders = map[string]cachedRender{}
	}
	e.renders[key] = cachedRender{fingerprint: fp, body: body}
	e.rendersMu.Unlock()
	return body, nil
}

// cachedRender is a rendered body and the fingerprint of its prompt.
type cachedRender struct {
	fingerprint [sha256.Size]byte
	body        []byte
}

// renderProvider fits a copy of the target's prompt to the provider's
// budget and renders it. It returns the body, its token count and the cuts.
func (e *Engine) renderProvider(tb *targetBuild, provider string, counter *budget.Counter) ([]byte, int, []string, error) {
	if _, err := tb.cfg.Catalog().Lookup(provider); err != nil {
		return nil, 0, nil, &InputError{Err: err}
	}
	tr := tb.report
	limit := providerLimit(tb, provider)
	p := tb.prompt
	tokens := tr.Tokens
	var cuts []string
	if limit < tr.Budget {
		p = p.Clone()
		tokens = p.Fit(counter.Count, limit)
		cuts = p.Cuts[len(tb.prompt.Cuts):]
	}
	opts := tb.target.RenderOptions(provider)
	opts.NumCtx = prompt.NumCtx(tokens, tb.target.MaxTokens, tb.target.Limits(provider).ContextWindow) // ollama: the prompt and the reply
	body, err := e.render(tr.Name, p, provider, opts)
	if err != nil {
		return nil, 0, nil, err
	}
	// Tokens are the sections' counts (cached per section), not a count of
	// the whole body, so a rebuild tokenises only the sections that changed;
	// the JSON framing of a body adds a few tokens more.
	return body, tokens, cuts, nil
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
