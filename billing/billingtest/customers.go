package billingtest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
)

// CustomerStores is what RunCustomers checks: a CustomerStore, and the
// Store of the invoices that name its customers.
type CustomerStores interface {
	billing.Store
	billing.CustomerStore
}

// RunCustomers checks a CustomerStore implementation. newStores must
// return new, empty stores on every call, in which TenantA and TenantB
// exist.
func RunCustomers(t *testing.T, newStores func(t *testing.T) CustomerStores) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s CustomerStores)
	}{
		{"CreateAndGet", testCustomerCreateAndGet},
		{"Conflict", testCustomerConflict},
		{"Isolation", testCustomerIsolation},
		{"Save", testCustomerSave},
		{"SaveKeepsDraftsInStep", testCustomerSaveDrafts},
		{"ListPages", testCustomerListPages},
		{"ListArchived", testCustomerListArchived},
		{"Search", testCustomerSearch},
		{"Outstanding", testCustomerOutstanding},
		{"InvoiceFilter", testCustomerInvoiceFilter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newStores(t)) })
	}
}

// newCustomer returns a customer of tenantID created n minutes after base.
func newCustomer(tenantID string, n int, name, email string) billing.CustomerRecord {
	created := base().Add(time.Duration(n) * time.Minute)
	return billing.CustomerRecord{ID: id.New(id.Customer), TenantID: tenantID, Name: name, Email: email,
		Locale: "en", Metadata: map[string]string{}, CreatedAt: created, UpdatedAt: created}
}

func mustCreateCustomer(tb testing.TB, s billing.CustomerStore, c billing.CustomerRecord) billing.CustomerRecord {
	tb.Helper()
	if err := s.CreateCustomer(context.Background(), c); err != nil {
		tb.Fatalf("CreateCustomer(%s %s): %v", c.TenantID, c.Name, err)
	}
	return c
}

// assertSameCustomer fails unless got and want have the same JSON (times as
// instants) and tenant.
func assertSameCustomer(tb testing.TB, got, want billing.CustomerRecord) {
	tb.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) || got.TenantID != want.TenantID {
		tb.Errorf("customer differs:\n got %s (%s)\nwant %s (%s)", g, got.TenantID, w, want.TenantID)
	}
}

func testCustomerCreateAndGet(t *testing.T, s CustomerStores) {
	ctx := context.Background()
	plain := mustCreateCustomer(t, s, newCustomer(TenantA, 1, "Ada Lovelace", "ada@example.com"))
	full := newCustomer(TenantA, 2, "Zoë Ünïcode", "zoe@example.com")
	full.Address = &billing.Address{Line1: "1 Main St", Line2: "Suite 2", City: "Berlin", PostalCode: "10115", State: "BE", Country: "DE"}
	full.TaxID, full.Locale, full.Metadata = "DE123456789", "de-CH", map[string]string{"crm": "42"}
	archived := full.CreatedAt.Add(time.Hour)
	full.ArchivedAt = &archived
	mustCreateCustomer(t, s, full)
	for _, want := range []billing.CustomerRecord{plain, full} {
		for name, get := range map[string]func(context.Context, string, string) (billing.CustomerRecord, error){
			"Customer": s.Customer, "CustomerForUpdate": s.CustomerForUpdate} {
			got, err := get(ctx, TenantA, want.ID)
			if err != nil {
				t.Fatalf("%s(%s): %v", name, want.ID, err)
			}
			assertSameCustomer(t, got, want)
		}
	}
}

func testCustomerConflict(t *testing.T, s CustomerStores) {
	c := mustCreateCustomer(t, s, newCustomer(TenantA, 1, "Ada", "ada@example.com"))
	assertErr(t, "CreateCustomer twice", s.CreateCustomer(context.Background(), c), billing.ErrConflict)
	other := newCustomer("ten_nobody", 1, "Ada", "ada@example.com")
	assertErr(t, "CreateCustomer of an unknown tenant", s.CreateCustomer(context.Background(), other), billing.ErrNotFound)
}

func testCustomerIsolation(t *testing.T, s CustomerStores) {
	ctx := context.Background()
	c := mustCreateCustomer(t, s, newCustomer(TenantA, 1, "Ada", "ada@example.com"))
	_, err := s.Customer(ctx, TenantB, c.ID)
	assertErr(t, "Customer of another tenant", err, billing.ErrCustomerNotFound)
	_, err = s.CustomerForUpdate(ctx, TenantB, c.ID)
	assertErr(t, "CustomerForUpdate of another tenant", err, billing.ErrNotFound)
	_, err = s.Customer(ctx, TenantA, id.New(id.Customer))
	assertErr(t, "Customer absent", err, billing.ErrCustomerNotFound)
	stolen := c
	stolen.TenantID, stolen.Name = TenantB, "Mallory"
	assertErr(t, "SaveCustomer of another tenant", s.SaveCustomer(ctx, stolen), billing.ErrCustomerNotFound)
	page, _, err := s.ListCustomers(ctx, TenantB, billing.CustomerFilter{Limit: 10, Archived: true})
	if err != nil || len(page) != 0 {
		t.Errorf("ListCustomers of TenantB = %d customers, %v; want none", len(page), err)
	}
	if got, _ := s.Customer(ctx, TenantA, c.ID); got.Name != "Ada" {
		t.Errorf("the other tenant's save changed the name to %q", got.Name)
	}
}

