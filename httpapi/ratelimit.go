package httpapi

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateDecision is a rate limiter's answer for one request, with what the
// rate-limit response headers announce.
type RateDecision struct {
	// Allowed says whether the request may proceed.
	Allowed bool
	// Limit is the bucket size (burst): the most requests allowed at once.
	// 0 means the limiter is off and the other fields are meaningless.
	Limit int
	// Remaining is how many more requests would be allowed right now.
	Remaining int
	// Reset is how long until more quota is available: for a refused
	// request, until one would be allowed (RetryAfter); for an allowed one,
	// until the bucket holds one more token than Remaining says, or 0 when
	// it is full. It is not the time until the bucket is full.
	Reset time.Duration
	// RetryAfter is, for a refused request, how long until one would be
	// allowed; 0 when allowed.
	RetryAfter time.Duration
	// Window is how long an empty bucket takes to refill (burst ÷ rate): the
	// policy is Limit requests per Window.
	Window time.Duration
}

// RateLimiter decides whether one more request under a key (a credential id,
// a client IP) may proceed, token-bucket style: a bucket of Limit tokens per
// key, refilled at a steady rate, one token per request.
//
// Allow returns an error only when the limiter cannot decide, e.g. its Redis
// is unreachable (wrapped, from the client); the caller picks fail-open or
// fail-closed. Implementations are safe for concurrent use.
type RateLimiter interface {
	Allow(ctx context.Context, key string) (RateDecision, error)
}

// Bounds on the memory limiter's per-key state.
const (
	// memorySweepInterval is how often idle buckets are looked for.
	memorySweepInterval = time.Minute
	// memoryMaxKeys caps the number of buckets whatever the traffic, so that
	// requests under ever-new keys (spoofed IPs, bad credentials) cannot
	// exhaust memory.
	memoryMaxKeys = 100_000
)

// memoryRateLimiter is the in-process RateLimiter: one rate.Limiter per key.
type memoryRateLimiter struct {
	limit      rate.Limit
	burst      int
	window     time.Duration
	maxEntries int
	now        func() time.Time // the clock; replaced in tests

	mu        sync.Mutex
	buckets   map[string]*memoryBucket
	lastSweep time.Time
}

// memoryBucket is one key's token bucket and when it was last used.
type memoryBucket struct {
	lim      *rate.Limiter
	lastSeen time.Time
}

var _ RateLimiter = (*memoryRateLimiter)(nil)

// NewMemoryRateLimiter returns a RateLimiter keeping its buckets in this
// process, allowing perSecond requests per second per key with bursts of up
// to burst (at least 1). perSecond <= 0 turns limiting off: every request is
// allowed with Limit 0. With several replicas each enforces its own budget;
// use redislimit.New (package httpapi/redislimit) to share one.
//
// Memory stays bounded: buckets idle long enough to have refilled are
// forgotten (a fresh bucket is identical), and at most 100,000 keys are kept.
func NewMemoryRateLimiter(perSecond float64, burst int) RateLimiter {
	burst = max(burst, 1)
	m := &memoryRateLimiter{
		limit:      rate.Limit(perSecond),
		burst:      burst,
		maxEntries: memoryMaxKeys,
		now:        time.Now,
		buckets:    make(map[string]*memoryBucket),
	}
	if perSecond > 0 {
		m.window = refillWindow(perSecond, burst)
	}
	return m
}

// Allow takes a token from key's bucket if there is one. It never fails.
func (m *memoryRateLimiter) Allow(_ context.Context, key string) (RateDecision, error) {
	if m.limit <= 0 {
		return RateDecision{Allowed: true}, nil
	}
	now := m.now()
	lim := m.bucket(key, now)

	// A reservation says how long until a token is due; cancelling it when
	// that is in the future leaves the bucket as it was.
	res := lim.ReserveN(now, 1)
	d := RateDecision{Allowed: true, Limit: m.burst, Window: m.window}
	if wait := res.DelayFrom(now); wait > 0 {
		res.CancelAt(now)
		d.Allowed = false
		d.RetryAfter = wait
	}
	tokens := max(lim.TokensAt(now), 0)
	d.Remaining = min(int(math.Floor(tokens)), m.burst)
	switch {
	case !d.Allowed:
		d.Reset = d.RetryAfter
	case tokens < float64(m.burst):
		// The next whole token: the fraction of one still missing, at the
		// refill rate.
		missing := math.Floor(tokens) + 1 - tokens
		d.Reset = time.Duration(missing / float64(m.limit) * float64(time.Second))
	}
	return d, nil
}

