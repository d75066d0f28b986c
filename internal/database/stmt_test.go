package database_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// TestStmt holds a Stmt to the same text run with NewRaw and Args, on
// both dialects, in and out of a transaction: what it reads, what it
// writes, and ExecLater's keeping of a write until the transaction's next
// statement.
func TestStmt(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		insert := database.NewStmt(db, "INSERT INTO things (id, n) VALUES (?, ?)")
		byID := database.NewStmt(db, "SELECT id, n FROM things WHERE (id = ?)")
		// ?1 before ?0, and ?0 twice: numbered as Args numbers them.
		between := database.NewStmt(db, "SELECT id, n FROM things WHERE (n >= ?1) AND (n <= ?0 OR n = ?0) ORDER BY id")
		bump := database.NewStmt(db, "UPDATE things SET n = n + ? WHERE (id = ?)")
		for _, th := range []thing{{ID: "a", N: 1}, {ID: "b", N: 2}, {ID: "it's", N: 3}} {
			if _, err := insert.Exec(ctx, th.ID, th.N); err != nil {
				t.Fatalf("insert %v: %v", th, err)
			}
		}

		t.Run("Struct", func(t *testing.T) {
			var got thing
			if err := byID.Scan(ctx, &got, "it's"); err != nil || got != (thing{ID: "it's", N: 3}) {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
		t.Run("ErrNoRows", func(t *testing.T) {
			var got thing
			if err := byID.Scan(ctx, &got, "none"); !errors.Is(err, sql.ErrNoRows) {
				t.Fatalf("err = %v, want sql.ErrNoRows", err)
			}
		})
		t.Run("SliceNumbered", func(t *testing.T) {
			var got []thing
			if err := between.Scan(ctx, &got, 2, 1); err != nil || len(got) != 2 || got[0].ID != "a" || got[1].ID != "b" {
				t.Fatalf("got %+v, %v; want a and b", got, err)
			}
		})
		t.Run("Exec", func(t *testing.T) {
			res, err := bump.Exec(ctx, 10, "a")
			if err != nil {
				t.Fatal(err)
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("RowsAffected = %d, %v; want 1", n, err)
			}
			var got thing
			if err := byID.Scan(ctx, &got, "a"); err != nil || got.N != 11 {
				t.Fatalf("got %+v, %v; want n 11", got, err)
			}
		})
		t.Run("InTx", func(t *testing.T) {
			boom := errors.New("boom")
			err := database.RunInTx(ctx, db, func(ctx context.Context) error {
				if err := insert.ExecLater(ctx, translateThing, "kept", 7); err != nil {
					return err
				}
				var got thing
				if err := byID.Scan(ctx, &got, "kept"); err != nil || got.N != 7 {
					t.Errorf("the transaction reads %+v, %v; want its kept insert", got, err)
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want boom", err)
			}
			var got thing
			if err := byID.Scan(ctx, &got, "kept"); !errors.Is(err, sql.ErrNoRows) {
				t.Fatalf("after the rollback: %+v, %v; want sql.ErrNoRows", got, err)
			}
		})
		t.Run("ExecLaterFailureTranslated", func(t *testing.T) {
			err := database.RunInTx(ctx, db, func(ctx context.Context) error {
				if err := insert.ExecLater(ctx, translateThing, "b", 1); err != nil {
					return err
				}
				var got thing
				return byID.Scan(ctx, &got, "b")
			})
			if !errors.Is(err, errDup) {
				t.Fatalf("err = %v, want errDup", err)
			}
		})
	}, schema())
}

// TestStmtValues: on Postgres, a Stmt run with other than the values its
// text takes fails before it reaches the server.
func TestStmtValues(t *testing.T) {
	db := dbtest.Postgres(t, schema())
	var got thing
	err := database.NewStmt(db, "SELECT id, n FROM things WHERE (id = ?)").Scan(context.Background(), &got, "a", "b")
	if err == nil || !strings.Contains(err.Error(), "2 values for a statement of 1") {
		t.Fatalf("err = %v, want 2 values for a statement of 1", err)
	}
}
