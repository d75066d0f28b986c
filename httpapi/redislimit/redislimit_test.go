package redislimit

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
)

// mustAllow calls Allow and fails the test on error.
func mustAllow(tb testing.TB, l httpapi.RateLimiter, key string) httpapi.RateDecision {
	tb.Helper()
	d, err := l.Allow(context.Background(), key)
	if err != nil {
		tb.Fatalf("Allow(%q): %v", key, err)
	}
	return d
}

// uniqueRateKey returns a key no other test run uses, and deletes its Redis
// state when the test ends.
func uniqueRateKey(tb testing.TB, client *redis.Client) string {
	tb.Helper()
	key := strings.ReplaceAll(tb.Name(), "/", "_") + ":" + id.New("test")
	tb.Cleanup(func() {
		_ = client.Del(context.Background(), "rate:"+redisKeyPrefix+key).Err()
	})
	return key
}

func TestRedisRateLimiter(t *testing.T) {
	client := dbtest.Redis(t)

	t.Run("BurstThenRefuse", func(t *testing.T) {
		// 1 request a second, bursts of 3: nothing refills noticeably during
		// the few milliseconds the test takes.
		l := New(client, 1, 3)
		key := uniqueRateKey(t, client)
		// Reset is the wait for the next token (at most 1 s), not for the
		// bucket to be full (up to 3 s).
		for i, wantRemaining := range []int{2, 1, 0} {
			d := mustAllow(t, l, key)
			if !d.Allowed || d.Limit != 3 || d.Remaining != wantRemaining || d.RetryAfter != 0 || d.Window != 3*time.Second {
				t.Errorf("request %d = %+v, want allowed, Limit 3, Remaining %d, Window 3s", i, d, wantRemaining)
			}
			if d.Reset <= 0 || d.Reset > time.Second {
				t.Errorf("request %d: Reset = %v, want in (0, 1s]", i, d.Reset)
			}
		}
		d := mustAllow(t, l, key)
		if d.Allowed || d.Remaining != 0 {
			t.Errorf("request beyond the burst = %+v, want refused", d)
		}
		if d.RetryAfter <= 0 || d.RetryAfter > time.Second {
			t.Errorf("RetryAfter = %v, want in (0, 1s]", d.RetryAfter)
		}
		if d.Reset != d.RetryAfter {
			t.Errorf("Reset = %v, want RetryAfter %v", d.Reset, d.RetryAfter)
		}
	})

	t.Run("Refill", func(t *testing.T) {
		// 20 a second, burst 1: refused at once, allowed again ~50 ms later.
		l := New(client, 20, 1)
		key := uniqueRateKey(t, client)
		if d := mustAllow(t, l, key); !d.Allowed {
			t.Fatalf("first request refused: %+v", d)
		}
		d := mustAllow(t, l, key)
		if d.Allowed || d.RetryAfter <= 0 || d.RetryAfter > 50*time.Millisecond {
			t.Fatalf("second request = %+v, want refused with RetryAfter in (0, 50ms]", d)
		}
		time.Sleep(d.RetryAfter + 10*time.Millisecond)
		if d := mustAllow(t, l, key); !d.Allowed {
			t.Errorf("request after RetryAfter refused: %+v", d)
		}
	})

	t.Run("SharedAcrossLimiters", func(t *testing.T) {
		// Two limiters stand for two replicas: they draw from one bucket.
		a, b := New(client, 1, 2), New(client, 1, 2)
		key := uniqueRateKey(t, client)
		mustAllow(t, a, key)
		mustAllow(t, b, key)
		if d := mustAllow(t, a, key); d.Allowed {
			t.Errorf("third request across replicas = %+v, want refused", d)
		}
	})

	t.Run("KeysIndependent", func(t *testing.T) {
		l := New(client, 1, 1)
		k1, k2 := uniqueRateKey(t, client), uniqueRateKey(t, client)
		mustAllow(t, l, k1)
		if d := mustAllow(t, l, k2); !d.Allowed {
			t.Errorf("other key refused: %+v", d)
		}
	})

	t.Run("Unlimited", func(t *testing.T) {
		l := New(client, 0, 10)
		if d := mustAllow(t, l, "any"); d != (httpapi.RateDecision{Allowed: true}) {
			t.Errorf("Allow = %+v, want {Allowed: true}", d)
		}
	})
}

func TestRedisRateLimiterError(t *testing.T) {
	// Nothing listens on port 1; the error must come back wrapped, not panic.
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = client.Close() })
	_, err := New(client, 1, 1).Allow(context.Background(), "k")
	if err == nil || !strings.Contains(err.Error(), "redislimit: ") {
		t.Errorf("Allow against no Redis = %v, want a wrapped error", err)
	}
}

func TestNextToken(t *testing.T) {
	tests := []struct {
		name                string
		untilFull, interval time.Duration
		want                time.Duration
	}{
		{"Full", 0, time.Second, 0},
		{"PartOfOneToken", 300 * time.Millisecond, time.Second, 300 * time.Millisecond},
		{"WholeTokenMissing", time.Second, time.Second, time.Second},
		{"SeveralTokensMissing", 2500 * time.Millisecond, time.Second, 500 * time.Millisecond},
		{"SeveralWholeTokensMissing", 2 * time.Second, time.Second, time.Second},
		{"Negative", -time.Millisecond, time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextToken(tt.untilFull, tt.interval); got != tt.want {
				t.Errorf("nextToken(%v, %v) = %v, want %v", tt.untilFull, tt.interval, got, tt.want)
			}
		})
	}
}
