package bunstore

import (
	"database/sql"
	"reflect"
	"regexp"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/tenantkit/tenantkit/internal/database"
)

// TestWrittenOutQueries holds the queries written out in full to the ones
// Bun builds from the row types, placeholders left in place: a column
// added to a row but not to its query would read as its zero value. The
// store's database.Stmt of each runs it too, its placeholders numbered
// ($1, $2, …).
func TestWrittenOutQueries(t *testing.T) {
	db := bun.NewDB(&sql.DB{}, pgdialect.New())
	st := New(db).stmts
	ph := bun.Safe("?")
	tests := []struct {
		name        string
		query, want string
		stmt        *database.Stmt
	}{
		{"membershipOf", membershipOf,
			db.NewSelect().Model((*membershipRow)(nil)).Where("tenant_id = ?", ph).Where("user_id = ?", ph).String(),
			st.membershipOf},
		{"insertNotification", insertNotification, insertOf(db, &notificationRow{}).On("CONFLICT DO NOTHING").Returning("NULL").String(),
			st.insertNotification},
	}
	numbered := regexp.MustCompile(`\$\d+`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.query != tt.want {
				t.Errorf("written out:\n%s\nBun builds:\n%s", tt.query, tt.want)
			}
			if got := numbered.ReplaceAllString(tt.stmt.String(), "?"); got != tt.want {
				t.Errorf("the store's Stmt runs:\n%s\nBun builds:\n%s", got, tt.want)
			}
		})
	}
}

// insertOf is Bun's insert of row (a pointer to a row), every column a
// placeholder.
func insertOf(db *bun.DB, row any) *bun.InsertQuery {
	q := db.NewInsert().Model(row)
	for _, f := range db.Table(reflect.TypeOf(row).Elem()).Fields {
		q = q.Value(f.Name, "?", bun.Safe("?"))
	}
	return q
}
