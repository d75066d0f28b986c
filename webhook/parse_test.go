package webhook_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/webhook"
)

func TestParseEvent(t *testing.T) {
	reason := "card_declined"
	tests := []struct {
		name string
		body string
		want webhook.Event
	}{
		{"Succeeded",
			`{"id":"evt_1","type":"payment.succeeded","created_at":"2026-11-21T10:00:00+01:00","data":{"payment_id":"pay_1","invoice_id":"inv_1","amount":1999,"currency":"USD","failure_reason":null}}`,
			webhook.Event{ID: "evt_1", Type: "payment.succeeded", CreatedAt: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
				Data: webhook.EventData{PaymentID: "pay_1", InvoiceID: "inv_1", Amount: 1999, Currency: "USD"}}},
		{"Failed",
			`{"id":"evt_2","type":"payment.failed","data":{"invoice_id":"inv_1","amount":5,"currency":"EUR","failure_reason":"card_declined"}}`,
			webhook.Event{ID: "evt_2", Type: "payment.failed", Data: webhook.EventData{InvoiceID: "inv_1", Amount: 5, Currency: "EUR", FailureReason: &reason}}},
		{"UnknownFieldsIgnored",
			`{"id":"evt_3","type":"payment.refunded","livemode":true,"data":{"invoice_id":"inv_1","amount":1,"currency":"USD","extra":{"a":[1]}}}`,
			webhook.Event{ID: "evt_3", Type: "payment.refunded", Data: webhook.EventData{InvoiceID: "inv_1", Amount: 1, Currency: "USD"}}},
		{"UnknownTypeAnyData",
			`{"id":"evt_4","type":"customer.created","data":{"amount":"not a number","invoice_id":7}}`,
			webhook.Event{ID: "evt_4", Type: "customer.created"}},
		{"NoData", `{"id":"evt_5","type":"payment.succeeded"}`, webhook.Event{ID: "evt_5", Type: "payment.succeeded"}},
		{"NullData", `{"id":"evt_6","type":"payment.succeeded","data":null}`, webhook.Event{ID: "evt_6", Type: "payment.succeeded"}},
		{"Whitespace", " \n{\"id\":\"evt_7\",\"type\":\"x.y\"}\n", webhook.Event{ID: "evt_7", Type: "x.y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := webhook.ParseEvent([]byte(tt.body))
			if err != nil {
				t.Fatalf("ParseEvent: %v", err)
			}
			if got.ID != tt.want.ID || got.Type != tt.want.Type || !got.CreatedAt.Equal(tt.want.CreatedAt) ||
				got.Data.PaymentID != tt.want.Data.PaymentID || got.Data.InvoiceID != tt.want.Data.InvoiceID ||
				got.Data.Amount != tt.want.Data.Amount || got.Data.Currency != tt.want.Data.Currency ||
				(got.Data.FailureReason == nil) != (tt.want.Data.FailureReason == nil) ||
				(got.Data.FailureReason != nil && *got.Data.FailureReason != *tt.want.Data.FailureReason) {
				t.Fatalf("ParseEvent =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

// TestParseEventBounds: the longest id and type MaxEventIDLen and
// MaxTypeLen name are accepted (TestParseEventMalformed refuses one more).
func TestParseEventBounds(t *testing.T) {
	body := `{"id":"` + strings.Repeat("e", webhook.MaxEventIDLen) + `","type":"` + strings.Repeat("t", webhook.MaxTypeLen) + `"}`
	if _, err := webhook.ParseEvent([]byte(body)); err != nil {
		t.Fatalf("ParseEvent = %v", err)
	}
}

func TestParseEventMalformed(t *testing.T) {
	tests := []struct {
		name, body string
	}{
		{"Empty", ``},
		{"NotJSON", `id=evt_1`},
		{"Truncated", `{"id":"evt_1","type":"payment.succeeded"`},
		{"Array", `[{"id":"evt_1","type":"x.y"}]`},
		{"Null", `null`},
		{"String", `"evt_1"`},
		{"TrailingData", `{"id":"evt_1","type":"x.y"} {}`},
		{"NoID", `{"type":"payment.succeeded"}`},
		{"EmptyID", `{"id":"","type":"payment.succeeded"}`},
		{"NumericID", `{"id":42,"type":"payment.succeeded"}`},
		{"IDWithSpace", `{"id":"evt 1","type":"payment.succeeded"}`},
		{"IDWithNUL", `{"id":"evt\u00001","type":"payment.succeeded"}`},
		{"IDTooLong", `{"id":"` + strings.Repeat("e", webhook.MaxEventIDLen+1) + `","type":"x.y"}`},
		{"TypeTooLong", `{"id":"evt_1","type":"` + strings.Repeat("t", webhook.MaxTypeLen+1) + `"}`},
		{"NoType", `{"id":"evt_1"}`},
		{"TypeNotString", `{"id":"evt_1","type":["payment.succeeded"]}`},
		{"BadCreatedAt", `{"id":"evt_1","type":"x.y","created_at":"yesterday"}`},
		{"AmountFraction", `{"id":"evt_1","type":"payment.succeeded","data":{"amount":19.99}}`},
		{"AmountString", `{"id":"evt_1","type":"payment.succeeded","data":{"amount":"1999"}}`},
		{"AmountOverflow", `{"id":"evt_1","type":"payment.succeeded","data":{"amount":99999999999999999999}}`},
		{"DataNotObject", `{"id":"evt_1","type":"payment.refunded","data":[1,2]}`},
		{"InvoiceIDNumber", `{"id":"evt_1","type":"payment.failed","data":{"invoice_id":7}}`},
		{"InvalidUTF8", "{\"id\":\"evt_1\",\"type\":\"x.y\",\"note\":\"\xff\"}"},
		{"TooLarge", `{"id":"evt_1","type":"x.y","pad":"` + strings.Repeat("x", webhook.MaxPayloadBytes) + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := webhook.ParseEvent([]byte(tt.body)); !errors.Is(err, webhook.ErrMalformed) {
				t.Fatalf("ParseEvent = %v, want ErrMalformed", err)
			}
		})
	}
}
