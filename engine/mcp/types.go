package mcp

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/recite-dev/recite/planning/conversation"
)

// Project is what the server needs of one recite project; the engine
// implements it (engine/api_mcp.go). Every method may be called
// concurrently with the others; implementations serialise what must be.
// Errors are reported to the client as tool results with isError, their
// text as the reason.
type Project interface {
	// Dir is the project root, absolute.
	Dir() string
	// Recitation is the recitation block of a target's prompt (the tool
	// of the same name).
	Recitation(ctx context.Context, in RecitationInput) (*RecitationOutput, error)
	// StopSignals are the open stop signals, newest first, secrets
	// redacted.
	StopSignals(ctx context.Context, in StopSignalsInput) (*StopSignalsOutput, error)
	// Record appends in to a conversation log (in.check has passed).
	Record(ctx context.Context, in RecordInput) (*RecordOutput, error)
	// Preserve appends a preservation block.
	Preserve(ctx context.Context, in PreserveInput) (*PreserveOutput, error)
	// VerifySummary checks a summary for the stop signals it lost.
	VerifySummary(ctx context.Context, in VerifySummaryInput) (*VerifySummaryOutput, error)
	// Files lists the files that may enter context, or explains one
	// path; a path that resolves outside the project is an error.
	Files(ctx context.Context, in FilesInput) (*FilesOutput, error)
	// Prompt is one target's prompt in one provider's shape.
	Prompt(ctx context.Context, in PromptInput) (*PromptOutput, error)
	// Resources lists the resources the project offers now: its prompt
	// files and, when one exists, the latest preservation block.
	Resources(ctx context.Context) ([]Resource, error)
	// ReadResource returns the current content of one resource; an
	// unknown URI is an error wrapping ErrUnknownResource.
	ReadResource(ctx context.Context, uri string) (*ResourceContent, error)
	// Watch keeps the prompt files current while ctx lasts (the engine's
	// watcher) and calls changed after each rebuild with the URIs whose
	// content changed, never concurrently. It returns nil when ctx ends.
	Watch(ctx context.Context, changed func(uris []string)) error
}

// Opener opens the project rooted at dir (absolute). Its error says why
// dir is not a project (no .planning folder, a bad recite.yaml); the server
// reports it to the client.
type Opener func(dir string) (Project, error)

// ErrUnknownResource is wrapped by ReadResource for a URI the project does
// not offer.
var ErrUnknownResource = errors.New("unknown resource")

// Resource is one resource the project offers.
type Resource struct {
	// URI identifies it: file:// for a prompt file, recite://preserved/latest
	// for the latest preservation block.
	URI string
	// Name is a short name ("agent.anthropic.json"), Title a human title.
	Name, Title string
	// Description says what it holds; MIMEType its media type.
	Description, MIMEType string
}

// ResourceContent is the text of a resource.
type ResourceContent struct {
	URI, MIMEType, Text string
}

// Diagnostic is a problem found in an input file, path relative to the
// project root.
type Diagnostic struct {
	Path    string `json:"path" jsonschema:"project-relative file"`
	Line    int    `json:"line,omitempty" jsonschema:"1-based line, 0 when unknown"`
	Message string `json:"message" jsonschema:"what is wrong"`
}

// RecitationInput is the input of the recitation tool.
type RecitationInput struct {
	Target string `json:"target,omitempty" jsonschema:"target name from .planning/recite.yaml; the first target when omitted"`
}

// RecitationOutput is the current recitation block of one target.
type RecitationOutput struct {
	Target string `json:"target" jsonschema:"the target the block belongs to"`
	Text   string `json:"text" jsonschema:"the recitation block as the prompt carries it (position, current task, health, next step), secrets redacted"`
	Lines  int    `json:"lines" jsonschema:"number of lines of text"`
}

// Signal kinds, as engine/signals names them.
var signalKinds = []string{"error", "blocked", "failed_approach", "circuit_breaker", "stop"}

