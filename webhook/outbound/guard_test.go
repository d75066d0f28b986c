package outbound

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestPublic(t *testing.T) {
	tests := []struct {
		name string
		addr string
		want bool
	}{
		{"PublicV4", "93.184.216.34", true},
		{"PublicV6", "2606:4700::1111", true},
		{"LoopbackV4", "127.0.0.1", false},
		{"LoopbackV4Other", "127.8.9.10", false},
		{"LoopbackV6", "::1", false},
		{"Private10", "10.1.2.3", false},
		{"Private172", "172.16.0.1", false},
		{"Private192", "192.168.1.1", false},
		{"ULA", "fc00::1", false},
		{"ULAfd", "fd12:3456::1", false},
		{"LinkLocalV4", "169.254.1.1", false},
		{"MetadataAWS", "169.254.169.254", false},
		{"MetadataAWSV6", "fd00:ec2::254", false},
		{"MetadataAlibaba", "100.100.100.200", false},
		{"LinkLocalV6", "fe80::1", false},
		{"UnspecifiedV4", "0.0.0.0", false},
		{"UnspecifiedV6", "::", false},
		{"ThisNetwork", "0.1.2.3", false},
		{"MulticastV4", "224.0.0.1", false},
		{"MulticastV6", "ff02::1", false},
		{"CGNAT", "100.64.0.1", false},
		{"Broadcast", "255.255.255.255", false},
		{"Reserved", "240.0.0.1", false},
		{"MappedLoopback", "::ffff:127.0.0.1", false},
		{"MappedPrivate", "::ffff:10.0.0.1", false},
		{"MappedMetadata", "::ffff:169.254.169.254", false},
		{"MappedPublic", "::ffff:93.184.216.34", true},
		{"CompatLoopback", "::127.0.0.1", false},
		{"CompatPrivate", "::192.168.0.1", false},
		{"NAT64Private", "64:ff9b::10.0.0.1", false},
		{"NAT64Public", "64:ff9b::93.184.216.34", true},
		{"Documentation", "2001:db8::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Public(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Fatalf("Public(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
}

// fakeDNS resolves the names of a table.
func fakeDNS(table map[string][]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, a := range table[host] {
			out = append(out, netip.MustParseAddr(a))
		}
		if len(out) == 0 {
			return nil, errors.New("no such host")
		}
		return out, nil
	}
}

func TestGuardCheckURL(t *testing.T) {
	dns := fakeDNS(map[string][]string{
		"hooks.example.com":  {"93.184.216.34"},
		"rebind.example.com": {"93.184.216.34", "10.0.0.5"},
		"meta.example.com":   {"169.254.169.254"},
		"mapped.example.com": {"::ffff:127.0.0.3"},
		"dev.internal":       {"10.9.9.9"},
		"lan.example.com":    {"192.168.5.5"},
	})
	g, err := NewGuard("dev.internal", "127.0.0.1", "192.168.5.0/24")
	if err != nil {
		t.Fatalf("NewGuard: %v", err)
	}
	g.lookup = dns
	tests := []struct {
		name, url string
		ok        bool
		forbidden bool
	}{
		{"OK", "https://hooks.example.com/in?x=1", true, false},
		{"HTTP", "http://hooks.example.com/in", false, false},
		{"FTP", "ftp://hooks.example.com/in", false, false},
		{"Relative", "/in", false, false},
		{"Credentials", "https://u:p@hooks.example.com/", false, false},
		{"Unresolvable", "https://nowhere.example.com/", false, false},
		{"Loopback", "https://127.0.0.2/", false, true},
		{"LoopbackV6", "https://[::1]/", false, true},
		{"Private", "https://10.0.0.1/", false, true},
		{"Metadata", "https://169.254.169.254/latest/meta-data", false, true},
		{"MetadataV6", "https://[fd00:ec2::254]/", false, true},
		{"MetadataAlibaba", "https://100.100.100.200/", false, true},
		{"CGNAT", "https://100.64.1.1/", false, true},
		{"Unspecified", "https://0.0.0.0/", false, true},
		{"Multicast", "https://224.0.0.1/", false, true},
		{"MappedLoopbackLiteral", "https://[::ffff:127.0.0.2]/", false, true},
		{"ResolvesToMetadata", "https://meta.example.com/", false, true},
		{"ResolvesToOnePrivate", "https://rebind.example.com/", false, true},
		{"ResolvesToMapped", "https://mapped.example.com/", false, true},
		{"AllowedHostHTTP", "http://dev.internal:8080/hook", true, false},
		{"AllowedAddressHTTP", "http://127.0.0.1:9000/", true, false},
		{"AllowedRange", "https://lan.example.com/", true, false},
		{"AllowedRangeLiteralHTTP", "http://192.168.5.7/", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := g.CheckURL(context.Background(), tt.url)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckURL(%s) = %v, want ok=%v", tt.url, err, tt.ok)
			}
			if got := errors.Is(err, ErrForbiddenAddress); got != tt.forbidden {
				t.Fatalf("CheckURL(%s) = %v, forbidden address %v, want %v", tt.url, err, got, tt.forbidden)
			}
		})
	}
}

