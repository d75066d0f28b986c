package outbound

import (
	"context"
	"testing"
	"time"
)

func TestSchedule(t *testing.T) {
	tests := []struct {
		name  string
		base  time.Duration
		first []time.Duration
		last  time.Duration
		total time.Duration // the sum of every delay, 0: unchecked
	}{
		{"Default", 30 * time.Second,
			[]time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute}, 12 * time.Hour,
			// 30 s … 8 h 32 min (11 delays) and 12 h five times.
			(30*time.Second)*(1<<11-1) + 5*12*time.Hour},
		{"Milliseconds", 100 * time.Millisecond,
			[]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}, 100 * time.Millisecond << 15, 0},
		{"CappedAtOnce", 24 * time.Hour, []time.Duration{12 * time.Hour, 12 * time.Hour}, 12 * time.Hour, 16 * 12 * time.Hour},
		{"ZeroIsDefault", 0, []time.Duration{30 * time.Second, time.Minute}, 12 * time.Hour, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Schedule(tt.base)
			if len(got) != scheduleRetries {
				t.Fatalf("Schedule(%s) has %d delays, want %d", tt.base, len(got), scheduleRetries)
			}
			for i, want := range tt.first {
				if got[i] != want {
					t.Errorf("delay %d = %s, want %s", i+1, got[i], want)
				}
			}
			if got[len(got)-1] != tt.last {
				t.Errorf("last delay = %s, want %s", got[len(got)-1], tt.last)
			}
			var sum time.Duration
			for _, d := range got {
				sum += d
			}
			if tt.total != 0 && sum != tt.total {
				t.Errorf("total = %s, want %s", sum, tt.total)
			}
		})
	}
	if def, s := DefaultSchedule(), Schedule(30*time.Second); len(def) != len(s) || def[10] != s[10] || def[15] != s[15] {
		t.Errorf("DefaultSchedule() = %v, want Schedule(30s) = %v", def, s)
	}
}

// TestJitter: every jittered delay stays within ±jitterFraction of the
// delay it varies, uses both sides of the band and most of its width, and
// the delays are not all equal: retries of deliveries that failed
// together spread out. The source is math/rand's: 1,000 draws make a
// failure of a correct jitter astronomically unlikely.
func TestJitter(t *testing.T) {
	tests := []struct {
		name string
		d    time.Duration
	}{
		{"Millisecond", time.Millisecond},
		{"First", scheduleBase},
		{"Hour", time.Hour + 4*time.Minute},
		{"Cap", scheduleCap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo := time.Duration(float64(tt.d) * (1 - jitterFraction))
			hi := time.Duration(float64(tt.d) * (1 + jitterFraction))
			seen := map[time.Duration]bool{}
			least, most := hi, lo
			for range 1000 {
				got := jitter(tt.d)
				if got < lo || got > hi {
					t.Fatalf("jitter(%s) = %s, want within [%s, %s]", tt.d, got, lo, hi)
				}
				seen[got] = true
				least, most = min(least, got), max(most, got)
			}
			if len(seen) < 100 {
				t.Errorf("jitter(%s) gave %d distinct delays in 1000, want them spread", tt.d, len(seen))
			}
			if least >= tt.d || most <= tt.d {
				t.Errorf("jitter(%s) spans [%s, %s], want both sides of %s", tt.d, least, most, tt.d)
			}
			if width := most - least; width < (hi-lo)*3/4 {
				t.Errorf("jitter(%s) spans %s, want most of the ±%.0f %% band (%s)", tt.d, width, 100*jitterFraction, hi-lo)
			}
		})
	}
}

// nopStore and nopTx let New build a Service whose schedule is all a test
// looks at.
type (
	nopStore struct {
		EndpointStore
		DeliveryStore
	}
	nopTx struct{}
)

func (nopTx) InTx(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }

// TestScheduleSpansAboutThreeDays: the default schedule, as a Service
// applies it (jittered, unless WithoutJitter), keeps retrying a failing
// delivery for about three days (SPEC §12): from the first attempt to
// the last, within 3 days ± 20 % on every draw, within ±jitterFraction of
// the exact schedule's 77 hours, and not exactly it.
func TestScheduleSpansAboutThreeDays(t *testing.T) {
	const day = 24 * time.Hour
	exact := retrySpan(t, New(nopStore{}, nopStore{}, nopTx{}, nil, WithoutJitter()))
	if want := 30*time.Second*(1<<11-1) + 5*scheduleCap; exact != want {
		t.Fatalf("the unjittered schedule spans %s, want %s", exact, want)
	}
	lo, hi := time.Duration(float64(exact)*(1-jitterFraction)), time.Duration(float64(exact)*(1+jitterFraction))
	svc := New(nopStore{}, nopStore{}, nopTx{}, nil)
	spans := map[time.Duration]bool{}
	for range 100 {
		span := retrySpan(t, svc)
		if span < lo || span > hi {
			t.Fatalf("a jittered schedule spans %s, want within [%s, %s]", span, lo, hi)
		}
		if span < day*12/5 || span > day*18/5 {
			t.Fatalf("a jittered schedule spans %.2f days, want about three (2.4 to 3.6)", span.Hours()/24)
		}
		spans[span] = true
	}
	if len(spans) < 2 || spans[exact] {
		t.Errorf("100 jittered schedules gave %d distinct spans (the exact one among them: %v); want jitter", len(spans), spans[exact])
	}
}

// retrySpan returns the time from a delivery's first attempt to its
// last when every attempt fails: the sum of svc's delays, checking that
// there are scheduleRetries of them, each within the jitter band.
func retrySpan(t *testing.T, svc *Service) time.Duration {
	t.Helper()
	def := DefaultSchedule()
	var span time.Duration
	for n := 1; ; n++ {
		d, ok := svc.nextDelay(n)
		if !ok {
			if n-1 != scheduleRetries {
				t.Fatalf("%d retries, want %d", n-1, scheduleRetries)
			}
			return span
		}
		base := def[n-1]
		if d < time.Duration(float64(base)*(1-jitterFraction)) || d > time.Duration(float64(base)*(1+jitterFraction)) {
			t.Fatalf("delay %d = %s, want %s ± %.0f %%", n, d, base, 100*jitterFraction)
		}
		span += d
	}
}