// StopSignalsInput is the input of the stop_signals tool.
type StopSignalsInput struct {
	Kinds []string `json:"kinds,omitempty" jsonschema:"only these kinds; all kinds when omitted"`
	Limit int      `json:"limit,omitempty" jsonschema:"at most this many signals, newest first; all when 0 or omitted"`
}

// Signal is one open stop signal.
type Signal struct {
	Kind string `json:"kind" jsonschema:"error, blocked, failed_approach, circuit_breaker or stop"`
	// KeyLine is the line a summary must keep for the signal to count as
	// kept.
	KeyLine string `json:"key_line" jsonschema:"the line that identifies the signal (for an error its error line), whitespace folded"`
	// Command is the command that produced the signal, when the source
	// records one.
	Command   string `json:"command,omitempty" jsonschema:"the command that failed, when known"`
	Text      string `json:"text" jsonschema:"the signal verbatim, secrets redacted"`
	Detail    string `json:"detail,omitempty" jsonschema:"why a failed approach failed"`
	ID        string `json:"id,omitempty" jsonschema:"a stable id when the source has one (BLOCKER-005, TRIPPED)"`
	Source    string `json:"source" jsonschema:"where it first appeared: path:line or log#record"`
	FirstSeen string `json:"first_seen,omitempty" jsonschema:"RFC 3339 time of the first occurrence, when known"`
	LastSeen  string `json:"last_seen,omitempty" jsonschema:"RFC 3339 time of the latest occurrence, when known"`
	Count     int    `json:"count" jsonschema:"occurrences"`
	Hash      string `json:"hash" jsonschema:"16 hex digits of the normalised text"`
}

// StopSignalsOutput is the open stop signals, newest first.
type StopSignalsOutput struct {
	Signals       []Signal     `json:"signals" jsonschema:"open signals, newest first (signals without a time last, in source order)"`
	Total         int          `json:"total" jsonschema:"signals before limit"`
	Health        string       `json:"health" jsonschema:"loop health: PROGRESS, STALLED, DEGRADED, SPINNING or BLOCKED"`
	Breaker       string       `json:"breaker" jsonschema:"circuit breaker counters: stall, spin, decline"`
	Conversations []string     `json:"conversations" jsonschema:"conversation ids read"`
	Diagnostics   []Diagnostic `json:"diagnostics,omitempty" jsonschema:"problems met reading the sources"`
}

// Record kinds.
const (
	RecordMessage = "message"
	RecordError   = "error"
	RecordBlocker = "blocker"
)

// RecordInput is the input of the record tool.
type RecordInput struct {
	Conversation string `json:"conversation" jsonschema:"conversation id, ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"`
	Kind         string `json:"kind" jsonschema:"message, error or blocker"`
	Text         string `json:"text" jsonschema:"the message, the error verbatim, or what blocks the work"`
	Role         string `json:"role,omitempty" jsonschema:"user or assistant (message only; default assistant)"`
	Tool         string `json:"tool,omitempty" jsonschema:"the tool that failed (error only; default shell when command is given)"`
	Command      string `json:"command,omitempty" jsonschema:"the command that failed (error only)"`
	Create       bool   `json:"create,omitempty" jsonschema:"start the conversation when it does not exist"`
	// Client is the name the client gave in its initialize request (the
	// records' agent); set by the server, not by the arguments.
	Client string `json:"-"`
}

// setClient records the client's name (addTool).
func (in *RecordInput) setClient(name string) { in.Client = name }

// RecordOutput is what the record tool appended.
type RecordOutput struct {
	Conversation string   `json:"conversation" jsonschema:"conversation id"`
	Log          string   `json:"log" jsonschema:"project-relative path of its log"`
	Created      bool     `json:"created" jsonschema:"the conversation was started by this call"`
	Records      []string `json:"records" jsonschema:"ids of the records appended"`
	Rebuilt      []string `json:"rebuilt" jsonschema:"targets whose prompt files were rebuilt because they carry this conversation"`
	RebuildError string   `json:"rebuild_error,omitempty" jsonschema:"why the prompt files were not rebuilt (the records were written)"`
}

