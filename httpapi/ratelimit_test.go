package httpapi

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a settable clock for limiters.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// mustMemoryLimiter returns a memory limiter running on clock.
func mustMemoryLimiter(tb testing.TB, perSecond float64, burst int, clock *fakeClock) *memoryRateLimiter {
	tb.Helper()
	m, ok := NewMemoryRateLimiter(perSecond, burst).(*memoryRateLimiter)
	if !ok {
		tb.Fatalf("NewMemoryRateLimiter returned %T", m)
	}
	m.now = clock.Now
	return m
}

// mustAllow calls Allow and fails the test on error.
func mustAllow(tb testing.TB, l RateLimiter, key string) RateDecision {
	tb.Helper()
	d, err := l.Allow(context.Background(), key)
	if err != nil {
		tb.Fatalf("Allow(%q): %v", key, err)
	}
	return d
}

func TestMemoryRateLimiter(t *testing.T) {
	type step struct {
		advance time.Duration // before the call
		key     string
		want    RateDecision
	}
	// 2 requests a second, bursts of 3: an empty bucket refills in 1.5 s,
	// and one token comes back every 500 ms. Reset is the wait for the next
	// token, never for the bucket to be full.
	const window = 1500 * time.Millisecond
	const token = 500 * time.Millisecond
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "BurstThenRefuse",
			steps: []step{
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 2, Reset: token, Window: window}},
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 1, Reset: token, Window: window}},
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 0, Reset: token, Window: window}},
				{key: "a", want: RateDecision{Allowed: false, Limit: 3, Remaining: 0, Reset: token, RetryAfter: token, Window: window}},
			},
		},
		{
			name: "Refill",
			steps: []step{
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 2, Reset: token, Window: window}},
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 1, Reset: token, Window: window}},
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 0, Reset: token, Window: window}},
				{advance: 200 * time.Millisecond, key: "a", want: RateDecision{Allowed: false, Limit: 3, Remaining: 0, Reset: 300 * time.Millisecond, RetryAfter: 300 * time.Millisecond, Window: window}},
				{advance: 300 * time.Millisecond, key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 0, Reset: token, Window: window}},
				{advance: time.Hour, key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 2, Reset: token, Window: window}},
			},
		},
		{
			name: "PartToken",
			steps: []step{
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 2, Reset: token, Window: window}},
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 1, Reset: token, Window: window}},
				// 1.5 tokens after this one: half of the next is still due.
				{advance: 250 * time.Millisecond, key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 0, Reset: 250 * time.Millisecond, Window: window}},
				{advance: 250 * time.Millisecond, key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 0, Reset: token, Window: window}},
			},
		},
		{
			name: "KeysIndependent",
			steps: []step{
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 2, Reset: token, Window: window}},
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 1, Reset: token, Window: window}},
				{key: "a", want: RateDecision{Allowed: true, Limit: 3, Remaining: 0, Reset: token, Window: window}},
				{key: "b", want: RateDecision{Allowed: true, Limit: 3, Remaining: 2, Reset: token, Window: window}},
				{key: "a", want: RateDecision{Allowed: false, Limit: 3, Remaining: 0, Reset: token, RetryAfter: token, Window: window}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newFakeClock()
			l := mustMemoryLimiter(t, 2, 3, clock)
			for i, s := range tt.steps {
				clock.Advance(s.advance)
				if got := mustAllow(t, l, s.key); got != s.want {
					t.Errorf("step %d: Allow(%q) =\n%+v\nwant\n%+v", i, s.key, got, s.want)
				}
			}
		})
	}
}

func TestMemoryRateLimiterRealClock(t *testing.T) {
	// 20/s with burst 1: refused at once, allowed again after ~50 ms.
	l := NewMemoryRateLimiter(20, 1)
	if d := mustAllow(t, l, "k"); !d.Allowed {
		t.Fatalf("first request refused: %+v", d)
	}
	d := mustAllow(t, l, "k")
	if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > 50*time.Millisecond {
		t.Fatalf("second request = %+v, want refused with RetryAfter in (0, 50ms]", d)
	}
	time.Sleep(d.RetryAfter + 5*time.Millisecond)
	if d := mustAllow(t, l, "k"); !d.Allowed {
		t.Fatalf("request after RetryAfter refused: %+v", d)
	}
}

func TestMemoryRateLimiterUnlimited(t *testing.T) {
	for _, perSecond := range []float64{0, -1} {
		t.Run(fmt.Sprint(perSecond), func(t *testing.T) {
			l := NewMemoryRateLimiter(perSecond, 1)
			for range 1000 {
				if d := mustAllow(t, l, "k"); d != (RateDecision{Allowed: true}) {
					t.Fatalf("Allow = %+v, want {Allowed: true}", d)
				}
			}
			if n := len(l.(*memoryRateLimiter).buckets); n != 0 {
				t.Errorf("unlimited limiter kept %d buckets, want 0", n)
			}
		})
	}
}

func TestMemoryRateLimiterBurstAtLeastOne(t *testing.T) {
	l := mustMemoryLimiter(t, 1, 0, newFakeClock())
	if d := mustAllow(t, l, "k"); !d.Allowed || d.Limit != 1 {
		t.Errorf("Allow with burst 0 = %+v, want allowed with Limit 1", d)
	}
}

