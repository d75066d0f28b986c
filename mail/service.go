package mail

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Invoices reads and finalizes the tenants' invoices (a *billing.Service).
type Invoices interface {
	Get(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)
	Finalize(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)
}

// Tenants names the tenant a message comes from (a *tenancy.Directory).
type Tenants interface {
	Tenant(ctx context.Context, tenantID string) (tenancy.Tenant, error)
}

// Settings are the tenant's settings: its reply-to address and invoice
// footer (a *tenancy.TenantSettings).
type Settings interface {
	Get(ctx context.Context, tenantID string) (tenancy.Settings, error)
}

// Links gives each finalized invoice's hosted page token (a
// *billing.Hosted).
type Links interface {
	Tokens(ctx context.Context, tenantID string, invs ...billing.Invoice) (map[string]string, error)
}

// PDF draws an invoice as a PDF document (an *invoicepdf.Renderer).
type PDF interface {
	Collections(inv billing.Invoice, issuer, hostedURL string) ([]byte, error)
}

// Config is what a Service is built on. Store, Queue, Tx, Sender, From,
// Invoices, Tenants and Settings are required; the rest add to the
// messages when set.
type Config struct {
	Store    Store
	Queue    Queue
	Tx       Transactor
	Sender   Sender
	Invoices Invoices
	Tenants  Tenants
	Settings Settings
	// From is the sender, "Billing <billing@example.com>": the platform's
	// address, in the tenant's name (the display name is the tenant's).
	From string
	// Events records invoice.sent and email.failed.
	Events Events
	// Links and PublicURL make the hosted page's link,
	// PublicURL + "/pay/" + token.
	Links     Links
	PublicURL string
	// PDF attaches the invoice's PDF to the invoice message.
	PDF PDF
}

// Service queues and sends the emails to the tenants' customers.
type Service struct {
	c    Config
	from *mail.Address
	now  func() time.Time
}

// New returns the Service of c.
func New(c Config) (*Service, error) {
	if c.Store == nil || c.Queue == nil || c.Tx == nil || c.Sender == nil || c.Invoices == nil ||
		c.Tenants == nil || c.Settings == nil {
		return nil, errors.New("mail: New needs a store, a queue, a transactor, a sender, invoices, tenants and settings")
	}
	from, err := mail.ParseAddress(c.From)
	if err != nil {
		return nil, fmt.Errorf("mail: the sender address %q: %w", c.From, err)
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	return &Service{c: c, from: from, now: time.Now}, nil
}

// Send queues the invoice to its customer, in one transaction: the
// message and its job. A draft or a void invoice is a
// *billing.TransitionError (ErrConflict); ErrNoRecipient when the
// customer has no email address.
func (s *Service) Send(ctx context.Context, tenantID, invoiceID string) (Message, error) {
	var m Message
	err := s.c.Tx.InTx(ctx, func(ctx context.Context) error {
		inv, err := s.c.Invoices.Get(ctx, tenantID, invoiceID)
		if err != nil {
			return err
		}
		m, err = s.queueInvoice(ctx, inv)
		return err
	})
	return m, err
}

// FinalizeAndSend finalizes the draft and queues it to its customer in
// the same transaction: both happen or neither.
func (s *Service) FinalizeAndSend(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, Message, error) {
	var (
		inv billing.Invoice
		m   Message
	)
	err := s.c.Tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if inv, err = s.c.Invoices.Finalize(ctx, tenantID, invoiceID); err != nil {
			return err
		}
		m, err = s.queueInvoice(ctx, inv)
		return err
	})
	return inv, m, err
}

// queueInvoice queues the invoice message of inv; every send request is a
// cause of its own.
func (s *Service) queueInvoice(ctx context.Context, inv billing.Invoice) (Message, error) {
	if inv.Status == billing.StatusDraft || inv.Status == billing.StatusVoid {
		return Message{}, &billing.TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: "send"}
	}
	msgID := id.New(id.Email)
	m, _, err := s.queue(ctx, inv, KindInvoice, msgID, "send:"+msgID)
	return m, err
}

// Dispatch queues the message an event calls for, in the event's
// transaction: a reminder for invoice.reminder_sent (the steps of module
// collections.reminders; the overdue step only tells the tenant), a receipt for invoice.paid (of a non-zero total). An invoice whose
// customer has no email address gets none. The event's id is the
// cause: the event is written once, so is the message.
// tenantkit.New subscribes it to the Recorder for those types.
func (s *Service) Dispatch(ctx context.Context, e event.Event) error {
	var kind Kind
	switch e.Type {
	case event.InvoiceReminderSent:
		kind = KindReminder
	case event.InvoicePaid:
		kind = KindReceipt
	default:
		return nil
	}
	inv, err := s.c.Invoices.Get(ctx, e.TenantID, e.Resource.ID)
	if err != nil {
		return fmt.Errorf("mail: %s of %s: %w", kind, e.Resource.ID, err)
	}
	if inv.Customer.Email == "" || (kind == KindReceipt && inv.Total == 0) {
		return nil
	}
	_, _, err = s.queue(ctx, inv, kind, id.New(id.Email), e.ID)
	return err
}

