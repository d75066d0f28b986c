package id

import (
	"strings"
	"testing"
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
