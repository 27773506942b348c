// Package engine turns a project's planning tree into prompt files: it loads
// the configuration and the planning tree, assembles each target's prompt in
// cache order, fits it to the token budget, renders every provider's shape
// and writes only what changed, atomically.
//
// # Files
//
// The engine writes under `.planning/` only (DESIGN.md §2): prompt files in
// `prompts/` (with a `.gitignore` so they stay out of git) and its caches in
// `.recite/`, including a copy of the last good render of every prompt
// file. A prompt file whose bytes would not change is not written, so its
// mtime stays (DESIGN.md invariant 2); every write is a temp file in the
// same folder renamed over the old one (invariant 3).
//
// # Last good render
//
// When a file that feeds a target's prompt fails to parse (invalid front
// matter in the state file or the current plan), the target is not
// re-rendered: the prompt files on disk, or the copy in `.recite/last/`,
// stay in place, and the report says why (DESIGN.md invariant 11).
package engine

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
)

// Layout of the files the engine owns, relative to the project root.
const (
	PlanningDir = ".planning"
	PromptsDir  = ".planning/prompts"
	CacheDir    = ".planning/.recite"
	LastGoodDir = ".planning/.recite/last"
)

// ErrNoPlanning is returned when the project has no `.planning/` folder.
var ErrNoPlanning = errors.New("no .planning folder")

// InputError is an error in the user's input (a missing or unreadable
// planning tree, a bad recite.yaml): the CLI exits 2 on it.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Engine builds the prompt files of one project. It keeps one token counter
// (one tokenizer codec) for its lifetime, so repeated builds reuse counts of
// unchanged sections. An Engine is not safe for concurrent builds.
type Engine struct {
	dir      string
	counter  *budget.Counter
	parsed   *planning.Cache
	redactor *redactCache
	// fileRedactions are the redactions made while the target being
	// assembled gathered its inputs (the files section, cuts of long
	// conversation texts), reported by redactPrompt.
	fileRedactions []string
	// tree caches the file-tree section between builds (filesections.go).
	tree *treeCache
	// renders caches each target's rendered body per provider (render).
	rendersMu   sync.Mutex
	renders     map[string]cachedRender
	renderCalls int // bodies actually rendered, for tests
	// commits caches commitsTouching results by HEAD and question
	// (compress.go).
	commits map[string]map[string]string
}

// New returns an Engine for the project rooted at dir. The engine keeps
// what it read between builds (planning.Cache): a rebuild does not read
// files whose stat is unchanged, and re-parses only the changed section of
// a changed file; token counts and redactions of unchanged text are kept
// too (the warm path of `recite watch`).
func New(dir string) *Engine {
	return &Engine{dir: dir, parsed: planning.NewCache()}
}

// Dir is the project root.
func (e *Engine) Dir() string { return e.dir }

// Counter returns the engine's token counter for the given encoding,
// creating it on first use.
func (e *Engine) Counter(encoding string) (*budget.Counter, error) {
	if e.counter != nil && e.counter.Encoding() == encoding {
		return e.counter, nil
	}
	c, err := budget.NewCounter(encoding)
	if err != nil {
		return nil, err
	}
	e.counter = c
	return c, nil
}

// Report is the outcome of a build or a status check.
type Report struct {
	Flavor        string          `json:"flavor"`
	Tokenizer     string          `json:"tokenizer"`
	ContextWindow int             `json:"context_window"`
	ConfigFound   bool            `json:"config_found"`
	Targets       []*TargetReport `json:"targets"`
	Diagnostics   []Diagnostic    `json:"diagnostics"`
	// Signals are the loop health, circuit breaker and stop signals (set by
	// Status only; see health.go).
	Signals *SignalsReport `json:"signals,omitempty"`
}

// Diagnostic is a problem found in an input file (path relative to the
// project root).
type Diagnostic = markdown.Diagnostic

