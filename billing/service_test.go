package billing_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

const tenantB = "ten_00000000000000000000000002"

func TestCreate(t *testing.T) {
	tests := []struct {
		name       string
		in         billing.CreateInvoiceInput
		status     billing.Status
		finalized  bool
		paid       bool
		total, due int64
	}{
		{"DefaultsToOpen", validInput(), billing.StatusOpen, true, false, 2164, 2164},
		{"Open", func() billing.CreateInvoiceInput { in := validInput(); in.Status = "open"; return in }(),
			billing.StatusOpen, true, false, 2164, 2164},
		{"Draft", func() billing.CreateInvoiceInput { in := validInput(); in.Status = "draft"; return in }(),
			billing.StatusDraft, false, false, 2164, 2164},
		{"FreeOpenIsPaid", withTotal(0), billing.StatusPaid, true, true, 0, 0},
		{"FreeDraftStaysDraft", func() billing.CreateInvoiceInput { in := withTotal(0); in.Status = "draft"; return in }(),
			billing.StatusDraft, false, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, _, ent := newMemService(t)
			inv := mustCreate(t, svc, tenantA, tt.in)
			number := "INV-000001"
			if tt.status == billing.StatusDraft {
				number = "" // numbered when finalized
			}
			if !id.Valid(id.Invoice, inv.ID) || inv.Number != number || inv.TenantID != tenantA {
				t.Errorf("got id %q number %q tenant %q, want number %q", inv.ID, inv.Number, inv.TenantID, number)
			}
			if inv.Status != tt.status || inv.Total != tt.total || inv.AmountDue != tt.due || inv.AmountPaid != 0 {
				t.Errorf("got %s total %d due %d paid %d, want %s %d %d 0",
					inv.Status, inv.Total, inv.AmountDue, inv.AmountPaid, tt.status, tt.total, tt.due)
			}
			if !inv.CreatedAt.Equal(now()) || (inv.FinalizedAt != nil) != tt.finalized || (inv.PaidAt != nil) != tt.paid {
				t.Errorf("got created %v finalized %v paid %v", inv.CreatedAt, inv.FinalizedAt, inv.PaidAt)
			}
			if inv.Metadata == nil {
				t.Error("metadata is nil, want {}")
			}
			if ent.used != 1 {
				t.Errorf("used %d units of the limit, want 1", ent.used)
			}
			got, err := svc.Get(context.Background(), tenantA, inv.ID)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			assertSameInvoice(t, got, inv)
		})
	}
}

func TestCreateNormalizes(t *testing.T) {
	svc, _, _ := newMemService(t)
	in := validInput()
	in.Customer = billing.CustomerInput{Name: "  Ada Lovelace ", Email: " Ada@Example.COM "}
	in.LineItems[0].Description = " Consulting\n"
	in.DueDate = "2026-12-31"
	in.Memo = "Net 30"
	in.Metadata = map[string]string{"order": "ord_1"}
	inv := mustCreate(t, svc, tenantA, in)
	want := billing.Customer{Name: "Ada Lovelace", Email: "ada@example.com", Locale: billing.DefaultLocale}
	if inv.Customer != want || inv.LineItems[0].Description != "Consulting" {
		t.Errorf("got customer %+v line %q, want %+v %q", inv.Customer, inv.LineItems[0].Description, want, "Consulting")
	}
	if inv.DueDate != "2026-12-31" || inv.Memo != "Net 30" || inv.Metadata["order"] != "ord_1" {
		t.Errorf("got due %q memo %q metadata %v", inv.DueDate, inv.Memo, inv.Metadata)
	}
	in.Metadata["order"] = "changed"
	if inv.Metadata["order"] != "ord_1" {
		t.Error("the invoice shares its metadata map with the input")
	}
}

