// Package smtptest runs a real SMTP server (github.com/emersion/go-smtp)
// on 127.0.0.1 for tests: it offers STARTTLS with a certificate of its
// own, may require AUTH PLAIN, keeps every message it accepts, and can be
// killed and restarted on the same address mid-test.
package smtptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one message the server accepted.
type Message struct {
	From string
	To   []string
	Data []byte
	// TLS and User say how the client came: over STARTTLS, signed in as.
	TLS  bool
	User string
}

// Options shape a Server.
type Options struct {
	// User and Password, when set, are required (AUTH PLAIN).
	User, Password string
	// Plain offers no STARTTLS: for a client that cannot be given the
	// server's certificate (the server binary, which trusts the system's
	// roots).
	Plain bool
	// OnData, when set, runs before a message is accepted, with the
	// number of DATA commands so far (from 1): an error refuses it.
	OnData func(n int, s *Server) error
}

// Server is a running SMTP server.
type Server struct {
	Addr string
	// RootCAs verifies its certificate.
	RootCAs *tls.Config

	opts  Options
	tls   *tls.Config
	mu    sync.Mutex
	srv   *smtp.Server
	msgs  []Message
	datas int
}

// Start starts a Server on a free port of 127.0.0.1, stopped with tb.
func Start(tb testing.TB, o Options) *Server {
	tb.Helper()
	cert, pool := certificate(tb)
	s := &Server{opts: o, tls: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		RootCAs: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("smtptest: %v", err)
	}
	s.Addr = l.Addr().String()
	s.serve(l)
	tb.Cleanup(s.Kill)
	return s
}

// URL is the server's smtp:// URL, with its credentials.
func (s *Server) URL() string {
	if s.opts.User != "" {
		return "smtp://" + s.opts.User + ":" + s.opts.Password + "@" + s.Addr
	}
	return "smtp://" + s.Addr
}

func (s *Server) serve(l net.Listener) {
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{s: s, c: c}, nil
	}))
	srv.Domain = "smtptest.local"
	if !s.opts.Plain {
		srv.TLSConfig = s.tls
	} else {
		srv.AllowInsecureAuth = true
	}
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	s.mu.Lock()
	s.srv = srv
	s.mu.Unlock()
	go func() { _ = srv.Serve(l) }()
}

// Kill stops the server at once, dropping the connections in flight.
func (s *Server) Kill() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// Restart serves again on the same address after a Kill.
func (s *Server) Restart(tb testing.TB) {
	tb.Helper()
	var l net.Listener
	var err error
	for range 50 { // the killed listener's port frees up at once, mostly
		if l, err = net.Listen("tcp", s.Addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		tb.Fatalf("smtptest: restart: %v", err)
	}
	s.serve(l)
}

// Messages returns the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Wait returns once the server has accepted n messages, or fails tb.
func (s *Server) Wait(tb testing.TB, n int, within time.Duration) []Message {
	tb.Helper()
	deadline := time.Now().Add(within)
	for {
		if ms := s.Messages(); len(ms) >= n {
			return ms
		}
		if time.Now().After(deadline) {
			tb.Fatalf("smtptest: %d messages after %s, want %d", len(s.Messages()), within, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type session struct {
	s    *Server
	c    *smtp.Conn
	from string
	to   []string
	user string
}

var errAuth = &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Authentication required"}

func (se *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (se *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != se.s.opts.User || pass != se.s.opts.Password {
			return errors.New("invalid credentials")
		}
		se.user = user
		return nil
	}), nil
}

func (se *session) Mail(from string, _ *smtp.MailOptions) error {
	if se.s.opts.User != "" && se.user == "" {
		return errAuth
	}
	se.from = from
	return nil
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	se.to = append(se.to, to)
	return nil
}

func (se *session) Data(r io.Reader) error {
	se.s.mu.Lock()
	se.s.datas++
	n := se.s.datas
	se.s.mu.Unlock()
	if f := se.s.opts.OnData; f != nil {
		if err := f(n, se.s); err != nil {
			_, _ = io.Copy(io.Discard, r)
			return err
		}
	}
	var b bytes.Buffer
	if _, err := io.Copy(&b, r); err != nil {
		return err
	}
	_, isTLS := se.c.TLSConnectionState()
	se.s.mu.Lock()
	se.s.msgs = append(se.s.msgs, Message{From: se.from, To: se.to, Data: b.Bytes(), TLS: isTLS, User: se.user})
	se.s.mu.Unlock()
	return nil
}

func (se *session) Reset()        { se.from, se.to = "", nil }
func (se *session) Logout() error { return nil }

// certificate is a self-signed certificate for 127.0.0.1 and the pool
// that trusts it.
func certificate(tb testing.TB) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("smtptest: %v", err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "smtptest"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatalf("smtptest: %v", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatalf("smtptest: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
