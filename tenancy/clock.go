package tenancy

import (
	"context"
	"time"
)

// clockKey carries a test tenant's clock in a context.
type clockKey struct{}

// WithTestClock returns ctx carrying t, the clock of the test tenant that ctx
// acts for: what Now reads instead of the wall clock. The HTTP API sets
// it for a request selecting a test tenant; advancing a test clock sets
// it for each step it runs.
func WithTestClock(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, clockKey{}, t.UTC())
}

// Now returns the time for the tenant ctx acts for: its test clock when
// ctx carries one (WithTestClock), otherwise now(), the service's clock.
func Now(ctx context.Context, now func() time.Time) time.Time {
	if t, ok := ctx.Value(clockKey{}).(time.Time); ok {
		return t
	}
	return now()
}
