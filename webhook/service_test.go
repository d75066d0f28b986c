package webhook_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/webhook"
)

func TestHandleOutcomes(t *testing.T) {
	eachDB(t, func(t *testing.T, e *dbEnv) {
		ctx := context.Background()
		tests := []struct {
			name string
			// prepare may change the invoice before the event arrives.
			prepare func(t *testing.T, inv billing.Invoice)
			body    func(inv billing.Invoice) []byte
			outcome webhook.Outcome
			// the invoice afterwards, and the notification type ("" none)
			paid, due  int64
			status     billing.Status
			notifyType string
		}{
			{name: "SucceededPays",
				body:    func(inv billing.Invoice) []byte { return event("evt_ok", "payment.succeeded", inv.ID, 1000, "USD") },
				outcome: webhook.OutcomeApplied, paid: 1000, due: 0, status: billing.StatusPaid, notifyType: tenancy.NotificationPaymentSucceeded},
			{name: "CurrencyCaseInsensitive",
				body:    func(inv billing.Invoice) []byte { return event("evt_case", "payment.succeeded", inv.ID, 400, "usd") },
				outcome: webhook.OutcomeApplied, paid: 400, due: 600, status: billing.StatusOpen, notifyType: tenancy.NotificationPaymentSucceeded},
			{name: "FailedMovesNoMoney",
				body: func(inv billing.Invoice) []byte {
					return []byte(`{"id":"evt_fail","type":"payment.failed","data":{"invoice_id":"` + inv.ID + `","amount":1000,"currency":"USD","failure_reason":"card\u0000declined"}}`)
				},
				outcome: webhook.OutcomeApplied, paid: 0, due: 1000, status: billing.StatusOpen, notifyType: tenancy.NotificationPaymentFailed},
			{name: "RefundBeforePayment",
				body:    func(inv billing.Invoice) []byte { return event("evt_ref", "payment.refunded", inv.ID, 300, "USD") },
				outcome: webhook.OutcomeApplied, paid: 0, due: 1000, status: billing.StatusOpen, notifyType: tenancy.NotificationPaymentRefunded},
			{name: "UnknownTypeIgnored",
				body: func(inv billing.Invoice) []byte {
					return []byte(`{"id":"evt_cust","type":"customer.created","data":{"amount":"x"}}`)
				},
				outcome: webhook.OutcomeIgnored, paid: 0, due: 1000, status: billing.StatusOpen},
			{name: "UnknownInvoice",
				body: func(billing.Invoice) []byte {
					return event("evt_unk", "payment.succeeded", "inv_01jd0000000000000000000000", 1000, "USD")
				},
				outcome: webhook.OutcomeUnmatched, paid: 0, due: 1000, status: billing.StatusOpen},
			{name: "GarbageInvoiceID",
				body: func(billing.Invoice) []byte {
					return []byte(`{"id":"evt_garbage","type":"payment.succeeded","data":{"invoice_id":"inv_\u0000<script>","amount":1000,"currency":"USD"}}`)
				},
				outcome: webhook.OutcomeUnmatched, paid: 0, due: 1000, status: billing.StatusOpen},
			{name: "NoInvoiceID",
				body: func(billing.Invoice) []byte {
					return []byte(`{"id":"evt_noinv","type":"payment.succeeded","data":{"amount":5,"currency":"USD"}}`)
				},
				outcome: webhook.OutcomeUnmatched, paid: 0, due: 1000, status: billing.StatusOpen},
			{name: "CurrencyMismatch",
				body:    func(inv billing.Invoice) []byte { return event("evt_eur", "payment.succeeded", inv.ID, 1000, "EUR") },
				outcome: webhook.OutcomeUnmatched, paid: 0, due: 1000, status: billing.StatusOpen},
			{name: "FailedCurrencyMismatch",
				body:    func(inv billing.Invoice) []byte { return event("evt_eurfail", "payment.failed", inv.ID, 1000, "EUR") },
				outcome: webhook.OutcomeUnmatched, paid: 0, due: 1000, status: billing.StatusOpen},
			{name: "ZeroAmount",
				body:    func(inv billing.Invoice) []byte { return event("evt_zero", "payment.succeeded", inv.ID, 0, "USD") },
				outcome: webhook.OutcomeUnmatched, paid: 0, due: 1000, status: billing.StatusOpen},
			{name: "PaymentOnVoidInvoice",
				prepare: func(t *testing.T, inv billing.Invoice) {
					if _, err := e.billing.Void(ctx, e.tenantID, inv.ID); err != nil {
						t.Fatal(err)
					}
				},
				body:    func(inv billing.Invoice) []byte { return event("evt_void", "payment.succeeded", inv.ID, 1000, "USD") },
				outcome: webhook.OutcomeUnmatched, paid: 0, due: 0, status: billing.StatusVoid},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				inv := e.mustInvoice(t, 1000)
				if tt.prepare != nil {
					tt.prepare(t, inv)
				}
				before := len(e.notifications(t))
				body := tt.body(inv)
				res, err := e.svc.Handle(ctx, body)
				if err != nil {
					t.Fatalf("Handle: %v", err)
				}
				if res.Outcome != tt.outcome || res.Duplicate {
					t.Fatalf("Handle = %+v, want outcome %s, not duplicate", res, tt.outcome)
				}
				if (tt.outcome == webhook.OutcomeUnmatched) != (res.Reason != "") {
					t.Fatalf("reason %q for outcome %s", res.Reason, res.Outcome)
				}
				got := e.mustGet(t, inv.ID)
				if got.AmountPaid != tt.paid || got.AmountDue != tt.due || got.Status != tt.status {
					t.Fatalf("invoice paid/due/status = %d/%d/%s, want %d/%d/%s", got.AmountPaid, got.AmountDue, got.Status, tt.paid, tt.due, tt.status)
				}
				ns := e.notifications(t)
				switch {
				case tt.notifyType == "" && len(ns) != before:
					t.Fatalf("%d new notifications, want none", len(ns)-before)
				case tt.notifyType != "" && (len(ns) != before+1 || ns[0].Type != tt.notifyType || ns[0].Data["invoice_id"] != inv.ID):
					t.Fatalf("notifications = %+v, want one new %s", ns, tt.notifyType)
				}
				rec, err := e.svc.Event(ctx, res.EventID)
				if err != nil {
					t.Fatal(err)
				}
				if rec.Outcome != tt.outcome || string(rec.Payload) != string(body) || rec.ProcessedAt == nil || rec.Reason != res.Reason {
					t.Fatalf("inbox record = %+v", rec)
				}

				again, err := e.svc.Handle(ctx, body)
				if err != nil {
					t.Fatalf("redelivery: %v", err)
				}
				if !again.Duplicate || again.Outcome != tt.outcome || again.EventID != res.EventID {
					t.Fatalf("redelivery = %+v, want a duplicate with outcome %s", again, tt.outcome)
				}
				if after := e.mustGet(t, inv.ID); after.AmountPaid != got.AmountPaid || after.Status != got.Status || len(e.notifications(t)) != len(ns) {
					t.Fatalf("redelivery changed something: %+v", after)
				}
			})
		}
		t.Run("FailureReasonReachesTheTenant", func(t *testing.T) {
			var found bool
			for _, n := range e.notifications(t) {
				if n.Type == tenancy.NotificationPaymentFailed {
					found = true
					if n.Data["failure_reason"] != "card declined" || n.Title != "Payment failed" {
						t.Fatalf("failed notification = %+v", n)
					}
				}
			}
			if !found {
				t.Fatal("no payment.failed notification")
			}
		})
		t.Run("MalformedStoresNothing", func(t *testing.T) {
			before := e.eventCount(t)
			for _, body := range []string{`{"id":"evt_bad",`, `{"type":"payment.succeeded"}`, `{"id":"evt_x","type":"payment.succeeded","data":{"amount":1.5}}`} {
				if _, err := e.svc.Handle(ctx, []byte(body)); !errors.Is(err, webhook.ErrMalformed) {
					t.Fatalf("Handle(%s) = %v, want ErrMalformed", body, err)
				}
			}
			if after := e.eventCount(t); after != before {
				t.Fatalf("inbox grew from %d to %d", before, after)
			}
		})
		t.Run("EventNotFound", func(t *testing.T) {
			for _, id := range []string{"evt_never", "", "evt bad"} {
				if _, err := e.svc.Event(ctx, id); !errors.Is(err, webhook.ErrNotFound) {
					t.Fatalf("Event(%q) = %v, want ErrNotFound", id, err)
				}
			}
		})
	})
}

