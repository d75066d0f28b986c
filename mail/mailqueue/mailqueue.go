// Package mailqueue is mail's durable queue on River, on the River client
// of the outbound webhooks (riverqueue.Options.Jobs): one job per message,
// inserted in the transaction that queues the message, worked on every
// replica that starts the queue, retried with River's backoff (attempt⁴
// seconds) until MaxAttempts, after which the message is marked failed.
package mailqueue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// Defaults of Options.
const (
	DefaultWorkers     = 2
	DefaultMaxAttempts = 8 // the last about 80 minutes after the first
)

// queueName is the River queue of the emails.
const queueName = "mail"

// jobTimeout bounds one send: above the SMTP sender's own 30 s, below
// River's rescue of a job taken for dead (riverqueue.DefaultRescueAfter).
const jobTimeout = 45 * time.Second

// Deliverer sends a queued message, and gives it up (a *mail.Service).
type Deliverer interface {
	Deliver(ctx context.Context, tenantID, msgID string) error
	Fail(ctx context.Context, tenantID, msgID string, cause error) error
}

// Options tune the emails' jobs; the zero value takes the defaults.
type Options struct {
	// Workers is how many messages a replica sends at once.
	Workers int
	// MaxAttempts is how many sends a message gets before it fails.
	MaxAttempts int
}

// Jobs are the emails' jobs for riverqueue.Options.Jobs, worked by d.
func Jobs(d Deliverer, o Options) riverqueue.Jobs {
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	return riverqueue.Jobs{Queue: queueName, Workers: o.Workers, Register: func(w *river.Workers) error {
		return river.AddWorkerSafely(w, &worker{d: d})
	}}
}

// Queue is the mail.Queue on a riverqueue.Queue built with Jobs.
type Queue struct {
	q           *riverqueue.Queue
	maxAttempts int
}

var _ mail.Queue = Queue{}

// New returns the mail.Queue inserting on q; o as given to Jobs.
func New(q *riverqueue.Queue, o Options) Queue {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	return Queue{q: q, maxAttempts: o.MaxAttempts}
}

// Enqueue implements mail.Queue: one job for the message, unique by it.
func (q Queue) Enqueue(ctx context.Context, m mail.Message) error {
	return q.q.Insert(ctx, sendArgs{TenantID: m.TenantID, MessageID: m.ID}, &river.InsertOpts{
		Queue: queueName, MaxAttempts: q.maxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}})
}

// sendArgs name the message a job sends.
type sendArgs struct {
	TenantID  string `json:"tenant_id"`
	MessageID string `json:"message_id"`
}

// Kind names the job in River's tables.
func (sendArgs) Kind() string { return "mail_send" }

type worker struct {
	river.WorkerDefaults[sendArgs]
	d Deliverer
}

// Timeout bounds one send.
func (*worker) Timeout(*river.Job[sendArgs]) time.Duration { return jobTimeout }

// Work sends the message; a failure is returned for River to retry,
// except after the last attempt, when the message is given up.
func (w *worker) Work(ctx context.Context, job *river.Job[sendArgs]) error {
	err := w.d.Deliver(ctx, job.Args.TenantID, job.Args.MessageID)
	if err == nil || errors.Is(err, mail.ErrNotFound) {
		return nil
	}
	if job.Attempt >= job.MaxAttempts {
		if ferr := w.d.Fail(ctx, job.Args.TenantID, job.Args.MessageID, err); ferr != nil {
			return errors.Join(err, ferr)
		}
		return nil
	}
	return fmt.Errorf("mailqueue: %w", err)
}
