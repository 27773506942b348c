package mcp

//lint:file-ignore SA1019 roots are how MCP clients before protocol 2026-07-28 name the project; the SDK marks them deprecated for later versions only

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// initialized finds the project once a client that declares roots has
// finished the initialize handshake (protocol versions before 2026-07-28;
// later sessions have no handshake and are resolved on their first
// request).
func (s *server) initialized(_ context.Context, req *sdk.InitializedRequest) {
	if s.opts.Dir != "" {
		return
	}
	ss := req.Session
	go s.resolve(s.ctx, ss, false)
}

// rootsChanged drops the project found from the old roots and finds it
// again.
func (s *server) rootsChanged(_ context.Context, req *sdk.RootsListChangedRequest) {
	if s.opts.Dir != "" {
		return
	}
	ss := req.Session
	go s.resolve(s.ctx, ss, true)
}

// resolveFirst is receiving middleware: before resources/list,
// resources/read and resources/subscribe, a project not yet found is looked
// for, so the first list shows its resources.
func (s *server) resolveFirst(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case "resources/list", "resources/read", "resources/subscribe":
			if ss, ok := req.GetSession().(*sdk.ServerSession); ok && s.opts.Dir == "" {
				s.resolve(ctx, ss, false)
			}
		}
		return next(ctx, method, req)
	}
}

// resolve finds the project for session ss: from its roots when it
// declares the roots capability and may be asked for them (sessions before
// protocol 2026-07-28; later ones are asked from tool calls, see
// projectFor), else from opts.Fallback. Unless again is set (the roots
// changed), a project already found is kept.
func (s *server) resolve(ctx context.Context, ss *sdk.ServerSession, again bool) {
	s.resolveMu.Lock()
	defer s.resolveMu.Unlock()
	if again {
		s.deactivate()
	} else if p, _ := s.current(); p != nil {
		return
	}
	if offersRoots(ss) && modern(ss) {
		// Asked from the next tool call (projectFor).
		return
	}
	if offersRoots(ss) {
		res, err := ss.ListRoots(ctx, &sdk.ListRootsParams{})
		if err != nil {
			s.fail(fmt.Errorf("asking the client for its roots: %w", err))
			return
		}
		s.fromRoots(res)
		return
	}
	s.fromDir(s.opts.Fallback, "working directory")
}

// fromDir opens the project at or above dir.
func (s *server) fromDir(dir, how string) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		s.fail(err)
		return
	}
	p, err := s.opts.Open(abs)
	if err != nil {
		s.fail(fmt.Errorf("%s %s: %w", how, abs, err))
		return
	}
	s.activate(p, how)
}

// fromRoots opens the project of the first root inside one; an empty list
// falls back to opts.Fallback. When no root is inside a project the error
// names each root and why.
func (s *server) fromRoots(res *sdk.ListRootsResult) {
	if res == nil || len(res.Roots) == 0 {
		s.fromDir(s.opts.Fallback, "working directory")
		return
	}
	var why []string
	for _, r := range res.Roots {
		dir, err := rootDir(r.URI)
		if err == nil {
			var p Project
			if p, err = s.opts.Open(dir); err == nil {
				s.activate(p, "roots")
				return
			}
		}
		why = append(why, fmt.Sprintf("%s (%v)", r.URI, err))
	}
	s.fail(fmt.Errorf("no root the client gave is inside a recite project (a folder with .planning/): %s; run `recite init` in the project, or start the server with `recite mcp -C DIR`", strings.Join(why, "; ")))
}

// rootDir is the local directory of a file:// root URI.
func rootDir(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("not a file:// URI")
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("host %q is not this machine", u.Host)
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/")
	}
	return filepath.FromSlash(p), nil
}

// offersRoots reports whether the session's client declared the roots
// capability.
func offersRoots(ss *sdk.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.RootsV2 != nil
}

// modern reports a session at protocol 2026-07-28 or later, where the
// server may not send requests of its own and asks for roots inside a
// tool call instead (multi round-trip requests).
func modern(ss *sdk.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= "2026-07-28"
}

// projectFor returns the project a tool call acts on, finding it first if
// needed: for a client at protocol 2026-07-28 or later that declares
// roots, the call returns an input request for the roots (ask) and is
// retried with them; otherwise resolve asks for them itself, or takes the
// working directory. The error says why no project could be found.
func (s *server) projectFor(ctx context.Context, req *sdk.CallToolRequest) (p Project, ask *sdk.CallToolResult, err error) {
	if p, _ := s.current(); p != nil {
		return p, nil, nil
	}
	ss := req.Session
	if offersRoots(ss) && modern(ss) && s.opts.Dir == "" {
		r, ok := req.Params.InputResponses[rootsInput].(*sdk.ListRootsResult)
		if !ok {
			return nil, &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{rootsInput: &sdk.ListRootsParams{}}}, nil
		}
		s.resolveMu.Lock()
		if cur, _ := s.current(); cur == nil {
			s.fromRoots(r)
		}
		s.resolveMu.Unlock()
	} else {
		s.resolve(ctx, ss, false)
	}
	p, err = s.current()
	if p == nil && err == nil {
		err = errors.New("no project found")
	}
	return p, nil, err
}