// failingNotifier fails every Notify with a database fault while fail is set.
type failingNotifier struct {
	webhook.Notifier
	fail bool
}

func (n *failingNotifier) Notify(ctx context.Context, tenantID string, nn tenancy.NewNotification) (tenancy.Notification, error) {
	if n.fail {
		return tenancy.Notification{}, database.Wrap(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET})
	}
	return n.Notifier.Notify(ctx, tenantID, nn)
}

// TestHandleRollsBackOnFault: a fault after the payment was applied leaves
// nothing behind — no inbox row, no payment, no ledger entry — so the
// retry applies it once.
func TestHandleRollsBackOnFault(t *testing.T) {
	eachDB(t, func(t *testing.T, e *dbEnv) {
		ctx := context.Background()
		inv := e.mustInvoice(t, 1000)
		notifier := &failingNotifier{Notifier: e.tenancy.Notifications, fail: true}
		svc := e.newService(e.store, notifier)
		body := event("evt_retry", "payment.succeeded", inv.ID, 1000, "USD")

		if _, err := svc.Handle(ctx, body); !errors.Is(err, database.ErrUnavailable) {
			t.Fatalf("Handle with a failing notifier = %v, want ErrUnavailable", err)
		}
		if got := e.mustGet(t, inv.ID); got.AmountPaid != 0 || got.Status != billing.StatusOpen {
			t.Fatalf("after the fault the invoice is %s with %d paid, want untouched", got.Status, got.AmountPaid)
		}
		if n := e.eventCount(t); n != 0 {
			t.Fatalf("after the fault the inbox holds %d events, want 0", n)
		}
		if entries := e.ledger(t, inv.ID); len(entries) != 0 {
			t.Fatalf("after the fault the ledger holds %+v, want nothing", entries)
		}

		notifier.fail = false
		res, err := svc.Handle(ctx, body)
		if err != nil || res.Duplicate || res.Outcome != webhook.OutcomeApplied {
			t.Fatalf("retry = %+v, %v; want applied", res, err)
		}
		if got := e.mustGet(t, inv.ID); got.AmountPaid != 1000 || got.Status != billing.StatusPaid {
			t.Fatalf("after the retry the invoice is %s with %d paid", got.Status, got.AmountPaid)
		}
		if ns := e.notifications(t); len(ns) != 1 {
			t.Fatalf("%d notifications, want 1", len(ns))
		}
		entries := e.ledger(t, inv.ID)
		if len(entries) != 1 || entries[0].EventID != "evt_retry" || entries[0].Source != billing.SourceWebhook ||
			entries[0].Kind != billing.KindPayment || entries[0].Amount != 1000 {
			t.Fatalf("ledger %+v, want the one payment of evt_retry", entries)
		}
	})
}