func TestCreateNumbersPerTenant(t *testing.T) {
	svc, _, _ := newMemService(t)
	for i, want := range []struct{ tenant, number string }{
		{tenantA, "INV-000001"}, {tenantA, "INV-000002"}, {tenantB, "INV-000001"}, {tenantA, "INV-000003"},
	} {
		if inv := mustCreate(t, svc, want.tenant, validInput()); inv.Number != want.number {
			t.Errorf("create %d in %s: got %s, want %s", i, want.tenant, inv.Number, want.number)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for n, want := range map[int64]string{1: "INV-000001", 42: "INV-000042", 999999: "INV-999999", 1000000: "INV-1000000"} {
		if got := billing.FormatNumber(n); got != want {
			t.Errorf("FormatNumber(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCreateEntitlements(t *testing.T) {
	tests := []struct {
		name      string
		moduleErr error
		limit     int64
		want      error
	}{
		{"ModuleDisabled", fmt.Errorf("tenancy: module: %w", tenancy.ErrModuleDisabled), -1, tenancy.ErrModuleDisabled},
		{"LimitReached", nil, 0, tenancy.ErrLimitExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, store, ent := newMemService(t)
			ent.moduleErr, ent.limit = tt.moduleErr, tt.limit
			_, err := svc.Create(context.Background(), tenantA, validInput())
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
			if len(store.invoices) != 0 || store.numbers[tenantA] != 0 {
				t.Errorf("a refused create stored %d invoices and took %d numbers", len(store.invoices), store.numbers[tenantA])
			}
		})
	}
}

func TestGet(t *testing.T) {
	svc, _, _ := newMemService(t)
	inv := mustCreate(t, svc, tenantA, validInput())
	tests := []struct{ name, tenant, id string }{
		{"Unknown", tenantA, id.New(id.Invoice)},
		{"Garbage", tenantA, "inv_'; DROP TABLE invoices; --"},
		{"Empty", tenantA, ""},
		{"OtherTenant", tenantB, inv.ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := svc.Get(context.Background(), tt.tenant, tt.id); !errors.Is(err, billing.ErrNotFound) {
				t.Errorf("got %v, want ErrNotFound", err)
			}
		})
	}
}

func TestList(t *testing.T) {
	svc, _, _ := newMemService(t)
	ctx := context.Background()
	var all []billing.Invoice // newest first
	for i := range 120 {
		in := validInput()
		if i%3 == 0 {
			in.Status = "draft"
			in.Customer.Email = "grace@example.com"
		}
		all = append([]billing.Invoice{mustCreate(t, svc, tenantA, in)}, all...)
	}
	mustCreate(t, svc, tenantB, validInput())

	tests := []struct {
		name     string
		filter   billing.ListFilter
		wantLen  int
		wantMore bool
		first    string
	}{
		{"DefaultLimit", billing.ListFilter{}, billing.DefaultListLimit, true, all[0].ID},
		{"NegativeLimit", billing.ListFilter{Limit: -5}, billing.DefaultListLimit, true, all[0].ID},
		{"ClampedLimit", billing.ListFilter{Limit: 1000}, billing.MaxListLimit, true, all[0].ID},
		{"Before", billing.ListFilter{Limit: 100, Before: all[99].ID}, 20, false, all[100].ID},
		{"Status", billing.ListFilter{Status: "draft", Limit: 100}, 40, false, ""},
		{"EmailAnyCase", billing.ListFilter{CustomerEmail: " Grace@EXAMPLE.com", Limit: 100}, 40, false, ""},
		{"BlankEmailIsNoFilter", billing.ListFilter{CustomerEmail: " ", Limit: 100}, 100, true, all[0].ID},
		{"NoMatch", billing.ListFilter{Status: "void"}, 0, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, more, err := svc.List(ctx, tenantA, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) != tt.wantLen || more != tt.wantMore {
				t.Errorf("got %d invoices more=%v, want %d more=%v", len(page), more, tt.wantLen, tt.wantMore)
			}
			if tt.first != "" && len(page) > 0 && page[0].ID != tt.first {
				t.Errorf("first is %s, want %s", page[0].ID, tt.first)
			}
			for i := 1; i < len(page); i++ {
				if page[i-1].ID <= page[i].ID {
					t.Fatalf("not newest first at %d", i)
				}
			}
		})
	}
}

func TestListInvalid(t *testing.T) {
	svc, _, _ := newMemService(t)
	tests := []struct {
		name        string
		filter      billing.ListFilter
		field, code string
		message     string
	}{
		{"Status", billing.ListFilter{Status: "sent"}, "status", field.Invalid, "must be one of: draft, open, paid, void, uncollectible"},
		{"Cursor", billing.ListFilter{Before: "tkt_01jd0000000000000000000000"}, "cursor", field.Invalid, "is not an invoice position"},
		{"Email", billing.ListFilter{CustomerEmail: "a\x00@example.com"}, "customer_email", field.NulByte, "must not contain NUL (U+0000)"},
		{"EmailTooLong", billing.ListFilter{CustomerEmail: strings.Repeat("a", 255)}, "customer_email", field.TooLong, "must have at most 254 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := svc.List(context.Background(), tenantA, tt.filter)
			want := field.Error{Field: tt.field, Code: tt.code, Message: tt.message}
			if got := codedErrors(t, err); len(got) != 1 || got[0] != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestTenantOf(t *testing.T) {
	svc, _, _ := newMemService(t)
	inv := mustCreate(t, svc, tenantB, validInput())
	if got, err := svc.TenantOf(context.Background(), inv.ID); err != nil || got != tenantB {
		t.Errorf("TenantOf = %q, %v; want %q", got, err, tenantB)
	}
	for _, bad := range []string{id.New(id.Invoice), "garbage"} {
		if _, err := svc.TenantOf(context.Background(), bad); !errors.Is(err, billing.ErrNotFound) {
			t.Errorf("TenantOf(%q): got %v, want ErrNotFound", bad, err)
		}
	}
}

// TestNewServiceNeedsTransactor: without a Transactor, spending the
// allowance, numbering and inserting would not commit as one, so the
// configuration is refused rather than run.
func TestNewServiceNeedsTransactor(t *testing.T) {
	got := func() (p any) {
		defer func() { p = recover() }()
		billing.NewService(newMemStore(), &fakeEntitlements{limit: -1}, nil)
		return nil
	}()
	if msg, _ := got.(string); !strings.Contains(msg, "needs a Transactor") {
		t.Fatalf("NewService with a nil Transactor: recovered %v, want a panic saying it needs one", got)
	}
}
