package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientIPResolver finds the address of the client behind a request, for
// per-IP rate limits and logs. X-Forwarded-For is only believed as far as it
// was written by proxies the operator trusts: anyone can send the header, so
// entries left of the first untrusted hop are the client's own claims.
type clientIPResolver struct {
	trusted []netip.Prefix
}

// newClientIPResolver returns a resolver trusting proxies in the given CIDRs
// ("10.0.0.0/8", "fd00::/8") or single addresses ("192.0.2.7"). With none,
// X-Forwarded-For is ignored and the peer address is the client.
func newClientIPResolver(cidrs []string) (*clientIPResolver, error) {
	c := &clientIPResolver{}
	for _, s := range cidrs {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		var p netip.Prefix
		if strings.Contains(s, "/") {
			var err error
			if p, err = netip.ParsePrefix(s); err != nil {
				return nil, fmt.Errorf("httpapi: trusted proxy %q: %w", s, err)
			}
		} else {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("httpapi: trusted proxy %q: %w", s, err)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		// Unmap so that "::ffff:10.0.0.0/104" and "10.0.0.0/8" behave alike.
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		c.trusted = append(c.trusted, p.Masked())
	}
	return c, nil
}

// ip returns the client address of r: the peer address, unless the peer is
// a trusted proxy, in which case X-Forwarded-For is walked from the right
// (the entry the nearest proxy added) past trusted hops to the first
// untrusted address. If every hop is trusted the leftmost is the client; an
// unparsable entry stops the walk at the last address known to be genuine.
func (c *clientIPResolver) ip(r *http.Request) string {
	peer, ok := parseHostAddr(r.RemoteAddr)
	if !ok {
		return peerIP(r.RemoteAddr)
	}
	if !c.isTrusted(peer) {
		return peer.String()
	}
	client := peer
	// Several X-Forwarded-For headers form one list, in order.
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if hop == "" {
			continue
		}
		a, ok := parseHostAddr(hop)
		if !ok {
			break
		}
		client = a
		if !c.isTrusted(a) {
			break
		}
	}
	return client.String()
}

// isTrusted reports whether a is one of the trusted proxies.
func (c *clientIPResolver) isTrusted(a netip.Addr) bool {
	for _, p := range c.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseHostAddr parses an address with or without a port ("192.0.2.1",
// "192.0.2.1:443", "[2001:db8::1]:443"), unmapped and without zone so that
// it compares with the trusted prefixes.
func parseHostAddr(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	} else if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1] // a bracketed IPv6 address without port
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}