// bucket returns key's limiter, creating it if needed, and keeps the map
// within bounds.
func (m *memoryRateLimiter) bucket(key string, now time.Time) *rate.Limiter {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.buckets[key]; ok {
		b.lastSeen = now
		return b.lim
	}
	// Sweeping lazily, on the path that grows the map, needs no goroutine to
	// start and stop.
	if now.Sub(m.lastSweep) >= memorySweepInterval {
		m.sweep(now)
	}
	for len(m.buckets) >= m.maxEntries {
		// Still full of busy keys: drop an arbitrary one (map order is
		// random), O(1) even under a flood of new keys. Its owner merely
		// starts over with a full bucket.
		for k := range m.buckets {
			delete(m.buckets, k)
			break
		}
	}
	b := &memoryBucket{lim: rate.NewLimiter(m.limit, m.burst), lastSeen: now}
	m.buckets[key] = b
	return b.lim
}

// sweep forgets buckets unused for a whole refill window: they are full
// again, so forgetting them changes no decision. m.mu must be held.
func (m *memoryRateLimiter) sweep(now time.Time) {
	m.lastSweep = now
	for k, b := range m.buckets {
		if now.Sub(b.lastSeen) >= m.window {
			delete(m.buckets, k)
		}
	}
}

// refillWindow is how long an empty bucket of burst tokens takes to refill
// at perSecond tokens a second.
func refillWindow(perSecond float64, burst int) time.Duration {
	return time.Duration(float64(burst) / perSecond * float64(time.Second))
}

// setRateLimitHeaders announces d in the headers of
// draft-ietf-httpapi-ratelimit-headers, under the policy name policy
// ("default" when empty):
//
//	RateLimit-Policy: "default";q=100;w=2
//	RateLimit: "default";r=57;t=1
//
// q is the burst, w the refill window in seconds (how long an empty bucket
// takes to fill), r the remaining requests. t is what the draft defines: the
// seconds until additional quota is made available. For a token bucket that
// is the wait for its next token (d.Reset, rounded up): on a refused
// request the wait until one would be allowed, which Retry-After carries
// too, with the same value; on an allowed one the wait until r grows by
// one, 0 when the bucket is full. It is never the time until the bucket is
// full again, which would keep a client waiting for up to w seconds when
// its next request is allowed within one. Nothing is written when limiting
// is off (d.Limit 0).
func setRateLimitHeaders(w http.ResponseWriter, d RateDecision, policy string) {
	if d.Limit <= 0 {
		return
	}
	name := sfString(cmp.Or(policy, "default"))
	h := w.Header()
	h.Set(rateLimitPolicyHeader, sfItem(name, "q", d.Limit, "w", max(ceilSeconds(d.Window), 1)))
	if !d.Allowed {
		retry := retryAfterSeconds(d)
		h.Set(rateLimitHeader, sfItem(name, "r", 0, "t", retry))
		h.Set("Retry-After", strconv.Itoa(retry))
		return
	}
	h.Set(rateLimitHeader, sfItem(name, "r", max(d.Remaining, 0), "t", ceilSeconds(d.Reset)))
}

// The names of the rate-limit headers, RateLimit-Policy and RateLimit in
// the draft, as net/http writes them on the wire.
const (
	rateLimitPolicyHeader = "Ratelimit-Policy"
	rateLimitHeader       = "Ratelimit"
)

// sfItem writes the structured-field item `name;k1=v1;k2=v2`.
func sfItem(name, k1 string, v1 int, k2 string, v2 int) string {
	return fmt.Sprintf("%s;%s=%d;%s=%d", name, k1, v1, k2, v2)
}

// rateLimited is the 429 answer to a refused request; the caller also sets
// the headers with setRateLimitHeaders, which include Retry-After.
func rateLimited(d RateDecision) *Problem {
	return NewProblem(http.StatusTooManyRequests, CodeRateLimited,
		fmt.Sprintf("rate limit exceeded, retry in %d s", retryAfterSeconds(d)))
}

// retryAfterSeconds is the Retry-After of a refused request, in whole
// seconds and at least 1: "0" would invite an immediate retry that is
// refused again.
func retryAfterSeconds(d RateDecision) int {
	return max(ceilSeconds(d.RetryAfter), 1)
}

// ceilSeconds rounds d up to whole seconds, never below 0.
func ceilSeconds(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// sfString encodes s as a Structured Field string (RFC 9651 §3.3.3):
// quoted, with '"' and '\' escaped and characters outside printable ASCII
// replaced, since the header would otherwise be invalid.
func sfString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2) // the usual size: nothing escaped
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c > 0x7e:
			b.WriteByte('_')
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