// TargetReport is one target's prompt: its sections, its standing against
// the budget, and the files written.
type TargetReport struct {
	Name string `json:"name"`
	Role string `json:"role"`
	// Budget is the target's token budget; Tokens the prompt's total
	// (markdown shape) after cuts; Percent = Tokens/Budget×100.
	Budget  int           `json:"budget"`
	Tokens  int           `json:"tokens"`
	Percent float64       `json:"percent"`
	Status  budget.Status `json:"status"`
	// StableTokens is the stable tier's size in tokens, the cacheable
	// prefix.
	StableTokens int             `json:"stable_tokens"`
	Sections     []SectionReport `json:"sections"`
	Cuts         []string        `json:"cuts"`
	// Redactions say where secrets were replaced by placeholders.
	Redactions []string          `json:"redactions"`
	Files      []FileReport      `json:"files"`
	Kept       string            `json:"kept_last_good,omitempty"`
	prompt     *prompt.Prompt    `json:"-"`
	target     *config.Target    `json:"-"`
	cfg        *config.Config    `json:"-"`
	proj       *planning.Project `json:"-"`

	// Compression is the difficulty routing and compression pass
	// (engine/compress.go).
	Compression *CompressReport `json:"compression,omitempty"`
	// Renders are this target's recent renders from RendersFile, oldest
	// first (status only; engine/economics.go).
	Renders []RenderRecord `json:"renders,omitempty"`
	// Passes are the recorded compression passes of this target and its
	// conversation from PassesFile, oldest first (status only).
	Passes []PassRecord `json:"passes,omitempty"`
}

// SectionReport is one section's place and size.
type SectionReport struct {
	ID      string   `json:"id"`
	Heading string   `json:"heading"`
	Tier    string   `json:"tier"`
	Tokens  int      `json:"tokens"`
	Sources []string `json:"sources"`
}

// FileReport is one rendered prompt file.
type FileReport struct {
	Provider string `json:"provider"`
	Path     string `json:"path"`
	Bytes    int    `json:"bytes"`
	// Tokens is the prompt's section total after this provider's cuts.
	Tokens int `json:"tokens"`
	// Written is true when the build changed the file on disk.
	Written bool `json:"written"`
	// PrefixBytes is how many leading bytes equal the previous render (the
	// file on disk before this build); equal to Bytes when unchanged.
	PrefixBytes int `json:"prefix_bytes"`
	// Cuts are the budget cuts specific to this provider's budget.
	Cuts []string `json:"cuts,omitempty"`
	// Cache is the prompt-caching outlook against the previous render
	// (engine/economics.go).
	Cache *CacheEconomics `json:"cache,omitempty"`
}

// planningDir finds the planning tree: DIR/.planning.
func (e *Engine) planningDir() (string, error) {
	if st, err := os.Stat(e.dir); err != nil || !st.IsDir() {
		return "", &InputError{fmt.Errorf("project directory %s does not exist or is not a directory", e.dir)}
	}
	p := filepath.Join(e.dir, PlanningDir)
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &InputError{fmt.Errorf("%w in %s (run `recite init` to create one)", ErrNoPlanning, e.dir)}
	}
	if err != nil {
		return "", &InputError{err}
	}
	if !fi.IsDir() {
		return "", &InputError{fmt.Errorf("%s is not a directory", p)}
	}
	return p, nil
}

// load reads the configuration and the planning tree.
func (e *Engine) load() (*config.Config, bool, *planning.Project, error) {
	pdir, err := e.planningDir()
	if err != nil {
		return nil, false, nil, err
	}
	cfg, found, err := config.Load(e.dir)
	if err != nil {
		return nil, false, nil, &InputError{err}
	}
	proj, err := planning.LoadCached(os.DirFS(pdir), e.parsed)
	if err != nil {
		return nil, false, nil, &InputError{fmt.Errorf("read %s: %w", pdir, err)}
	}
	return cfg, found, proj, nil
}

// Build regenerates every target's prompt files and returns the report.
// Only input errors (*InputError) and write failures are returned as errors;
// problems inside planning files are diagnostics in the report.
func (e *Engine) Build(ctx context.Context) (*Report, error) {
	return e.run(ctx, true)
}

