// Package redislimit is an httpapi.RateLimiter whose buckets live in
// Redis, so that several server replicas enforce one budget per key. It is
// a package of its own so that the HTTP edge compiles without a Redis
// client; a host that rate-limits in one process never imports it.
package redislimit

import (
	"context"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/tenantkit/tenantkit/httpapi"
)

// redisKeyPrefix namespaces tenantkit's rate-limit keys in a shared Redis
// (redis_rate adds its own "rate:" in front).
const redisKeyPrefix = "tenantkit:rl:"

// limiter is the RateLimiter shared by all replicas: GCRA (a token bucket
// kept as one timestamp per key) evaluated atomically in Redis by
// redis_rate. Keys expire once their bucket is full again, so Redis memory
// stays bounded by the active keys.
type limiter struct {
	limiter *redis_rate.Limiter
	limit   redis_rate.Limit
	window  time.Duration
}

var _ httpapi.RateLimiter = (*limiter)(nil)

// New returns a RateLimiter whose buckets live in Redis, so that several
// server replicas enforce one budget per key: perSecond requests per
// second with bursts of up to burst (at least 1). perSecond <= 0 turns
// limiting off, as for httpapi.NewMemoryRateLimiter.
func New(client *redis.Client, perSecond float64, burst int) httpapi.RateLimiter {
	if perSecond <= 0 {
		return httpapi.NewMemoryRateLimiter(0, 0) // off: nothing to share
	}
	burst = max(burst, 1)
	return &limiter{
		limiter: redis_rate.NewLimiter(client),
		// redis_rate counts whole requests per period; one request per
		// 1/perSecond keeps fractional rates (0.5/s) exact.
		limit: redis_rate.Limit{
			Rate:   1,
			Burst:  burst,
			Period: time.Duration(float64(time.Second) / perSecond),
		},
		// How long an empty bucket takes to refill.
		window: time.Duration(float64(burst) / perSecond * float64(time.Second)),
	}
}

// Allow takes a token from key's bucket in Redis. It fails only when Redis
// does, with the client's error wrapped.
func (l *limiter) Allow(ctx context.Context, key string) (httpapi.RateDecision, error) {
	res, err := l.limiter.Allow(ctx, redisKeyPrefix+key, l.limit)
	if err != nil {
		return httpapi.RateDecision{}, fmt.Errorf("redislimit: %w", err)
	}
	d := httpapi.RateDecision{
		Allowed:    res.Allowed > 0,
		Limit:      l.limit.Burst,
		Remaining:  max(res.Remaining, 0),
		RetryAfter: max(res.RetryAfter, 0), // -1 when allowed
		Window:     l.window,
	}
	if !d.Allowed {
		d.Reset = d.RetryAfter
	} else {
		d.Reset = nextToken(res.ResetAfter, l.limit.Period/time.Duration(l.limit.Rate))
	}
	return d, nil
}

// nextToken is how long until a GCRA bucket that is full again in
// untilFull, and gains one token every interval, holds one more whole
// token: what is left of the interval now running, or 0 when the bucket
// is full. (GCRA keeps how far the bucket is from full, in time; a token
// comes back each time that crosses a multiple of interval.)
func nextToken(untilFull, interval time.Duration) time.Duration {
	if untilFull <= 0 || interval <= 0 {
		return 0
	}
	if rest := untilFull % interval; rest > 0 {
		return rest
	}
	return interval
}
