package billing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

func ptrTo[T any](v T) *T { return &v }

// draftWithEverything creates a draft with a due date, a memo and
// metadata, total 1000.
func draftWithEverything(tb testing.TB, svc bills) billing.Invoice {
	tb.Helper()
	in := withTotal(1000)
	in.Status, in.DueDate, in.Memo = "draft", "2026-12-31", "Net 30"
	in.Metadata = map[string]string{"po": "PO-1", "team": "ops"}
	return mustCreate(tb, svc, tenantA, in)
}

func TestUpdate(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		in   billing.UpdateInvoiceInput
		// want changes the draft as created into what Update returns.
		want func(inv *billing.Invoice)
	}{
		{"Nothing", billing.UpdateInvoiceInput{}, func(*billing.Invoice) {}},
		{"CustomerName", billing.UpdateInvoiceInput{Customer: &billing.CustomerUpdate{Name: ptrTo("  Grace Hopper ")}},
			func(inv *billing.Invoice) { inv.Customer.Name = "Grace Hopper" }},
		{"CustomerEmail", billing.UpdateInvoiceInput{Customer: &billing.CustomerUpdate{Email: ptrTo(" Grace@Example.COM")}},
			func(inv *billing.Invoice) { inv.Customer.Email = "grace@example.com" }},
		{"LinesRecomputed", billing.UpdateInvoiceInput{LineItems: []billing.LineItemInput{
			{Description: "Consulting", Quantity: 2, UnitAmount: 1999, TaxRateBps: 825},
			{Description: "Travel", Quantity: 1, UnitAmount: 500},
		}}, func(inv *billing.Invoice) {
			inv.LineItems = []billing.LineItem{
				{Description: "Consulting", Quantity: 2, UnitAmount: 1999, TaxRateBps: 825, Amount: 3998},
				{Description: "Travel", Quantity: 1, UnitAmount: 500, Amount: 500},
			}
			inv.Subtotal, inv.Tax, inv.Total, inv.AmountDue = 4498, 330, 4828, 4828
		}},
		{"DueDateSet", billing.UpdateInvoiceInput{DueDate: billing.PatchTo("2027-01-15")},
			func(inv *billing.Invoice) { inv.DueDate = "2027-01-15" }},
		{"DueDateNullClears", billing.UpdateInvoiceInput{DueDate: billing.PatchNull[string]()},
			func(inv *billing.Invoice) { inv.DueDate = "" }},
		{"DueDateEmptyClears", billing.UpdateInvoiceInput{DueDate: billing.PatchTo("")},
			func(inv *billing.Invoice) { inv.DueDate = "" }},
		{"MemoNullClears", billing.UpdateInvoiceInput{Memo: billing.PatchNull[string]()},
			func(inv *billing.Invoice) { inv.Memo = "" }},
		{"MemoSet", billing.UpdateInvoiceInput{Memo: billing.PatchTo("Thank you!\nNet 15")},
			func(inv *billing.Invoice) { inv.Memo = "Thank you!\nNet 15" }},
		{"MetadataMerged", billing.UpdateInvoiceInput{Metadata: billing.PatchTo(map[string]*string{
			"team": nil, "order": ptrTo("ord_7"), "absent": nil,
		})}, func(inv *billing.Invoice) { inv.Metadata = map[string]string{"po": "PO-1", "order": "ord_7"} }},
		{"MetadataNullClears", billing.UpdateInvoiceInput{Metadata: billing.PatchNull[map[string]*string]()},
			func(inv *billing.Invoice) { inv.Metadata = map[string]string{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, _ := newMemService(t)
			draft := draftWithEverything(t, svc)
			got, err := svc.Update(ctx, tenantA, draft.ID, tt.in)
			if err != nil {
				t.Fatalf("Update: %v", err)
			}
			want := draft
			tt.want(&want)
			assertSameInvoice(t, got, want)
			stored, err := svc.Get(ctx, tenantA, draft.ID)
			if err != nil {
				t.Fatal(err)
			}
			assertSameInvoice(t, stored, want)
		})
	}
}

