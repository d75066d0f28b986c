package billing_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
)

func mustCustomer(tb testing.TB, svc bills, tenantID string, in billing.CreateCustomerInput) billing.CustomerRecord {
	tb.Helper()
	c, err := svc.CreateCustomer(context.Background(), tenantID, in)
	if err != nil {
		tb.Fatalf("CreateCustomer: %v", err)
	}
	return c
}

// fieldsOf returns the fields an *InvalidError names, "" for another error.
func fieldsOf(err error) string {
	var ie *billing.InvalidError
	if !errors.As(err, &ie) {
		return fmt.Sprint(err)
	}
	var out []string
	for _, fe := range ie.Errors() {
		out = append(out, fe.Field)
	}
	return fmt.Sprint(out)
}

// TestCustomerInputRules: what CreateCustomer and UpdateCustomer refuse,
// naming the field.
func TestCustomerInputRules(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		ctx := context.Background()
		a := e.mustTenant(t, "acme", nil)
		ada := mustCustomer(t, e.svc, a, billing.CreateCustomerInput{Name: " Ada ", Email: " ADA@example.com"})
		if ada.Name != "Ada" || ada.Email != "ada@example.com" || ada.Locale != billing.DefaultLocale || ada.Metadata == nil {
			t.Errorf("normalised: %+v", ada)
		}
		long := make(map[string]string, 51)
		for i := range 51 {
			long[fmt.Sprint(i)] = "v"
		}
		creates := []struct {
			name string
			in   billing.CreateCustomerInput
			want string
		}{
			{"Empty", billing.CreateCustomerInput{}, "[name email]"},
			{"BlankName", billing.CreateCustomerInput{Name: "  ", Email: "a@example.com"}, "[name]"},
			{"Email", billing.CreateCustomerInput{Name: "A", Email: "a@"}, "[email]"},
			{"Country", billing.CreateCustomerInput{Name: "A", Email: "a@example.com", Address: &billing.Address{Line1: "1", Country: "ZZ"}}, "[address.country]"},
			{"Line1", billing.CreateCustomerInput{Name: "A", Email: "a@example.com", Address: &billing.Address{Country: "DE"}}, "[address.line1]"},
			{"ControlInLine2", billing.CreateCustomerInput{Name: "A", Email: "a@example.com", Address: &billing.Address{Line1: "1", Line2: "a\nb", Country: "DE"}}, "[address.line2]"},
			{"Locale", billing.CreateCustomerInput{Name: "A", Email: "a@example.com", Locale: "not a locale"}, "[locale]"},
			{"Metadata", billing.CreateCustomerInput{Name: "A", Email: "a@example.com", Metadata: long}, "[metadata]"},
		}
		for _, tt := range creates {
			t.Run("Create"+tt.name, func(t *testing.T) {
				_, err := e.svc.CreateCustomer(ctx, a, tt.in)
				if !errors.Is(err, billing.ErrInvalid) || fieldsOf(err) != tt.want {
					t.Errorf("got %v (%s), want fields %s", err, fieldsOf(err), tt.want)
				}
			})
		}
		updates := []struct {
			name string
			in   billing.UpdateCustomerInput
			want string
		}{
			{"Email", billing.UpdateCustomerInput{Email: ptrTo("x")}, "[email]"},
			{"BlankName", billing.UpdateCustomerInput{Name: ptrTo(" ")}, "[name]"},
			{"AddressIncomplete", billing.UpdateCustomerInput{Address: billing.AddressPatch{Set: true,
				Value: billing.AddressChange{City: billing.PatchTo("Berlin")}}}, "[address.line1 address.country]"},
			{"Locale", billing.UpdateCustomerInput{Locale: billing.PatchTo("??")}, "[locale]"},
		}
		for _, tt := range updates {
			t.Run("Update"+tt.name, func(t *testing.T) {
				_, err := e.svc.UpdateCustomer(ctx, a, ada.ID, tt.in)
				if !errors.Is(err, billing.ErrInvalid) || fieldsOf(err) != tt.want {
					t.Errorf("got %v (%s), want fields %s", err, fieldsOf(err), tt.want)
				}
			})
		}
		if got, _ := e.svc.CustomerByID(ctx, a, ada.ID); got.Name != "Ada" || got.Email != "ada@example.com" {
			t.Errorf("a refused update changed the customer: %+v", got)
		}
		if _, _, err := e.svc.ListCustomers(ctx, a, billing.CustomerFilter{Before: "inv_x"}); fieldsOf(err) != "[cursor]" {
			t.Errorf("bad cursor: %v", err)
		}
	})
}

