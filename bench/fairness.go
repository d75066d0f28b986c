package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// How fairness is checked. The baseline is a yardstick only if it does
// exactly tenantkit's database work: the same statements, in the same
// order, by the same protocol (a prepared statement bound to values, or a
// text with its values written in), so the same round trips and parses.
// Before any load, both servers run behind a proxy that logs every
// statement executed (pgcount.go); each endpoint gets a few warm-up
// requests, then fairnessRequests sequential ones, and for each request
// the statements it caused are fingerprinted (fingerprint) and its round
// trips (Sync and simple Query messages) counted. The request most
// requests are like, the same statements in the same round trips, is the
// endpoint's (typical): a rare extra statement, such as a threshold
// notification, is thereby left out. The same statements may still be
// sent in more or fewer round trips (two in one pipeline or one
// multi-statement query), so the typical request's round trips must agree
// too. Fingerprints ignore what changes no work: comments, quoting of
// names, a NULL or DEFAULT for a value, and white space. If the two servers differ in either for any endpoint, the bench
// stops with a non-zero exit and prints, per endpoint, both sequences
// where they differ — the baseline is then to be brought in line before a
// number of it means anything. `go run . --check` runs only this check.
//
// The proxy counts all of a server's traffic, not one request's, so both
// servers run no background work meanwhile (startFairnessServers). The
// round trips per request the report shows are the whole window's,
// averaged: with nothing in the background they are the typical
// request's, give or take a rare extra.
const fairnessRequests = 20

// rtResult is one endpoint's database work per request on both servers.
type rtResult struct {
	Endpoint string     `json:"endpoint"`
	TK       perRequest `json:"tenantkit"`
	Base     perRequest `json:"baseline"`
	// TKStatements and BaseStatements are the fingerprinted statements of
	// a typical request (typical).
	TKStatements   []string `json:"tenantkit_statements"`
	BaseStatements []string `json:"baseline_statements"`
	// TKRoundTrips and BaseRoundTrips are a typical request's round trips.
	TKRoundTrips   int64 `json:"tenantkit_typical_round_trips"`
	BaseRoundTrips int64 `json:"baseline_typical_round_trips"`
	// Same: both servers' typical requests are alike.
	Same bool `json:"same"`
}

// requestWork is what one request cost its server's database.
type requestWork struct {
	Statements []string // fingerprinted (requestStatements)
	RoundTrips int64    // Sync and simple Query messages
}

