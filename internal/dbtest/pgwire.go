package dbtest

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Wire is a TCP proxy in front of a Postgres server that reads what its
// clients send and notes every statement they run: each simple Query
// message, and each Execute of the extended protocol (named by the text of
// the Parse before it). It tells what reached the server, whatever the
// driver or the hooks above it saw.
type Wire struct {
	mu    sync.Mutex
	stmts []string
}

// NewWire starts a Wire in front of the server of rawURL (sslmode=disable)
// and returns it with the URL to connect through it. It stops with tb.
func NewWire(tb testing.TB, rawURL string) (*Wire, string) {
	tb.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("dbtest: %v", err)
	}
	tb.Cleanup(func() { _ = ln.Close() })
	w := &Wire{}
	upstream := u.Host
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go w.serve(c, upstream)
		}
	}()
	u.Host = ln.Addr().String()
	return w, u.String()
}

// Statements returns the statements run so far, in the order they arrived.
func (w *Wire) Statements() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.stmts...)
}

// Reset forgets the statements run so far.
func (w *Wire) Reset() {
	w.mu.Lock()
	w.stmts = nil
	w.mu.Unlock()
}

func (w *Wire) serve(client net.Conn, upstream string) {
	defer client.Close()
	server, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer server.Close()
	go func() { _, _ = io.Copy(client, server) }()
	w.read(client, server)
}

// read follows the frontend's messages from r, the startup message (no
// type byte) then typed ones, and passes each on to upstream once it is
// noted: Postgres cannot answer a statement, nor the test look at the
// statements, before the statement is in the list.
func (w *Wire) read(r io.Reader, upstream io.Writer) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return
	}
	startup := make([]byte, int(binary.BigEndian.Uint32(n[:]))-4)
	if _, err := io.ReadFull(r, startup); err != nil {
		return
	}
	if _, err := upstream.Write(append(n[:], startup...)); err != nil {
		return
	}
	parsed := map[string]string{}  // statement name → text
	portals := map[string]string{} // portal name → statement name
	for {
		var head [5]byte
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return
		}
		body := make([]byte, int(binary.BigEndian.Uint32(head[1:]))-4)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		switch head[0] {
		case 'Q':
			w.note(cstring(body))
		case 'P':
			name := cstring(body)
			parsed[name] = cstring(body[len(name)+1:])
		case 'B':
			portal := cstring(body)
			portals[portal] = cstring(body[len(portal)+1:])
		case 'E':
			w.note(parsed[portals[cstring(body)]])
		}
		if _, err := upstream.Write(append(head[:], body...)); err != nil {
			return
		}
	}
}

func (w *Wire) note(stmt string) {
	w.mu.Lock()
	w.stmts = append(w.stmts, stmt)
	w.mu.Unlock()
}

// cstring is the NUL-terminated string b starts with.
func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}
