package database

import (
	"database/sql"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// TestStmtText holds the text a Stmt runs on Postgres to the text Bun
// writes for the same statement built with NewRaw and Args on every run,
// as the stores built their written-out statements before Stmt.
func TestStmtText(t *testing.T) {
	db := bun.NewDB(&sql.DB{}, pgdialect.New())
	tests := []struct {
		name, text string
		values     int
	}{
		{"Next", "SELECT a FROM t WHERE (x = ?) AND (y = ?)", 2},
		{"Numbered", "UPDATE t SET a = ?1, b = ?2 WHERE (tenant_id = ?0) AND (id = ?3)", 4},
		{"Reused", "(SELECT 1 FROM t WHERE (x = ?0)) UNION ALL (SELECT 2 FROM u WHERE (x = ?0) AND (y = ?1))", 2},
		{"None", "SELECT 1", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewArgs(db)
			vals := make([]any, tt.values)
			for i := range vals {
				vals[i] = i
			}
			want, err := queryText(db.NewRaw(tt.text, a.AddAll(vals...)...), db)
			if err != nil {
				t.Fatal(err)
			}
			s := NewStmt(db, tt.text)
			if s.bound != want || s.n != tt.values {
				t.Errorf("Stmt: %q taking %d values; NewRaw and Args: %q taking %d", s.bound, s.n, want, tt.values)
			}
		})
	}
}
