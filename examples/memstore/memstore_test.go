package memstore_test

import (
	"testing"

	"github.com/tenantkit/tenantkit/examples/memstore"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/support/supporttest"
)

// The custom store passes the conformance suite every Store must pass.
func TestConformance(t *testing.T) {
	supporttest.Run(t, supporttest.Harness{
		NewStore: func(*testing.T) support.Store { return memstore.New() },
	})
}
