package bunstore

import (
	"database/sql"
	"regexp"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/tenantkit/tenantkit/internal/database"
)

// TestWrittenOutQueries holds the queries written out in full to the ones
// Bun builds from ticketRow, as the store built them before, placeholders
// left in place (numbered ones compared as plain "?"): a column added to
// the row but not to ticketColumns would read as its zero value. The
// store's database.Stmt of each runs it too, its placeholders numbered
// ($1, $2, …).
func TestWrittenOutQueries(t *testing.T) {
	db := bun.NewDB(&sql.DB{}, pgdialect.New())
	st := New(db).stmts
	ph := bun.Safe("?")
	sel := func() *bun.SelectQuery {
		return db.NewSelect().Model((*ticketRow)(nil)).Where("tenant_id = ?", ph).Where("id = ?", ph)
	}
	upd := db.NewUpdate().Model((*ticketRow)(nil)).Where("tenant_id = ?", ph)
	for _, c := range []string{"subject", "description", "status", "priority", "assignee_id", "tags", "updated_at",
		"first_response_due_at", "resolution_due_at", "first_responded_at", "satisfaction_score",
		"satisfaction_comment", "satisfaction_rated_by", "satisfaction_rated_at"} {
		upd = upd.Set(c+" = ?", ph)
	}
	tests := []struct {
		name        string
		query, want string
		stmt        *database.Stmt
	}{
		{"selectTicket", selectTicket, sel().String(), st.selectTicket},
		{"selectTicketForUpdate", selectTicketForUpdate, sel().For("UPDATE").String(), st.selectTicketForUpdate},
		{"updateTicket", updateTicket, upd.Where("id = ?", ph).String(), st.updateTicket},
	}
	numbered := regexp.MustCompile(`[?$]\d+`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := numbered.ReplaceAllString(tt.query, "?"); got != tt.want {
				t.Errorf("written out:\n%s\nBun builds:\n%s", got, tt.want)
			}
			if got := numbered.ReplaceAllString(tt.stmt.String(), "?"); got != tt.want {
				t.Errorf("the store's Stmt runs:\n%s\nBun builds:\n%s", got, tt.want)
			}
		})
	}
}