func TestNewGuardRefusesJunk(t *testing.T) {
	for _, entry := range []string{"10.0.0.0/33", "user@host", "a b"} {
		if _, err := NewGuard(entry); err == nil {
			t.Errorf("NewGuard(%q) = nil error", entry)
		}
	}
}

// TestGuardClientRefusesAtConnection sends through the delivery client:
// a private address is refused when dialled (whatever a check at
// registration said), an allowed one is reached, and a redirect is not
// followed.
func TestGuardClientRefusesAtConnection(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/target", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()

	closed, _ := NewGuard()
	resp, err := closed.Client(2 * time.Second).Get(srv.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("GET %s without an allow list succeeded; want refused", srv.URL)
	}
	if !errors.Is(err, ErrForbiddenAddress) || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("GET = %v, want ErrForbiddenAddress naming 127.0.0.1", err)
	}
	if hits != 0 {
		t.Fatalf("the receiver was reached %d times", hits)
	}

	open, _ := NewGuard("127.0.0.1")
	client := open.Client(2 * time.Second)
	resp, err = client.Get(srv.URL + "/redirect")
	if err != nil {
		t.Fatalf("GET allowed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || hits != 1 {
		t.Fatalf("redirect: status %d after %d hits, want 302 not followed", resp.StatusCode, hits)
	}
}

// TestGuardDialResolvesAtConnection: the delivery client resolves a host
// name with the Guard's lookup when it connects, not once at
// registration: a name that answered a public address when CheckURL saw
// it and answers loopback, the metadata address or a mix when the
// delivery dials is refused before any connection, while a guard that
// allows loopback reaches the receiver through the same name (so the
// refusal is the guard's, not an unresolvable name).
func TestGuardDialResolvesAtConnection(t *testing.T) {
	var conns, hits atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	var mu sync.Mutex
	answer := []string{"93.184.216.34"}
	dns := func(_ context.Context, host string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		if host != "hooks.rebind.test" {
			return nil, errors.New("no such host")
		}
		var out []netip.Addr
		for _, a := range answer {
			out = append(out, netip.MustParseAddr(a))
		}
		return out, nil
	}
	resolve := func(addrs ...string) { mu.Lock(); answer = addrs; mu.Unlock() }

	strict, _ := NewGuard()
	strict.lookup = dns
	target := "http://hooks.rebind.test:" + port + "/hook"
	if err := strict.CheckURL(context.Background(), "https://hooks.rebind.test:"+port+"/hook"); err != nil {
		t.Fatalf("CheckURL while the name is public: %v", err)
	}
	client := strict.Client(2 * time.Second)
	for _, tt := range []struct {
		name   string
		answer []string
	}{
		{"Loopback", []string{"127.0.0.1"}},
		{"Metadata", []string{"169.254.169.254"}},
		{"MappedLoopback", []string{"::ffff:127.0.0.1"}},
		{"PublicAndLoopback", []string{"93.184.216.34", "127.0.0.1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resolve(tt.answer...)
			resp, err := client.Get(target)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("GET with the name resolving to %v succeeded (%d); want refused", tt.answer, resp.StatusCode)
			}
			if !errors.Is(err, ErrForbiddenAddress) {
				t.Fatalf("GET = %v, want ErrForbiddenAddress", err)
			}
			if n := conns.Load(); n != 0 {
				t.Fatalf("the receiver saw %d connections, want none", n)
			}
		})
	}

	open, _ := NewGuard("127.0.0.0/8")
	open.lookup = dns
	resolve("127.0.0.1")
	resp, err := open.Client(2 * time.Second).Get(target)
	if err != nil {
		t.Fatalf("GET through a guard allowing loopback: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || hits.Load() != 1 {
		t.Fatalf("allowed GET: %d after %d hits, want 204 after 1", resp.StatusCode, hits.Load())
	}
}
