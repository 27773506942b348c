// Package engine turns a project's planning tree into prompt files: it loads
// the configuration and the planning tree, assembles each target's prompt in
// cache order, fits it to the token budget, renders every provider's shape
// and writes only what changed, atomically.
//
// # Files
//
// The engine writes under `.planning/` only (docs/formats.md#files-recite-writes): prompt files in
// `prompts/` (with a `.gitignore` so they stay out of git) and its caches in
// `.recite/`, including a copy of the last good render of every prompt
// file. A prompt file whose bytes would not change is not written, so its
// mtime stays (docs/architecture.md#unchanged-files-are-not-written); every write is a temp file in the
// same folder renamed over the old one (invariant 3).
//
// # Last good render
//
// When a file that feeds a target's prompt fails to parse (invalid front
// matter in the state file or the current plan), the target is not
// re-rendered: the prompt files on disk, or the copy in `.recite/last/`,
// stay in place, and the report says why (docs/architecture.md#bad-input-keeps-the-last-good-prompt).
package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/engine/secrets"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// Layout of the files the engine owns, relative to the project root
// (engine/internal/layout).
const (
	PlanningDir = layout.PlanningDir
	PromptsDir  = layout.PromptsDir
	CacheDir    = layout.CacheDir
	LastGoodDir = layout.LastGoodDir
)

// ErrNoPlanning is returned when the project has no `.planning/` folder.
var ErrNoPlanning = layout.ErrNoPlanning

// InputError is an error in the user's input (a missing or unreadable
// planning tree, a bad recite.yaml): the CLI exits 2 on it
// (layout.InputError, shared with the engine's subpackages).
type InputError = layout.InputError

// Engine builds the prompt files of one project. It keeps one token counter
// (one tokenizer codec) for its lifetime, so repeated builds reuse counts of
// unchanged sections. An Engine is not safe for concurrent builds.
type Engine struct {
	dir     string
	counter *budget.Counter
	parsed  *planning.Cache
	// redactor replaces secrets with the project's placeholders; it
	// loads the key and compiles its rules on first use.
	redactor *secrets.Redactor
	// scope decides the files that may enter context and keeps the file
	// tree between builds.
	scope *scope.Scope
	// demote keeps the demoted form of the documents prompts embed.
	demote *prompt.DemoteCache
	// records keeps the conversation records the engine's readers decoded
	// (its stores share it), so a build, a status or a hook event decodes
	// each record it reads once.
	records *conversation.RecordCache
	// renders caches each target's rendered body per provider (render).
	rendersMu   sync.Mutex
	renders     map[string]cachedRender
	renderCalls int // bodies actually rendered, for tests
	// history answers and caches the commit questions of compression
	// (compress.go).
	history gitstore.History
	// noCache bypasses the on-disk caches (WithNoCache); seeded is set
	// once the parsed-file cache was read.
	noCache, seeded bool
	// progress receives the steps of long operations (WithProgress).
	progress func(Progress)
	// getenv reads the environment (os.Getenv; WithGetenv): GSD's
	// workstream selection (workstream.go).
	getenv func(string) string
}

// New returns an Engine for the project rooted at dir. The engine keeps
// what it read between builds (planning.Cache): a rebuild does not read
// files whose stat is unchanged, and re-parses only the changed section of
// a changed file; token counts and redactions of unchanged text are kept
// too (the warm path of `recite watch`). Options: WithProgress.
func New(dir string, opts ...Option) *Engine {
	e := &Engine{dir: dir, parsed: planning.NewCache(), scope: scope.New(dir), redactor: secrets.New(dir), demote: prompt.NewDemoteCache(),
		records: conversation.NewRecordCache(), getenv: os.Getenv}
	e.scope.ShareRecords(e.records)
	for _, o := range opts {
		o(e)
	}
	if !e.noCache {
		e.redactor.UseCacheFile(filepath.Join(dir, secrets.CleanCacheFile))
	}
	return e
}

// WithNoCache(true) makes the engine neither read nor write the on-disk
// caches of .planning/.recite, the token counts, the parsed planning files
// and the redaction verdicts (`recite build --no-cache`); the in-memory
// ones still apply.
func WithNoCache(on bool) Option {
	return func(e *Engine) { e.noCache = on }
}

