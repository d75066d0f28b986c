package riverqueue

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
)

// deliveryArgs are a delivery job's arguments: the delivery's id only;
// everything else is read from the delivery when it is attempted.
type deliveryArgs struct {
	DeliveryID string `json:"delivery_id"`
}

// Kind names the job in River's tables.
func (deliveryArgs) Kind() string { return "outbound_delivery" }

// InsertOpts puts the jobs in the outbound queue.
func (deliveryArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: queueName} }

// worker makes the attempt a job stands for.
type worker struct {
	river.WorkerDefaults[deliveryArgs]
	attempter Attempter
}

// Work makes one attempt, its context bounded by the client's JobTimeout,
// and tells River what comes next:
//
//   - Done: the job completes.
//   - RetryAt: the job snoozes until then. A snooze gives back the attempt
//     River counted when it fetched the job, so the deliveries' own
//     schedule (about three days) is never cut short by River's
//     MaxAttempts (25), which counts only errors and rescues.
//   - an error (the attempt could not be made or recorded): returned, so
//     River retries the job with its backoff, attempt^4 seconds.
func (w *worker) Work(ctx context.Context, job *river.Job[deliveryArgs]) error {
	out, err := w.attempter.Attempt(ctx, job.Args.DeliveryID)
	switch {
	case err != nil:
		return fmt.Errorf("outbound/riverqueue: attempt %s: %w", job.Args.DeliveryID, err)
	case out.Done:
		return nil
	case out.RetryAt.IsZero():
		return fmt.Errorf("outbound/riverqueue: attempt %s: outcome is neither done nor due again", job.Args.DeliveryID)
	}
	return river.JobSnooze(max(time.Until(out.RetryAt), 0))
}
