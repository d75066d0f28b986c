package billing_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// cash is a valid manual payment of amount.
func cash(amount int64) billing.RecordPaymentInput {
	return billing.RecordPaymentInput{Amount: amount, Method: billing.MethodCash, Reference: "receipt 12"}
}

// mustEntries returns the whole ledger of the tenant's invoice, newest first.
func mustEntries(tb testing.TB, svc bills, tenantID, invoiceID string) []billing.Payment {
	tb.Helper()
	page, _, err := svc.ledger.Payments(context.Background(), tenantID, invoiceID, billing.PaymentFilter{Limit: billing.MaxListLimit})
	if err != nil {
		tb.Fatalf("Payments: %v", err)
	}
	return page
}

func TestRecord(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		before    []int64 // manual payments first
		in        billing.RecordPaymentInput
		status    billing.Status
		paid, due int64
	}{
		{"Partial", nil, cash(400), billing.StatusOpen, 400, 600},
		{"ExactPays", nil, cash(1000), billing.StatusPaid, 1000, 0},
		{"RestPays", []int64{600}, cash(400), billing.StatusPaid, 1000, 0},
		{"CurrencyGiven", nil, billing.RecordPaymentInput{Amount: 1, Currency: "USD", Method: billing.MethodBankTransfer},
			billing.StatusOpen, 1, 999},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, _ := newMemService(t)
			inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
			for _, amount := range tt.before {
				if _, _, err := svc.ledger.Record(ctx, tenantA, inv.ID, cash(amount)); err != nil {
					t.Fatal(err)
				}
			}
			p, got, err := svc.ledger.Record(ctx, tenantA, inv.ID, tt.in)
			if err != nil {
				t.Fatalf("Record: %v", err)
			}
			assertMoney(t, got, tt.status, tt.paid, tt.due)
			want := billing.Payment{ID: p.ID, TenantID: tenantA, InvoiceID: inv.ID, Kind: billing.KindPayment,
				Amount: tt.in.Amount, Currency: "USD", Source: billing.SourceManual, Method: tt.in.Method,
				Reference: tt.in.Reference, ReceivedAt: now(), CreatedAt: now()}
			if !id.Valid(id.Payment, p.ID) || p != want {
				t.Errorf("payment\n got %+v\nwant %+v", p, want)
			}
			if entries := mustEntries(t, svc, tenantA, inv.ID); len(entries) != len(tt.before)+1 || entries[0] != p {
				t.Errorf("ledger %+v, want %d entries, the newest %+v", entries, len(tt.before)+1, p)
			}
			stored, _ := svc.Get(ctx, tenantA, inv.ID)
			assertSameInvoice(t, stored, got)
		})
	}
	t.Run("ReceivedAtKept", func(t *testing.T) {
		svc, _, _ := newMemService(t)
		inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
		in := cash(10)
		at := time.Date(2026, 11, 20, 16, 30, 0, 123456789, time.FixedZone("CET", 3600))
		in.ReceivedAt = &at
		p, _, err := svc.ledger.Record(ctx, tenantA, inv.ID, in)
		if err != nil {
			t.Fatal(err)
		}
		if want := at.UTC().Truncate(time.Microsecond); p.ReceivedAt != want || !p.CreatedAt.Equal(now()) {
			t.Errorf("received_at %v created_at %v, want %v and now", p.ReceivedAt, p.CreatedAt, want)
		}
	})
}

// TestRecordMessages pins what a client is shown for a refused payment:
// every field at once, the rules of the tags first.
func TestRecordMessages(t *testing.T) {
	svc, _, _ := newMemService(t)
	inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
	future := now().Add(time.Hour)
	_, _, err := svc.ledger.Record(context.Background(), tenantA, inv.ID, billing.RecordPaymentInput{
		Amount: 0, Currency: "usd", Method: "barter", Reference: "a\x00", ReceivedAt: &future})
	want := []field.Error{
		{Field: "amount", Code: field.OutOfRange, Message: "must be between 1 and 1000000000000000"},
		{Field: "currency", Code: field.Invalid, Message: "currency codes are upper case: USD"},
		{Field: "method", Code: field.Invalid, Message: "must be one of: bank_transfer, cash, check, card, other"},
		{Field: "reference", Code: field.NulByte, Message: "must not contain NUL (U+0000)"},
		{Field: "received_at", Code: field.Invalid, Message: "must not be in the future"},
	}
	if got := codedErrors(t, err); !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	_, _, err = svc.ledger.Record(context.Background(), tenantA, inv.ID, billing.RecordPaymentInput{Amount: 1})
	if got := codedErrors(t, err); len(got) != 1 || got[0] != (field.Error{Field: "method", Code: field.Required, Message: "is required"}) {
		t.Errorf("no method: got %+v", got)
	}
}

