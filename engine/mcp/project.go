package mcp

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning/conversation"
)

// ServeOptions configures ServeProject.
type ServeOptions struct {
	// Dir is the project named on the command line (-C); "" takes it from
	// the client's roots, else from WorkDir (each at or above).
	Dir string
	// WorkDir is the working directory, the fallback.
	WorkDir string
	// Version is sent to the client as the server's version.
	Version string
	// NoWatch leaves the prompt files alone between tool calls (no
	// watcher, no change notifications from other edits).
	NoWatch bool
	// Logger receives the server's notices (stderr); nil discards them.
	Logger *slog.Logger
}

// ServeProject runs recite's MCP server (engine/mcp) for one client over stdio
// (in, out) until the client closes in or ctx ends. The project is
// opts.Dir, else the first of the client's roots inside a project, else
// the project at or above opts.WorkDir; while it runs, the engine's watcher
// keeps the prompt files current and the client is notified of changed
// resources. Errors: opts.Dir that is in no project (*engine.InputError);
// otherwise only a broken stdio.
func ServeProject(ctx context.Context, in io.Reader, out io.Writer, opts ServeOptions) error {
	return Serve(ctx, in, out, Options{Dir: opts.Dir, Fallback: opts.WorkDir, Open: OpenProject,
		Version: opts.Version, NoWatch: opts.NoWatch, Logger: opts.Logger})
}

// OpenProject opens the project at or above dir as an Project (the
// adapter the MCP server calls). Errors: no .planning folder at or above
// dir, or a recite.yaml that does not load (*engine.InputError, naming file and
// line).
func OpenProject(dir string) (Project, error) {
	root, err := engine.ProjectRoot(dir)
	if err != nil {
		return nil, err
	}
	if _, _, err := config.Load(root); err != nil {
		return nil, &engine.InputError{Err: err}
	}
	return &mcpProject{e: engine.New(root), dir: root}, nil
}

// mcpProject implements Project on the engine's exported API. Calls
// are serialised (an Engine is not safe for concurrent builds); the
// watcher uses its own Engine.
type mcpProject struct {
	mu  sync.Mutex
	e   *engine.Engine
	dir string
}

// PreservedURI names the latest preservation block as an MCP resource.
const PreservedURI = "recite://preserved/latest"

func (p *mcpProject) Dir() string { return p.dir }

// targetName is name, or the first configured target's name when name is
// "".
func (p *mcpProject) targetName(name string) (string, error) {
	if name != "" {
		return name, nil
	}
	cfg, _, err := config.Load(p.dir)
	if err != nil {
		return "", err
	}
	return cfg.Targets[0].Name, nil
}

func (p *mcpProject) Recitation(ctx context.Context, in RecitationInput) (*RecitationOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	name, err := p.targetName(in.Target)
	if err != nil {
		return nil, err
	}
	text, err := p.e.Recitation(ctx, name)
	if err != nil {
		return nil, err
	}
	out := &RecitationOutput{Target: name, Text: text}
	if text != "" {
		out.Lines = strings.Count(text, "\n") + 1
	}
	return out, nil
}

