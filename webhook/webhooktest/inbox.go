package webhooktest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/webhook"
)

// RunInbox checks a webhook.Inbox implementation, which newStore's empty
// Store must also be.
func RunInbox(t *testing.T, newStore func(t *testing.T) webhook.Store) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s webhook.Store, in webhook.Inbox)
	}{
		{"EventsByOutcome", testEventsByOutcome},
		{"Settle", testSettle},
		{"SettleConflictAndNotFound", testSettleConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			in, ok := s.(webhook.Inbox)
			if !ok {
				t.Fatalf("webhooktest: %T does not implement webhook.Inbox", s)
			}
			tt.fn(t, s, in)
		})
	}
}

func unmatchedRecord(id string) webhook.Record {
	r := newRecord(id)
	processed := received().Add(time.Second)
	r.Outcome, r.Reason, r.InvoiceID, r.ProcessedAt = webhook.OutcomeUnmatched, "no such invoice", "inv_x", &processed
	return r
}

func testEventsByOutcome(t *testing.T, s webhook.Store, in webhook.Inbox) {
	var unmatched []string // greatest id first
	for i := range 5 {
		r := unmatchedRecord(fmt.Sprintf("evt_u%d", i))
		mustInsert(t, s, r)
		unmatched = slices.Insert(unmatched, 0, r.ID)
	}
	applied := newRecord("evt_z_applied")
	applied.Outcome = webhook.OutcomeApplied
	mustInsert(t, s, applied)
	ctx := context.Background()
	tests := []struct {
		name     string
		f        webhook.EventFilter
		want     []string
		wantMore bool
	}{
		{"All", webhook.EventFilter{Outcome: webhook.OutcomeUnmatched, Limit: 10}, unmatched, false},
		{"FirstPage", webhook.EventFilter{Outcome: webhook.OutcomeUnmatched, Limit: 2}, unmatched[:2], true},
		{"LastPage", webhook.EventFilter{Outcome: webhook.OutcomeUnmatched, Limit: 3, Before: unmatched[1]}, unmatched[2:], false},
		{"OtherOutcome", webhook.EventFilter{Outcome: webhook.OutcomeApplied, Limit: 10}, []string{applied.ID}, false},
		{"None", webhook.EventFilter{Outcome: webhook.OutcomeDismissed, Limit: 10}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			page, more, err := in.Events(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range page {
				got = append(got, r.ID)
			}
			if !slices.Equal(got, tc.want) || more != tc.wantMore {
				t.Fatalf("Events(%+v) = %v more=%v, want %v more=%v", tc.f, got, more, tc.want, tc.wantMore)
			}
		})
	}
}

func testSettle(t *testing.T, s webhook.Store, in webhook.Inbox) {
	r := unmatchedRecord("evt_settle")
	mustInsert(t, s, r)
	processed := received().Add(time.Minute)
	r.Outcome, r.Reason, r.TenantID, r.InvoiceID, r.ProcessedAt = webhook.OutcomeDismissed, "a test payment", "ten_a", "inv_y", &processed
	if err := in.Settle(context.Background(), r, webhook.OutcomeUnmatched); err != nil {
		t.Fatalf("Settle: %v", err)
	}
	wantRecord(t, mustEvent(t, s, r.ID), r)
}

func testSettleConflict(t *testing.T, s webhook.Store, in webhook.Inbox) {
	ctx := context.Background()
	r := unmatchedRecord("evt_once")
	mustInsert(t, s, r)
	r.Outcome = webhook.OutcomeApplied
	if err := in.Settle(ctx, r, webhook.OutcomeUnmatched); err != nil {
		t.Fatalf("first Settle: %v", err)
	}
	if err := in.Settle(ctx, r, webhook.OutcomeUnmatched); !errors.Is(err, webhook.ErrConflict) {
		t.Fatalf("second Settle = %v, want ErrConflict", err)
	}
	missing := unmatchedRecord("evt_missing")
	if err := in.Settle(ctx, missing, webhook.OutcomeUnmatched); !errors.Is(err, webhook.ErrNotFound) {
		t.Fatalf("Settle(missing) = %v, want ErrNotFound", err)
	}
}
