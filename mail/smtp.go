package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// SMTP sends messages to one SMTP server (github.com/emersion/go-smtp),
// a new connection per message.
type SMTP struct {
	addr     string
	implicit bool // smtps: TLS from the first byte
	user     string
	password string
	tls      *tls.Config
	timeout  time.Duration
}

// NewSMTP returns the Sender of rawURL:
//
//	smtp://[user:password@]host[:port]   port 587 by default; STARTTLS when the server offers it
//	smtps://[user:password@]host[:port]  port 465 by default; TLS from the start
//
// Credentials are sent (AUTH PLAIN) only over TLS, or to a server on a
// loopback address. tlsConfig, when not nil, verifies the server (its
// ServerName is filled in from the URL); nil uses the system's roots.
func NewSMTP(rawURL string, tlsConfig *tls.Config) (*SMTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("mail: the SMTP URL is not a URL")
	}
	s := &SMTP{timeout: 30 * time.Second}
	port := "587"
	switch u.Scheme {
	case "smtp":
	case "smtps":
		s.implicit, port = true, "465"
	default:
		return nil, fmt.Errorf("mail: the SMTP URL's scheme is %q, not smtp or smtps", u.Scheme)
	}
	host := u.Hostname()
	if host == "" {
		return nil, errors.New("mail: the SMTP URL names no host")
	}
	if u.Port() != "" {
		port = u.Port()
	}
	s.addr = net.JoinHostPort(host, port)
	if u.User != nil {
		s.user = u.User.Username()
		s.password, _ = u.User.Password()
	}
	if tlsConfig == nil {
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	s.tls = tlsConfig.Clone()
	if s.tls.ServerName == "" {
		s.tls.ServerName = host
	}
	return s, nil
}

// Send implements Sender: dial, STARTTLS when offered, AUTH when the URL
// has a user, MAIL, RCPT, DATA, QUIT, bounded by ctx and a timeout.
func (s *SMTP) Send(ctx context.Context, from string, to []string, msg []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	c, secure, err := s.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if s.user != "" {
		if !secure && !loopback(s.addr) {
			return errors.New("the mail server offers no TLS; credentials are not sent in clear text")
		}
		if err := c.Auth(sasl.NewPlainClient("", s.user, s.password)); err != nil {
			return fmt.Errorf("authenticate: %w", err)
		}
	}
	if err := c.SendMail(from, to, bytes.NewReader(msg)); err != nil {
		return err
	}
	return c.Quit()
}

// dial connects to the server and says hello, over TLS when the URL is
// smtps or the server offers STARTTLS (go-smtp upgrades only a fresh
// client, so a server that offers it is dialled again and asked for it
// at once). secure reports whether the connection is encrypted.
func (s *SMTP) dial(ctx context.Context) (c *smtp.Client, secure bool, err error) {
	conn, err := s.connect(ctx)
	if err != nil {
		return nil, false, err
	}
	if s.implicit {
		c = smtp.NewClient(tls.Client(conn, s.tls))
		return c, true, c.Hello("localhost")
	}
	c = smtp.NewClient(conn)
	if err := c.Hello("localhost"); err != nil {
		c.Close()
		return nil, false, err
	}
	if ok, _ := c.Extension("STARTTLS"); !ok {
		return c, false, nil
	}
	_ = c.Quit()
	if conn, err = s.connect(ctx); err != nil {
		return nil, false, err
	}
	if c, err = smtp.NewClientStartTLS(conn, s.tls); err != nil {
		return nil, false, fmt.Errorf("STARTTLS: %w", err)
	}
	return c, true, nil
}

// connect opens a TCP connection to the server, its deadline ctx's.
func (s *SMTP) connect(ctx context.Context) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return nil, fmt.Errorf("connect to the mail server: %w", err)
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	return conn, nil
}

// loopback reports whether addr is on this machine.
func loopback(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