var (
	reSpace      = regexp.MustCompile(`\s+`)
	reString     = regexp.MustCompile(`'(?:[^']|'')*'`)
	reNumber     = regexp.MustCompile(`(^|[^\w$."])-?\d+(?:\.\d+)?`)
	rePingSQL    = regexp.MustCompile(`^(-- ping|;)?$`)
	reComment    = regexp.MustCompile(`/\*.*?\*/`)
	reNullish    = regexp.MustCompile(`(?i)\b(null|default|true|false)\b`)
	reOpenSpace  = regexp.MustCompile(`\(\s+`)
	reCloseSpace = regexp.MustCompile(`\s+([),])`)
	reCommaNext  = regexp.MustCompile(`,(\S)`)
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
	t := reComment.ReplaceAllString(e.Text, "")
	t = strings.TrimSpace(reSpace.ReplaceAllString(t, " "))
	t = reSavepoint.ReplaceAllString(t, "SP_?")
	t = reString.ReplaceAllString(t, "?")
	t = reNumber.ReplaceAllString(t, "${1}?")
	// What changes no work: quoting names, a NULL or a column's default
	// for a value, white space beside parentheses and commas.
	t = strings.ReplaceAll(t, `"`, "")
	t = reNullish.ReplaceAllString(t, "?")
	t = reOpenSpace.ReplaceAllString(t, "(")
	t = reCloseSpace.ReplaceAllString(t, "$1")
	t = reCommaNext.ReplaceAllString(t, ", $1")
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

// typical returns the request most requests are like: the same
// statements in the same round trips. Of two as common, the first to be
// seen that often wins.
func typical(reqs []requestWork) requestWork {
	count := map[string]int{}
	var best requestWork
	bestN := 0
	for _, r := range reqs {
		k := fmt.Sprintf("%d\x00%s", r.RoundTrips, strings.Join(r.Statements, "\x00"))
		count[k]++
		if count[k] > bestN {
			best, bestN = r, count[k]
		}
	}
	return best
}

// fairnessSpec is how the check drives each endpoint.
type fairnessSpec struct {
	// Requests is how many sequential requests are counted.
	Requests int
	// Gap is a wait after each request: none in the bench. A test
	// spreads the requests over seconds with it, as a loaded machine
	// does.
	Gap time.Duration
}

// checkFairness starts a pair of servers whose connections go through a
// counting proxy and, for every endpoint, counts the round trips and
// parses of a request and compares the statements of both servers. It
// returns the results and an error naming every endpoint whose statements
// or round trips differ.
func checkFairness(ctx context.Context, cfg config, bins binaries, dbURL string, fx *fixture, active []endpoint, dir string) ([]rtResult, error) {
	return checkFairnessPaced(ctx, cfg, bins, dbURL, fx, active, dir, fairnessSpec{Requests: fairnessRequests})
}

// checkFairnessPaced is checkFairness driving each endpoint as spec says.
func checkFairnessPaced(ctx context.Context, cfg config, bins binaries, dbURL string, fx *fixture, active []endpoint, dir string, spec fairnessSpec) ([]rtResult, error) {
	// A proxy of its own for each server, so that each log holds only
	// its server's statements.
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
	tk, base, err := startFairnessServers(ctx, bins, tkCounter, baseCounter, dbURL, cfg, fx, dir)
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
			per, req, err := measureRequests(ctx, p, counter, fx, ep, spec)
			if err != nil {
				return out, err
			}
			if p == tk {
				r.TK, r.TKStatements, r.TKRoundTrips = per, req.Statements, req.RoundTrips
			} else {
				r.Base, r.BaseStatements, r.BaseRoundTrips = per, req.Statements, req.RoundTrips
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

// startFairnessServers starts tenantkit and the baseline, each through
// its counter, with no background work on either: the baseline has none,
// and tenantkit's is off. Its scheduler's jobs write events of their own.
// Its delivery queue (River, on Postgres without LISTEN) looks for due
// jobs every second, reports its queue, re-elects its leader and, as
// leader, runs its maintenance: about three round trips a second with no
// request at all (TestFairnessServersIdle), which the proxy would count
// with the requests measured meanwhile. On a loaded machine, where 20
// sequential requests take seconds, that is half a round trip per request
// and more on tenantkit's side alone. The bench's tenants have no webhook
// endpoint, so no request enqueues a delivery, and an enqueue needs no
// worker anyway.
func startFairnessServers(ctx context.Context, bins binaries, tkCounter, baseCounter *pgCounter, dbURL string, cfg config, fx *fixture, dir string) (*proc, *proc, error) {
	bins.Profiling = false // no pprof ports needed
	return startServersOn(ctx, bins, tkCounter.url(dbURL), baseCounter.url(dbURL), cfg, fx, dir, "-fairness",
		"--scheduler-interval", "0", "--webhook-workers", "0")
}

// measureRequests warms p up with a few requests of ep, then sends
// spec.Requests sequential ones, and returns their database work per
// request (averaged over the whole window, from counter) and the typical
// request's.
func measureRequests(ctx context.Context, p *proc, counter *pgCounter, fx *fixture, ep endpoint, spec fairnessSpec) (perRequest, requestWork, error) {
	for range 3 { // warm the pools and statement caches
		if _, _, err := probe(ctx, p, fx, ep); err != nil {
			return perRequest{}, requestWork{}, err
		}
	}
	before := counter.snapshot()
	reqs := make([]requestWork, 0, spec.Requests)
	for range spec.Requests {
		m, at := counter.mark(), counter.snapshot()
		if status, body, err := probe(ctx, p, fx, ep); err != nil || status/100 != 2 {
			return perRequest{}, requestWork{}, fmt.Errorf("%s %s: %d %v %s", p.Name, ep.Name, status, err, tail(body, 200))
		}
		reqs = append(reqs, requestWork{Statements: requestStatements(counter.since(m)), RoundTrips: at.roundTrips(counter.snapshot())})
		if spec.Gap > 0 {
			select {
			case <-ctx.Done():
				return perRequest{}, requestWork{}, ctx.Err()
			case <-time.After(spec.Gap):
			}
		}
	}
	return before.per(counter.snapshot(), spec.Requests), typical(reqs), nil
}

// unfairness says how the two servers' typical requests of one endpoint
// differ, "" when they do not: other statements, or the same statements
// sent differently, in more or fewer round
// trips. The averages are not judged: they also hold whatever rare extra
// the typical request leaves out.
func unfairness(r rtResult) string {
	if strings.Join(r.TKStatements, "\x00") != strings.Join(r.BaseStatements, "\x00") {
		return statementDiff(r.TKStatements, r.BaseStatements)
	}
	if r.TKRoundTrips != r.BaseRoundTrips {
		return fmt.Sprintf("  the same statements in %d round trips in tenantkit's typical request, %d in the baseline's (%.1f and %.1f per request on average)\n",
			r.TKRoundTrips, r.BaseRoundTrips, r.TK.RoundTrips, r.Base.RoundTrips)
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
