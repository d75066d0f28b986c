package bunstore

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// TestInvoiceColumns holds invoiceColumns, the column list of the queries
// written out in full, to the one Bun builds from invoiceRow: a column
// added to the row but not to the list would read as its zero value.
func TestInvoiceColumns(t *testing.T) {
	db := bun.NewDB(&sql.DB{}, pgdialect.New())
	built := db.NewSelect().Model((*invoiceRow)(nil)).String()
	want, _, _ := strings.Cut(strings.TrimPrefix(built, "SELECT "), ` FROM "invoices"`)
	if invoiceColumns != want {
		t.Errorf("invoiceColumns =\n%s\nBun selects\n%s", invoiceColumns, want)
	}
}
