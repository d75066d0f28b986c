package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// How fairness is checked. The baseline is a yardstick only if it does
// exactly tenantkit's database work: the same statements, in the same
// order, by the same protocol (a prepared statement bound to values, or a
// text with its values written in), so the same round trips and parses.
// Before any load, both servers run behind a proxy that logs every
// statement executed (pgcount.go); each endpoint gets a few warm-up
// requests, then fairnessRequests sequential ones, and for each request
// the statements it caused are fingerprinted (fingerprint). The sequence
// most requests share is the endpoint's (a rare extra statement, such as a
// threshold notification or a background job's poll, is thereby left
// out). The same statements may still be sent in more or fewer round
// trips (two of them in one pipeline: database.ExecLater), so the round
// trips per request (Sync and simple Query messages) must agree too. If
// the two servers differ in either for any endpoint, the bench
// stops with a non-zero exit and prints, per endpoint, both sequences
// where they differ — the baseline is then to be brought in line before a
// number of it means anything. `go run . --check` runs only this check.
const fairnessRequests = 20

// maxRoundTripGap is how far apart the two servers' round trips per
// request may be once their statements are the same: a pipeline one of
// them sends as two round trips is a whole one per request; a background
// job's poll during the 20 requests, a small fraction.
const maxRoundTripGap = 0.5

// rtResult is one endpoint's database work per request on both servers.
type rtResult struct {
	Endpoint string     `json:"endpoint"`
	TK       perRequest `json:"tenantkit"`
	Base     perRequest `json:"baseline"`
	// TKStatements and BaseStatements are the fingerprinted statements of
	// a typical request (the most common sequence).
	TKStatements   []string `json:"tenantkit_statements"`
	BaseStatements []string `json:"baseline_statements"`
	// Same: both sequences are equal.
	Same bool `json:"same"`
}

var (
	reSpace   = regexp.MustCompile(`\s+`)
	reString  = regexp.MustCompile(`'(?:[^']|'')*'`)
	reNumber  = regexp.MustCompile(`(^|[^\w$."])-?\d+(?:\.\d+)?`)
	rePingSQL = regexp.MustCompile(`^(-- ping|;)?$`)
	// Bun names each savepoint at random.
	reSavepoint = regexp.MustCompile(`\bSP_[0-9a-f]+\b`)
)

// fingerprint is a statement's text with its written-in values replaced by
// ? (string and number literals; $n placeholders are kept; savepoint
// names) and its white space collapsed, prefixed with "simple: " when it went by the simple
// protocol. Two requests that differ only in their values have the same
// fingerprints; a LIMIT written in (LIMIT ?) differs from a bound one
// (LIMIT $2), and so does a bound statement from the same text sent with
// its values written in.
func fingerprint(e executed) string {
	t := strings.TrimSpace(reSpace.ReplaceAllString(e.Text, " "))
	t = reSavepoint.ReplaceAllString(t, "SP_?")
	t = reString.ReplaceAllString(t, "?")
	t = reNumber.ReplaceAllString(t, "${1}?")
	if e.Simple {
		t = "simple: " + t
	}
	return t
}

// requestStatements fingerprints the statements of one request, leaving
// out the drivers' liveness pings (pgxpool and database/sql both ping a
// connection idle for over a second before handing it out).
func requestStatements(log []executed) []string {
	var out []string
	for _, e := range log {
		if e.Simple && rePingSQL.MatchString(strings.TrimSpace(e.Text)) {
			continue
		}
		out = append(out, fingerprint(e))
	}
	return out
}

// typical returns the sequence most requests had.
func typical(seqs [][]string) []string {
	count := map[string]int{}
	best, bestN := "", -1
	for _, s := range seqs {
		k := strings.Join(s, "\x00")
		count[k]++
		if count[k] > bestN {
			best, bestN = k, count[k]
		}
	}
	if best == "" {
		return nil
	}
	return strings.Split(best, "\x00")
}

