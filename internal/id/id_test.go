package id

import (
	"strings"
	"testing"
	"time"
)

func TestNew(t *testing.T) {
	a, b := New(Invoice), New(Invoice)
	if !strings.HasPrefix(a, "inv_") {
		t.Fatalf("New(Invoice) = %q, want inv_ prefix", a)
	}
	if a >= b {
		t.Fatalf("ids do not sort by creation: %q >= %q", a, b)
	}
	if a != strings.ToLower(a) {
		t.Fatalf("id %q is not lower-case", a)
	}
}

func TestValid(t *testing.T) {
	good := New(Ticket)
	tests := []struct {
		name   string
		prefix string
		in     string
		want   bool
	}{
		{"OK", Ticket, good, true},
		{"WrongPrefix", Invoice, good, false},
		{"Empty", Ticket, "", false},
		{"Short", Ticket, "tkt_01", false},
		{"NotBase32", Ticket, "tkt_" + strings.Repeat("u", 26), false},
		{"Nul", Ticket, "\x00", false},
		{"NulInside", Ticket, good[:10] + "\x00" + good[11:], false},
		{"InvalidUTF8", Ticket, good[:10] + "\xff" + good[11:], false},
		{"UpperCase", Ticket, "tkt_" + strings.ToUpper(good[4:]), false},
		{"UpperPrefix", Ticket, "TKT_" + good[4:], false},
		{"Long", Ticket, good + "0", false},
		{"Overflow", Ticket, "tkt_8" + good[5:], false},
		{"LargestULID", Ticket, "tkt_7" + strings.Repeat("z", 25), true},
		{"Space", Ticket, "tkt_ " + good[5:], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Valid(tt.prefix, tt.in); got != tt.want {
				t.Fatalf("Valid(%q, %q) = %v, want %v", tt.prefix, tt.in, got, tt.want)
			}
		})
	}
}

func TestAtAndFloor(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 9, 30, 0, 500_000_000, time.UTC)
	ms := time.Millisecond
	tests := []struct {
		name  string
		made  time.Time
		floor time.Time
		below bool // whether At(made) sorts below Floor(floor)
	}{
		{"MillisecondBefore", t0.Add(-ms), t0, true},
		{"SameMillisecond", t0, t0, false},
		{"SameMillisecondLater", t0.Add(900 * time.Microsecond), t0, false},
		{"MicrosecondBeforeInTheSameMillisecond", t0, t0.Add(999 * time.Microsecond), false},
		{"Later", t0.Add(ms), t0, false},
		{"DayBefore", t0.Add(-24 * time.Hour), t0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, floor := At(Event, tt.made), Floor(Event, tt.floor)
			if !Valid(Event, got) || !Valid(Event, floor) {
				t.Fatalf("At = %q, Floor = %q: not valid event ids", got, floor)
			}
			if below := got < floor; below != tt.below {
				t.Fatalf("At(%v) = %q < Floor(%v) = %q is %v, want %v", tt.made, got, tt.floor, floor, below, tt.below)
			}
		})
	}
	// Ids made at one instant still sort in the order they were made.
	a, b := At(Event, t0), At(Event, t0)
	if a >= b {
		t.Fatalf("ids of one millisecond do not sort by creation: %q >= %q", a, b)
	}
}

// TestNewSortsAndIsValid checks many ids made in a row: each is Valid and
// sorts after the one before, within a millisecond too.
func TestNewSortsAndIsValid(t *testing.T) {
	prev := New(RequestPrefix)
	for range 10_000 {
		next := New(RequestPrefix)
		if !Valid(RequestPrefix, next) {
			t.Fatalf("New = %q: not Valid", next)
		}
		if next <= prev {
			t.Fatalf("ids do not sort by creation: %q after %q", next, prev)
		}
		prev = next
	}
}
