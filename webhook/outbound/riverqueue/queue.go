// Package riverqueue is outbound's durable delivery queue, on River
// (https://riverqueue.com) in tenantkit's own database, Postgres or SQLite.
//
// Enqueue inserts one River job per attempt (a delivery's id and the
// attempt's number) on the transaction the context carries, so an attempt
// is scheduled exactly when the change that caused it commits. The jobs are
// unique by delivery and number while waiting or running: enqueueing an
// attempt that is already scheduled (a retry) makes it due at once instead
// of adding a second. Every replica runs a Queue (Start); each job is
// locked by one worker of one replica while it runs, so an attempt happens
// on one replica at a time. A worker makes its attempt (Attempter), which
// enqueues the next one, in the transaction that records it, when the
// delivery stays pending; the job then completes.
//
// Delivery is at least once. A replica killed mid-attempt leaves its job
// "running"; after Options.RescueAfter River's rescuer (on whichever
// replica is the elected leader) makes it available again and another
// replica attempts it anew: the receiver may see that delivery twice, and
// drops the duplicate by its webhook-id.
//
// River keeps its tables (river_job, river_leader, river_queue,
// river_client, river_client_queue, river_migration; on SQLite also
// river_notification) next to tenantkit's; Migrate creates them.
package riverqueue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivertype"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// Defaults of Options.
const (
	DefaultWorkers     = 32
	DefaultRescueAfter = time.Minute
	DefaultJobTimeout  = 15 * time.Second
	DefaultFetchPoll   = time.Second
)

// queueName is the River queue the deliveries go through, so that a host
// may use River for jobs of its own on the same tables.
const queueName = "outbound"

// Attempter makes attempt number of a delivery, records it and enqueues
// the next when one is due: the queue's view of outbound.Service. It
// makes none when number is no longer the delivery's next. An error means
// the attempt could not be made or recorded (the database is unreachable,
// say); the job is then retried with River's backoff.
type Attempter interface {
	AttemptNumber(ctx context.Context, deliveryID string, number int) (outbound.Outcome, error)
}

// Options tune a Queue. The zero value is a production setting.
type Options struct {
	// Workers is how many attempts this replica makes at once (default
	// 32). A worker mostly waits for the receiver, holding no database
	// connection: a replica makes at most Workers attempts per receiver
	// answer time.
	// A replica that should deliver nothing does not Start its Queue; it
	// can still Enqueue.
	Workers int
	// JobTimeout bounds one attempt: its context is cancelled after it
	// (default 15 s, above the 10 s HTTP timeout of an attempt).
	JobTimeout time.Duration
	// RescueAfter is how long a job may stay running before River takes it
	// for dead (its replica was killed) and makes it available to the
	// others: the lease of an attempt. Default one minute. It must exceed
	// JobTimeout, with a margin for recording the attempt, else an attempt
	// still running could be made a second time at once.
	RescueAfter time.Duration
	// FetchPoll is how often a replica looks for jobs due (default 1 s). On
	// SQLite River also wakes on its notification table, and an Enqueue
	// outside a transaction wakes its own replica at once.
	FetchPoll time.Duration
	// Logger receives River's own log; nil discards it.
	Logger *slog.Logger
	// DB is the pool River works on (fetching jobs, electing a leader,
	// maintenance); nil: the *bun.DB's own. A host on Bun's pgdriver
	// passes a pgx pool (pgx/v5/stdlib) on the same database here:
	// pgdriver writes River's arguments into its SQL and misreads the
	// apostrophes of River's comments, so River's leader election fails
	// on it. Jobs are still inserted on the caller's transaction.
	DB *sql.DB
	// Jobs are other kinds of job worked by the same River client, on
	// the same tables: tenantkit's emails (mail/mailqueue), or a host's.
	Jobs []Jobs
}

// Jobs is a kind of job of its own on the Queue's River client: Register
// adds its workers, and it is worked in Queue, by Workers workers per
// replica. Insert puts its jobs on the queue.
type Jobs struct {
	Queue    string
	Workers  int
	Register func(*river.Workers) error
}

