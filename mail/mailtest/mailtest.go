// Package mailtest is the conformance suite every mail.Store must pass:
// Run it from a test of your implementation, as mail/bunstore's test does
// on SQLite and Postgres.
package mailtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/mail"
)

// Fixtures are the tenants and invoices the suite's messages are about:
// a Store that checks references (mail/bunstore does, by foreign key)
// must hold them.
type Fixtures struct {
	TenantA, TenantB   string
	InvoiceA, InvoiceB string // InvoiceA is TenantA's, InvoiceB TenantB's
}

// Run checks a Store. newStore returns an empty Store on every call, and
// the fixtures it holds.
func Run(t *testing.T, newStore func(t *testing.T) (mail.Store, Fixtures)) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s mail.Store, f Fixtures)
	}{
		{"QueueOncePerCause", testQueueOncePerCause},
		{"RoundTrip", testRoundTrip},
		{"TenantIsolation", testTenantIsolation},
		{"Update", testUpdate},
		{"InvoiceMessagesInOrder", testInvoiceMessages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, f := newStore(t)
			tc.fn(t, s, f)
		})
	}
}

func message(tenantID, invoiceID, cause string) mail.Message {
	msgID := id.New(id.Email)
	return mail.Message{ID: msgID, TenantID: tenantID, Kind: mail.KindInvoice, InvoiceID: invoiceID,
		To: "ada@example.com", Cause: cause, MessageID: "<" + msgID + "@example.com>", Status: mail.StatusQueued,
		CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
}

func mustQueue(t *testing.T, s mail.Store, m mail.Message, want bool) {
	t.Helper()
	created, err := s.QueueMessage(context.Background(), m)
	if err != nil || created != want {
		t.Fatalf("QueueMessage(%s, cause %s) = %v, %v; want %v", m.ID, m.Cause, created, err, want)
	}
}

func testQueueOncePerCause(t *testing.T, s mail.Store, f Fixtures) {
	mustQueue(t, s, message(f.TenantA, f.InvoiceA, "evt_1"), true)
	mustQueue(t, s, message(f.TenantA, f.InvoiceA, "evt_1"), false)
	// The cause is the tenant's: another tenant's of the same name is its own.
	mustQueue(t, s, message(f.TenantB, f.InvoiceB, "evt_1"), true)
	mustQueue(t, s, message(f.TenantA, f.InvoiceA, "evt_2"), true)
}

func testRoundTrip(t *testing.T, s mail.Store, f Fixtures) {
	m := message(f.TenantA, f.InvoiceA, "send:1")
	m.Kind = mail.KindReminder
	mustQueue(t, s, m, true)
	got, err := s.Message(context.Background(), f.TenantA, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got != m {
		t.Errorf("read back %+v, want %+v", got, m)
	}
}

func testTenantIsolation(t *testing.T, s mail.Store, f Fixtures) {
	ctx := context.Background()
	m := message(f.TenantA, f.InvoiceA, "send:1")
	mustQueue(t, s, m, true)
	if _, err := s.Message(ctx, f.TenantB, m.ID); !errors.Is(err, mail.ErrNotFound) {
		t.Errorf("another tenant's message: %v, want ErrNotFound", err)
	}
	other := m
	other.TenantID, other.Status = f.TenantB, mail.StatusSent
	if err := s.UpdateMessage(ctx, other); !errors.Is(err, mail.ErrNotFound) {
		t.Errorf("updating another tenant's message: %v, want ErrNotFound", err)
	}
	if ms, err := s.Messages(ctx, f.TenantB, f.InvoiceA); err != nil || len(ms) != 0 {
		t.Errorf("another tenant's invoice's messages: %v, %v", ms, err)
	}
}

func testUpdate(t *testing.T, s mail.Store, f Fixtures) {
	ctx := context.Background()
	m := message(f.TenantA, f.InvoiceA, "send:1")
	mustQueue(t, s, m, true)
	at := time.Now().UTC().Truncate(time.Microsecond)
	m.Status, m.Attempts, m.Error, m.SentAt = mail.StatusSent, 2, "", &at
	if err := s.UpdateMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	got, err := s.Message(ctx, f.TenantA, m.ID)
	if err != nil || got.Status != mail.StatusSent || got.Attempts != 2 || got.SentAt == nil || !got.SentAt.Equal(at) {
		t.Errorf("after update: %+v, %v", got, err)
	}
	m.ID = id.New(id.Email)
	if err := s.UpdateMessage(ctx, m); !errors.Is(err, mail.ErrNotFound) {
		t.Errorf("updating a message that does not exist: %v, want ErrNotFound", err)
	}
}

func testInvoiceMessages(t *testing.T, s mail.Store, f Fixtures) {
	var want []string
	for _, cause := range []string{"send:1", "evt_2", "evt_3"} {
		m := message(f.TenantA, f.InvoiceA, cause)
		mustQueue(t, s, m, true)
		want = append(want, m.ID)
	}
	ms, err := s.Messages(context.Background(), f.TenantA, f.InvoiceA)
	if err != nil || len(ms) != len(want) {
		t.Fatalf("Messages = %d, %v; want %d", len(ms), err, len(want))
	}
	for i, m := range ms {
		if m.ID != want[i] {
			t.Errorf("message %d is %s, want %s (oldest first)", i, m.ID, want[i])
		}
	}
}
