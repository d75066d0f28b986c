package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestNewClientIPResolver(t *testing.T) {
	tests := []struct {
		name    string
		cidrs   []string
		wantErr bool
		want    []string
	}{
		{name: "None", cidrs: nil, want: nil},
		{name: "CIDRs", cidrs: []string{"10.0.0.0/8", " fd00::/8 ", ""}, want: []string{"10.0.0.0/8", "fd00::/8"}},
		{name: "BareAddresses", cidrs: []string{"192.0.2.7", "2001:db8::1"}, want: []string{"192.0.2.7/32", "2001:db8::1/128"}},
		{name: "MaskedPrefix", cidrs: []string{"10.1.2.3/8"}, want: []string{"10.0.0.0/8"}},
		{name: "MappedIPv4", cidrs: []string{"::ffff:10.0.0.0/104"}, want: []string{"10.0.0.0/8"}},
		{name: "BadCIDR", cidrs: []string{"10.0.0.0/33"}, wantErr: true},
		{name: "BadAddress", cidrs: []string{"proxy.internal"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newClientIPResolver(tt.cidrs)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("newClientIPResolver(%q) = nil error, want one", tt.cidrs)
				}
				return
			}
			if err != nil {
				t.Fatalf("newClientIPResolver(%q): %v", tt.cidrs, err)
			}
			var got []string
			for _, p := range c.trusted {
				got = append(got, p.String())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("trusted = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("trusted[%d] = %s, want %s", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestClientIP(t *testing.T) {
	trusted := []string{"10.0.0.0/8", "2001:db8:ffff::/48"}
	tests := []struct {
		name       string
		trusted    []string
		remoteAddr string
		xff        []string // one entry per header line
		want       string
	}{
		{name: "NoProxy", trusted: trusted, remoteAddr: "203.0.113.5:4711", want: "203.0.113.5"},
		{name: "UntrustedPeerXFFIgnored", trusted: trusted, remoteAddr: "203.0.113.5:4711", xff: []string{"198.51.100.1"}, want: "203.0.113.5"},
		{name: "NoTrustedConfiguredXFFIgnored", trusted: nil, remoteAddr: "10.0.0.1:4711", xff: []string{"198.51.100.1"}, want: "10.0.0.1"},
		{name: "TrustedPeer", trusted: trusted, remoteAddr: "10.0.0.1:4711", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
		{name: "SpoofedLeftEntriesIgnored", trusted: trusted, remoteAddr: "10.0.0.1:4711", xff: []string{"1.2.3.4, 198.51.100.1"}, want: "198.51.100.1"},
		{name: "SeveralTrustedHops", trusted: trusted, remoteAddr: "10.0.0.1:4711", xff: []string{"1.2.3.4, 198.51.100.1, 10.2.3.4, 10.9.9.9"}, want: "198.51.100.1"},
		{name: "SeveralHeaderLines", trusted: trusted, remoteAddr: "10.0.0.1:4711", xff: []string{"1.2.3.4, 198.51.100.1", "10.2.3.4"}, want: "198.51.100.1"},
		{name: "AllTrusted", trusted: trusted, remoteAddr: "10.0.0.1:4711", xff: []string{"10.0.0.3, 10.0.0.2"}, want: "10.0.0.3"},
		{name: "TrustedPeerNoXFF", trusted: trusted, remoteAddr: "10.0.0.1:4711", want: "10.0.0.1"},
		{name: "GarbageStopsWalk", trusted: trusted, remoteAddr: "10.0.0.1:4711", xff: []string{"198.51.100.1, not-an-ip, 10.0.0.2"}, want: "10.0.0.2"},
		{name: "EmptyEntriesSkipped", trusted: trusted, remoteAddr: "10.0.0.1:4711", xff: []string{"198.51.100.1,, "}, want: "198.51.100.1"},
		{name: "EntryWithPort", trusted: trusted, remoteAddr: "10.0.0.1:4711", xff: []string{"198.51.100.1:5000"}, want: "198.51.100.1"},
		{name: "IPv6", trusted: trusted, remoteAddr: "[2001:db8:ffff::1]:443", xff: []string{"2001:db8:1::7"}, want: "2001:db8:1::7"},
		{name: "IPv6Bracketed", trusted: trusted, remoteAddr: "[2001:db8:ffff::1]:443", xff: []string{"[2001:db8:1::7]"}, want: "2001:db8:1::7"},
		{name: "MappedPeer", trusted: trusted, remoteAddr: "[::ffff:10.0.0.1]:443", xff: []string{"198.51.100.1"}, want: "198.51.100.1"},
		{name: "RemoteAddrWithoutPort", trusted: trusted, remoteAddr: "203.0.113.5", want: "203.0.113.5"},
		{name: "UnparsableRemoteAddr", trusted: trusted, remoteAddr: "pipe", xff: []string{"198.51.100.1"}, want: "pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newClientIPResolver(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.remoteAddr
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := c.ip(r); got != tt.want {
				t.Errorf("ip() = %q, want %q", got, tt.want)
			}
		})
	}
}