// PreserveInput is the input of the preserve tool.
type PreserveInput struct {
	Trigger string `json:"trigger,omitempty" jsonschema:"manual (default), compaction or sabbath_rest"`
}

// PreserveOutput is the preservation block written.
type PreserveOutput struct {
	Path        string       `json:"path" jsonschema:"project-relative file the block was appended to"`
	Summary     string       `json:"summary" jsonschema:"one line: signal counts, breaker, files modified"`
	Block       string       `json:"block" jsonschema:"the block as written (markdown), secrets redacted"`
	Signals     int          `json:"signals" jsonschema:"stop signals in the block"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty" jsonschema:"problems met on the way"`
}

// VerifySummaryInput is the input of the verify_summary tool.
type VerifySummaryInput struct {
	Summary   string `json:"summary" jsonschema:"the compaction summary to check"`
	FromBlock bool   `json:"from_block,omitempty" jsonschema:"check against the latest preservation block instead of the current sources"`
}

// VerifySummaryOutput is what the summary lost.
type VerifySummaryOutput struct {
	Checked     int          `json:"checked" jsonschema:"stop signals looked for"`
	Against     string       `json:"against" jsonschema:"sources, or the block's path:line"`
	Lost        []Signal     `json:"lost" jsonschema:"signals the summary lost, secrets redacted"`
	Reinject    string       `json:"reinject" jsonschema:"the block to put back after the summary; empty when nothing was lost"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty" jsonschema:"problems met reading the sources"`
}

// MaxFilesDefault is how many files the files tool lists when the call
// gives no limit.
const MaxFilesDefault = 1000

// FilesInput is the input of the files tool.
type FilesInput struct {
	Why     string   `json:"why,omitempty" jsonschema:"explain the verdict on this project-relative path instead of listing"`
	Include []string `json:"include,omitempty" jsonschema:"project-relative paths that always enter context"`
	Limit   int      `json:"limit,omitempty" jsonschema:"list at most this many files (default 1000)"`
}

// FileEntry is one file that may enter context.
type FileEntry struct {
	Path         string `json:"path" jsonschema:"project-relative slash path"`
	NeverExclude string `json:"never_exclude,omitempty" jsonschema:"who named the file when only that brings it into context"`
}

// Why is the verdict on one path.
type Why struct {
	Path      string `json:"path" jsonschema:"the cleaned path"`
	InContext bool   `json:"in_context" jsonschema:"whether the path may enter context"`
	Verdict   string `json:"verdict" jsonschema:"like git check-ignore -v: SOURCE:LINE:PATTERN, never-exclude: named by ..., or excluded: ..."`
}

// FilesOutput is the file list, or the verdict on one path.
type FilesOutput struct {
	Files []FileEntry `json:"files,omitempty" jsonschema:"files that may enter context, sorted"`
	Total int         `json:"total,omitempty" jsonschema:"files before limit"`
	Why   *Why        `json:"why,omitempty" jsonschema:"the verdict, when why was given"`
}

// PromptInput is the input of the prompt tool.
type PromptInput struct {
	Target   string `json:"target,omitempty" jsonschema:"target name; the first target when omitted"`
	Provider string `json:"provider" jsonschema:"markdown, anthropic, openai, gemini, ollama or text"`
}

// PromptOutput is one target's prompt in one provider's shape.
type PromptOutput struct {
	Target   string `json:"target" jsonschema:"target name"`
	Provider string `json:"provider" jsonschema:"provider shape"`
	MIMEType string `json:"mime_type" jsonschema:"application/json for request bodies, text/markdown or text/plain"`
	Body     string `json:"body" jsonschema:"the request body (or text) as recite build writes it"`
	Bytes    int    `json:"bytes" jsonschema:"length of body in bytes"`
	Kept     string `json:"kept,omitempty" jsonschema:"why the last good render was returned instead of a fresh one"`
}

