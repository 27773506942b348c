package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxFrame bounds one incoming message, in bytes (the SDK's default
// maximum line length): a longer line is answered with -32600 and skipped.
const MaxFrame = 16 << 20

// StdioTransport is the MCP stdio transport (specification 2025-11-25,
// basic/transports "stdio": messages are JSON-RPC, delimited by newlines,
// and contain no embedded newline) that stays up on bad input: where the
// SDK's own stdio transport closes the connection at the first line that
// is not a JSON-RPC message, this one answers the line with a JSON-RPC
// error (DecodeFrame) and reads on. Out receives one message per line,
// written whole (writes are serialised).
type StdioTransport struct {
	In  io.Reader
	Out io.Writer
}

// Connect implements sdk.Transport; it starts the goroutine that reads In.
func (t *StdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &stdioConn{out: t.Out, lines: make(chan frame), closed: make(chan struct{})}
	go c.readLoop(t.In)
	return c, nil
}

// frame is one line read, or the error that ended reading.
type frame struct {
	line []byte
	long bool
	err  error
}

type stdioConn struct {
	out       io.Writer
	wmu       sync.Mutex
	lines     chan frame
	closed    chan struct{}
	closeOnce sync.Once
}

// readLoop sends In's lines to c.lines until In ends or c closes. A line
// longer than MaxFrame is sent as a long frame (its bytes dropped), so the
// one request is refused and the next line is read normally.
func (c *stdioConn) readLoop(in io.Reader) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		var line []byte
		long := false
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			if !long {
				if len(line)+len(chunk) > MaxFrame {
					long, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if len(line) > 0 || long {
			select {
			case c.lines <- frame{line: line, long: long}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.lines <- frame{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// Read returns the next JSON-RPC message; lines that are not one are
// answered here (DecodeFrame) and skipped. It returns io.EOF when In ends.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var f frame
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case f = <-c.lines:
		}
		if f.err != nil {
			return nil, f.err
		}
		var msg jsonrpc.Message
		var reply []byte
		if f.long {
			reply = errorReply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: message longer than %d bytes", MaxFrame))
		} else {
			msg, reply = DecodeFrame(f.line)
		}
		if reply != nil {
			if err := c.writeLine(reply); err != nil {
				return nil, err
			}
			continue
		}
		if msg != nil {
			return msg, nil
		}
	}
}

// Write sends one message on one line.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	return c.writeLine(data)
}

func (c *stdioConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	_, err := c.out.Write(append(data, '\n'))
	return err
}

// Close stops reading; Out is left open (it is the process's stdout).
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements sdk.Connection: stdio has no session id.
func (c *stdioConn) SessionID() string { return "" }

// DecodeFrame decodes one line of the stdio transport. It returns the
// message, or, for a line that is not one JSON-RPC 2.0 message, the error
// response to send back (JSON-RPC 2.0 §5.1): -32700 for text that is not
// JSON (id null), -32600 for JSON that is not a request, notification or
// response — a batch (MCP 2025-06-18 removed batching), a value that is
// not an object, a missing or wrong "jsonrpc" version, an id that is
// neither a string nor a number — with the request's id when it has a
// usable one. A blank line yields neither.
func DecodeFrame(line []byte) (jsonrpc.Message, []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return nil, nil
	}
	if !json.Valid(t) {
		return nil, errorReply(nil, jsonrpc.CodeParseError, "parse error: "+syntaxError(t))
	}
	switch t[0] {
	case '[':
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message per line")
	case '{':
	default:
		return nil, errorReply(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message must be a JSON object")
	}
	var head struct {
		Version *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(t, &head) // t is a valid object; fields of the wrong type stay zero
	id := usableID(head.ID)
	if head.Version == nil || *head.Version != "2.0" {
		return nil, errorReply(id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	msg, err := jsonrpc.DecodeMessage(t)
	if err != nil {
		return nil, errorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return msg, nil
}

// usableID returns raw when it is a JSON string or number, else nil.
func usableID(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return raw
	}
	return nil
}

// syntaxError describes where t stops being JSON.
func syntaxError(t []byte) string {
	var v any
	err := json.Unmarshal(t, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	if err != nil {
		return err.Error()
	}
	return "invalid JSON"
}

// errorReply is a JSON-RPC error response; a nil id is sent as null.
func errorReply(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{Version: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	if err != nil {
		// Only a broken id could fail; the id is dropped then.
		return errorReply(nil, code, message)
	}
	return b
}