// withDefaults fills the zero fields of o and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.JobTimeout == 0 {
		o.JobTimeout = DefaultJobTimeout
	}
	if o.RescueAfter == 0 {
		o.RescueAfter = DefaultRescueAfter
	}
	if o.FetchPoll == 0 {
		o.FetchPoll = DefaultFetchPoll
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case o.Workers < 0:
		return o, fmt.Errorf("outbound/riverqueue: %d workers", o.Workers)
	case o.JobTimeout < 0 || o.FetchPoll < 0:
		return o, errors.New("outbound/riverqueue: negative job timeout or fetch poll interval")
	case o.RescueAfter <= o.JobTimeout:
		return o, fmt.Errorf("outbound/riverqueue: rescue after %s must exceed the job timeout %s (a running attempt would be taken for dead)", o.RescueAfter, o.JobTimeout)
	}
	return o, nil
}

// Queue is the durable delivery queue: it implements outbound.Queue, and
// once started works the deliveries with an Attempter.
type Queue struct {
	db     *bun.DB
	client *river.Client[*sql.Tx]
	noWork bool // on pgdriver without Options.DB: Start refuses
}

var _ outbound.Queue = (*Queue)(nil)

// New returns the Queue on db (Postgres or SQLite, migrated with Migrate)
// whose workers make their attempts with attempter.
func New(db *bun.DB, attempter Attempter, opts Options) (*Queue, error) {
	if db == nil || attempter == nil {
		return nil, errors.New("outbound/riverqueue: New needs a database and an Attempter")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, &worker{attempter: attempter}); err != nil {
		return nil, fmt.Errorf("outbound/riverqueue: %w", err)
	}
	queues := map[string]river.QueueConfig{queueName: {MaxWorkers: opts.Workers}}
	for _, j := range opts.Jobs {
		if j.Queue == "" || j.Queue == queueName || j.Workers < 1 || j.Register == nil {
			return nil, fmt.Errorf("outbound/riverqueue: jobs of queue %q need a queue of their own, workers and Register", j.Queue)
		}
		if err := j.Register(workers); err != nil {
			return nil, fmt.Errorf("outbound/riverqueue: %w", err)
		}
		queues[j.Queue] = river.QueueConfig{MaxWorkers: j.Workers}
	}
	pool := db.DB
	if opts.DB != nil {
		pool = opts.DB
	}
	client, err := river.NewClient(driver(db, pool), &river.Config{
		Queues:               queues,
		Workers:              workers,
		JobTimeout:           opts.JobTimeout,
		RescueStuckJobsAfter: opts.RescueAfter,
		FetchPollInterval:    opts.FetchPoll,
		FetchCooldown:        min(opts.FetchPoll, fetchCooldown),
		Logger:               opts.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("outbound/riverqueue: %w", err)
	}
	return &Queue{db: db, client: client, noWork: opts.DB == nil && onPgdriver(db)}, nil
}

// onPgdriver reports whether db runs on Bun's pgdriver.
func onPgdriver(db *bun.DB) bool {
	_, ok := db.DB.Driver().(pgdriver.Driver)
	return ok
}

// fetchCooldown is the least time between two fetches of jobs while jobs
// are waiting: River's default, 100 ms, caps a replica at Workers short
// deliveries per 100 ms (docs/performance.md).
const fetchCooldown = 10 * time.Millisecond

// driver is River's driver for db's dialect, working on pool. Both run on
// database/sql, so a job can be inserted on the *sql.Tx under a bun.Tx.
func driver(db *bun.DB, pool *sql.DB) riverdriver.Driver[*sql.Tx] {
	if database.IsPostgres(db) {
		return riverdatabasesql.New(pool)
	}
	return riversqlite.New(pool)
}

// Enqueue schedules each attempt on the transaction ctx carries (a
// savepoint's too: it shares its transaction's *sql.Tx), or in a
// transaction of its own when ctx carries none. An attempt whose job is
// waiting already is not inserted again; when the new one is due now, the
// waiting job is made due now (River's JobRetry). A running job is left
// alone: the Attempter's recording sees the retry that asked for this.
func (q *Queue) Enqueue(ctx context.Context, attempts ...outbound.Scheduled) error {
	attempts, err := distinct(attempts)
	if err != nil || len(attempts) == 0 {
		return err
	}
	now := time.Now()
	params := make([]river.InsertManyParams, len(attempts))
	for i, a := range attempts {
		opts := insertOpts()
		if a.At.After(now) {
			opts.ScheduledAt = a.At
		}
		params[i] = river.InsertManyParams{Args: deliveryArgs{DeliveryID: a.DeliveryID, Number: a.Number}, InsertOpts: &opts}
	}
	// River's statements run through its own driver on the *sql.Tx, so
	// the transaction is shared but a bun.QueryHook does not see them.
	tx, inTx := database.Conn(ctx, q.db).(bun.Tx)
	var res []*rivertype.JobInsertResult
	if inTx {
		res, err = q.client.InsertManyTx(ctx, tx.Tx, params)
	} else {
		res, err = q.client.InsertMany(ctx, params)
	}
	if err != nil {
		return fmt.Errorf("outbound/riverqueue: enqueue %d attempts: %w", len(attempts), database.Wrap(err))
	}
	for i, r := range res {
		if !r.UniqueSkippedAsDuplicate || attempts[i].At.After(now) || !waiting(r.Job.State) {
			continue
		}
		if inTx {
			_, err = q.client.JobRetryTx(ctx, tx.Tx, r.Job.ID)
		} else {
			_, err = q.client.JobRetry(ctx, r.Job.ID)
		}
		if err != nil {
			return fmt.Errorf("outbound/riverqueue: bring attempt %d of %s forward: %w", attempts[i].Number, attempts[i].DeliveryID, database.Wrap(err))
		}
	}
	return nil
}

// Insert puts a job of one of Options.Jobs on the queue, on the
// transaction ctx carries (or in one of its own): it exists exactly when
// the work that asked for it commits.
func (q *Queue) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) error {
	var err error
	if tx, ok := database.Conn(ctx, q.db).(bun.Tx); ok {
		_, err = q.client.InsertTx(ctx, tx.Tx, args, opts)
	} else {
		_, err = q.client.Insert(ctx, args, opts)
	}
	if err != nil {
		return fmt.Errorf("outbound/riverqueue: insert %s: %w", args.Kind(), database.Wrap(err))
	}
	return nil
}

