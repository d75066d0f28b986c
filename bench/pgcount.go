package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
)

// pgCounter is a TCP proxy in front of Postgres that counts the
// messages clients send, by protocol message type. It tells how many round
// trips (Sync and simple Query messages, each of which waits for
// ReadyForQuery) and how many statement parses (Parse) a request costs —
// what a CPU profile of the server cannot show, since the time is spent
// waiting on the database. It also logs the text of every statement
// executed (simple Query, or Bind of a prepared statement), which the
// fairness check compares between the two servers (fairness.go). It is
// used only for the short, sequential measurement, never under load.
type pgCounter struct {
	ln     net.Listener
	target string
	counts [256]atomic.Int64

	mu  sync.Mutex
	log []executed // every statement executed, in order of arrival
}

// executed is one statement a client ran: its text, and whether it went
// by the simple protocol (text with its values written in, parsed every
// time) or the extended one (a prepared statement bound to values).
type executed struct {
	Simple bool
	Text   string
}

// newPGCounter listens on a free port and forwards to the host of dbURL.
func newPGCounter(dbURL string) (*pgCounter, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return nil, err
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "5432")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &pgCounter{ln: ln, target: host}
	go c.serve()
	return c, nil
}

// url is dbURL with its host replaced by the proxy's.
func (c *pgCounter) url(dbURL string) string {
	u, _ := url.Parse(dbURL)
	u.Host = c.ln.Addr().String()
	return u.String()
}

func (c *pgCounter) close() { _ = c.ln.Close() }

func (c *pgCounter) serve() {
	for {
		client, err := c.ln.Accept()
		if err != nil {
			return
		}
		go c.proxy(client)
	}
}

func (c *pgCounter) proxy(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", c.target)
	if err != nil {
		return
	}
	defer server.Close()
	go func() {
		_, _ = io.Copy(client, server)
		client.Close()
	}()
	_ = c.count(bufio.NewReader(client), server, map[string]string{})
}

// count forwards the client's stream to w, counting its messages and
// logging the statements it executes; stmts are the connection's prepared
// statements by name. The startup packets (startup, SSL or GSS request)
// have no type byte.
func (c *pgCounter) count(r *bufio.Reader, w io.Writer, stmts map[string]string) error {
	const sslRequest, gssRequest = 80877103, 80877104
	hdr := make([]byte, 8)
	for {
		if _, err := io.ReadFull(r, hdr); err != nil {
			return err
		}
		n := binary.BigEndian.Uint32(hdr[:4])
		code := binary.BigEndian.Uint32(hdr[4:])
		if _, err := w.Write(hdr); err != nil {
			return err
		}
		if n < 8 {
			return errors.New("bad startup packet")
		}
		if _, err := io.CopyN(w, r, int64(n-8)); err != nil {
			return err
		}
		if code != sslRequest && code != gssRequest {
			break
		}
	}
	head := make([]byte, 5)
	for {
		if _, err := io.ReadFull(r, head); err != nil {
			return err
		}
		c.counts[head[0]].Add(1)
		n := binary.BigEndian.Uint32(head[1:])
		if _, err := w.Write(head); err != nil {
			return err
		}
		if n < 4 {
			return fmt.Errorf("bad message length %d", n)
		}
		switch head[0] {
		case 'P', 'B', 'Q': // Parse, Bind, Query: read to log the statement
			body := make([]byte, n-4)
			if _, err := io.ReadFull(r, body); err != nil {
				return err
			}
			c.note(head[0], body, stmts)
			if _, err := w.Write(body); err != nil {
				return err
			}
		default:
			if _, err := io.CopyN(w, r, int64(n-4)); err != nil {
				return err
			}
		}
	}
}

// note records what a Parse, Bind or Query message (type, body) says:
// Parse names a statement's text, Bind executes a named one, Query
// executes its text.
func (c *pgCounter) note(typ byte, body []byte, stmts map[string]string) {
	fields := bytes.SplitN(body, []byte{0}, 3) // the first two are C strings
	if len(fields) < 2 {
		return
	}
	var e executed
	switch typ {
	case 'P':
		stmts[string(fields[0])] = string(fields[1])
		return
	case 'B':
		e.Text = stmts[string(fields[1])]
	case 'Q':
		e.Simple, e.Text = true, string(fields[0])
	}
	c.mu.Lock()
	c.log = append(c.log, e)
	c.mu.Unlock()
}

// mark is the position in the statement log now.
func (c *pgCounter) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.log)
}

// since returns the statements executed after mark m.
func (c *pgCounter) since(m int) []executed {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.log[m:])
}

// pgCounts is a snapshot of the message counts that matter.
type pgCounts struct {
	Parse, Bind, Sync, Query int64
}

func (c *pgCounter) snapshot() pgCounts {
	return pgCounts{Parse: c.counts['P'].Load(), Bind: c.counts['B'].Load(), Sync: c.counts['S'].Load(), Query: c.counts['Q'].Load()}
}

// roundTrips is how many round trips were made from a to b.
func (a pgCounts) roundTrips(b pgCounts) int64 { return b.Sync - a.Sync + b.Query - a.Query }

// perRequest divides the counts between two snapshots by n requests.
type perRequest struct {
	RoundTrips float64 `json:"round_trips"` // Sync + simple Query
	Parses     float64 `json:"parses"`      // statements parsed by the server (prepare)
	Executes   float64 `json:"executes"`    // Bind (extended protocol) + simple Query
}

func (a pgCounts) per(b pgCounts, n int) perRequest {
	f := func(x int64) float64 { return float64(x) / float64(n) }
	return perRequest{
		RoundTrips: f(a.roundTrips(b)),
		Parses:     f(b.Parse - a.Parse),
		Executes:   f(b.Bind - a.Bind + b.Query - a.Query),
	}
}