// Status computes the same report as Build without writing anything; each
// file's PrefixBytes compares the fresh render with the file on disk.
func (e *Engine) Status(ctx context.Context) (*Report, error) {
	rep, err := e.run(ctx, false)
	if err != nil {
		return nil, err
	}
	e.addSignals(ctx, rep)
	return rep, nil
}

// Render returns the request body of one target in one provider's shape,
// as Build would write it, without writing anything (`recite render`). It
// is RenderFile without the kept note.
func (e *Engine) Render(ctx context.Context, target, provider string) ([]byte, error) {
	body, _, err := e.RenderFile(ctx, target, provider)
	return body, err
}

// RenderFile returns the request body of one target in one provider's
// shape without writing anything. When a planning file feeding the prompt
// fails to parse and a last good render of that file exists, it returns
// that render and kept says why, as Build keeps it (DESIGN.md invariant:
// a malformed plan never blanks a prompt). Errors: *InputError for an
// unknown target or provider, or a tree that cannot be read.
func (e *Engine) RenderFile(ctx context.Context, target, provider string) (body []byte, kept string, err error) {
	cfg, _, proj, err := e.load()
	if err != nil {
		return nil, "", err
	}
	var tg *config.Target
	for i := range cfg.Targets {
		if cfg.Targets[i].Name == target {
			tg = &cfg.Targets[i]
		}
	}
	if tg == nil {
		var names []string
		for _, t := range cfg.Targets {
			names = append(names, t.Name)
		}
		return nil, "", &InputError{fmt.Errorf("unknown target %q (configured: %s)", target, strings.Join(names, ", "))}
	}
	caps, err := prompt.CapabilitiesOf(provider)
	if err != nil {
		return nil, "", &InputError{fmt.Errorf("%v (want one of %s)", err, strings.Join(prompt.Providers(), ", "))}
	}
	if why := parseFailure(proj); why != "" {
		rel := PromptsDir + "/" + tg.Name + caps.Ext
		if b, err := os.ReadFile(filepath.Join(e.dir, LastGoodDir, filepath.Base(rel))); err == nil {
			return b, why, nil
		}
	}
	counter, err := e.Counter(cfg.Tokenizer)
	if err != nil {
		return nil, "", err
	}
	tr, _ := e.assemble(ctx, cfg, tg, proj)
	body, _, _, err = e.renderProvider(tr, provider, counter)
	return body, "", err
}

// BuildConversation regenerates the prompt files of the targets whose
// `conversation:` is id, as Build does for every target, so that their
// prompts carry a message just appended. The report lists only those
// targets (none when no target names the conversation, and then nothing is
// written).
func (e *Engine) BuildConversation(ctx context.Context, id string) (*Report, error) {
	cfg, found, err := config.Load(e.dir)
	if err != nil {
		return nil, &InputError{err}
	}
	if !slices.ContainsFunc(cfg.Targets, func(tg config.Target) bool { return tg.Conversation == id }) {
		return &Report{Tokenizer: cfg.Tokenizer, ContextWindow: cfg.ContextWindow, ConfigFound: found, Targets: []*TargetReport{}, Diagnostics: []Diagnostic{}}, nil
	}
	return e.runTargets(ctx, true, func(tg *config.Target) bool { return tg.Conversation == id })
}

func (e *Engine) run(ctx context.Context, write bool) (*Report, error) {
	return e.runTargets(ctx, write, nil)
}

