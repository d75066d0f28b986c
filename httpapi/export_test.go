package httpapi

import "github.com/tenantkit/tenantkit/tenancy"

// What the black-box tests (package httpapi_test) need from the inside.

// ZeroTable is the route table of an API without services: every row
// whose service is missing has no handler.
func ZeroTable() []Endpoint { return (&API{}).table() }

// EndpointScope is the credential scope ep needs (Endpoint.scope).
func EndpointScope(ep Endpoint) tenancy.Scope { return ep.scope() }

// IsSafeMethod reports whether method is exempt from CSRF checks.
var IsSafeMethod = isSafeMethod

// FakeClock is a settable clock for limiters.
type FakeClock = fakeClock

// NewFakeClock returns a clock stopped at 2025-01-01 00:00 UTC.
var NewFakeClock = newFakeClock

// NewMemoryRateLimiterOnClock is NewMemoryRateLimiter reading the time
// from clock instead of the system.
func NewMemoryRateLimiterOnClock(perSecond float64, burst int, clock *FakeClock) RateLimiter {
	l := NewMemoryRateLimiter(perSecond, burst).(*memoryRateLimiter)
	l.now = clock.Now
	return l
}
