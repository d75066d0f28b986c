package tenantkit_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// hookLog is a host's bun.QueryHook: it notes every statement Bun runs.
type hookLog struct {
	mu    sync.Mutex
	stmts []string
}

func (h *hookLog) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h *hookLog) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	h.mu.Lock()
	h.stmts = append(h.stmts, e.Query)
	h.mu.Unlock()
}

func (h *hookLog) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.stmts
	h.stmts = nil
	return s
}

// TestQueryHookSeesEveryStatement: on both Postgres drivers, a query hook
// the host adds to its *bun.DB sees each statement that reaches Postgres
// (read off the wire) for create tenant, create invoice, get invoice and
// list tickets, with the text Postgres received.
func TestQueryHookSeesEveryStatement(t *testing.T) {
	for _, driver := range []string{"pgx", "pgdriver"} {
		t.Run(driver, func(t *testing.T) {
			ctx := context.Background()
			rawURL := dbtest.PostgresURL(t)
			migrated, err := database.Open(ctx, rawURL, database.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tenantkit.Migrate(ctx, migrated); err != nil {
				t.Fatal(err)
			}
			_ = migrated.Close()

			wire, viaWire := dbtest.NewWire(t, rawURL)
			db, err := database.Open(ctx, viaWire, database.Options{PostgresDriver: driver, MaxConns: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			hook := &hookLog{}
			db.AddQueryHook(hook)
			app, err := tenantkit.New(db, catalog.Default())
			if err != nil {
				t.Fatal(err)
			}

			var tn tenancy.Tenant
			var inv billing.Invoice
			steps := []struct {
				name string
				run  func() error
			}{
				{"create tenant", func() (err error) {
					tn, err = app.Tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth})
					return err
				}},
				{"create invoice", func() (err error) {
					inv, err = app.Billing.Create(ctx, tn.ID, billing.CreateInvoiceInput{
						Customer: billing.CustomerInput{Name: "Ada", Email: "ada@example.com"}, Currency: "EUR",
						LineItems: []billing.LineItemInput{{Description: "Plan", Quantity: 1, UnitAmount: 1000}},
						DueDate:   time.Now().AddDate(0, 0, 30).Format(time.DateOnly),
					})
					return err
				}},
				{"get invoice", func() error { _, err := app.Billing.Get(ctx, tn.ID, inv.ID); return err }},
				{"list tickets", func() error {
					_, _, err := app.Support.List(ctx, tn.ID, support.ListFilter{Limit: 20})
					return err
				}},
			}
			total := 0
			for _, s := range steps {
				hook.take()
				wire.Reset()
				if err := s.run(); err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				seen, sent := hook.take(), withoutPings(wire.Statements())
				total += len(sent)
				if !sameStatements(seen, sent) {
					t.Errorf("%s: the hook saw %d statements, Postgres received %d\nhook:\n  %s\nwire:\n  %s",
						s.name, len(seen), len(sent), strings.Join(seen, "\n  "), strings.Join(sent, "\n  "))
				}
			}
			if total < 8 {
				t.Errorf("Postgres received %d statements for the four operations; the wire is not being read", total)
			}
		})
	}
}

// withoutPings drops pgx's "-- ping", its database/sql driver's check of
// a pooled connection before reuse: the driver's, not a statement.
func withoutPings(stmts []string) []string {
	out := stmts[:0:0]
	for _, s := range stmts {
		if s != "-- ping" {
			out = append(out, s)
		}
	}
	return out
}

// sameStatements reports whether the hook saw what the wire carried, in
// order (transaction control compared without regard to case).
func sameStatements(seen, sent []string) bool {
	if len(seen) != len(sent) {
		return false
	}
	for i := range seen {
		if !strings.EqualFold(strings.TrimSpace(seen[i]), strings.TrimSpace(sent[i])) {
			return false
		}
	}
	return true
}