func TestUpdateRefused(t *testing.T) {
	ctx := context.Background()
	manyKeys := map[string]*string{}
	for i := range billing.MaxMetadataKeys + 1 {
		manyKeys[fmt.Sprintf("k%d", i)] = ptrTo("v")
	}
	tests := []struct {
		name   string
		status billing.Status
		in     billing.UpdateInvoiceInput
		want   error
		fields []string
	}{
		{"ErrInvalidEmptyLines", billing.StatusDraft, billing.UpdateInvoiceInput{LineItems: []billing.LineItemInput{}},
			billing.ErrInvalid, []string{"line_items"}},
		{"ErrInvalidLine", billing.StatusDraft, billing.UpdateInvoiceInput{LineItems: []billing.LineItemInput{{Description: "x", Quantity: 0}}},
			billing.ErrInvalid, []string{"line_items[0].quantity"}},
		{"ErrInvalidCustomer", billing.StatusDraft, billing.UpdateInvoiceInput{Customer: &billing.CustomerUpdate{Name: ptrTo(" "), Email: ptrTo("nope")}},
			billing.ErrInvalid, []string{"customer.name", "customer.email"}},
		{"ErrInvalidDueDate", billing.StatusDraft, billing.UpdateInvoiceInput{DueDate: billing.PatchTo("2026-02-30")},
			billing.ErrInvalid, []string{"due_date"}},
		{"ErrInvalidMemo", billing.StatusDraft, billing.UpdateInvoiceInput{Memo: billing.PatchTo(strings.Repeat("m", billing.MaxMemoLen+1))},
			billing.ErrInvalid, []string{"memo"}},
		{"ErrInvalidMetadataTooMany", billing.StatusDraft, billing.UpdateInvoiceInput{Metadata: billing.PatchTo(manyKeys)},
			billing.ErrInvalid, []string{"metadata"}},
		{"ErrConflictOpen", billing.StatusOpen, billing.UpdateInvoiceInput{Memo: billing.PatchTo("x")}, billing.ErrConflict, nil},
		{"ErrConflictVoid", billing.StatusVoid, billing.UpdateInvoiceInput{}, billing.ErrConflict, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, _ := newMemService(t)
			before := mustInvoiceIn(t, svc, tenantA, tt.status)
			_, err := svc.Update(ctx, tenantA, before.ID, tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if tt.want == billing.ErrConflict {
				var te *billing.TransitionError
				if !errors.As(err, &te) || te.Status != tt.status || te.Action != "edit" {
					t.Errorf("got %v, want a *TransitionError from %s", err, tt.status)
				}
			}
			if tt.fields != nil {
				fields := fieldErrors(t, err)
				for _, f := range tt.fields {
					if fields[f] == "" {
						t.Errorf("errors %v, want one on %q", fields, f)
					}
				}
			}
			after, err := svc.Get(ctx, tenantA, before.ID)
			if err != nil {
				t.Fatal(err)
			}
			assertSameInvoice(t, after, before)
		})
	}
	t.Run("ErrNotFoundOtherTenant", func(t *testing.T) {
		svc, _, _ := newMemService(t)
		draft := mustInvoiceIn(t, svc, tenantA, billing.StatusDraft)
		if _, err := svc.Update(ctx, tenantB, draft.ID, billing.UpdateInvoiceInput{}); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("got %v, want ErrNotFound", err)
		}
		if _, err := svc.Update(ctx, tenantA, "inv_nope", billing.UpdateInvoiceInput{}); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("malformed id: got %v, want ErrNotFound", err)
		}
	})
	t.Run("ModuleDisabled", func(t *testing.T) {
		svc, _, ent := newMemService(t)
		draft := mustInvoiceIn(t, svc, tenantA, billing.StatusDraft)
		ent.moduleErr = fmt.Errorf("off: %w", tenancy.ErrModuleDisabled)
		if _, err := svc.Update(ctx, tenantA, draft.ID, billing.UpdateInvoiceInput{}); !errors.Is(err, tenancy.ErrModuleDisabled) {
			t.Errorf("got %v, want ErrModuleDisabled", err)
		}
	})
}

