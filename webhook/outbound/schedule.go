package outbound

import (
	"math/rand/v2"
	"time"
)

// The default retry schedule: the first retry 30 s after the first
// attempt, each next delay twice the last, capped at 12 h.
const (
	scheduleBase    = 30 * time.Second
	scheduleCap     = 12 * time.Hour
	scheduleRetries = 16
	// jitterFraction spreads every delay by up to ±10 %, so that the
	// retries of deliveries that failed together do not arrive together.
	jitterFraction = 0.10
)

// DefaultSchedule returns the delays before each retry of a failed
// attempt: 30 s, 1 min, 2, 4, 8, 16, 32 min, 1 h 4 min, 2 h 8 min,
// 4 h 16 min, 8 h 32 min, then 12 h five times. That is 17 attempts over
// about 77 hours (3.2 days) from the first; each delay varies by ±10 %
// (jitter). After the last, the delivery is failed. It is Schedule(30 s).
func DefaultSchedule() []time.Duration { return Schedule(scheduleBase) }

// Schedule returns a retry schedule of the default's shape starting at
// base: 16 delays, base doubling each time, capped at 12 h. Servers
// shorten it for tests and demos (`serve --webhook-retry-base`); pass it
// to WithSchedule. A base of 0 or less is DefaultSchedule's.
func Schedule(base time.Duration) []time.Duration {
	if base <= 0 {
		base = scheduleBase
	}
	out := make([]time.Duration, scheduleRetries)
	d := base
	for i := range out {
		out[i] = min(d, scheduleCap)
		d = min(d*2, scheduleCap)
	}
	return out
}

// jitter returns d varied at random by up to ±jitterFraction.
func jitter(d time.Duration) time.Duration {
	f := 1 + jitterFraction*(2*rand.Float64()-1)
	return time.Duration(float64(d) * f)
}

// nextDelay returns the delay before the attempt that follows the n-th of
// a round (n counts from 1), and false when the round's attempts are
// spent.
func (s *Service) nextDelay(n int) (time.Duration, bool) {
	if n < 1 || n > len(s.schedule) {
		return 0, false
	}
	return s.jitter(s.schedule[n-1]), true
}