func TestMemoryRateLimiterEviction(t *testing.T) {
	t.Run("IdleBucketsSwept", func(t *testing.T) {
		clock := newFakeClock()
		l := mustMemoryLimiter(t, 10, 10, clock) // refills in 1 s
		for i := range 50 {
			mustAllow(t, l, fmt.Sprint("idle", i))
		}
		clock.Advance(memorySweepInterval)
		mustAllow(t, l, "busy") // a new key triggers the due sweep
		if n := len(l.buckets); n != 1 {
			t.Errorf("after sweep %d buckets, want 1", n)
		}
	})

	t.Run("BusyBucketsKept", func(t *testing.T) {
		clock := newFakeClock()
		// Refills in 100 s, longer than the sweep interval: an emptied bucket
		// idle for one interval is still short of tokens and must be kept.
		l := mustMemoryLimiter(t, 1, 100, clock)
		for range 100 {
			mustAllow(t, l, "heavy")
		}
		clock.Advance(memorySweepInterval)
		mustAllow(t, l, "other")
		if _, ok := l.buckets["heavy"]; !ok {
			t.Fatal("a bucket that has not refilled was swept")
		}
		if d := mustAllow(t, l, "heavy"); d.Remaining != 59 {
			t.Errorf("Remaining = %d, want 59 (60 s of refill, minus this request)", d.Remaining)
		}
	})

	t.Run("HardCap", func(t *testing.T) {
		clock := newFakeClock()
		l := mustMemoryLimiter(t, 1, 1000, clock) // nothing refills during the test
		l.maxEntries = 10
		for i := range 100 {
			mustAllow(t, l, fmt.Sprint("k", i))
			if n := len(l.buckets); n > l.maxEntries {
				t.Fatalf("after %d keys %d buckets, want at most %d", i+1, n, l.maxEntries)
			}
		}
		if _, ok := l.buckets["k99"]; !ok {
			t.Error("the newest key was evicted")
		}
	})
}

func TestMemoryRateLimiterConcurrent(t *testing.T) {
	clock := newFakeClock() // frozen: nothing refills
	l := mustMemoryLimiter(t, 1, 50, clock)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				if mustAllow(t, l, "shared").Allowed {
					allowed.Add(1)
				}
				mustAllow(t, l, fmt.Sprint("own", g, i%5))
			}
		}()
	}
	wg.Wait()
	if got := allowed.Load(); got != 50 {
		t.Errorf("allowed %d of 800 concurrent requests, want exactly the burst of 50", got)
	}
}

func TestSetRateLimitHeaders(t *testing.T) {
	tests := []struct {
		name           string
		d              RateDecision
		policy         string
		wantPolicy     string
		wantRateLimit  string
		wantRetryAfter string
	}{
		{
			name:          "Allowed",
			d:             RateDecision{Allowed: true, Limit: 100, Remaining: 57, Reset: 860 * time.Millisecond, Window: 2 * time.Second},
			policy:        "default",
			wantPolicy:    `"default";q=100;w=2`,
			wantRateLimit: `"default";r=57;t=1`,
		},
		{
			name:          "FullBucket",
			d:             RateDecision{Allowed: true, Limit: 10, Remaining: 10, Window: 100 * time.Millisecond},
			policy:        "",
			wantPolicy:    `"default";q=10;w=1`,
			wantRateLimit: `"default";r=10;t=0`,
		},
		{
			name:           "Refused",
			d:              RateDecision{Allowed: false, Limit: 100, Remaining: 0, Reset: 20 * time.Millisecond, RetryAfter: 20 * time.Millisecond, Window: 2 * time.Second},
			policy:         "per-ip",
			wantPolicy:     `"per-ip";q=100;w=2`,
			wantRateLimit:  `"per-ip";r=0;t=1`,
			wantRetryAfter: "1",
		},
		{
			name:           "RefusedLongWait",
			d:              RateDecision{Allowed: false, Limit: 5, Reset: 2001 * time.Millisecond, RetryAfter: 2001 * time.Millisecond, Window: 2500 * time.Second},
			policy:         `we"ird`,
			wantPolicy:     `"we\"ird";q=5;w=2500`,
			wantRateLimit:  `"we\"ird";r=0;t=3`,
			wantRetryAfter: "3",
		},
		{
			// t and Retry-After agree on a refusal whatever a custom
			// limiter put in Reset.
			name:           "RefusedResetDisagrees",
			d:              RateDecision{Allowed: false, Limit: 5, Reset: time.Minute, RetryAfter: 0, Window: time.Minute},
			policy:         "default",
			wantPolicy:     `"default";q=5;w=60`,
			wantRateLimit:  `"default";r=0;t=1`,
			wantRetryAfter: "1",
		},
		{
			name:   "Unlimited",
			d:      RateDecision{Allowed: true},
			policy: "default",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			setRateLimitHeaders(rec, tt.d, tt.policy)
			h := rec.Header()
			if got := h.Get("RateLimit-Policy"); got != tt.wantPolicy {
				t.Errorf("RateLimit-Policy = %q, want %q", got, tt.wantPolicy)
			}
			if got := h.Get("RateLimit"); got != tt.wantRateLimit {
				t.Errorf("RateLimit = %q, want %q", got, tt.wantRateLimit)
			}
			if got := h.Get("Retry-After"); got != tt.wantRetryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tt.wantRetryAfter)
			}
		})
	}
}

func TestRateLimited(t *testing.T) {
	p := rateLimited(RateDecision{Limit: 1, RetryAfter: 1500 * time.Millisecond})
	if p.Status != 429 || p.Code != CodeRateLimited {
		t.Errorf("rateLimited = %d %s, want 429 %s", p.Status, p.Code, CodeRateLimited)
	}
	if want := "rate limit exceeded, retry in 2 s"; p.Detail != want {
		t.Errorf("detail = %q, want %q", p.Detail, want)
	}
}