func testCustomerSave(t *testing.T, s CustomerStores) {
	ctx := context.Background()
	c := mustCreateCustomer(t, s, newCustomer(TenantA, 1, "Ada", "ada@example.com"))
	c.Name, c.Email, c.TaxID, c.Locale = "Ada King", "ada.king@example.com", "GB1", "en-GB"
	c.Address = &billing.Address{Line1: "12 St James's Sq", Country: "GB"}
	c.Metadata = map[string]string{"k": "v"}
	at := c.CreatedAt.Add(time.Hour)
	c.ArchivedAt, c.UpdatedAt = &at, at
	if err := s.SaveCustomer(ctx, c); err != nil {
		t.Fatalf("SaveCustomer: %v", err)
	}
	got, err := s.Customer(ctx, TenantA, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	assertSameCustomer(t, got, c)
	c.Address, c.ArchivedAt = nil, nil
	if err := s.SaveCustomer(ctx, c); err != nil {
		t.Fatalf("SaveCustomer clearing: %v", err)
	}
	got, _ = s.Customer(ctx, TenantA, c.ID)
	assertSameCustomer(t, got, c)
	missing := newCustomer(TenantA, 2, "Nobody", "n@example.com")
	assertErr(t, "SaveCustomer absent", s.SaveCustomer(ctx, missing), billing.ErrCustomerNotFound)
}

// named returns an invoice of c's tenant numbered n that names c, in
// status st.
func named(c billing.CustomerRecord, n int64, st billing.Status, currency string, due int64) billing.Invoice {
	inv := newInvoice(c.TenantID, n)
	cid := c.ID
	inv.CustomerID, inv.Customer = &cid, billing.Customer{Name: c.Name, Email: c.Email, Locale: c.Locale}
	inv.Status, inv.Currency, inv.AmountDue = st, currency, due
	if st == billing.StatusDraft {
		inv.Number, inv.FinalizedAt = "", nil
	}
	return inv
}

func testCustomerSaveDrafts(t *testing.T, s CustomerStores) {
	ctx := context.Background()
	c := mustCreateCustomer(t, s, newCustomer(TenantA, 1, "Ada", "ada@example.com"))
	draft := mustCreate(t, s, named(c, 1, billing.StatusDraft, "USD", 4328))
	open := mustCreate(t, s, named(c, 2, billing.StatusOpen, "USD", 4328))
	inline := mustCreate(t, s, newInvoice(TenantA, 3))
	inline.Status, inline.Number, inline.FinalizedAt = billing.StatusDraft, "", nil
	if err := s.SaveInvoice(ctx, inline); err != nil {
		t.Fatal(err)
	}
	c.Name, c.Email, c.TaxID, c.Locale = "Ada King", "king@example.com", "GB1", "en-GB"
	c.Address = &billing.Address{Line1: "1 Sq", Country: "GB"}
	if err := s.SaveCustomer(ctx, c); err != nil {
		t.Fatalf("SaveCustomer: %v", err)
	}
	want := draft
	want.Customer = billing.Customer{Name: "Ada King", Email: "king@example.com", Address: c.Address, TaxID: "GB1", Locale: "en-GB"}
	assertSame(t, mustGet(t, s, TenantA, draft.ID), want)
	assertSame(t, mustGet(t, s, TenantA, open.ID), open)
	assertSame(t, mustGet(t, s, TenantA, inline.ID), inline)
}

func testCustomerListPages(t *testing.T, s CustomerStores) {
	ctx := context.Background()
	var all []billing.CustomerRecord
	for i := range 5 {
		all = append(all, mustCreateCustomer(t, s, newCustomer(TenantA, i, fmt.Sprintf("C%d", i), fmt.Sprintf("c%d@example.com", i))))
	}
	mustCreateCustomer(t, s, newCustomer(TenantB, 9, "B", "b@example.com"))
	var got []string
	before := ""
	for pages := 0; ; pages++ {
		page, more, err := s.ListCustomers(ctx, TenantA, billing.CustomerFilter{Limit: 2, Before: before})
		if err != nil {
			t.Fatalf("ListCustomers: %v", err)
		}
		for _, c := range page {
			got = append(got, c.ID)
		}
		if !more {
			break
		}
		if pages > 5 || len(page) == 0 {
			t.Fatal("ListCustomers does not end")
		}
		before = page[len(page)-1].ID
	}
	if len(got) != 5 {
		t.Fatalf("listed %d customers, want 5", len(got))
	}
	for i, cid := range got {
		if want := all[4-i].ID; cid != want {
			t.Errorf("position %d: %s, want %s (newest first)", i, cid, want)
		}
	}
}

func testCustomerListArchived(t *testing.T, s CustomerStores) {
	ctx := context.Background()
	live := mustCreateCustomer(t, s, newCustomer(TenantA, 1, "Live", "live@example.com"))
	gone := newCustomer(TenantA, 2, "Gone", "gone@example.com")
	at := gone.CreatedAt
	gone.ArchivedAt = &at
	mustCreateCustomer(t, s, gone)
	for _, tt := range []struct {
		archived bool
		want     []string
	}{{false, []string{live.ID}}, {true, []string{gone.ID, live.ID}}} {
		page, _, err := s.ListCustomers(ctx, TenantA, billing.CustomerFilter{Limit: 10, Archived: tt.archived})
		if err != nil {
			t.Fatal(err)
		}
		if ids := customerIDs(page); fmt.Sprint(ids) != fmt.Sprint(tt.want) {
			t.Errorf("archived=%v: %v, want %v", tt.archived, ids, tt.want)
		}
	}
}

func customerIDs(cs []billing.CustomerRecord) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}

