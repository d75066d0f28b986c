package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenAddress is a URL whose host is, or resolves to, an address
// deliveries may not reach: loopback, private, link-local, cloud metadata,
// CGNAT, multicast, unspecified or reserved.
var ErrForbiddenAddress = errors.New("not a public address")

// forbiddenPrefixes are the ranges no delivery may reach, besides what
// netip.Addr's own predicates catch (loopback, private, link-local,
// multicast, unspecified).
var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),         // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),     // CGNAT, Alibaba's metadata 100.100.100.200
	netip.MustParsePrefix("192.0.0.0/24"),      // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),      // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),     // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"),   // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),    // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),       // reserved, broadcast
	netip.MustParsePrefix("fec0::/10"),         // site-local (deprecated)
	netip.MustParsePrefix("100::/64"),          // discard-only
	netip.MustParsePrefix("2001:db8::/32"),     // documentation
	netip.MustParsePrefix("fd00:ec2::254/128"), // AWS metadata over IPv6 (inside fc00::/7 too)
}

// embeddedV4 are IPv6 ranges that carry an IPv4 address in their last 32
// bits: that address is checked as well.
var embeddedV4 = []netip.Prefix{
	netip.MustParsePrefix("::/96"),          // IPv4-compatible (deprecated)
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"), // local NAT64
}

// Public reports whether deliveries may reach addr without the operator's
// leave: false for loopback, private (RFC 1918, fc00::/7), link-local
// (169.254.0.0/16 with the cloud metadata address, fe80::/10), CGNAT
// (100.64.0.0/10), multicast, unspecified, documentation and reserved
// ranges, and for IPv4-mapped or -embedding IPv6 forms of any of them.
func Public(addr netip.Addr) bool {
	if !addr.IsValid() {
		return false
	}
	addr = addr.Unmap()
	if addr.Is6() {
		for _, p := range embeddedV4 {
			if p.Contains(addr) {
				b := addr.As16()
				v4 := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
				if !Public(v4) {
					return false
				}
			}
		}
	}
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() {
		return false
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// Guard keeps deliveries off private networks (server-side request
// forgery): it checks an endpoint's URL when it is registered or changed
// (CheckURL) and every address the delivery client dials (Client), so that
// a host name re-pointed at a private address after registration (DNS
// rebinding) is refused at connection time.
//
// The operator's allow list lets named hosts and address ranges through,
// whatever they resolve to; allowed hosts may also use plain http (local
// development and tests).
type Guard struct {
	hosts    map[string]bool
	prefixes []netip.Prefix
	// lookup resolves host names, for CheckURL and for every delivery's
	// connection: the system resolver, replaced by tests (DNS rebinding).
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// NewGuard returns a Guard allowing the hosts and ranges of allow: host
// names ("hooks.internal"), addresses ("127.0.0.1", "::1") and CIDRs
// ("10.1.0.0/16"). An empty list allows public https URLs only.
func NewGuard(allow ...string) (*Guard, error) {
	g := &Guard{hosts: map[string]bool{}, lookup: lookupHost}
	for _, a := range allow {
		a = strings.TrimSpace(a)
		switch {
		case a == "":
		case strings.Contains(a, "/"):
			p, err := netip.ParsePrefix(a)
			if err != nil {
				return nil, fmt.Errorf("outbound: allow list entry %q: %w", a, err)
			}
			g.prefixes = append(g.prefixes, p.Masked())
		default:
			if addr, err := netip.ParseAddr(strings.Trim(a, "[]")); err == nil {
				g.prefixes = append(g.prefixes, netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen()))
				continue
			}
			if strings.ContainsAny(a, ":@ ") {
				return nil, fmt.Errorf("outbound: allow list entry %q: not a host name, address or CIDR", a)
			}
			g.hosts[strings.ToLower(strings.TrimSuffix(a, "."))] = true
		}
	}
	return g, nil
}

// lookupHost resolves host with the system resolver.
func lookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// allowedAddr reports whether addr may be reached: public, or in the
// operator's ranges.
func (g *Guard) allowedAddr(addr netip.Addr) bool {
	if Public(addr) {
		return true
	}
	addr = addr.Unmap()
	for _, p := range g.prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// allowedHost reports whether the operator allowed host: by name, or as
// an address within an allowed range.
func (g *Guard) allowedHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if g.hosts[host] {
		return true
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		addr = addr.Unmap()
		for _, p := range g.prefixes {
			if p.Contains(addr) {
				return true
			}
		}
	}
	return false
}

// CheckURL returns nil when deliveries may be sent to raw: an absolute
// https URL (http for an allowed host) without credentials, whose host
// is allowed or resolves only to public addresses (or allowed ranges).
// Its errors are sentences for the tenant, after the field's name ("must
// use https"); a forbidden address wraps ErrForbiddenAddress.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return errors.New("must be an absolute URL")
	}
	if u.User != nil {
		return errors.New("must not contain credentials")
	}
	if u.Fragment != "" {
		return errors.New("must not contain a fragment")
	}
	host := u.Hostname()
	allowed := g.allowedHost(host)
	switch u.Scheme {
	case "https":
	case "http":
		if !allowed {
			return errors.New("must use https")
		}
	default:
		return errors.New("must use https")
	}
	if allowed {
		return nil
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if !g.allowedAddr(addr) {
			return fmt.Errorf("is %w (%s)", ErrForbiddenAddress, addr)
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := g.lookup(ctx, host)
	if err != nil || len(addrs) == 0 {
		return fmt.Errorf("has a host that does not resolve: %s", host)
	}
	for _, a := range addrs {
		if !g.allowedAddr(a) {
			return fmt.Errorf("resolves to %s, %w", a.Unmap(), ErrForbiddenAddress)
		}
	}
	return nil
}

// dialContext dials addr ("host:port" of the request's URL): an allowed
// host as it resolves, any other only to addresses allowedAddr accepts,
// checked on the addresses of this connection's own DNS answer, not the
// registration's (DNS rebinding). A name is resolved with the Guard's
// lookup, as CheckURL resolves it, and refused when any of its addresses
// is forbidden; the dialler's control checks the address actually
// dialled once more.
func (g *Guard) dialContext(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		d := &net.Dialer{Timeout: timeout}
		if g.allowedHost(host) {
			return d.DialContext(ctx, network, addr)
		}
		d.Control = g.control
		if _, err := netip.ParseAddr(host); err == nil {
			return d.DialContext(ctx, network, addr)
		}
		addrs, err := g.lookup(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("outbound: resolve %s: %w", host, err)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("outbound: resolve %s: no address", host)
		}
		for _, a := range addrs {
			if !g.allowedAddr(a) {
				return nil, fmt.Errorf("outbound: dial %s: resolves to %s, %w", host, a.Unmap(), ErrForbiddenAddress)
			}
		}
		var first error
		for _, a := range addrs {
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			if first == nil {
				first = err
			}
			if ctx.Err() != nil {
				break
			}
		}
		return nil, first
	}
}

// control refuses a connection to an address deliveries may not reach.
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("outbound: dial %s: %w", address, err)
	}
	if !g.allowedAddr(ap.Addr()) {
		return fmt.Errorf("outbound: dial %s: %w", ap.Addr().Unmap(), ErrForbiddenAddress)
	}
	return nil
}

// Client returns the HTTP client of deliveries: every dialled address
// checked, no proxy, redirects not followed (a 3xx answer is what the
// attempt records), and timeout for the whole request.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	t := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.dialContext(timeout),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   100, // a replica's workers reuse their connections to a receiver (docs/performance.md)
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport: t,
		Timeout:   timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
