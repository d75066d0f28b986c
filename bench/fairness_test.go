package main

import (
	"slices"
	"testing"
)

func TestFingerprint(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   executed
		want string
	}{
		{"bound values kept", executed{Text: "SELECT a FROM t WHERE (id = $1)"}, "SELECT a FROM t WHERE (id = $1)"},
		{"white space collapsed", executed{Text: "INSERT INTO t (a)\n\t\t VALUES ($1)"}, "INSERT INTO t (a) VALUES ($1)"},
		{"written-in limit", executed{Text: "SELECT a FROM t ORDER BY id DESC LIMIT 21"}, "SELECT a FROM t ORDER BY id DESC LIMIT ?"},
		{"bound limit differs", executed{Text: "SELECT a FROM t ORDER BY id DESC LIMIT $2"}, "SELECT a FROM t ORDER BY id DESC LIMIT $2"},
		{"strings", executed{Text: "SELECT 'tenant' AS kind, 'it''s' FROM t"}, "SELECT ? AS kind, ? FROM t"},
		{"names unquoted, digits kept", executed{Text: `SELECT "t2"."a1" FROM t2`}, `SELECT t2.a1 FROM t2`},
		{"savepoint names", executed{Simple: true, Text: "RELEASE SAVEPOINT SP_2a68041b20d9"}, "simple: RELEASE SAVEPOINT SP_?"},
		{"simple protocol marked", executed{Simple: true, Text: "begin"}, "simple: begin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fingerprint(tc.in); got != tc.want {
				t.Errorf("fingerprint(%q) = %q, want %q", tc.in.Text, got, tc.want)
			}
		})
	}
}

func TestRequestStatementsDropsPings(t *testing.T) {
	got := requestStatements([]executed{{Simple: true, Text: "-- ping"}, {Simple: true, Text: ";"}, {Text: "SELECT 1"}})
	if want := []string{"SELECT ?"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTypical(t *testing.T) {
	a := requestWork{Statements: []string{"x", "y"}, RoundTrips: 2}
	b := requestWork{Statements: []string{"x", "y", "z"}, RoundTrips: 3}
	// a's statements with a round trip more: a background poll during
	// the request.
	polled := requestWork{Statements: a.Statements, RoundTrips: 3}
	tests := []struct {
		name string
		reqs []requestWork
		want requestWork
	}{
		{"MostCommonStatements", []requestWork{b, a, a, b, a}, a},
		{"MostCommonRoundTrips", []requestWork{polled, a, a, polled, a}, a},
		{"FirstToBeSeenThatOften", []requestWork{polled, a, a, polled}, a},
		{"None", nil, requestWork{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := typical(tt.reqs)
			if !slices.Equal(got.Statements, tt.want.Statements) || got.RoundTrips != tt.want.RoundTrips {
				t.Errorf("typical = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestStatementDiff(t *testing.T) {
	got := statementDiff([]string{"a", "b"}, []string{"a", "c", "d"})
	want := "  2 statements in tenantkit, 3 in the baseline; first difference at #2\n" +
		"  tenantkit #2: b\n  baseline  #2: c\n  baseline  #3: d\n"
	if got != want {
		t.Errorf("statementDiff =\n%s\nwant\n%s", got, want)
	}
}

// TestUnfairness: other statements, or the same ones in a round trip
// more or fewer in the typical request, are unfair; averages that a
// background poll or a rare extra statement moved are not judged.
func TestUnfairness(t *testing.T) {
	stmts := []string{"simple: begin", "INSERT INTO t VALUES ($1)", "simple: commit"}
	tests := []struct {
		name           string
		tk, base       []string
		tkRT, baseRT   int64
		tkAvg, baseAvg float64
		unfair         bool
	}{
		{"Same", stmts, stmts, 3, 3, 3, 3, false},
		{"PollDuringTheRequests", stmts, stmts, 3, 3, 3.5, 3, false},
		{"OtherStatements", stmts, stmts[:2], 3, 3, 3, 3, true},
		{"PipelinedInOneServerOnly", stmts, stmts, 3, 2, 3, 2, true},
		{"PipelinedInTheOtherOnly", stmts, stmts, 2, 3, 2, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rtResult{TKStatements: tt.tk, BaseStatements: tt.base, TKRoundTrips: tt.tkRT, BaseRoundTrips: tt.baseRT,
				TK: perRequest{RoundTrips: tt.tkAvg}, Base: perRequest{RoundTrips: tt.baseAvg}}
			if got := unfairness(r); (got != "") != tt.unfair {
				t.Fatalf("unfairness = %q, want unfair %v", got, tt.unfair)
			}
		})
	}
}
