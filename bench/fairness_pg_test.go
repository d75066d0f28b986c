package main

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// TestFairnessOnPostgres runs the fairness check's servers for real: it
// needs Postgres (TENANTKIT_TEST_DATABASE_URL; the bench's database is
// created next to it and dropped) and builds cmd/server and the baseline.
// It shows where tenantkit's extra round trips on a loaded machine came
// from — its delivery queue's own traffic while no request runs, which
// the counting proxy took for the requests' — and that the check's
// servers make none, so the check passes however long the requests take.
func TestFairnessOnPostgres(t *testing.T) {
	adminURL := os.Getenv("TENANTKIT_TEST_DATABASE_URL")
	if adminURL == "" {
		t.Skip("TENANTKIT_TEST_DATABASE_URL is not set: the fairness check needs Postgres")
	}
	if testing.Short() {
		t.Skip("builds both servers and seeds a database")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b := mustBench(t, ctx, adminURL)

	// idle counts what each server sends its database in idleFor with no
	// request at all.
	const idleFor = 3 * time.Second
	idle := func(t *testing.T, start func(tkCounter, baseCounter *pgCounter) (*proc, *proc, error)) (tk, base []executed) {
		t.Helper()
		tkCounter, baseCounter := mustPGCounter(t, b.dbURL), mustPGCounter(t, b.dbURL)
		tkProc, baseProc, err := start(tkCounter, baseCounter)
		if err != nil {
			t.Fatal(err)
		}
		defer tkProc.stop()
		defer baseProc.stop()
		tkMark, baseMark := tkCounter.mark(), baseCounter.mark()
		tkAt, baseAt := tkCounter.snapshot(), baseCounter.snapshot()
		time.Sleep(idleFor)
		tk, base = tkCounter.since(tkMark), baseCounter.since(baseMark)
		if got := tkAt.roundTrips(tkCounter.snapshot()); got != int64(len(tk)) {
			// River sends each statement as a simple Query, one round
			// trip: the log is the whole count.
			t.Errorf("tenantkit idle: %d round trips, %d statements logged: want as many", got, len(tk))
		}
		if got := baseAt.roundTrips(baseCounter.snapshot()); got != 0 {
			t.Errorf("baseline idle for %s: %d round trips, want 0: %q", idleFor, got, firstLines(base))
		}
		return tk, base
	}

	t.Run("DeliveryQueueWorksWhileIdle", func(t *testing.T) {
		// serve's defaults but the scheduler, as the load runs start
		// tenantkit.
		tk, _ := idle(t, func(tkCounter, baseCounter *pgCounter) (*proc, *proc, error) {
			return startServersOn(ctx, b.bins, tkCounter.url(b.dbURL), baseCounter.url(b.dbURL), config{RateLimit: 1e6}, b.fx, b.dir, "-queue",
				"--scheduler-interval", "0")
		})
		river := 0
		for _, e := range tk {
			switch {
			case strings.Contains(e.Text, "river_"):
				river++
			case e.Simple && (rePingSQL.MatchString(strings.TrimSpace(e.Text)) || e.Text == "begin" || e.Text == "commit"):
			default:
				t.Errorf("tenantkit idle: %q, want only River's statements (river_*), pings and their transactions", firstLines([]executed{e}))
			}
		}
		// River looks for due deliveries every second.
		if least := int(idleFor/time.Second) - 1; river < least {
			t.Errorf("tenantkit idle for %s with its delivery queue: %d of River's statements, want at least %d", idleFor, river, least)
		}
	})

	t.Run("FairnessServersAreIdle", func(t *testing.T) {
		tk, _ := idle(t, func(tkCounter, baseCounter *pgCounter) (*proc, *proc, error) {
			return startFairnessServers(ctx, b.bins, tkCounter, baseCounter, b.dbURL, config{RateLimit: 1e6}, b.fx, b.dir)
		})
		if len(tk) != 0 {
			t.Errorf("tenantkit idle for %s in the fairness check: %d statements, want none: %q", idleFor, len(tk), firstLines(tk))
		}
	})

	t.Run("SlowRequests", func(t *testing.T) {
		// 20 requests a quarter of a second apart: five seconds per
		// endpoint and server, as on a loaded machine. With the delivery
		// queue on, River's traffic in that time is about 0.7 round trips
		// per request.
		var eps []endpoint
		for _, name := range []string{"record payment", "webhook ingest"} {
			ep, ok := endpointNamed(name)
			if !ok {
				t.Fatalf("no endpoint %q", name)
			}
			eps = append(eps, ep)
		}
		res, err := checkFairnessPaced(ctx, config{RateLimit: 1e6}, b.bins, b.dbURL, b.fx, eps, b.dir,
			fairnessSpec{Requests: fairnessRequests, Gap: 250 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			// At most one round trip in the 20 requests besides their own.
			if d := r.TK.RoundTrips - float64(r.TKRoundTrips); math.Abs(d) > 0.05 {
				t.Errorf("%s: tenantkit %.2f round trips per request on average, its typical request %d: want them equal",
					r.Endpoint, r.TK.RoundTrips, r.TKRoundTrips)
			}
			if r.TKRoundTrips != r.BaseRoundTrips {
				t.Errorf("%s: typical request %d round trips in tenantkit, %d in the baseline", r.Endpoint, r.TKRoundTrips, r.BaseRoundTrips)
			}
		}
	})
}

// benchSetup is a migrated, seeded bench database and both servers' binaries.
type benchSetup struct {
	bins       binaries
	dbURL, dir string
	fx         *fixture
}

// mustBench builds both servers, creates the bench's database next to
// adminURL (dropped when t ends), migrates it with `server migrate` and
// seeds the quick data set.
func mustBench(t *testing.T, ctx context.Context, adminURL string) *benchSetup {
	t.Helper()
	src, err := findSources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b := &benchSetup{dir: t.TempDir()}
	if b.bins, err = build(ctx, src, b.dir, false); err != nil {
		t.Fatal(err)
	}
	dbURL, drop, err := createDatabase(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	b.dbURL = dbURL
	if _, err := runCLI(ctx, b.bins.Server, "migrate", "--database-url", dbURL, "--json"); err != nil {
		t.Fatal(err)
	}
	if b.fx, err = seed(ctx, dbURL, quickSize); err != nil {
		t.Fatal(err)
	}
	b.fx.WebhookSecret, b.fx.RunID = newWebhookSecret(), randomHex(4)
	return b
}

// mustPGCounter is a counting proxy in front of dbURL's Postgres, closed
// when t ends.
func mustPGCounter(t *testing.T, dbURL string) *pgCounter {
	t.Helper()
	c, err := newPGCounter(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c
}

// firstLines is the first line of each statement: River names its
// queries there (-- name: JobGetAvailable :many).
func firstLines(log []executed) []string {
	out := make([]string, len(log))
	for i, e := range log {
		out[i], _, _ = strings.Cut(strings.TrimSpace(e.Text), "\n")
	}
	return out
}
