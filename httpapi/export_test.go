package httpapi

// What the black-box tests (package httpapi_test) need from the inside.

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
