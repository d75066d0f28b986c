package database

import (
	"database/sql"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
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

// TestSequenceText holds the text a Sequence runs, on both dialects, to
// the text Bun wrote for NextNumber's upsert built with NewRaw on every
// call, its table an identifier.
func TestSequenceText(t *testing.T) {
	const built = `INSERT INTO ? (tenant_id, last_number) VALUES (?, 1)
		 ON CONFLICT (tenant_id) DO UPDATE SET last_number = ?.last_number + 1
		 RETURNING last_number`
	for _, db := range []*bun.DB{bun.NewDB(&sql.DB{}, pgdialect.New()), bun.NewDB(&sql.DB{}, sqlitedialect.New())} {
		t.Run(DialectName(db), func(t *testing.T) {
			a := NewArgs(db)
			q := db.NewRaw(built, bun.Ident("invoice_sequences"), a.Add("t1"), bun.Ident("invoice_sequences"))
			want, err := queryText(q, db)
			if err != nil {
				t.Fatal(err)
			}
			if a.bind {
				if got := NewSequence(db, "invoice_sequences").next.String(); got != want {
					t.Errorf("Sequence runs\n%s\nNewRaw built\n%s", got, want)
				}
				return
			}
			// SQLite writes the value into the text on every run, as before.
			s := NewSequence(db, "invoice_sequences").next
			got, err := queryText(db.NewRaw(s.text, "t1"), db)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("Sequence runs\n%s\nNewRaw built\n%s", got, want)
			}
		})
	}
}
