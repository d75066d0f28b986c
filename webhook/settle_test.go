package webhook_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/webhook"
)

// TestSettlementRefusesInput: what an operator sends is checked before
// anything is read, each refusal naming its field.
func TestSettlementRefusesInput(t *testing.T) {
	s := webhook.NewSettlement(nil, nil) // nothing is read or written
	tests := []struct {
		name        string
		run         func() error
		field, code string
		message     string
	}{
		{"UnknownOutcome", func() error {
			_, _, err := s.Events(context.Background(), webhook.EventFilter{Outcome: "lost"})
			return err
		}, "outcome", field.Invalid, "must be one of: unmatched, applied, dismissed, ignored, pending"},
		{"BadCursor", func() error {
			_, _, err := s.Events(context.Background(), webhook.EventFilter{Before: "evt 1"})
			return err
		}, "cursor", field.Invalid, "is not an event position"},
		{"NoInvoice", func() error {
			_, err := s.Apply(context.Background(), "evt_1", " ")
			return err
		}, "invoice_id", field.Required, "is required"},
		{"NotAnInvoiceID", func() error {
			_, err := s.Apply(context.Background(), "evt_1", "inv_x")
			return err
		}, "invoice_id", field.Invalid, "must be an id like inv_ followed by 26 lower-case letters and digits"},
		{"BlankReason", func() error {
			_, err := s.Dismiss(context.Background(), "evt_1", " \n ")
			return err
		}, "reason", field.Required, "is required"},
		{"LongReason", func() error {
			_, err := s.Dismiss(context.Background(), "evt_1", strings.Repeat("é", 501))
			return err
		}, "reason", field.TooLong, "must have at most 500 characters"},
		{"ReasonWithNUL", func() error {
			_, err := s.Dismiss(context.Background(), "evt_1", "test\x00")
			return err
		}, "reason", field.NulByte, "must not contain NUL (U+0000)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ie *field.InvalidError
			if err := tt.run(); !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InvalidError", err)
			}
			want := field.Error{Field: tt.field, Code: tt.code, Message: tt.message}
			if got := ie.Errors(); len(got) != 1 || got[0] != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}