// TestHandleInCallersTransaction: Handle joins a transaction the caller
// already holds, and the caller's rollback undoes the event.
func TestHandleInCallersTransaction(t *testing.T) {
	eachDB(t, func(t *testing.T, e *dbEnv) {
		ctx := context.Background()
		inv := e.mustInvoice(t, 1000)
		body := event("evt_outer", "payment.succeeded", inv.ID, 1000, "USD")
		abort := errors.New("caller gives up")
		err := e.tx.InTx(ctx, func(ctx context.Context) error {
			if _, err := e.svc.Handle(ctx, body); err != nil {
				return err
			}
			return abort
		})
		if !errors.Is(err, abort) {
			t.Fatalf("outer transaction = %v", err)
		}
		if n := e.eventCount(t); n != 0 || e.mustGet(t, inv.ID).AmountPaid != 0 {
			t.Fatalf("rolled-back event left %d inbox rows or a payment", n)
		}
		if res, err := e.svc.Handle(ctx, body); err != nil || res.Duplicate {
			t.Fatalf("delivery after the rollback = %+v, %v", res, err)
		}
	})
}

// TestNewServiceNeedsTransactor: without a Transactor an event's effect
// and its record would not commit as one, so the configuration is refused
// rather than run.
func TestNewServiceNeedsTransactor(t *testing.T) {
	got := func() (p any) {
		defer func() { p = recover() }()
		webhook.NewService(nil, nil, nil, nil)
		return nil
	}()
	if msg, _ := got.(string); !strings.Contains(msg, "needs a Transactor") {
		t.Fatalf("NewService with a nil Transactor: recovered %v, want a panic saying it needs one", got)
	}
}
