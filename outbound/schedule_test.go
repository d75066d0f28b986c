package outbound

import (
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
