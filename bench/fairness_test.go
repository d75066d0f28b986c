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
		{"names with digits kept", executed{Text: `SELECT "t2"."a1" FROM t2`}, `SELECT "t2"."a1" FROM t2`},
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
	a, b := []string{"x", "y"}, []string{"x", "y", "z"}
	if got := typical([][]string{b, a, a, b, a}); !slices.Equal(got, a) {
		t.Errorf("typical = %q, want %q", got, a)
	}
	if got := typical(nil); got != nil {
		t.Errorf("typical(nil) = %q, want nil", got)
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

// TestUnfairness: other statements, or the same ones in a whole round
// trip more or fewer per request, are unfair; a background poll's
// fraction of a round trip is not.
func TestUnfairness(t *testing.T) {
	stmts := []string{"simple: begin", "INSERT INTO t VALUES ($1)", "simple: commit"}
	tests := []struct {
		name     string
		tk, base []string
		tkRT     float64
		baseRT   float64
		unfair   bool
	}{
		{"Same", stmts, stmts, 3, 3, false},
		{"PollDuringTheRequests", stmts, stmts, 3.1, 3, false},
		{"OtherStatements", stmts, stmts[:2], 3, 3, true},
		{"PipelinedInOneServerOnly", stmts, stmts, 3, 2, true},
		{"PipelinedInTheOtherOnly", stmts, stmts, 2, 3, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rtResult{TKStatements: tt.tk, BaseStatements: tt.base, TK: perRequest{RoundTrips: tt.tkRT}, Base: perRequest{RoundTrips: tt.baseRT}}
			if got := unfairness(r); (got != "") != tt.unfair {
				t.Fatalf("unfairness = %q, want unfair %v", got, tt.unfair)
			}
		})
	}
}