// checkFairness starts a pair of servers whose connections go through a
// counting proxy and, for every endpoint, counts the round trips and
// parses of a request and compares the statements of both servers. It
// returns the results and an error naming every endpoint whose statements
// differ.
func checkFairness(ctx context.Context, cfg config, bins binaries, dbURL string, fx *fixture, active []endpoint, dir string) ([]rtResult, error) {
	// A proxy of its own for each server, so that each log holds only
	// its server's statements; tenantkit's background jobs are off (they
	// are no request's work).
	tkCounter, err := newPGCounter(dbURL)
	if err != nil {
		return nil, err
	}
	defer tkCounter.close()
	baseCounter, err := newPGCounter(dbURL)
	if err != nil {
		return nil, err
	}
	defer baseCounter.close()
	bins.Profiling = false // no pprof ports needed
	tk, base, err := startServersOn(ctx, bins, tkCounter.url(dbURL), baseCounter.url(dbURL), cfg, fx, dir, "-fairness",
		"--scheduler-interval", "0")
	if err != nil {
		return nil, err
	}
	defer tk.stop()
	defer base.stop()
	var (
		out    []rtResult
		unfair []string
	)
	for _, ep := range active {
		r := rtResult{Endpoint: ep.Name}
		for _, p := range []*proc{tk, base} {
			counter := tkCounter
			if p == base {
				counter = baseCounter
			}
			fx.repeatPicks() // the same tenants, invoices and tickets for both
			for range 3 {    // warm the pools and statement caches
				if _, _, err := probe(ctx, p, fx, ep); err != nil {
					return out, err
				}
			}
			before := counter.snapshot()
			var seqs [][]string
			for range fairnessRequests {
				m := counter.mark()
				if status, body, err := probe(ctx, p, fx, ep); err != nil || status/100 != 2 {
					return out, fmt.Errorf("%s %s: %d %v %s", p.Name, ep.Name, status, err, tail(body, 200))
				}
				seqs = append(seqs, requestStatements(counter.since(m)))
			}
			per := before.per(counter.snapshot(), fairnessRequests)
			if p == tk {
				r.TK, r.TKStatements = per, typical(seqs)
			} else {
				r.Base, r.BaseStatements = per, typical(seqs)
			}
		}
		fx.randomPicks()
		why := unfairness(r)
		r.Same = why == ""
		if !r.Same {
			unfair = append(unfair, ep.Name+":\n"+why)
		}
		out = append(out, r)
	}
	if len(unfair) > 0 {
		return out, errors.New("the baseline does not run tenantkit's SQL (bench/fairness.go): bring bench/baseline in line before comparing.\n" +
			strings.Join(unfair, "\n"))
	}
	return out, nil
}

// unfairness says how the two servers' database work for one endpoint
// differs, "" when it does not: other statements, or the same statements
// pipelined differently (database.ExecLater), in more or fewer round trips.
func unfairness(r rtResult) string {
	if strings.Join(r.TKStatements, "\x00") != strings.Join(r.BaseStatements, "\x00") {
		return statementDiff(r.TKStatements, r.BaseStatements)
	}
	if d := r.TK.RoundTrips - r.Base.RoundTrips; d >= maxRoundTripGap || d <= -maxRoundTripGap {
		return fmt.Sprintf("  the same statements in %.1f round trips per request in tenantkit, %.1f in the baseline\n",
			r.TK.RoundTrips, r.Base.RoundTrips)
	}
	return ""
}

// statementDiff shows two sequences of statements side by side from the
// first one that differs.
func statementDiff(tk, base []string) string {
	i := 0
	for i < len(tk) && i < len(base) && tk[i] == base[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %d statements in tenantkit, %d in the baseline; first difference at #%d\n", len(tk), len(base), i+1)
	for j := i; j < max(len(tk), len(base)); j++ {
		if j < len(tk) {
			fmt.Fprintf(&b, "  tenantkit #%d: %s\n", j+1, tk[j])
		}
		if j < len(base) {
			fmt.Fprintf(&b, "  baseline  #%d: %s\n", j+1, base[j])
		}
	}
	return b.String()
}