// providers are the prompt shapes (engine/prompt).
var providers = []string{"markdown", "anthropic", "openai", "gemini", "ollama", "text"}

// check rejects what the input schema cannot say: unknown kinds.
func (in StopSignalsInput) check() error {
	for _, k := range in.Kinds {
		if !slices.Contains(signalKinds, k) {
			return fmt.Errorf("kinds: unknown kind %q (want %s)", k, strings.Join(signalKinds, ", "))
		}
	}
	if in.Limit < 0 {
		return fmt.Errorf("limit: %d is negative", in.Limit)
	}
	return nil
}

// check validates the conversation id as every recite command does
// (conversation.ValidateID) and the fields that only some kinds take.
func (in RecordInput) check() error {
	if err := conversation.ValidateID(in.Conversation); err != nil {
		return fmt.Errorf("conversation: %w", err)
	}
	switch in.Kind {
	case RecordMessage, RecordError, RecordBlocker:
	default:
		return fmt.Errorf("kind: %q is not message, error or blocker", in.Kind)
	}
	if strings.TrimSpace(in.Text) == "" {
		return errors.New("text: empty")
	}
	if in.Role != "" && (in.Kind != RecordMessage || in.Role != conversation.RoleUser && in.Role != conversation.RoleAssistant) {
		return fmt.Errorf("role: %q is only for a message, and only user or assistant", in.Role)
	}
	if (in.Tool != "" || in.Command != "") && in.Kind != RecordError {
		return errors.New("tool and command are only for an error")
	}
	return nil
}

// check rejects an unknown trigger.
func (in PreserveInput) check() error {
	switch in.Trigger {
	case "", "manual", "compaction", "sabbath_rest":
		return nil
	}
	return fmt.Errorf("trigger: %q is not manual, compaction or sabbath_rest", in.Trigger)
}

// check rejects an empty summary.
func (in VerifySummaryInput) check() error {
	if strings.TrimSpace(in.Summary) == "" {
		return errors.New("summary: empty")
	}
	return nil
}

// check rejects paths that leave the project by their spelling: absolute
// paths, ".." segments, backslashes and NUL. (A path that leaves it through
// a symbolic link is the Project's to reject: only the filesystem knows.)
func (in FilesInput) check() error {
	if in.Why != "" {
		if err := RelPath(in.Why); err != nil {
			return fmt.Errorf("why: %w", err)
		}
	}
	for _, p := range in.Include {
		if err := RelPath(p); err != nil {
			return fmt.Errorf("include: %w", err)
		}
	}
	if in.Limit < 0 {
		return fmt.Errorf("limit: %d is negative", in.Limit)
	}
	return nil
}

// check rejects an unknown provider.
func (in PromptInput) check() error {
	if !slices.Contains(providers, in.Provider) {
		return fmt.Errorf("provider: %q is not one of %s", in.Provider, strings.Join(providers, ", "))
	}
	return nil
}

// driveLetter reports a Windows drive path ("C:", "C:/x").
func driveLetter(p string) bool {
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && (len(p) == 2 || p[2] == '/')
}

// RelPath reports whether p is a project-relative slash path that stays
// inside the project by its spelling: not empty, not absolute (no leading
// "/" or drive letter), no ".." segment, no backslash, no NUL. A trailing
// "/" (a directory) is allowed. The error names p.
func RelPath(p string) error {
	c := strings.TrimSuffix(p, "/")
	switch {
	case c == "" || c == ".":
		return fmt.Errorf("path %q: empty", p)
	case strings.ContainsAny(p, "\\\x00"):
		return fmt.Errorf("path %q: backslashes and NUL are not allowed; use a slash path relative to the project", p)
	case strings.HasPrefix(p, "/") || driveLetter(c):
		return fmt.Errorf("path %q is outside the project: give a path relative to the project root", p)
	}
	for _, seg := range strings.Split(path.Clean(c), "/") {
		if seg == ".." {
			return fmt.Errorf("path %q is outside the project", p)
		}
	}
	return nil
}