// TestUpdateInputJSON: a member left out, sent as null, or sent with a
// value decode to different patches, and a value of the wrong type is an
// *json.UnmarshalTypeError naming the member.
// TestUpdateChecksOnlyWhatIsSent: the rules of a create hold for the
// members an update sends; what the draft already has stays as it is,
// even when today's rules would refuse it (a currency ISO 4217 has since
// retired, text written under older rules).
func TestUpdateChecksOnlyWhatIsSent(t *testing.T) {
	ctx := context.Background()
	svc, store, _ := newMemService(t)
	draft := mustInvoiceIn(t, svc, tenantA, billing.StatusDraft)
	old := store.invoices[draft.ID]
	old.Currency, old.Memo, old.Metadata = "HRK", "bell\a", map[string]string{"": "x"}
	store.invoices[draft.ID] = old

	got, err := svc.Update(ctx, tenantA, draft.ID, billing.UpdateInvoiceInput{Customer: &billing.CustomerUpdate{Name: ptrTo(" Grace ")}})
	if err != nil {
		t.Fatalf("Update of the name: %v", err)
	}
	if got.Customer.Name != "Grace" || got.Currency != "HRK" || got.Memo != "bell\a" {
		t.Errorf("got %+v", got)
	}
	_, err = svc.Update(ctx, tenantA, draft.ID, billing.UpdateInvoiceInput{Memo: billing.PatchTo("bell\a"),
		Metadata: billing.PatchTo(map[string]*string{"po": ptrTo("1")})})
	want := []field.Error{
		{Field: "memo", Code: field.ControlCharacter, Message: "must not contain control characters other than tab and line breaks"},
		{Field: "metadata", Code: field.Required, Message: `key "": is required`},
	}
	if got := codedErrors(t, err); !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestUpdateInputJSON(t *testing.T) {
	tests := []struct {
		name string
		body string
		want billing.UpdateInvoiceInput
	}{
		{"Empty", `{}`, billing.UpdateInvoiceInput{}},
		{"Values", `{"due_date":"2027-01-01","memo":"m","metadata":{"a":"1","b":null}}`, billing.UpdateInvoiceInput{
			DueDate: billing.PatchTo("2027-01-01"), Memo: billing.PatchTo("m"),
			Metadata: billing.PatchTo(map[string]*string{"a": ptrTo("1"), "b": nil})}},
		{"Nulls", `{"due_date":null,"memo":null,"metadata":null,"line_items":null,"customer":null}`, billing.UpdateInvoiceInput{
			DueDate: billing.PatchNull[string](), Memo: billing.PatchNull[string](), Metadata: billing.PatchNull[map[string]*string]()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got billing.UpdateInvoiceInput
			if err := json.Unmarshal([]byte(tt.body), &got); err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tt.want)
			if string(g) != string(w) || got.DueDate != tt.want.DueDate || got.Memo != tt.want.Memo ||
				got.Metadata.Set != tt.want.Metadata.Set || got.Metadata.Null != tt.want.Metadata.Null {
				t.Errorf("decoded %s (%+v), want %s", g, got, w)
			}
		})
	}
	for body, field := range map[string]string{
		`{"memo":"long enough to move offsets","due_date":5}`: "due_date",
		`{"memo":"xxxxxxxx","metadata":{"a":1}}`:              "metadata",
	} {
		var in billing.UpdateInvoiceInput
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal([]byte(body), &in); !errors.As(err, &te) || te.Field != field || te.Offset != 0 {
			t.Errorf("%s: got %v (%+v), want a type error on %q at offset 0 (unknown)", body, err, te, field)
		}
	}
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	t.Run("Draft", func(t *testing.T) {
		svc, _, ent := newMemService(t)
		draft := mustInvoiceIn(t, svc, tenantA, billing.StatusDraft)
		if err := svc.Delete(ctx, tenantA, draft.ID); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if _, err := svc.Get(ctx, tenantA, draft.ID); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("Get after Delete: got %v, want ErrNotFound", err)
		}
		if ent.used != 1 {
			t.Errorf("usage %d after deleting the draft, want 1: the unit stays spent", ent.used)
		}
		if err := svc.Delete(ctx, tenantA, draft.ID); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("Delete twice: got %v, want ErrNotFound", err)
		}
	})
	for _, status := range []billing.Status{billing.StatusOpen, billing.StatusPaid, billing.StatusVoid, billing.StatusUncollectible} {
		t.Run("ErrConflict"+string(status), func(t *testing.T) {
			svc, _, _ := newMemService(t)
			inv := mustInvoiceIn(t, svc, tenantA, status)
			var te *billing.TransitionError
			if err := svc.Delete(ctx, tenantA, inv.ID); !errors.As(err, &te) || te.Status != status || te.Action != "delete" {
				t.Fatalf("got %v, want a *TransitionError", err)
			}
			after, err := svc.Get(ctx, tenantA, inv.ID)
			if err != nil {
				t.Fatal(err)
			}
			assertSameInvoice(t, after, inv)
		})
	}
	t.Run("ErrConflictNumberedDraft", func(t *testing.T) {
		svc, store, _ := newMemService(t)
		legacy := mustInvoiceIn(t, svc, tenantA, billing.StatusDraft)
		legacy.Number = "INV-000007" // as drafts were numbered before
		if err := store.SaveInvoice(ctx, legacy); err != nil {
			t.Fatal(err)
		}
		var nd *billing.NumberedDraftError
		err := svc.Delete(ctx, tenantA, legacy.ID)
		if !errors.Is(err, billing.ErrConflict) || !errors.As(err, &nd) || nd.Number != "INV-000007" {
			t.Fatalf("got %v, want a *NumberedDraftError", err)
		}
		// It can still be finalized, keeping its number.
		inv, err := svc.Finalize(ctx, tenantA, legacy.ID)
		if err != nil || inv.Number != "INV-000007" {
			t.Errorf("Finalize = %s, %v; want INV-000007", inv.Number, err)
		}
	})
	t.Run("ErrNotFoundOtherTenant", func(t *testing.T) {
		svc, _, _ := newMemService(t)
		draft := mustInvoiceIn(t, svc, tenantA, billing.StatusDraft)
		if err := svc.Delete(ctx, tenantB, draft.ID); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("got %v, want ErrNotFound", err)
		}
		if _, err := svc.Get(ctx, tenantA, draft.ID); err != nil {
			t.Errorf("the draft is gone: %v", err)
		}
		if err := svc.Delete(ctx, tenantA, id.New(id.Ticket)); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("a ticket id: got %v, want ErrNotFound", err)
		}
	})
}

// TestFinalizeNumbersGapless: drafts take no number, finalize takes the
// next one, and a deleted draft leaves no gap.
func TestFinalizeNumbersGapless(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := newMemService(t)
	draft := func() billing.Invoice { return mustInvoiceIn(t, svc, tenantA, billing.StatusDraft) }
	d1, d2, d3 := draft(), draft(), draft()
	open := mustCreate(t, svc, tenantA, validInput())
	if err := svc.Delete(ctx, tenantA, d2.ID); err != nil {
		t.Fatal(err)
	}
	var numbers []string
	for _, d := range []billing.Invoice{d3, d1} {
		inv, err := svc.Finalize(ctx, tenantA, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		numbers = append(numbers, inv.Number)
	}
	if _, err := svc.Finalize(ctx, tenantA, d1.ID); !errors.Is(err, billing.ErrConflict) {
		t.Errorf("finalize twice: got %v, want ErrConflict", err)
	}
	numbers = append(numbers, mustCreate(t, svc, tenantA, validInput()).Number)
	if got := strings.Join(append([]string{open.Number}, numbers...), " "); got != "INV-000001 INV-000002 INV-000003 INV-000004" {
		t.Errorf("numbers %s, want INV-000001 … INV-000004 in order of opening", got)
	}
}
