package bunstore

import (
	"database/sql"
	"regexp"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// TestWrittenOutQueries holds the queries written out in full to the ones
// Bun builds from ticketRow, as the store built them before, placeholders
// left in place (numbered ones compared as plain "?"): a column added to
// the row but not to ticketColumns would read as its zero value.
func TestWrittenOutQueries(t *testing.T) {
	db := bun.NewDB(&sql.DB{}, pgdialect.New())
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
	}{
		{"selectTicket", selectTicket, sel().String()},
		{"selectTicketForUpdate", selectTicketForUpdate, sel().For("UPDATE").String()},
		{"updateTicket", updateTicket, upd.Where("id = ?", ph).String()},
	}
	numbered := regexp.MustCompile(`\?\d+`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := numbered.ReplaceAllString(tt.query, "?"); got != tt.want {
				t.Errorf("written out:\n%s\nBun builds:\n%s", got, tt.want)
			}
		})
	}
}
