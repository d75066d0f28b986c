package riverqueue_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/webhook/outbound"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// envStuckReplica, set to a database URL, turns the test binary into a
// replica whose every attempt hangs (see TestMain).
const envStuckReplica = "RIVERQUEUE_TEST_STUCK_REPLICA"

func TestMain(m *testing.M) {
	if url := os.Getenv(envStuckReplica); url != "" {
		runStuckReplica(url)
		return
	}
	os.Exit(m.Run())
}

// stuck is an Attempter that announces each attempt on stdout and never
// returns: a replica frozen mid-delivery, until it is killed.
type stuck struct{ mu sync.Mutex }

func (s *stuck) AttemptNumber(ctx context.Context, id string, _ int) (outbound.Outcome, error) {
	s.mu.Lock()
	fmt.Println("attempting", id)
	s.mu.Unlock()
	select {}
}

// runStuckReplica runs a Queue with a stuck Attempter on url until killed.
func runStuckReplica(url string) {
	db, err := database.Open(context.Background(), url, dbtest.Options())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	opts := testOptions(1)
	if dbtest.Options().PostgresDriver == "pgdriver" { // River works on pgx (Options.DB)
		river, err := database.Open(context.Background(), url, database.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		opts.DB = river.DB
	}
	q, err := riverqueue.New(db, &stuck{}, opts)
	if err == nil {
		err = q.Start(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("started")
	select {}
}

// TestReplicas: two replicas of four workers each on one database work
// 1,000 deliveries; each is attempted once, never by two workers at once.
func TestReplicas(t *testing.T) {
	const n = 1000
	each(t, func(t *testing.T, _ string, db *bun.DB) {
		ctx := context.Background()
		f := newFake()
		f.hold = time.Millisecond
		var worked [2]atomic.Int64
		for i := range worked {
			mustStart(t, db, counting{f, &worked[i]}, testOptions(4))
		}
		api, err := riverqueue.New(db, f, riverqueue.Options{}) // a replica that only enqueues
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("whd_%04d", i)
		}
		for i := 0; i < n; i += 100 {
			if err := database.RunInTx(ctx, db, func(ctx context.Context) error { return api.Enqueue(ctx, firsts(ids[i:i+100]...)...) }); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		attempted := func() (done, dup int) {
			f.mu.Lock()
			defer f.mu.Unlock()
			for _, id := range ids {
				if k := len(f.attempts[id]); k > 0 {
					done++
					dup += k - 1
				}
			}
			return done, dup
		}
		f.waitFor(t, 3*time.Minute, "every delivery attempted", func() bool { done, _ := attempted(); return done == n })
		time.Sleep(time.Second) // a job attempted twice would show by now
		_, dup := attempted()
		f.mu.Lock()
		overlaps := len(f.overlaps)
		f.mu.Unlock()
		t.Logf("%d deliveries attempted in %s (replicas: %d, %d); %d duplicate attempts, %d concurrent",
			n, time.Since(start).Round(time.Millisecond), worked[0].Load(), worked[1].Load(), dup, overlaps)
		if dup != 0 || overlaps != 0 {
			t.Fatalf("%d duplicate attempts, %d attempted by two workers at once; want none", dup, overlaps)
		}
	})
}

// counting counts the attempts one replica makes.
type counting struct {
	*fake
	n *atomic.Int64
}

func (c counting) AttemptNumber(ctx context.Context, id string, number int) (outbound.Outcome, error) {
	c.n.Add(1)
	return c.fake.AttemptNumber(ctx, id, number)
}

// TestRescue: a replica killed (SIGKILL) in the middle of an attempt
// leaves its job running; once the lease (RescueAfter) is over, another
// replica attempts it again. The killed replica was River's leader, so
// this also waits for the survivor to take the leadership over, which
// runs the rescuer.
func TestRescue(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for River's leader election and rescuer (about 30 s per database)")
	}
	each(t, func(t *testing.T, url string, db *bun.DB) {
		ctx := context.Background()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envStuckReplica+"="+url)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		await := func(want string) {
			t.Helper()
			select {
			case line := <-lines:
				if line != want {
					t.Fatalf("stuck replica said %q, want %q", line, want)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("stuck replica did not say %q", want)
			}
		}
		await("started")
		q, err := riverqueue.New(db, newFake(), testOptions(1))
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Enqueue(ctx, firsts("whd_rescued")...); err != nil {
			t.Fatal(err)
		}
		await("attempting whd_rescued")
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		killed := time.Now()
		if jobs := jobsOf(t, db, "whd_rescued"); len(jobs) != 1 || jobs[0].State != "running" {
			t.Fatalf("after the kill: jobs %+v, want one running", jobs)
		}

		f := newFake()
		mustStart(t, db, f, testOptions(1))
		f.waitFor(t, 90*time.Second, "the killed replica's delivery attempted again", func() bool { return len(f.times("whd_rescued")) == 1 })
		t.Logf("attempted again %s after the kill", time.Since(killed).Round(100*time.Millisecond))
		f.waitFor(t, 5*time.Second, "the rescued job completed", func() bool {
			jobs := jobsOf(t, db, "whd_rescued")
			return len(jobs) == 1 && jobs[0] == job{"completed", 2}
		})
		var errs string
		query := "SELECT json(errors) FROM river_job"
		if database.IsPostgres(db) {
			query = "SELECT errors::text FROM river_job"
		}
		if err := db.NewRaw(query).Scan(ctx, &errs); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(errs, "rescued") {
			t.Errorf("job errors %s, want River's rescue noted", errs)
		}
	})
}
