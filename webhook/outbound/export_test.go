package outbound

import (
	"context"
	"net/netip"
)

// SetLookup makes g resolve host names with lookup, at registration and
// at every delivery's connection, for the tests of package outbound_test
// (DNS rebinding).
func SetLookup(g *Guard, lookup func(ctx context.Context, host string) ([]netip.Addr, error)) {
	g.lookup = lookup
}
