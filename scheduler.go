package tenantkit

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tenantkit/tenantkit/httpapi"
)

// Job is one periodic task of a Scheduler: it does what is due at now and
// returns how many things it did (for the log). now is the scheduler's
// clock, which tests set; a job reads no other time for its decisions.
//
// A Scheduler runs on every replica of a deployment, so a job must be
// safe to run at the same time from several processes, and again after a
// crash: each item it handles is claimed by a database constraint in the
// transaction that handles it (a unique row inserted ON CONFLICT DO
// NOTHING, a conditional update), so that exactly one run does it.
type Job func(ctx context.Context, now time.Time) (done int, err error)

// The jobs every App's Scheduler runs, in this order.
const (
	// JobBilling generates the platform's invoices of the periods that
	// ended, once each, and marks those past due overdue
	// (contract.Service.RunBilling). It runs before JobContracts, though
	// either order invoices a period under the terms it ended with.
	JobBilling = "billing.platform_run"
	// JobContracts applies the contract changes due at a period boundary
	// (contract.Service.ApplyDueAt).
	JobContracts = "contracts.apply_due"
	// JobCollections takes open invoices through the collection schedule:
	// overdue, reminders, dunning (billing.Dunning.Run).
	JobCollections = "billing.collections"
	// JobSLA marks the support tickets whose service level targets passed
	// unmet (support.Service.CheckSLA), once each, and tells their tenant.
	JobSLA = "support.sla"
	// JobIdempotencyPurge deletes the Idempotency-Keys older than
	// httpapi.IdempotencyTTL.
	JobIdempotencyPurge = "idempotency.purge"
	// JobEventsPrune deletes the events older than App.EventRetention
	// (none when it is 0).
	JobEventsPrune = "events.prune"
)

// Scheduler runs periodic jobs: Tick runs each once at a given time, Run
// ticks on a timer. App.Scheduler holds tenantkit's own jobs; add yours
// with Add. It is safe for concurrent use.
type Scheduler struct {
	mu   sync.Mutex
	jobs []namedJob
}

type namedJob struct {
	name string
	run  Job
}

// JobResult is what one job did in one tick.
type JobResult struct {
	// Job is the name the job was added under.
	Job string
	// Done is the count the job returned.
	Done int
	// Err is the job's error, or its panic turned into one.
	Err error
}

// NewScheduler returns a Scheduler without jobs.
func NewScheduler() *Scheduler { return &Scheduler{} }

// Add registers job under name, to run at every tick after the jobs added
// before it. It panics when name is empty or taken, or job is nil: those
// are wiring mistakes.
func (s *Scheduler) Add(name string, job Job) {
	if name == "" || job == nil {
		panic("tenantkit: Scheduler.Add needs a name and a job")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range s.jobs {
		if j.name == name {
			panic(fmt.Sprintf("tenantkit: Scheduler.Add: job %q is already added", name))
		}
	}
	s.jobs = append(s.jobs, namedJob{name: name, run: job})
}

// Jobs returns the names of the jobs, in the order they run.
func (s *Scheduler) Jobs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, len(s.jobs))
	for i, j := range s.jobs {
		names[i] = j.name
	}
	return names
}

// Tick runs every job once, in order, at now. A job that fails (or
// panics) does not stop the others; the error joins the failures, each
// prefixed with its job's name.
func (s *Scheduler) Tick(ctx context.Context, now time.Time) error {
	var errs []error
	for _, r := range s.tick(ctx, now) {
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.Job, r.Err))
		}
	}
	return errors.Join(errs...)
}

// tick runs every job once at now and returns what each did.
func (s *Scheduler) tick(ctx context.Context, now time.Time) []JobResult {
	s.mu.Lock()
	jobs := append([]namedJob(nil), s.jobs...)
	s.mu.Unlock()
	results := make([]JobResult, 0, len(jobs))
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		done, err := runJob(ctx, j.run, now)
		results = append(results, JobResult{Job: j.name, Done: done, Err: err})
	}
	return results
}

// runJob runs job, turning a panic into an error: a job's bug must not
// take the server down with it.
func runJob(ctx context.Context, job Job, now time.Time) (done int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return job(ctx, now)
}

// Run ticks at once and then every interval, at time.Now, until ctx ends,
// and hands each job's result of each tick to report (which may be nil).
// Ticks do not overlap: one that outlasts the interval delays the next.
// It returns at once when interval is not positive.
func (s *Scheduler) Run(ctx context.Context, interval time.Duration, report func(JobResult)) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		for _, r := range s.tick(ctx, time.Now()) {
			if report != nil {
				report(r)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// schedule adds tenantkit's own jobs to a.Scheduler, one line each. A
// domain with periodic work (an SLA check, a retention purge) adds its
// line here; a host adds its own jobs with a.Scheduler.Add after New.
func (a *App) schedule() {
	s := a.Scheduler
	s.Add(JobBilling, a.Contracts.RunBilling)
	s.Add(JobContracts, func(ctx context.Context, now time.Time) (int, error) {
		applied, err := a.Contracts.ApplyDueAt(ctx, now)
		return len(applied), err
	})
	s.Add(JobCollections, a.Dunning.Run)
	s.Add(JobSLA, a.Support.CheckSLA)
	s.Add(JobIdempotencyPurge, func(ctx context.Context, now time.Time) (int, error) {
		n, err := a.idempotency.Purge(ctx, now.Add(-httpapi.IdempotencyTTL))
		return int(n), err
	})
	s.Add(JobEventsPrune, func(ctx context.Context, now time.Time) (int, error) {
		n, err := a.Events.Prune(ctx, now, a.EventRetention)
		return int(n), err
	})
}