// TestMethodsAreTheTag: Methods lists what RecordPaymentInput.Method's
// oneof rule takes, in its order, and Record takes each.
func TestMethodsAreTheTag(t *testing.T) {
	sf, _ := reflect.TypeFor[billing.RecordPaymentInput]().FieldByName("Method")
	if got, want := sf.Tag.Get("validate"), "required,oneof="+strings.Join(billing.Methods(), " "); got != want {
		t.Errorf("Method's tag is %q, want %q", got, want)
	}
	for _, m := range billing.Methods() {
		svc, _, _ := newMemService(t)
		inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
		if _, _, err := svc.ledger.Record(context.Background(), tenantA, inv.ID, billing.RecordPaymentInput{Amount: 1, Method: m}); err != nil {
			t.Errorf("Record by %s: %v", m, err)
		}
	}
}

func TestRecordRefused(t *testing.T) {
	ctx := context.Background()
	future := now().Add(time.Second)
	tests := []struct {
		name   string
		status billing.Status
		in     billing.RecordPaymentInput
		want   error
		field  string
	}{
		{"ErrInvalidOverpay", billing.StatusOpen, cash(1001), billing.ErrInvalid, "amount"},
		{"ErrInvalidZero", billing.StatusOpen, cash(0), billing.ErrInvalid, "amount"},
		{"ErrInvalidNegative", billing.StatusOpen, cash(-5), billing.ErrInvalid, "amount"},
		{"ErrInvalidAbsurd", billing.StatusOpen, cash(billing.MaxAmount + 1), billing.ErrInvalid, "amount"},
		{"ErrInvalidOtherCurrency", billing.StatusOpen,
			billing.RecordPaymentInput{Amount: 10, Currency: "EUR", Method: "cash"}, billing.ErrInvalid, "currency"},
		{"ErrInvalidLowerCaseCurrency", billing.StatusOpen,
			billing.RecordPaymentInput{Amount: 10, Currency: "usd", Method: "cash"}, billing.ErrInvalid, "currency"},
		{"ErrInvalidNoMethod", billing.StatusOpen, billing.RecordPaymentInput{Amount: 10}, billing.ErrInvalid, "method"},
		{"ErrInvalidMethod", billing.StatusOpen, billing.RecordPaymentInput{Amount: 10, Method: "barter"}, billing.ErrInvalid, "method"},
		{"ErrInvalidReference", billing.StatusOpen,
			billing.RecordPaymentInput{Amount: 10, Method: "check", Reference: strings.Repeat("r", billing.MaxReferenceLen+1)},
			billing.ErrInvalid, "reference"},
		{"ErrInvalidReferenceControl", billing.StatusOpen,
			billing.RecordPaymentInput{Amount: 10, Method: "check", Reference: "a\x00b"}, billing.ErrInvalid, "reference"},
		{"ErrInvalidFuture", billing.StatusOpen,
			billing.RecordPaymentInput{Amount: 10, Method: "card", ReceivedAt: &future}, billing.ErrInvalid, "received_at"},
		{"ErrConflictDraft", billing.StatusDraft, cash(10), billing.ErrConflict, ""},
		{"ErrConflictPaid", billing.StatusPaid, cash(10), billing.ErrConflict, ""},
		{"ErrConflictVoid", billing.StatusVoid, cash(10), billing.ErrConflict, ""},
		{"ErrConflictUncollectible", billing.StatusUncollectible, cash(10), billing.ErrConflict, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, _ := newMemService(t)
			before := mustInvoiceIn(t, svc, tenantA, tt.status)
			entries := len(mustEntries(t, svc, tenantA, before.ID))
			_, _, err := svc.ledger.Record(ctx, tenantA, before.ID, tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if tt.field != "" {
				if fields := fieldErrors(t, err); fields[tt.field] == "" {
					t.Errorf("errors %v, want one on %q", fields, tt.field)
				}
			}
			var te *billing.TransitionError
			if tt.want == billing.ErrConflict && (!errors.As(err, &te) || te.Status != tt.status || te.Action != "record a payment") {
				t.Errorf("got %v, want a *TransitionError from %s", err, tt.status)
			}
			after, err := svc.Get(ctx, tenantA, before.ID)
			if err != nil {
				t.Fatal(err)
			}
			assertSameInvoice(t, after, before)
			if n := len(mustEntries(t, svc, tenantA, before.ID)); n != entries {
				t.Errorf("ledger has %d entries, want %d: a refused payment writes none", n, entries)
			}
		})
	}
	t.Run("ErrNotFoundOtherTenant", func(t *testing.T) {
		svc, _, _ := newMemService(t)
		inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
		if _, _, err := svc.ledger.Record(ctx, tenantB, inv.ID, cash(10)); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("got %v, want ErrNotFound", err)
		}
		if _, _, err := svc.ledger.Payments(ctx, tenantB, inv.ID, billing.PaymentFilter{}); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("Payments: got %v, want ErrNotFound", err)
		}
	})
	t.Run("ModuleDisabled", func(t *testing.T) {
		svc, _, ent := newMemService(t)
		inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
		ent.moduleErr = fmt.Errorf("off: %w", tenancy.ErrModuleDisabled)
		if _, _, err := svc.ledger.Record(ctx, tenantA, inv.ID, cash(10)); !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Errorf("got %v, want ErrModuleDisabled", err)
		}
	})
}

