package riverqueue_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/webhook/outbound"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// fake is an Attempter that records every attempt, and the attempts of one
// delivery that overlapped (two workers on it at once).
type fake struct {
	// outcome answers the n-th attempt (from 1) of a delivery; nil: Done.
	outcome func(id string, n int) (outbound.Outcome, error)
	// numbers are the attempt numbers the jobs asked for, per delivery.
	numbers map[string][]int
	// hold keeps each attempt busy this long, so that overlaps show.
	hold time.Duration

	mu       sync.Mutex
	inFlight map[string]bool
	attempts map[string][]time.Time
	overlaps []string
	changed  chan struct{}
}

func newFake() *fake {
	return &fake{inFlight: map[string]bool{}, attempts: map[string][]time.Time{}, numbers: map[string][]int{},
		changed: make(chan struct{}, 1)}
}

func (f *fake) AttemptNumber(ctx context.Context, id string, number int) (outbound.Outcome, error) {
	f.mu.Lock()
	f.numbers[id] = append(f.numbers[id], number)
	if f.inFlight[id] {
		f.overlaps = append(f.overlaps, id)
	}
	f.inFlight[id] = true
	f.attempts[id] = append(f.attempts[id], time.Now())
	n := len(f.attempts[id])
	f.mu.Unlock()
	time.Sleep(f.hold)
	f.mu.Lock()
	delete(f.inFlight, id)
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
	if f.outcome == nil {
		return outbound.Outcome{Done: true}, nil
	}
	return f.outcome(id, n)
}

// times returns when id was attempted.
func (f *fake) times(id string) []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.attempts[id]...)
}

// waitFor waits until cond holds, failing the test after timeout.
func (f *fake) waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-f.changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("after %s: %s", timeout, what)
		}
	}
}

// each runs fn on a fresh SQLite database and a fresh Postgres database
// (skipped without one), River's schema applied, with their URLs.
func each(t *testing.T, fn func(t *testing.T, url string, db *bun.DB)) {
	t.Helper()
	for _, c := range []struct {
		name string
		url  func(testing.TB) string
	}{{"sqlite", dbtest.SQLiteURL}, {"postgres", dbtest.PostgresURL}} {
		t.Run(c.name, func(t *testing.T) {
			url := c.url(t)
			db := mustOpen(t, url)
			if n, err := riverqueue.Migrate(context.Background(), db); err != nil || n == 0 {
				t.Fatalf("Migrate = %d, %v", n, err)
			}
			fn(t, url, db)
		})
	}
}