func (p *mcpProject) StopSignals(ctx context.Context, in StopSignalsInput) (*StopSignalsOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rep, err := p.e.Status(ctx)
	if err != nil {
		return nil, err
	}
	out := &StopSignalsOutput{Signals: []Signal{}, Conversations: []string{}, Diagnostics: mcpDiagnostics(rep.Diagnostics)}
	sr := rep.Signals
	if sr == nil {
		return out, nil
	}
	out.Health, out.Breaker, out.Conversations = string(sr.Health.State), sr.BreakerLine, sr.Conversations
	var sigs []signals.Signal
	for _, s := range sr.Signals {
		if len(in.Kinds) == 0 || slices.Contains(in.Kinds, string(s.Kind)) {
			sigs = append(sigs, s)
		}
	}
	// Newest first; signals without a time keep their order, last.
	slices.SortStableFunc(sigs, func(a, b signals.Signal) int {
		if a.LastSeen.IsZero() != b.LastSeen.IsZero() {
			return cmp.Compare(btoi(a.LastSeen.IsZero()), btoi(b.LastSeen.IsZero()))
		}
		return b.LastSeen.Compare(a.LastSeen)
	})
	out.Total = len(sigs)
	if in.Limit > 0 && len(sigs) > in.Limit {
		sigs = sigs[:in.Limit]
	}
	out.Signals = mcpSignals(sigs)
	return out, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mcpSignals converts signals for the wire (already redacted by the
// caller's source).
func mcpSignals(sigs []signals.Signal) []Signal {
	out := make([]Signal, 0, len(sigs))
	stamp := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	for _, s := range sigs {
		out = append(out, Signal{Kind: string(s.Kind), KeyLine: cmp.Or(s.KeyLine, signals.Key(s)), Command: s.Command,
			Text: s.Text, Detail: s.Detail, ID: s.ID, Source: s.Source, FirstSeen: stamp(s.FirstSeen),
			LastSeen: stamp(s.LastSeen), Count: s.Count, Hash: s.Hash})
	}
	return out
}

func mcpDiagnostics(ds []engine.Diagnostic) []Diagnostic {
	out := []Diagnostic{}
	for _, d := range ds {
		out = append(out, Diagnostic{Path: d.Path, Line: d.Line, Message: d.Message})
	}
	return out
}

// blockedWord is the signals rule for a blocked line (engine/signals).
var blockedWord = regexp.MustCompile(`\b(BLOCKED|STUCK)\b`)

func (p *mcpProject) Record(ctx context.Context, in RecordInput) (*RecordOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	store, err := p.e.OpenConversations()
	if err != nil {
		return nil, err
	}
	agent := cmp.Or(in.Client, "mcp")
	// The agent's text enters the committed log and later prompts: the
	// store writes it with its secrets replaced by placeholders
	// (OpenConversations), as every record.
	var recs []conversation.Record
	switch in.Kind {
	case RecordMessage:
		recs = []conversation.Record{{Kind: conversation.KindMessage, Role: cmp.Or(in.Role, conversation.RoleAssistant), Agent: agent, Content: in.Text}}
	case RecordBlocker:
		text := in.Text
		if !blockedWord.MatchString(text) {
			text = "BLOCKED: " + text
		}
		recs = []conversation.Record{{Kind: conversation.KindMessage, Role: conversation.RoleAssistant, Agent: agent, Content: text}}
	case RecordError:
		tool, args := in.Tool, []byte("{}")
		if in.Command != "" {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false) // `a && b` stays readable in the log
			_ = enc.Encode(map[string]string{"command": in.Command})
			args = []byte(strings.TrimSpace(b.String()))
			tool = cmp.Or(tool, "shell")
		}
		tool = cmp.Or(tool, "mcp")
		call := conversation.ToolCall{ID: "call-" + rand.Text(), Name: tool, Arguments: string(args)}
		recs = []conversation.Record{
			{Kind: conversation.KindMessage, Role: conversation.RoleAssistant, Agent: agent, ToolCalls: []conversation.ToolCall{call}},
			{Kind: conversation.KindMessage, Role: conversation.RoleTool, ToolCallID: call.ID, ToolName: tool, IsError: true, Content: in.Text},
		}
	}
	out := &RecordOutput{Conversation: in.Conversation, Log: engine.ConversationLog(in.Conversation), Records: []string{}, Rebuilt: []string{}}
	written, err := store.AppendStamped(ctx, in.Conversation, recs...)
	if errors.Is(err, conversation.ErrNotFound) && in.Create {
		if err = store.Create(ctx, in.Conversation, conversation.Meta{AgentType: agent, Title: "recorded over MCP"}); err == nil {
			out.Created = true
			written, err = store.AppendStamped(ctx, in.Conversation, recs...)
		}
	}
	if errors.Is(err, conversation.ErrNotFound) {
		var ids []string
		if list, lerr := store.List(); lerr == nil {
			for _, s := range list {
				ids = append(ids, s.ID)
			}
		}
		return nil, fmt.Errorf("conversation %q does not exist (existing: %s); pass create: true to start it", in.Conversation, cmp.Or(strings.Join(ids, ", "), "none"))
	}
	if err != nil {
		return nil, err
	}
	for _, r := range written {
		out.Records = append(out.Records, r.ID)
	}
	rep, err := p.e.BuildConversation(ctx, in.Conversation)
	if err != nil {
		out.RebuildError = "recorded; prompt files not rebuilt: " + err.Error()
		return out, nil
	}
	for _, t := range rep.Targets {
		out.Rebuilt = append(out.Rebuilt, t.Name)
	}
	return out, nil
}

func (p *mcpProject) Preserve(ctx context.Context, in PreserveInput) (*PreserveOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	res, err := p.e.Preserve(ctx, engine.PreserveOptions{Trigger: in.Trigger})
	if err != nil {
		return nil, err
	}
	return &PreserveOutput{Path: res.Path, Summary: res.Summary, Block: signals.RenderBlock(res.Block),
		Signals: len(res.Block.Signals), Diagnostics: mcpDiagnostics(res.Diagnostics)}, nil
}

func (p *mcpProject) VerifySummary(ctx context.Context, in VerifySummaryInput) (*VerifySummaryOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	res, err := p.e.Verify(ctx, in.Summary, engine.VerifyOptions{FromBlock: in.FromBlock})
	if err != nil {
		return nil, err
	}
	return &VerifySummaryOutput{Checked: res.Checked, Against: res.Against, Lost: mcpSignals(res.Lost),
		Reinject: res.Reinject, Diagnostics: mcpDiagnostics(res.Diagnostics)}, nil
}

func (p *mcpProject) Files(ctx context.Context, in FilesInput) (*FilesOutput, error) {
	for _, rel := range append(slices.Clone(in.Include), in.Why) {
		if rel == "" {
			continue
		}
		if err := scope.InsideProject(p.dir, rel); err != nil {
			return nil, err
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if in.Why != "" {
		x, err := p.e.Why(ctx, in.Why, in.Include)
		if err != nil {
			return nil, err
		}
		return &FilesOutput{Why: &Why{Path: x.Path, InContext: x.InContext, Verdict: x.String()}}, nil
	}
	files, err := p.e.Files(ctx, in.Include)
	if err != nil {
		return nil, err
	}
	limit := cmp.Or(in.Limit, MaxFilesDefault)
	out := &FilesOutput{Files: []FileEntry{}, Total: len(files)}
	for _, f := range files[:min(limit, len(files))] {
		out.Files = append(out.Files, FileEntry{Path: f.Path, NeverExclude: f.NeverExclude})
	}
	return out, nil
}

func (p *mcpProject) Prompt(ctx context.Context, in PromptInput) (*PromptOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	name, err := p.targetName(in.Target)
	if err != nil {
		return nil, err
	}
	body, kept, err := p.e.RenderFile(ctx, name, in.Provider)
	if err != nil {
		return nil, err
	}
	caps, _ := prompt.CapabilitiesOf(in.Provider)
	return &PromptOutput{Target: name, Provider: in.Provider, MIMEType: mimeOf(caps.Ext), Body: string(body), Bytes: len(body), Kept: kept}, nil
}

// mimeOf is the media type of a prompt file by its extension.
func mimeOf(ext string) string {
	switch filepath.Ext(ext) {
	case ".json":
		return "application/json"
	case ".md":
		return "text/markdown"
	}
	return "text/plain"
}

// promptFile is one prompt file a target writes.
type promptFile struct {
	res              Resource
	abs              string
	target, provider string
}

// promptResources maps the URIs of the prompt files the targets write to
// them (whether or not a build wrote them yet).
func (p *mcpProject) promptResources() (map[string]promptFile, error) {
	cfg, _, err := config.Load(p.dir)
	if err != nil {
		return nil, err
	}
	files := map[string]promptFile{}
	for _, tg := range cfg.Targets {
		for _, prov := range tg.Providers {
			caps, err := prompt.CapabilitiesOf(prov)
			if err != nil {
				continue
			}
			rel := engine.PromptsDir + "/" + tg.Name + caps.Ext
			abs := filepath.Join(p.dir, filepath.FromSlash(rel))
			u := fileURI(abs)
			files[u] = promptFile{abs: abs, target: tg.Name, provider: prov, res: Resource{URI: u, Name: filepath.Base(rel),
				Title:       fmt.Sprintf("prompt of target %s (%s)", tg.Name, prov),
				Description: fmt.Sprintf("%s: target %s's prompt in the %s shape, as recite build writes it", rel, tg.Name, prov), MIMEType: mimeOf(caps.Ext)}}
		}
	}
	return files, nil
}

// fileURI is the file:// URI of an absolute path.
func fileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

func (p *mcpProject) Resources(context.Context) ([]Resource, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	files, err := p.promptResources()
	if err != nil {
		return nil, err
	}
	out := make([]Resource, 0, len(files)+1)
	for _, f := range files {
		out = append(out, f.res)
	}
	slices.SortFunc(out, func(a, b Resource) int { return cmp.Compare(a.URI, b.URI) })
	if _, ok := p.e.LatestPreserved(); ok {
		out = append(out, Resource{URI: PreservedURI, Name: "context-preserved.md", Title: "latest preservation block",
			Description: "the newest block of " + engine.PreservedFile + ": the stop signals and working state to keep across a compaction", MIMEType: "text/markdown"})
	}
	return out, nil
}

func (p *mcpProject) ReadResource(ctx context.Context, uri string) (*ResourceContent, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if uri == PreservedURI {
		text, ok := p.e.LatestPreserved()
		if !ok {
			return nil, fmt.Errorf("%s holds no preservation block: %w", engine.PreservedFile, ErrUnknownResource)
		}
		return &ResourceContent{URI: uri, MIMEType: "text/markdown", Text: text}, nil
	}
	files, err := p.promptResources()
	if err != nil {
		return nil, err
	}
	f, ok := files[uri]
	if !ok {
		return nil, fmt.Errorf("%s: %w", uri, ErrUnknownResource)
	}
	b, err := os.ReadFile(f.abs)
	if errors.Is(err, fs.ErrNotExist) {
		// Not built yet: the bytes a build would write.
		b, _, err = p.e.RenderFile(ctx, f.target, f.provider)
	}
	if err != nil {
		return nil, err
	}
	return &ResourceContent{URI: uri, MIMEType: f.res.MIMEType, Text: string(b)}, nil
}

// Watch runs the engine's watcher (Engine.Watch, with its own Engine) and
// reports the prompt files each render wrote, and the preservation block
// when context-preserved.md changed (or after a rescan, which names no
// paths).
func (p *mcpProject) Watch(ctx context.Context, changed func([]string)) error {
	return engine.New(p.dir).Watch(ctx, engine.WatchOptions{}, func(ev engine.WatchEvent) {
		if ev.Kind != engine.EventRender {
			return
		}
		var uris []string
		for _, w := range ev.Written {
			uris = append(uris, fileURI(filepath.Join(p.dir, filepath.FromSlash(w))))
		}
		if ev.Trigger == "rescan" || slices.Contains(ev.Changed, engine.PreservedFile) {
			uris = append(uris, PreservedURI)
		}
		changed(uris)
	})
}

// ConfigFile is Claude Code's project-scoped MCP server list, relative
// to the project root (https://code.claude.com/docs/en/mcp).
const ConfigFile = ".mcp.json"

// InitResult is what Init did.
type InitResult struct {
	// Path is the file, project-relative; Created reports it did not
	// exist; Added that recite's server was added (false: an entry named
	// recite was already there and is kept as the user wrote it);
	// Updated that recite's own entry got another program
	// (InitOptions.Program).
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Added   bool   `json:"added"`
	Updated bool   `json:"updated,omitempty"`
	// Snippets are the other agents' configurations (Snippets).
	Snippets []Snippet `json:"snippets"`
}

// InitOptions configures Init.
type InitOptions struct {
	// Program is the command the entry starts; "" is Command (recite on
	// PATH). `recite init --absolute` passes this executable's absolute
	// path, as it does for every file init writes.
	Program string
}

// Init adds recite's server (ProjectEntry) to the project's
// .mcp.json under "mcpServers" with the merge .claude/settings.json gets
// (claudecode.MergeJSONFile): every other key and server is kept with its
// value and order (a rewrite re-indents with two spaces), a file that
// already names a "recite" server is not rewritten unless the entry is
// recite's own (its command a recite program, its args ["mcp"]) and
// names another program than opts.Program, and a missing or empty file
// is created. A file that is not a JSON object, or whose mcpServers is
// not an object, is an *InputError naming the file (and line and column
// for invalid JSON), and the file is left untouched. The write is atomic
// and keeps the file's mode (0644 when new); a symbolic link stays one.
// It also returns the snippets for Codex CLI, Cursor and Gemini CLI.
func Init(dir string, opts InitOptions) (*InitResult, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	res := &InitResult{Path: ConfigFile, Snippets: Snippets(abs, opts.Program)}
	want := ProjectEntry(opts.Program)
	res.Created, err = claudecode.MergeJSONFile(filepath.Join(abs, ConfigFile), ConfigFile, "mcpServers",
		func(servers map[string]json.RawMessage, set func(string, json.RawMessage)) error {
			old, ok := servers[ServerName]
			switch {
			case !ok:
				set(ServerName, want)
				res.Added = true
			case ownEntry(old) && !sameJSON(old, want):
				set(ServerName, want)
				res.Updated = true
			}
			return nil
		})
	if se := (*claudecode.SettingsError)(nil); errors.As(err, &se) {
		return nil, &engine.InputError{Err: se.Err}
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ownEntry reports an .mcp.json entry recite wrote: a stdio server whose
// command is recite (bare or a path ending in recite or recite.exe) with
// the args ["mcp"].
func ownEntry(raw json.RawMessage) bool {
	var e struct {
		Type    string   `json:"type"`
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Type != "" && e.Type != "stdio" || len(e.Args) != 1 || e.Args[0] != "mcp" {
		return false
	}
	base := e.Command[strings.LastIndexAny(e.Command, `/\`)+1:]
	return strings.TrimSuffix(base, ".exe") == Command
}

// sameJSON reports two JSON values equal as values.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
