// Package mail emails a tenant's customers what they owe: the invoice when
// it is sent (its PDF attached, its hosted page linked), the reminders of
// the collection schedule, and a receipt when it is paid (SPEC §18).
//
// A message is first a row of the outbox (Store), written in the
// transaction of its cause — the send request, the reminder step, the
// payment — together with a job of the durable queue (Queue) that will
// send it. The cause is unique per tenant, so a cause queues one message
// however often it is replayed; the message's Message-ID header is
// derived from the cause, so a receiver can drop the copy of a send that
// was repeated after a crash between the SMTP server's acceptance and the
// outbox's record of it. The queue retries a failed send with backoff;
// the last failure marks the message failed and records email.failed.
//
// Package mail/bunstore keeps the outbox on Postgres or SQLite, and
// mail/mailqueue is the queue on River. The Service composes the message
// (compose.go, in the customer's locale where translated) and hands it
// to a Sender, SMTP by default (smtp.go).
package mail

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/billing"
)

// Kind is what a message tells the customer.
type Kind string

// The kinds of message.
const (
	// KindInvoice is the invoice itself: sent on request (Service.Send) or
	// on finalize.
	KindInvoice Kind = "invoice"
	// KindReminder is a reminder step of the collection schedule
	// (invoice.reminder_sent).
	KindReminder Kind = "reminder"
	// KindReceipt thanks the customer for paying the invoice in full.
	KindReceipt Kind = "receipt"
)

// Status is where a message is in the outbox.
type Status string

// The statuses of a message.
const (
	StatusQueued Status = "queued"
	StatusSent   Status = "sent"
	StatusFailed Status = "failed"
)

// Message is one email to a tenant's customer about one invoice.
type Message struct {
	// ID is "eml_…".
	ID       string `json:"id"`
	TenantID string `json:"-"`
	// Kind is what it tells: invoice, reminder, receipt.
	Kind      Kind   `json:"kind"`
	InvoiceID string `json:"invoice_id"`
	// To is the customer's address, as it was when the message was queued.
	To string `json:"to"`
	// Cause is what queued it, unique per tenant: "send:eml_…" for a send
	// request, the event's id for a reminder or a receipt.
	Cause string `json:"-"`
	// MessageID is the Message-ID header, derived from the cause.
	MessageID string `json:"message_id"`
	Status    Status `json:"status"`
	// Attempts counts the sends tried so far.
	Attempts int `json:"attempts"`
	// Error is the last failure, for the tenant's eyes: the SMTP server's
	// answer, never a credential.
	Error     string     `json:"error,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	SentAt    *time.Time `json:"sent_at,omitempty"`
}

// Store is the outbox. Every method joins the transaction ctx carries and
// confines itself to the tenant it is given; mailtest.Run checks one.
type Store interface {
	// QueueMessage inserts m unless the tenant has a message of m.Cause
	// already, and reports whether it inserted it.
	QueueMessage(ctx context.Context, m Message) (bool, error)
	// Message returns the tenant's message id; ErrNotFound when none.
	Message(ctx context.Context, tenantID, id string) (Message, error)
	// UpdateMessage writes m's status, attempts, error and sent time.
	UpdateMessage(ctx context.Context, m Message) error
	// Messages returns the tenant's messages about an invoice, oldest
	// first.
	Messages(ctx context.Context, tenantID, invoiceID string) ([]Message, error)
}

// Queue schedules the sending of a queued message on the durable job
// queue, in the transaction ctx carries: the job exists exactly when the
// message's row does.
type Queue interface {
	Enqueue(ctx context.Context, m Message) error
}

// Sender hands a composed message to a mail server.
type Sender interface {
	// Send delivers msg (RFC 5322, CRLF lines) from from to the
	// recipients. An error means the server did not take it.
	Send(ctx context.Context, from string, to []string, msg []byte) error
}

// Transactor runs fn in one transaction carried by its context.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Events records the audit trail's events (an *event.Recorder).
type Events interface {
	Record(ctx context.Context, tenantID, typ, resourceType, resourceID string, data any) error
}

var (
	// ErrNotConfigured is returned by Send when the server has no mail
	// server: HTTP 409 mail_not_configured.
	ErrNotConfigured = errors.New("no mail server is configured (TENANTKIT_SMTP_URL), so invoices cannot be sent by email")
	// ErrNotFound is a message that does not exist or is another
	// tenant's. It matches billing.ErrNotFound.
	ErrNotFound = fmt.Errorf("mail: message: %w", billing.ErrNotFound)
	// ErrNoRecipient is an invoice whose customer has no email address.
	ErrNoRecipient = fmt.Errorf("the invoice's customer has no email address: %w", billing.ErrInvalid)
)