// WithGetenv makes the engine read the environment through getenv instead
// of os.Getenv: GSD_WORKSTREAM and the session variables that name GSD's
// per-session workstream pointer (docs/formats.md#workstreams).
func WithGetenv(getenv func(string) string) Option {
	return func(e *Engine) { e.getenv = getenv }
}

// Dir is the project root.
func (e *Engine) Dir() string { return e.dir }

// Counter returns the engine's token counter for the given encoding,
// creating it on first use, backed by the project's on-disk count cache
// (budget.Options; none WithNoCache). The tokenizer itself is
// loaded only when a text must be counted that no cache holds.
func (e *Engine) Counter(encoding string) (*budget.Counter, error) {
	if e.counter != nil && e.counter.Encoding() == encoding {
		return e.counter, nil
	}
	c, err := budget.NewCounterWith(encoding, budget.Options{CacheDir: filepath.Join(e.dir, CacheDir), NoCache: e.noCache})
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
	// Thresholds are the WARNING and CRITICAL fractions of each target's
	// budget (recite.yaml's thresholds; 0.70 and 0.85 by default).
	Thresholds budget.Thresholds `json:"thresholds"`
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
	Redactions []string     `json:"redactions"`
	Files      []FileReport `json:"files"`
	Kept       string       `json:"kept_last_good,omitempty"`

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
		return "", &InputError{Err: fmt.Errorf("project directory %s does not exist or is not a directory", e.dir)}
	}
	p := filepath.Join(e.dir, PlanningDir)
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", &InputError{Err: fmt.Errorf("%w in %s (run `recite init` to create one)", ErrNoPlanning, e.dir)}
	}
	if err != nil {
		return "", &InputError{Err: err}
	}
	if !fi.IsDir() {
		return "", &InputError{Err: fmt.Errorf("%s is not a directory", p)}
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
		return nil, false, nil, &InputError{Err: err}
	}
	proj, err := e.loadPlanning(pdir)
	if err != nil {
		return nil, false, nil, err
	}
	return cfg, found, proj, nil
}

// loadPlanning loads the planning tree at pdir through the engine's cache
// of parsed files, seeded once from the on-disk one (planning.DiskCacheFile
// and its journal, planning.DiskJournalFile; docs/formats.md#parsed-file-cache),
// unless WithNoCache, reading the workstream GSD would pick
// (workstreamOptions).
func (e *Engine) loadPlanning(pdir string) (*planning.Project, error) {
	return e.loadPlanningFor(pdir, nil)
}

// loadPlanningFor is loadPlanning for the target tg, whose workstream:
// comes first (nil: the project as a whole).
func (e *Engine) loadPlanningFor(pdir string, tg *config.Target) (*planning.Project, error) {
	if !e.seeded && !e.noCache {
		e.seeded = true
		e.parsed.LoadFile(filepath.Join(e.dir, CacheDir, planning.DiskCacheFile))
	}
	proj, err := planning.LoadWith(fsutil.DirFS(pdir), e.parsed, e.workstreamOptions(pdir, tg))
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("read %s: %w", pdir, err)}
	}
	return proj, nil
}

// saveCaches writes the on-disk caches that hold something new (token
// counts, parsed planning files: after a small edit only their journal),
// without fsync: they are rebuilt when lost, so failing to write one costs
// time in the next process, not a build.
func (e *Engine) saveCaches() {
	if e.noCache {
		return
	}
	// Never create a project: without a planning folder (a failed build)
	// there is nothing to keep.
	if fi, err := os.Stat(filepath.Join(e.dir, PlanningDir)); err != nil || !fi.IsDir() {
		return
	}
	if e.counter != nil {
		_ = e.counter.Save()
	}
	_ = e.redactor.SaveCache()
	_ = e.parsed.SaveFile(filepath.Join(e.dir, CacheDir, planning.DiskCacheFile))
}

// Build regenerates every target's prompt files and returns the report.
// Only input errors (*InputError) and write failures are returned as errors;
// problems inside planning files are diagnostics in the report.
//
// The report shows placeholders for the secrets the inputs hold, as the
// prompts do (secrets.Redactor.Values): the CLI prints it, often to an agent.
func (e *Engine) Build(ctx context.Context) (*Report, error) {
	defer e.saveCaches()
	rep, _, err := e.build(ctx, true, nil)
	if rep != nil {
		e.redactor.Values(rep)
	}
	return rep, err
}