// TestLedgerEverySource: payments and refunds from the provider, by tenant
// or by id, and the tenant's manual payments all land in one ledger whose
// sums are the invoice's.
func TestLedgerEverySource(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newMemService(t)
	inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
	at := time.Date(2026, 11, 19, 8, 0, 0, 0, time.UTC)
	steps := []func() error{
		func() error {
			_, err := svc.ledger.ApplyPaymentByID(ctx, inv.ID, billing.ProviderPayment{Amount: 300, Currency: "usd",
				PaymentID: "pay_provider_1", EventID: "evt_1", ReceivedAt: at})
			return err
		},
		func() error { _, _, err := svc.ledger.Record(ctx, tenantA, inv.ID, cash(200)); return err },
		func() error {
			_, err := svc.ledger.ApplyRefundByID(ctx, inv.ID, billing.ProviderPayment{Amount: 100, Currency: "USD", EventID: "evt_2"})
			return err
		},
		func() error { _, err := svc.ApplyPayment(ctx, tenantA, inv.ID, 600, "USD"); return err },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	got, _ := svc.Get(ctx, tenantA, inv.ID)
	assertMoney(t, got, billing.StatusPaid, 1000, 0)

	entries := mustEntries(t, svc, tenantA, inv.ID)
	type row struct {
		kind          billing.PaymentKind
		source        billing.PaymentSource
		amount        int64
		ref, ev, meth string
	}
	var rows []row
	var received, refunded int64
	for _, e := range entries {
		rows = append(rows, row{e.Kind, e.Source, e.Amount, e.Reference, e.EventID, e.Method})
		if e.Currency != "USD" || e.InvoiceID != inv.ID || e.TenantID != tenantA {
			t.Errorf("entry %+v", e)
		}
		if e.Kind == billing.KindRefund {
			refunded += e.Amount
		} else {
			received += e.Amount
		}
	}
	want := []row{ // newest first
		{billing.KindPayment, billing.SourceWebhook, 600, "", "", ""},
		{billing.KindRefund, billing.SourceWebhook, 100, "", "evt_2", ""},
		{billing.KindPayment, billing.SourceManual, 200, "receipt 12", "", billing.MethodCash},
		{billing.KindPayment, billing.SourceWebhook, 300, "pay_provider_1", "evt_1", ""},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("ledger\n got %v\nwant %v", rows, want)
	}
	if received != got.Received || refunded != got.Refunded {
		t.Errorf("ledger sums %d/%d, invoice's %d/%d", received, refunded, got.Received, got.Refunded)
	}
	if !entries[3].ReceivedAt.Equal(at) || !entries[2].ReceivedAt.Equal(now()) {
		t.Errorf("received_at %v and %v, want the provider's and now", entries[3].ReceivedAt, entries[2].ReceivedAt)
	}

	// Pages, newest first.
	page, more, err := svc.ledger.Payments(ctx, tenantA, inv.ID, billing.PaymentFilter{Limit: 3})
	if err != nil || len(page) != 3 || !more || page[0] != entries[0] {
		t.Fatalf("first page: %d entries, more %v, %v", len(page), more, err)
	}
	page, more, err = svc.ledger.Payments(ctx, tenantA, inv.ID, billing.PaymentFilter{Limit: 3, Before: page[2].ID})
	if err != nil || len(page) != 1 || more || page[0] != entries[3] {
		t.Fatalf("second page: %v, more %v, %v", page, more, err)
	}
	if _, _, err := svc.ledger.Payments(ctx, tenantA, inv.ID, billing.PaymentFilter{Before: inv.ID}); !errors.Is(err, billing.ErrInvalid) {
		t.Errorf("an invoice id as the cursor: got %v, want ErrInvalid", err)
	}
}

// TestProviderPaymentRefusedWritesNoEntry: an event that does not fit the
// invoice changes nothing, its ledger included, and still says whose
// invoice it was.
func TestProviderPaymentRefusedWritesNoEntry(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		p    billing.ProviderPayment
		want error
	}{
		{"CurrencyMismatch", billing.ProviderPayment{Amount: 10, Currency: "EUR"}, billing.ErrCurrencyMismatch},
		{"ZeroAmount", billing.ProviderPayment{Amount: 0, Currency: "USD"}, billing.ErrInvalid},
		{"LongPaymentID", billing.ProviderPayment{Amount: 10, Currency: "USD", PaymentID: strings.Repeat("p", billing.MaxReferenceLen+1)}, billing.ErrInvalid},
		{"NulEventID", billing.ProviderPayment{Amount: 10, Currency: "USD", EventID: "evt\x00"}, billing.ErrInvalid},
		{"EverythingWrong", billing.ProviderPayment{Amount: -1, Currency: "USD", PaymentID: strings.Repeat("p", billing.MaxReferenceLen+1), EventID: "evt\x00"}, billing.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, _ := newMemService(t)
			before := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
			found, err := svc.ledger.ApplyPaymentByID(ctx, before.ID, tt.p)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if found.TenantID != tenantA {
				t.Errorf("found invoice of %q, want %q", found.TenantID, tenantA)
			}
			after, _ := svc.Get(ctx, tenantA, before.ID)
			assertSameInvoice(t, after, before)
			if n := len(mustEntries(t, svc, tenantA, before.ID)); n != 0 {
				t.Errorf("ledger has %d entries, want none", n)
			}
		})
	}
}