// Types are the event types Dispatch acts on.
func Types() []string {
	return []string{event.InvoiceReminderSent, event.InvoicePaid}
}

// queue writes the message of kind about inv for cause, and its job,
// unless cause has queued one already.
func (s *Service) queue(ctx context.Context, inv billing.Invoice, kind Kind, msgID, cause string) (Message, bool, error) {
	if inv.Customer.Email == "" {
		return Message{}, false, ErrNoRecipient
	}
	m := Message{ID: msgID, TenantID: inv.TenantID, Kind: kind, InvoiceID: inv.ID, To: inv.Customer.Email,
		Cause: cause, MessageID: s.messageID(inv.TenantID, cause), Status: StatusQueued,
		CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	created, err := s.c.Store.QueueMessage(ctx, m)
	if err != nil || !created {
		return m, false, err
	}
	if err := s.c.Queue.Enqueue(ctx, m); err != nil {
		return m, false, err
	}
	return m, true, nil
}

// messageID is the Message-ID of the tenant's cause: the same for every
// send of it, in the sender's domain.
func (s *Service) messageID(tenantID, cause string) string {
	sum := sha256.Sum256([]byte(tenantID + "\x00" + cause))
	domain := s.from.Address[strings.LastIndexByte(s.from.Address, '@')+1:]
	return "<" + hex.EncodeToString(sum[:16]) + "@" + domain + ">"
}

// Message returns the tenant's message id.
func (s *Service) Message(ctx context.Context, tenantID, msgID string) (Message, error) {
	return s.c.Store.Message(ctx, tenantID, msgID)
}

// Messages returns the tenant's messages about an invoice, oldest first.
func (s *Service) Messages(ctx context.Context, tenantID, invoiceID string) ([]Message, error) {
	return s.c.Store.Messages(ctx, tenantID, invoiceID)
}

// Deliver sends the queued message: the queue's job. A message sent or
// failed already is left alone. A send the server refused is counted and
// its error kept, and returned for the queue to retry; a sent one is
// recorded as sent, with invoice.sent for an invoice message.
func (s *Service) Deliver(ctx context.Context, tenantID, msgID string) error {
	m, err := s.c.Store.Message(ctx, tenantID, msgID)
	if err != nil {
		return err
	}
	if m.Status != StatusQueued {
		return nil
	}
	raw, err := s.compose(ctx, m)
	if err != nil {
		return err
	}
	m.Attempts++
	if err := s.c.Sender.Send(ctx, s.from.Address, []string{m.To}, raw); err != nil {
		m.Error = err.Error()
		if uerr := s.c.Store.UpdateMessage(ctx, m); uerr != nil {
			return errors.Join(err, uerr)
		}
		return fmt.Errorf("mail: send %s: %w", m.ID, err)
	}
	return s.c.Tx.InTx(ctx, func(ctx context.Context) error {
		at := s.now().UTC().Truncate(time.Microsecond)
		m.Status, m.SentAt, m.Error = StatusSent, &at, ""
		if err := s.c.Store.UpdateMessage(ctx, m); err != nil {
			return err
		}
		if m.Kind != KindInvoice {
			return nil
		}
		return s.record(ctx, event.InvoiceSent, m)
	})
}

// Fail gives up on the message after the queue's last attempt: it is
// marked failed with cause, and email.failed recorded.
func (s *Service) Fail(ctx context.Context, tenantID, msgID string, cause error) error {
	return s.c.Tx.InTx(ctx, func(ctx context.Context) error {
		m, err := s.c.Store.Message(ctx, tenantID, msgID)
		if err != nil || m.Status != StatusQueued {
			return err
		}
		m.Status = StatusFailed
		if m.Error == "" && cause != nil {
			m.Error = cause.Error()
		}
		if err := s.c.Store.UpdateMessage(ctx, m); err != nil {
			return err
		}
		return s.record(ctx, event.EmailFailed, m)
	})
}

func (s *Service) record(ctx context.Context, typ string, m Message) error {
	if s.c.Events == nil {
		return nil
	}
	return s.c.Events.Record(ctx, m.TenantID, typ, "invoice", m.InvoiceID, m)
}
