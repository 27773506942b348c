package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures Serve and Run.
type Options struct {
	// Dir is the project given on the command line (-C); "" takes it from
	// the client's roots, else from Fallback.
	Dir string
	// Fallback is where to look for the project when Dir is "" and the
	// client offers no roots (the working directory).
	Fallback string
	// Open opens the project at or above a directory.
	Open Opener
	// Version is recite's version, sent in the initialize result.
	Version string
	// NoWatch turns off the watcher: resources then change only through
	// the tools (record, preserve) and other processes' builds are not
	// seen.
	NoWatch bool
	// Logger receives the server's own notices; nil discards them.
	Logger *slog.Logger
}

// instructions tell the client's model what the server is for.
const instructions = `recite keeps this project's agent context in plain files under .planning/.
Call recitation when a session starts or after a compaction to learn where the work stands; stop_signals for the errors, blocks and failed approaches that must not be lost; verify_summary before replacing context with a summary (re-inject what it lost); record to log an error, a blocker or a message into a conversation; preserve before a compaction; files to see what may enter context and why; prompt for a target's whole prompt in one provider's shape.`

// Serve runs the server over stdio (StdioTransport on in and out) until
// the client closes in or ctx ends; a cancelled ctx returns nil.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	return Run(ctx, &StdioTransport{In: in, Out: out}, opts)
}

// Run serves one client over t. With opts.Dir the project is opened first
// and an error opening it is returned (nothing is served); otherwise the
// project is found when the client is known (server.resolve).
func Run(ctx context.Context, t sdk.Transport, opts Options) error {
	if opts.Open == nil {
		return errors.New("mcp: Options.Open is nil")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := newServer(ctx, opts)
	defer s.stop()
	if opts.Dir != "" {
		p, err := opts.Open(opts.Dir)
		if err != nil {
			return err
		}
		s.activate(p, "-C")
	}
	err := s.sdk.Run(ctx, t)
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// server is one MCP server: one client, one project.
type server struct {
	ctx  context.Context
	opts Options
	sdk  *sdk.Server

	// resolveMu serialises finding the project.
	resolveMu sync.Mutex
	mu        sync.Mutex
	// proj is the project once found; how says from where ("-C", "roots",
	// "working directory"); projErr is why it could not be found.
	proj    Project
	how     string
	projErr error
	// uris are the resources registered on sdk.
	uris map[string]bool
	// stopWatch ends the watcher of proj; watching waits for it.
	stopWatch context.CancelFunc
	watching  sync.WaitGroup
}

func newServer(ctx context.Context, opts Options) *server {
	s := &server{ctx: ctx, opts: opts, uris: map[string]bool{}}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "recite", Title: "recite", Version: opts.Version}, &sdk.ServerOptions{
		Instructions:            instructions,
		Logger:                  opts.Logger,
		InitializedHandler:      s.initialized,
		RootsListChangedHandler: s.rootsChanged, //lint:ignore SA1019 see roots.go
		SubscribeHandler:        s.subscribe,
		UnsubscribeHandler:      func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
		Capabilities: &sdk.ServerCapabilities{
			Tools:     &sdk.ToolCapabilities{ListChanged: false},
			Resources: &sdk.ResourceCapabilities{ListChanged: true, Subscribe: true},
		},
	})
	s.sdk.AddReceivingMiddleware(s.resolveFirst)
	addTools(s)
	return s
}

// stop ends the watcher.
func (s *server) stop() {
	s.mu.Lock()
	if s.stopWatch != nil {
		s.stopWatch()
	}
	s.mu.Unlock()
	s.watching.Wait()
}

// current returns the project found so far, or why none was.
func (s *server) current() (Project, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proj, s.projErr
}

// activate makes p the project: it registers its resources and starts its
// watcher. A previous project is dropped first.
func (s *server) activate(p Project, how string) {
	s.deactivate()
	s.mu.Lock()
	s.proj, s.how, s.projErr = p, how, nil
	s.mu.Unlock()
	s.opts.Logger.Info("project", "dir", p.Dir(), "from", how)
	s.syncResources(p)
	if s.opts.NoWatch {
		return
	}
	wctx, cancel := context.WithCancel(s.ctx)
	s.mu.Lock()
	s.stopWatch = cancel
	s.mu.Unlock()
	s.watching.Go(func() {
		err := p.Watch(wctx, func(uris []string) { s.changed(p, uris) })
		if err != nil && wctx.Err() == nil {
			s.opts.Logger.Warn("watch ended", "error", err)
		}
	})
}

// deactivate drops the project (its roots changed): the watcher stops and
// its resources are removed.
func (s *server) deactivate() {
	s.mu.Lock()
	stop := s.stopWatch
	s.stopWatch = nil
	var old []string
	for u := range s.uris {
		old = append(old, u)
	}
	s.uris = map[string]bool{}
	s.proj, s.projErr = nil, nil
	s.mu.Unlock()
	if stop != nil {
		stop()
		s.watching.Wait()
	}
	if len(old) > 0 {
		s.sdk.RemoveResources(old...)
	}
}

// fail records why no project could be found; tools report it.
func (s *server) fail(err error) {
	s.mu.Lock()
	s.projErr = err
	s.mu.Unlock()
	s.opts.Logger.Warn("no project", "error", err)
}

// changed runs after a rebuild of p: the resource list is brought up to
// date (the SDK sends resources/list_changed when it changes) and
// resources/updated goes to the subscribers of each changed URI.
func (s *server) changed(p Project, uris []string) {
	if cur, _ := s.current(); cur != p {
		return
	}
	s.syncResources(p)
	for _, u := range uris {
		if err := s.sdk.ResourceUpdated(s.ctx, &sdk.ResourceUpdatedNotificationParams{URI: u}); err != nil {
			s.opts.Logger.Warn("resources/updated", "uri", u, "error", err)
		}
	}
}

// syncResources registers p's current resources and removes those it no
// longer offers.
func (s *server) syncResources(p Project) {
	rs, err := p.Resources(s.ctx)
	if err != nil {
		s.opts.Logger.Warn("resources", "error", err)
		return
	}
	want := map[string]bool{}
	var add []Resource
	s.mu.Lock()
	for _, r := range rs {
		want[r.URI] = true
		if !s.uris[r.URI] {
			add = append(add, r)
		}
	}
	var gone []string
	for u := range s.uris {
		if !want[u] {
			gone = append(gone, u)
		}
	}
	s.uris = want
	s.mu.Unlock()
	for _, r := range add {
		s.sdk.AddResource(&sdk.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType},
			func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return s.read(ctx, req.Params.URI)
			})
	}
	if len(gone) > 0 {
		s.sdk.RemoveResources(gone...)
	}
}

// read serves resources/read from the current project.
func (s *server) read(ctx context.Context, uri string) (*sdk.ReadResourceResult, error) {
	p, err := s.current()
	if p == nil {
		if err == nil {
			err = errors.New("no project yet")
		}
		return nil, err
	}
	c, err := p.ReadResource(ctx, uri)
	if errors.Is(err, ErrUnknownResource) {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text}}}, nil
}

// subscribe accepts a subscription to a resource the project offers.
func (s *server) subscribe(_ context.Context, req *sdk.SubscribeRequest) error {
	s.mu.Lock()
	ok := s.uris[req.Params.URI]
	s.mu.Unlock()
	if !ok {
		return sdk.ResourceNotFoundError(req.Params.URI)
	}
	return nil
}
