package tenantkit_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/billing"
	billingstore "github.com/tenantkit/tenantkit/billing/bunstore"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestFlush: a row a store inserted in the caller's transaction, kept to
// ride with the next statement, is there for a statement run on the
// transaction's *sql.Tx below Bun once Flush has sent it — and for Bun
// queries on Conn without it.
func TestFlush(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		app, err := tenantkit.New(db, catalog.Default())
		if err != nil {
			t.Fatal(err)
		}
		tn, err := app.Tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth})
		if err != nil {
			t.Fatal(err)
		}
		store := billingstore.New(db)
		insert := func(ctx context.Context) string {
			t.Helper()
			inv := billing.Invoice{ID: id.New(id.Invoice), TenantID: tn.ID, Status: billing.StatusDraft, Currency: "EUR", CreatedAt: time.Now().UTC()}
			if err := store.CreateInvoice(ctx, inv); err != nil {
				t.Fatal(err)
			}
			return inv.ID
		}
		count := func(ctx context.Context, invoiceID string) (n int) {
			t.Helper()
			tx, ok := tenantkit.Conn(ctx, db).(bun.Tx)
			if !ok {
				t.Fatal("no transaction in the context")
			}
			q := "SELECT count(*) FROM invoices WHERE id = ?"
			if tx.Dialect().Name().String() == "pg" {
				q = "SELECT count(*) FROM invoices WHERE id = $1"
			}
			if err := tx.Tx.QueryRowContext(ctx, q, invoiceID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		err = tenantkit.NewTransactor(db).InTx(ctx, func(ctx context.Context) error {
			flushed := insert(ctx)
			if err := tenantkit.Flush(ctx); err != nil {
				return err
			}
			if n := count(ctx, flushed); n != 1 {
				t.Errorf("after Flush, the *sql.Tx sees %d invoices, want 1", n)
			}
			viaBun := insert(ctx)
			n, err := tenantkit.Conn(ctx, db).NewSelect().Table("invoices").Where("id = ?", viaBun).Count(ctx)
			if err != nil || n != 1 {
				t.Errorf("a Bun query on Conn sees %d invoices (%v), want 1", n, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}, tenantkit.Schema()...)
}
