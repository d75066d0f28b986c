package riverqueue

import (
	"context"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// deliveryArgs are an attempt job's arguments: the delivery's id and the
// attempt's number; everything else is read from the delivery when it is
// attempted. A job from before attempts were numbered has Number 0: its
// attempt is the delivery's next, whichever.
type deliveryArgs struct {
	DeliveryID string `json:"delivery_id"`
	Number     int    `json:"number,omitempty"`
}

// Kind names the job in River's tables.
func (deliveryArgs) Kind() string { return "outbound_delivery" }

// InsertOpts puts the jobs in the outbound queue, unique.
func (deliveryArgs) InsertOpts() river.InsertOpts { return insertOpts() }

// insertOpts put a job in the outbound queue, unique by its arguments
// while it waits or runs: one job per attempt of a delivery, so that
// enqueueing an attempt twice never makes two (River requires the states
// available, pending, running and scheduled; retryable is a job waiting
// after an error). A completed or discarded job does not count: a retry
// after it enqueues the attempt anew.
func insertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueName, UniqueOpts: river.UniqueOpts{
		ByArgs: true,
		ByState: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
			rivertype.JobStateRunning, rivertype.JobStateScheduled, rivertype.JobStateRetryable},
	}}
}

// worker makes the attempt a job stands for.
type worker struct {
	river.WorkerDefaults[deliveryArgs]
	attempter Attempter
}

// Work makes the job's attempt, its context bounded by the client's
// JobTimeout. The job completes whatever the outcome: the Attempter
// enqueues the next attempt, when one is due, in the transaction that
// records this one. An error (the attempt could not be made or recorded)
// is returned, so River retries the job with its backoff, attempt^4
// seconds.
func (w *worker) Work(ctx context.Context, job *river.Job[deliveryArgs]) error {
	if _, err := w.attempter.AttemptNumber(ctx, job.Args.DeliveryID, job.Args.Number); err != nil {
		return fmt.Errorf("outbound/riverqueue: attempt %d of %s: %w", job.Args.Number, job.Args.DeliveryID, err)
	}
	return nil
}