// TestCustomerLifecycle: update merges, archive is idempotent, another
// tenant's customer is not found, and the events are recorded.
func TestCustomerLifecycle(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		ctx := context.Background()
		a := e.mustTenant(t, "acme", nil)
		b := e.mustTenant(t, "globex", nil)
		c := mustCustomer(t, e.svc, a, billing.CreateCustomerInput{Name: "Ada", Email: "ada@example.com", TaxID: "GB1",
			Address: &billing.Address{Line1: "1 Sq", City: "London", Country: "GB"}, Metadata: map[string]string{"a": "1", "b": "2"}})
		got, err := e.svc.UpdateCustomer(ctx, a, c.ID, billing.UpdateCustomerInput{
			Address:  billing.AddressPatch{Set: true, Value: billing.AddressChange{City: billing.PatchNull[string](), PostalCode: billing.PatchTo("SW1")}},
			TaxID:    billing.PatchNull[string](),
			Metadata: billing.PatchTo(map[string]*string{"a": nil, "c": ptrTo("3")}),
		})
		if err != nil {
			t.Fatal(err)
		}
		want := billing.Address{Line1: "1 Sq", PostalCode: "SW1", Country: "GB"}
		if *got.Address != want || got.TaxID != "" || fmt.Sprint(got.Metadata) != "map[b:2 c:3]" || got.Name != "Ada" {
			t.Errorf("updated: %+v %+v", got, *got.Address)
		}
		archived, err := e.svc.ArchiveCustomer(ctx, a, c.ID)
		if err != nil || archived.ArchivedAt == nil {
			t.Fatalf("archive: %+v %v", archived, err)
		}
		again, err := e.svc.ArchiveCustomer(ctx, a, c.ID)
		if err != nil || !again.ArchivedAt.Equal(*archived.ArchivedAt) {
			t.Errorf("archive again: %v %v", again.ArchivedAt, err)
		}
		for name, call := range map[string]func() error{
			"Get":     func() error { _, err := e.svc.CustomerByID(ctx, b, c.ID); return err },
			"Update":  func() error { _, err := e.svc.UpdateCustomer(ctx, b, c.ID, billing.UpdateCustomerInput{}); return err },
			"Archive": func() error { _, err := e.svc.ArchiveCustomer(ctx, b, c.ID); return err },
			"Invalid": func() error { _, err := e.svc.CustomerByID(ctx, a, "cus_bad"); return err },
		} {
			if err := call(); !errors.Is(err, billing.ErrNotFound) || !errors.Is(err, billing.ErrCustomerNotFound) {
				t.Errorf("%s by another tenant: %v, want ErrCustomerNotFound", name, err)
			}
		}
		var types []string
		rows, err := e.db.QueryContext(ctx, "SELECT type FROM events WHERE tenant_id = ? AND resource_id = ? ORDER BY id", a, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var typ string
			if err := rows.Scan(&typ); err != nil {
				t.Fatal(err)
			}
			types = append(types, typ)
		}
		if fmt.Sprint(types) != "[customer.created customer.updated customer.archived]" {
			t.Errorf("events = %v", types)
		}
	})
}

// TestInvoiceNamesCustomer: an invoice by customer_id shows the
// customer's details while a draft and keeps them once finalized, even
// when the customer changes at the same time as the finalize.
func TestInvoiceNamesCustomer(t *testing.T) {
	eachDB(t, func(t *testing.T, e dbEnv) {
		ctx := context.Background()
		a := e.mustTenant(t, "acme", nil)
		c := mustCustomer(t, e.svc, a, billing.CreateCustomerInput{Name: "Ada", Email: "ada@example.com", Locale: "fr",
			Address: &billing.Address{Line1: "1 rue", Country: "FR"}, TaxID: "FR1"})
		in := validInput()
		in.Customer, in.CustomerID, in.Status = billing.CustomerInput{}, c.ID, "draft"
		draft := mustCreate(t, e.svc, a, in)
		if draft.CustomerID == nil || *draft.CustomerID != c.ID || draft.Customer.Locale != "fr" || draft.Customer.TaxID != "FR1" {
			t.Fatalf("draft: %+v", draft)
		}
		if _, err := e.svc.Update(ctx, a, draft.ID, billing.UpdateInvoiceInput{Customer: &billing.CustomerUpdate{Name: ptrTo("X")}}); fieldsOf(err) != "[customer]" {
			t.Errorf("edit the customer of an invoice by customer_id: %v", err)
		}

		// Concurrent changes of the customer and finalizes of its drafts:
		// each finalized invoice holds one version of the customer whole.
		drafts := []string{draft.ID}
		for range 5 {
			drafts = append(drafts, mustCreate(t, e.svc, a, in).ID)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 2*len(drafts))
		for i, id := range drafts {
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, err := e.svc.Finalize(ctx, a, id)
				errs <- err
			}()
			go func() {
				defer wg.Done()
				n := fmt.Sprint(i)
				_, err := e.svc.UpdateCustomer(ctx, a, c.ID, billing.UpdateCustomerInput{Name: ptrTo("Ada " + n), TaxID: billing.PatchTo("FR" + n)})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, id := range drafts {
			inv, err := e.svc.Get(ctx, a, id)
			if err != nil {
				t.Fatal(err)
			}
			cu := inv.Customer
			whole := cu.Name == "Ada" && cu.TaxID == "FR1" || len(cu.TaxID) > 2 && cu.Name == "Ada "+cu.TaxID[2:]
			if inv.Status != billing.StatusOpen || !whole {
				t.Errorf("finalized %s with a mixed customer: %+v", id, inv.Customer)
			}
		}
		final, _ := e.svc.CustomerByID(ctx, a, c.ID)
		if _, err := e.svc.UpdateCustomer(ctx, a, c.ID, billing.UpdateCustomerInput{Name: ptrTo("Someone else")}); err != nil {
			t.Fatal(err)
		}
		for _, id := range drafts {
			if inv, _ := e.svc.Get(ctx, a, id); inv.Customer.Name == "Someone else" {
				t.Errorf("finalized %s follows the customer", id)
			}
		}
		if got, _ := e.svc.CustomerByID(ctx, a, c.ID); fmt.Sprint(got.Outstanding) != fmt.Sprint([]billing.Outstanding{{Currency: "USD", AmountDue: 6 * 2164}}) {
			t.Errorf("outstanding = %v (customer before: %s)", got.Outstanding, final.Name)
		}
	})
}