func testCustomerSearch(t *testing.T, s CustomerStores) {
	ctx := context.Background()
	ada := mustCreateCustomer(t, s, newCustomer(TenantA, 1, "Ada Lovelace", "ada@analytical.example"))
	zoe := mustCreateCustomer(t, s, newCustomer(TenantA, 2, "ZOË Ünïcode", "zoe@example.com"))
	pct := mustCreateCustomer(t, s, newCustomer(TenantA, 3, "100% Co_op", "coop@example.com"))
	mustCreateCustomer(t, s, newCustomer(TenantB, 4, "Ada Other", "ada@other.example"))
	tests := []struct {
		search string
		want   []string
	}{
		{"ada", []string{ada.ID}},
		{"lovelace", []string{ada.ID}},
		{"analytical", []string{ada.ID}},
		{"zoë ü", []string{zoe.ID}},
		{"example.com", []string{pct.ID, zoe.ID}},
		{"%", []string{pct.ID}},
		{"o_o", []string{pct.ID}},
		{"nobody", []string{}},
	}
	for _, tt := range tests {
		page, _, err := s.ListCustomers(ctx, TenantA, billing.CustomerFilter{Limit: 10, Search: tt.search})
		if err != nil {
			t.Fatalf("search %q: %v", tt.search, err)
		}
		if ids := customerIDs(page); fmt.Sprint(ids) != fmt.Sprint(tt.want) {
			t.Errorf("search %q: %v, want %v", tt.search, ids, tt.want)
		}
	}
}

func testCustomerOutstanding(t *testing.T, s CustomerStores) {
	ctx := context.Background()
	c := mustCreateCustomer(t, s, newCustomer(TenantA, 1, "Ada", "ada@example.com"))
	other := mustCreateCustomer(t, s, newCustomer(TenantA, 2, "Bob", "bob@example.com"))
	got, err := s.Outstanding(ctx, TenantA, c.ID)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("Outstanding with no invoice = %#v, %v; want []", got, err)
	}
	mustCreate(t, s, named(c, 1, billing.StatusOpen, "USD", 1000))
	mustCreate(t, s, named(c, 2, billing.StatusOpen, "USD", 250))
	mustCreate(t, s, named(c, 3, billing.StatusOpen, "EUR", 700))
	mustCreate(t, s, named(c, 4, billing.StatusPaid, "USD", 0))
	mustCreate(t, s, named(c, 5, billing.StatusDraft, "USD", 9999))
	mustCreate(t, s, named(other, 6, billing.StatusOpen, "USD", 5))
	got, err = s.Outstanding(ctx, TenantA, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []billing.Outstanding{{Currency: "EUR", AmountDue: 700}, {Currency: "USD", AmountDue: 1250}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Outstanding = %v, want %v", got, want)
	}
	if got, _ := s.Outstanding(ctx, TenantB, c.ID); len(got) != 0 {
		t.Errorf("Outstanding for another tenant = %v, want none", got)
	}
}

func testCustomerInvoiceFilter(t *testing.T, s CustomerStores) {
	ctx := context.Background()
	c := mustCreateCustomer(t, s, newCustomer(TenantA, 1, "Ada", "ada@example.com"))
	mine := mustCreate(t, s, named(c, 1, billing.StatusOpen, "USD", 1))
	mustCreate(t, s, newInvoice(TenantA, 2))
	page, _, err := s.ListInvoices(ctx, TenantA, billing.ListFilter{Limit: 10, CustomerID: c.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 1 || page[0].ID != mine.ID {
		t.Fatalf("ListInvoices by customer = %d invoices, want only %s", len(page), mine.ID)
	}
	assertSame(t, page[0], mine)
	if page, _, _ := s.ListInvoices(ctx, TenantB, billing.ListFilter{Limit: 10, CustomerID: c.ID}); len(page) != 0 {
		t.Errorf("another tenant lists %d invoices of the customer", len(page))
	}
}
