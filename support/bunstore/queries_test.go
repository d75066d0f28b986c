package bunstore

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// TestTicketColumns holds ticketColumns, the column list of the queries
// written out in full, to the one Bun builds from ticketRow: a column
// added to the row but not to the list would read as its zero value.
func TestTicketColumns(t *testing.T) {
	db := bun.NewDB(&sql.DB{}, pgdialect.New())
	built := db.NewSelect().Model((*ticketRow)(nil)).String()
	want, _, _ := strings.Cut(strings.TrimPrefix(built, "SELECT "), ` FROM "tickets"`)
	if ticketColumns != want {
		t.Errorf("ticketColumns =\n%s\nBun selects\n%s", ticketColumns, want)
	}
}