// runTargets builds (write) or checks the targets that only accepts (all
// when only is nil).
func (e *Engine) runTargets(ctx context.Context, write bool, only func(*config.Target) bool) (*Report, error) {
	cfg, found, proj, err := e.load()
	if err != nil {
		return nil, err
	}
	counter, err := e.Counter(cfg.Tokenizer)
	if err != nil {
		return nil, &InputError{err}
	}
	rep := &Report{Flavor: string(proj.Flavor), Tokenizer: cfg.Tokenizer, ContextWindow: cfg.ContextWindow, ConfigFound: found}
	for _, d := range proj.Diagnostics {
		d.Path = PlanningDir + "/" + d.Path
		rep.Diagnostics = append(rep.Diagnostics, d)
	}
	if write {
		if err := e.ensureDirs(); err != nil {
			return nil, err
		}
	}
	for i := range cfg.Targets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tg := &cfg.Targets[i]
		if only != nil && !only(tg) {
			continue
		}
		tr, diags := e.assemble(ctx, cfg, tg, proj)
		rep.Diagnostics = append(rep.Diagnostics, diags...)
		tr.Kept = parseFailure(proj)
		keptAny := false
		// The provider files are written concurrently: each write ends
		// with an fsync, and the filesystem commits concurrent syncs
		// together.
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
			body, tokens, cuts, err := e.renderProvider(tr, prov, counter)
			if err != nil {
				_ = wait()
				return nil, err
			}
			if limit := providerLimit(tr, prov); limit < tr.Budget && tokens > limit {
				rep.Diagnostics = append(rep.Diagnostics, Diagnostic{Path: config.FileName, Line: tg.Line, Message: fmt.Sprintf(
					"target %q, provider %s: the pinned sections alone take %d tokens, over the provider's context window of %d (set targets[].capabilities.%s.max_context to change it)",
					tg.Name, prov, tokens, limit, prov)})
			}
			caps, _ := prompt.CapabilitiesOf(prov)
			rel := PromptsDir + "/" + tg.Name + caps.Ext
			fr := FileReport{Provider: prov, Path: rel, Bytes: len(body), Tokens: tokens, Cuts: cuts}
			old, _ := os.ReadFile(filepath.Join(e.dir, rel))
			fr.PrefixBytes = commonPrefix(old, body)
			if tr.Kept != "" && e.hasLastGood(rel, old) {
				// Leave the last good render in place.
				if write && old == nil {
					if err := e.restoreLastGood(rel); err != nil {
						_ = wait()
						return nil, err
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
			fr.Cache = e.cacheEconomics(tr, &fr, old, body, write)
			tr.Files = append(tr.Files, fr)
		}
		if err := wait(); err != nil {
			return nil, err
		}
		if !keptAny {
			// Nothing to keep on a first build: the fresh render was written.
			tr.Kept = ""
		}
		rep.Targets = append(rep.Targets, tr)
	}
	if write {
		e.recordRenders(rep)
		e.recordPasses(rep)
	}
	sort.SliceStable(rep.Diagnostics, func(i, j int) bool {
		a, b := rep.Diagnostics[i], rep.Diagnostics[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
	return rep, nil
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

// parseFailure names the first file feeding the prompt (the state file,
// the current plan) that could not be read (binary, over the size limit)
// or whose front matter failed to parse, or returns "".
func parseFailure(proj *planning.Project) string {
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
// budget, or the provider's context window (the capability table, or the
// target's capabilities override) when that is smaller.
func providerLimit(tr *TargetReport, provider string) int {
	limit := tr.Budget
	caps, err := prompt.CapabilitiesOf(provider)
	if err != nil {
		return limit
	}
	if o, ok := tr.target.Capabilities[provider]; ok && o.MaxContext != nil {
		caps.MaxContext = *o.MaxContext
	}
	if caps.MaxContext > 0 && caps.MaxContext < limit {
		limit = caps.MaxContext
	}
	return limit
}

// render returns prompt.Render(p, provider, opts), from the render cache
// when the target's prompt for this provider has the same fingerprint as
// at the previous build: a rebuild re-renders only the targets whose
// sections changed (issue "recite watch" §2). One body is kept per target
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
func (e *Engine) renderProvider(tr *TargetReport, provider string, counter *budget.Counter) ([]byte, int, []string, error) {
	if _, err := prompt.CapabilitiesOf(provider); err != nil {
		return nil, 0, nil, &InputError{err}
	}
	limit := providerLimit(tr, provider)
	p := tr.prompt
	tokens := tr.Tokens
	var cuts []string
	if limit < tr.Budget {
		p = p.Clone()
		tokens = p.Fit(counter.Count, limit)
		cuts = p.Cuts[len(tr.prompt.Cuts):]
	}
	opts := prompt.RenderOptions{OpenAISystemRole: tr.target.OpenAISystemRole, Model: tr.target.Model, MaxTokens: tr.target.MaxTokens}
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