// distinct checks attempts and returns them without repeats (River
// refuses a batch that holds a unique job twice), each at its earliest
// time.
func distinct(attempts []outbound.Scheduled) ([]outbound.Scheduled, error) {
	type key struct {
		id     string
		number int
	}
	out := make([]outbound.Scheduled, 0, len(attempts))
	seen := make(map[key]int, len(attempts))
	for _, a := range attempts {
		if a.DeliveryID == "" || a.Number < 1 {
			return nil, fmt.Errorf("outbound/riverqueue: enqueue attempt %d of delivery %q", a.Number, a.DeliveryID)
		}
		k := key{a.DeliveryID, a.Number}
		if i, ok := seen[k]; ok {
			if a.At.Before(out[i].At) {
				out[i].At = a.At
			}
			continue
		}
		seen[k] = len(out)
		out = append(out, a)
	}
	return out, nil
}

// waiting reports whether a job in state st waits for its time (a
// scheduled attempt, or one River retries after an error).
func waiting(st rivertype.JobState) bool {
	return st == rivertype.JobStateScheduled || st == rivertype.JobStateRetryable
}

// Start starts working deliveries on this replica, in the background,
// until Stop (or until ctx ends, which cancels the attempts in flight).
func (q *Queue) Start(ctx context.Context) error {
	if q.noWork {
		return errors.New("outbound/riverqueue: River cannot work on Bun's pgdriver; set Options.DB to a pgx pool (pgx/v5/stdlib) on the same database")
	}
	if err := q.client.Start(ctx); err != nil {
		return fmt.Errorf("outbound/riverqueue: start: %w", err)
	}
	return nil
}

// Stop stops fetching deliveries and waits for the attempts in flight to
// finish and be recorded. When ctx ends first it cancels them and waits
// a few seconds more for River to record their jobs as interrupted (due
// again at once, on whichever replica is up). A job whose recording is
// lost here is rescued after RescueAfter.
func (q *Queue) Stop(ctx context.Context) error {
	err := q.client.Stop(ctx)
	if err == nil || ctx.Err() == nil {
		return err
	}
	hard, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if herr := q.client.StopAndCancel(hard); herr != nil {
		return fmt.Errorf("outbound/riverqueue: stop: %w", herr)
	}
	return nil
}