func mustOpen(tb testing.TB, url string) *bun.DB {
	tb.Helper()
	db, err := database.Open(context.Background(), url, dbtest.Options())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// testOptions poll often and keep the lease short.
func testOptions(workers int) riverqueue.Options {
	return riverqueue.Options{Workers: workers, FetchPoll: 50 * time.Millisecond, JobTimeout: time.Second, RescueAfter: 2 * time.Second}
}

// mustStart starts a Queue on db working with att, stopped when the test ends.
func mustStart(t *testing.T, db *bun.DB, att riverqueue.Attempter, opts riverqueue.Options) *riverqueue.Queue {
	t.Helper()
	if opts.DB == nil {
		opts.DB = dbtest.RiverDB(t, db)
	}
	q, err := riverqueue.New(db, att, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return q
}

// firsts are the first attempts of deliveries, due now.
func firsts(ids ...string) []outbound.Scheduled {
	as := make([]outbound.Scheduled, len(ids))
	for i, id := range ids {
		as[i] = outbound.Scheduled{DeliveryID: id, Number: 1}
	}
	return as
}

// job is River's row for a delivery.
type job struct {
	State   string
	Attempt int
}

// jobsOf returns River's rows for delivery id.
func jobsOf(t *testing.T, db *bun.DB, id string) []job {
	t.Helper()
	arg := "json_extract(args, '$.delivery_id')"
	if database.IsPostgres(db) {
		arg = "args->>'delivery_id'"
	}
	var jobs []job
	err := db.NewRaw("SELECT state, attempt FROM river_job WHERE "+arg+" = ? ORDER BY id", id).Scan(context.Background(), &jobs)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func TestEnqueueJoinsTransaction(t *testing.T) {
	each(t, func(t *testing.T, _ string, db *bun.DB) {
		ctx := context.Background()
		f := newFake()
		q := mustStart(t, db, f, testOptions(2))
		boom := errors.New("boom")
		enqueue := func(ids ...string) func(context.Context) error {
			return func(ctx context.Context) error { return q.Enqueue(ctx, firsts(ids...)...) }
		}

		if err := database.RunInTx(ctx, db, func(ctx context.Context) error {
			if err := q.Enqueue(ctx, firsts("whd_rolledback")...); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			t.Fatalf("RunInTx = %v", err)
		}
		if err := database.RunInTx(ctx, db, enqueue("whd_committed1", "whd_committed2")); err != nil {
			t.Fatal(err)
		}
		// In a savepoint: its rollback drops its job, the outer commit keeps the rest.
		if err := database.RunInTx(ctx, db, func(ctx context.Context) error {
			if err := database.RunInTx(ctx, db, enqueue("whd_savepoint_kept")); err != nil {
				return err
			}
			err := database.RunInTx(ctx, db, func(ctx context.Context) error {
				if err := q.Enqueue(ctx, firsts("whd_savepoint_undone")...); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) {
				return fmt.Errorf("inner RunInTx = %v", err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := q.Enqueue(ctx, firsts("whd_alone")...); err != nil {
			t.Fatal(err)
		}

		want := []string{"whd_committed1", "whd_committed2", "whd_savepoint_kept", "whd_alone"}
		f.waitFor(t, 20*time.Second, "committed deliveries attempted", func() bool {
			for _, id := range want {
				if len(f.times(id)) == 0 {
					return false
				}
			}
			return true
		})
		for _, id := range []string{"whd_rolledback", "whd_savepoint_undone"} {
			if n := len(jobsOf(t, db, id)); n != 0 || len(f.times(id)) != 0 {
				t.Errorf("%s: %d jobs, %d attempts; want none (its transaction rolled back)", id, n, len(f.times(id)))
			}
		}
		var n int
		if err := db.NewRaw("SELECT count(*) FROM river_job").Scan(ctx, &n); err != nil || n != len(want) {
			t.Errorf("river_job has %d rows (%v), want %d", n, err, len(want))
		}
	})
}

// TestOutcome: a job completes whatever the Attempter's outcome (it
// enqueues the next attempt itself); an error is retried by River.
func TestOutcome(t *testing.T) {
	each(t, func(t *testing.T, _ string, db *bun.DB) {
		ctx := context.Background()
		f := newFake()
		f.outcome = func(id string, n int) (outbound.Outcome, error) {
			switch {
			case id == "whd_retry":
				return outbound.Outcome{RetryAt: time.Now().Add(time.Hour)}, nil
			case id == "whd_error" && n == 1:
				return outbound.Outcome{}, errors.New("database unreachable")
			}
			return outbound.Outcome{Done: true}, nil
		}
		mustStart(t, db, f, testOptions(2))
		q, err := riverqueue.New(db, f, testOptions(1)) // an insert-only replica
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Enqueue(ctx, firsts("whd_done", "whd_retry", "whd_error")...); err != nil {
			t.Fatal(err)
		}
		f.waitFor(t, 30*time.Second, "every outcome played out", func() bool {
			return len(f.times("whd_done")) == 1 && len(f.times("whd_retry")) == 1 && len(f.times("whd_error")) == 2
		})
		time.Sleep(500 * time.Millisecond) // time for a wrong extra attempt and for River to record the last ones
		for id, want := range map[string]int{"whd_done": 1, "whd_retry": 1, "whd_error": 2} {
			if got := len(f.times(id)); got != want {
				t.Errorf("%s: %d attempts, want %d", id, got, want)
			}
		}
		// River counts errors as attempts.
		for id, want := range map[string]job{"whd_done": {"completed", 1}, "whd_retry": {"completed", 1}, "whd_error": {"completed", 2}} {
			f.waitFor(t, 5*time.Second, id+" recorded", func() bool {
				jobs := jobsOf(t, db, id)
				return len(jobs) == 1 && jobs[0] == want
			})
		}
	})
}

// TestEnqueueBringsForward: enqueueing an attempt that is scheduled
// already, due now (a retry), makes the waiting job due now instead of
// adding one; enqueueing it while it runs adds nothing either; a later
// attempt number is a job of its own.
func TestEnqueueBringsForward(t *testing.T) {
	each(t, func(t *testing.T, _ string, db *bun.DB) {
		ctx := context.Background()
		f := newFake()
		f.hold = 500 * time.Millisecond
		q := mustStart(t, db, f, testOptions(4))
		later := outbound.Scheduled{DeliveryID: "whd_later", Number: 2, At: time.Now().Add(time.Hour)}
		if err := database.RunInTx(ctx, db, func(ctx context.Context) error { return q.Enqueue(ctx, later) }); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		if n := len(f.times("whd_later")); n != 0 {
			t.Fatalf("%d attempts of a job due in an hour", n)
		}
		now := later
		now.At = time.Now()
		start := time.Now()
		if err := database.RunInTx(ctx, db, func(ctx context.Context) error { return q.Enqueue(ctx, now) }); err != nil {
			t.Fatal(err)
		}
		f.waitFor(t, 20*time.Second, "the attempt brought forward", func() bool { return len(f.times("whd_later")) == 1 })
		// It runs (hold): enqueue it again, several times at once.
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := q.Enqueue(ctx, now); err != nil {
					t.Errorf("Enqueue while running: %v", err)
				}
			}()
		}
		wg.Wait()
		time.Sleep(time.Second) // a wrong second job would have run by now
		f.mu.Lock()
		numbers, overlaps := f.numbers["whd_later"], len(f.overlaps)
		f.mu.Unlock()
		if len(numbers) != 1 || numbers[0] != 2 || overlaps != 0 {
			t.Fatalf("attempts %v, %d overlapping; want one, of number 2, %s after it was brought forward", numbers, overlaps, time.Since(start))
		}
		if jobs := jobsOf(t, db, "whd_later"); len(jobs) != 1 || jobs[0] != (job{"completed", 1}) {
			t.Fatalf("jobs %+v, want one, completed", jobs)
		}
		next := outbound.Scheduled{DeliveryID: "whd_later", Number: 3}
		if err := q.Enqueue(ctx, next, next); err != nil {
			t.Fatal(err)
		}
		f.waitFor(t, 20*time.Second, "attempt 3", func() bool { return len(f.times("whd_later")) == 2 })
		if jobs := jobsOf(t, db, "whd_later"); len(jobs) != 2 {
			t.Fatalf("jobs %+v, want two (one per attempt number)", jobs)
		}
		if err := q.Enqueue(ctx, outbound.Scheduled{DeliveryID: "whd_later"}); err == nil {
			t.Fatal("Enqueue of attempt 0 succeeded")
		}
	})
}

func TestOptions(t *testing.T) {
	db := dbtest.SQLite(t)
	for name, opts := range map[string]riverqueue.Options{
		"NegativeWorkers":         {Workers: -1},
		"RescueBeforeJobTimeout":  {RescueAfter: 10 * time.Second},
		"RescueEqualsJobTimeout":  {JobTimeout: time.Minute},
		"NegativeFetchPoll":       {FetchPoll: -time.Second},
		"RescueShorterThanCustom": {JobTimeout: 3 * time.Second, RescueAfter: 2 * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := riverqueue.New(db, newFake(), opts); err == nil {
				t.Fatalf("New(%+v) succeeded", opts)
			}
		})
	}
	if _, err := riverqueue.New(db, newFake(), riverqueue.Options{}); err != nil {
		t.Fatalf("New with defaults: %v", err)
	}
}

// blocking is an Attempter whose attempts last until their context ends.
type blocking struct{ started chan string }

func (b blocking) AttemptNumber(ctx context.Context, id string, _ int) (outbound.Outcome, error) {
	b.started <- id
	<-ctx.Done()
	return outbound.Outcome{}, ctx.Err()
}

// TestStopCancels: a Stop whose context ends before the attempts in
// flight do cancels them, and their jobs are due again at once, the
// interrupted attempt not counted.
func TestStopCancels(t *testing.T) {
	each(t, func(t *testing.T, _ string, db *bun.DB) {
		b := blocking{started: make(chan string, 1)}
		opts := testOptions(1)
		opts.JobTimeout, opts.RescueAfter = time.Minute, 2*time.Minute
		opts.DB = dbtest.RiverDB(t, db)
		q, err := riverqueue.New(db, b, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := q.Enqueue(context.Background(), firsts("whd_interrupted")...); err != nil {
			t.Fatal(err)
		}
		select {
		case <-b.started:
		case <-time.After(20 * time.Second):
			t.Fatal("the delivery was not attempted")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		if err := q.Stop(ctx); err != nil {
			t.Fatalf("Stop = %v", err)
		}
		if jobs := jobsOf(t, db, "whd_interrupted"); len(jobs) != 1 || jobs[0] != (job{"available", 0}) {
			t.Fatalf("jobs %+v, want one available, attempt 0", jobs)
		}
	})
}

// TestStartOnPgdriverNeedsPool: on Bun's pgdriver, Start without a pool of
// River's own refuses, saying what to pass; with one, the queue works.
func TestStartOnPgdriverNeedsPool(t *testing.T) {
	url := dbtest.PostgresURL(t)
	db, err := database.Open(context.Background(), url, database.Options{PostgresDriver: "pgdriver"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := riverqueue.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	q, err := riverqueue.New(db, newFake(), testOptions(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "Options.DB") {
		t.Fatalf("Start on pgdriver without a pool = %v, want advice to set Options.DB", err)
	}
	pool, err := database.Open(context.Background(), url, database.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	opts := testOptions(1)
	opts.DB = pool.DB
	mustStart(t, db, newFake(), opts)
}