// Status computes the same report as Build without writing anything; each
// file's PrefixBytes compares the fresh render with the file on disk. Like
// Build's, the report shows placeholders for secrets.
func (e *Engine) Status(ctx context.Context) (*Report, error) {
	rep, _, err := e.status(ctx)
	if rep != nil {
		e.redactor.Values(rep)
	}
	return rep, err
}

// status is Status with the targets' builds.
func (e *Engine) status(ctx context.Context) (*Report, []*targetBuild, error) {
	defer e.saveCaches()
	rep, builds, err := e.build(ctx, false, nil)
	if err != nil {
		return nil, nil, err
	}
	e.addSignals(ctx, rep)
	return rep, builds, nil
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
// that render and kept says why, as Build keeps it (docs/architecture.md#bad-input-keeps-the-last-good-prompt). Errors: *InputError for an
// unknown target or provider, or a tree that cannot be read.
func (e *Engine) RenderFile(ctx context.Context, target, provider string) (body []byte, kept string, err error) {
	cfg, _, proj, err := e.load()
	if err != nil {
		return nil, "", err
	}
	tg, err := cfg.Target(target)
	if err != nil {
		return nil, "", &InputError{Err: err}
	}
	caps, err := cfg.Catalog().Lookup(provider)
	if err != nil {
		return nil, "", &InputError{Err: err}
	}
	if why := parseFailure(proj); why != "" {
		rel := PromptsDir + "/" + tg.Name + caps.Ext
		if b, err := readLastGood(filepath.Join(e.dir, LastGoodDir, filepath.Base(rel))); err == nil {
			return b, why, nil
		}
	}
	counter, err := e.Counter(cfg.Tokenizer)
	if err != nil {
		return nil, "", err
	}
	tb, _ := e.assemble(ctx, cfg, tg, proj)
	body, _, _, err = e.renderProvider(tb, provider, counter)
	return body, "", err
}

// Recitation returns the recitation block of target's prompt
// (prompt.IDRecitation: the body without its heading, trimmed) as a build
// assembles it — the loop health, the conversation, the latest preservation
// block, secrets redacted, fitted to the target's budget — without writing
// anything; "" when the prompt has none. Errors: *InputError for an unknown
// target or a tree that cannot be read.
func (e *Engine) Recitation(ctx context.Context, target string) (string, error) {
	cfg, _, proj, err := e.load()
	if err != nil {
		return "", err
	}
	tg, err := cfg.Target(target)
	if err != nil {
		return "", &InputError{Err: err}
	}
	tb, _ := e.assemble(ctx, cfg, tg, proj)
	for _, s := range tb.prompt.Sections {
		if s.ID == prompt.IDRecitation {
			return strings.TrimSpace(s.Body), nil
		}
	}
	return "", nil
}

// BuildConversation regenerates the prompt files of the targets whose
// `conversation:` is id, as Build does for every target, so that their
// prompts carry a message just appended. The report lists only those
// targets (none when no target names the conversation, and then nothing is
// written).
func (e *Engine) BuildConversation(ctx context.Context, id string) (*Report, error) {
	cfg, found, err := config.Load(e.dir)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	if !slices.ContainsFunc(cfg.Targets, func(tg config.Target) bool { return tg.Conversation == id }) {
		return &Report{Tokenizer: cfg.Tokenizer, ContextWindow: cfg.ContextWindow, ConfigFound: found, Targets: []*TargetReport{}, Diagnostics: []Diagnostic{}}, nil
	}
	defer e.saveCaches()
	rep, _, err := e.build(ctx, true, func(tg *config.Target) bool { return tg.Conversation == id })
	return rep, err
}

// ProjectRoot returns the project root at or above dir: the nearest
// directory holding a .planning folder. Errors: no such directory
// (*InputError).
func ProjectRoot(dir string) (string, error) {
	root, err := layout.ProjectRoot(dir)
	if err != nil {
		return "", &InputError{Err: err}
	}
	return root, nil
}