// TestProviderPaymentMessages: a provider's payment is refused naming
// each field that breaks a rule, by either path.
func TestProviderPaymentMessages(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newMemService(t)
	inv := mustInvoiceIn(t, svc, tenantA, billing.StatusOpen)
	p := billing.ProviderPayment{Amount: billing.MaxAmount + 1, Currency: "USD", PaymentID: strings.Repeat("p", 201), EventID: "evt\x1b"}
	want := []field.Error{
		{Field: "amount", Code: field.OutOfRange, Message: "must be between 1 and 1000000000000000"},
		{Field: "payment_id", Code: field.TooLong, Message: "must have at most 200 characters"},
		{Field: "event_id", Code: field.ControlCharacter, Message: "must not contain control characters other than tab and line breaks"},
	}
	_, err := svc.ledger.ApplyRefund(ctx, tenantA, inv.ID, p)
	if got := codedErrors(t, err); !slices.Equal(got, want) {
		t.Errorf("ApplyRefund: got %+v\nwant %+v", got, want)
	}
	_, err = svc.ledger.ApplyPaymentByID(ctx, inv.ID, p)
	if got := codedErrors(t, err); !slices.Equal(got, want) {
		t.Errorf("ApplyPaymentByID: got %+v\nwant %+v", got, want)
	}
}

func TestInvoiceByID(t *testing.T) {
	svc, _, _ := newMemService(t)
	inv := mustInvoiceIn(t, svc, tenantB, billing.StatusOpen)
	got, err := svc.ledger.InvoiceByID(context.Background(), inv.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertSameInvoice(t, got, inv)
	for _, bad := range []string{id.New(id.Invoice), "inv_nope", ""} {
		if _, err := svc.ledger.InvoiceByID(context.Background(), bad); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("InvoiceByID(%q): got %v, want ErrNotFound", bad, err)
		}
	}
}

func TestNewLedgerNeedsItsParts(t *testing.T) {
	svc, store, _ := newMemService(t)
	for name, build := range map[string]func(){
		"NoService":      func() { billing.NewLedger(nil, store) },
		"NoPaymentStore": func() { billing.NewLedger(svc.Service, nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("NewLedger did not panic")
				}
			}()
			build()
		})
	}
}
