package database_test

import (
	"context"
	"errors"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

var (
	errDup   = errors.New("duplicate thing")
	errOther = errors.New("another store's conflict")
)

// translateThing is the translate of the store that owns things.
func translateThing(err error) error { return database.Translate(err, errors.New("no thing"), errDup) }

// TestExecLater holds a kept statement to the effects of running it at
// once: every later read of the transaction sees it, whichever way it
// reads; a commit sends it; a rollback (of the transaction or of a
// savepoint) undoes it; its failure reaches the caller translated by its
// own store, once.
func TestExecLater(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		boom := errors.New("boom")
		later := func(ctx context.Context, id string) error {
			a := database.NewArgs(db)
			q := database.Conn(ctx, db).NewRaw("INSERT INTO things (id, n) VALUES (?, ?)", a.AddAll(id, 1)...)
			return database.ExecLater(ctx, db, q, a, translateThing)
		}
		// bound reads a thing as the stores do (database.Scan: on Postgres
		// in the kept statements' pipeline); bunRead through Bun itself,
		// on a context without the transaction.
		bound := func(ctx context.Context, id string) (int64, error) {
			var n int64
			a := database.NewArgs(db)
			q := database.Conn(ctx, db).NewSelect().Model((*thing)(nil)).ColumnExpr("count(*)").Where("id = ?", a.Add(id))
			err := database.Scan(ctx, db, q, a, &n)
			return n, err
		}
		bunRead := func(ctx context.Context, id string) (int64, error) {
			return database.Conn(ctx, db).NewSelect().Model((*thing)(nil)).Where("id = ?", id).Count(context.Background())
		}
		exists := func(t *testing.T, id string, want bool) {
			t.Helper()
			n, err := db.NewSelect().Model((*thing)(nil)).Where("id = ?", id).Count(ctx)
			if err != nil || (n == 1) != want {
				t.Fatalf("%s committed: %d rows, %v; want %v", id, n, err, want)
			}
		}
		cases := []struct {
			name string
			fn   func(ctx context.Context) error
			want error
			ids  map[string]bool // committed or not
		}{
			{"NextStatementSeesIt", func(ctx context.Context) error {
				if err := later(ctx, "next"); err != nil {
					return err
				}
				if n, err := bound(ctx, "next"); err != nil || n != 1 {
					t.Errorf("bound read in the transaction: %d, %v; want 1", n, err)
				}
				return nil
			}, nil, map[string]bool{"next": true}},
			{"BunQuerySeesIt", func(ctx context.Context) error {
				if err := later(ctx, "bun"); err != nil {
					return err
				}
				if n, err := bunRead(ctx, "bun"); err != nil || n != 1 {
					t.Errorf("Bun read in the transaction: %d, %v; want 1", n, err)
				}
				return nil
			}, nil, map[string]bool{"bun": true}},
			{"FlushBeforeRawTx", func(ctx context.Context) error {
				if err := later(ctx, "raw"); err != nil {
					return err
				}
				if err := database.Flush(ctx); err != nil {
					return err
				}
				tx, ok := database.Conn(ctx, db).(bun.Tx)
				if !ok {
					t.Fatalf("no transaction in the context")
				}
				var n int
				err := tx.Tx.QueryRowContext(ctx, "SELECT count(*) FROM things WHERE id = 'raw'").Scan(&n)
				if err != nil || n != 1 {
					t.Errorf("read on the *sql.Tx after Flush: %d, %v; want 1", n, err)
				}
				return nil
			}, nil, map[string]bool{"raw": true}},
			{"CommitSendsIt", func(ctx context.Context) error { return later(ctx, "commit") },
				nil, map[string]bool{"commit": true}},
			{"RollbackDropsIt", func(ctx context.Context) error {
				if err := later(ctx, "rollback"); err != nil {
					return err
				}
				return boom
			}, boom, map[string]bool{"rollback": false}},
			{"SavepointRollbackDropsOnlyItsOwn", func(ctx context.Context) error {
				if err := later(ctx, "outer"); err != nil {
					return err
				}
				err := database.RunInTx(ctx, db, func(ctx context.Context) error {
					if err := later(ctx, "inner"); err != nil {
						return err
					}
					return boom
				})
				if !errors.Is(err, boom) {
					t.Errorf("savepoint: %v, want boom", err)
				}
				return nil
			}, nil, map[string]bool{"outer": true, "inner": false}},
			{"FailureAtNextStatement", func(ctx context.Context) error {
				if err := later(ctx, "dup"); err != nil {
					return err
				}
				if err := later(ctx, "dup"); err != nil {
					return err // SQLite: at once
				}
				_, err := bound(ctx, "dup")
				// The reading store translates what it got: it stays the
				// failed statement's own error.
				return database.Translate(err, errors.New("not found"), errOther)
			}, errDup, map[string]bool{"dup": false}},
			{"FailureAtCommit", func(ctx context.Context) error {
				if err := later(ctx, "dup2"); err != nil {
					return err
				}
				return later(ctx, "dup2")
			}, errDup, map[string]bool{"dup2": false}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				err := database.RunInTx(ctx, db, c.fn)
				if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
					t.Fatalf("RunInTx = %v, want %v", err, c.want)
				}
				if errors.Is(err, errOther) {
					t.Fatalf("RunInTx = %v: translated twice", err)
				}
				for id, want := range c.ids {
					exists(t, id, want)
				}
			})
		}
		t.Run("OutsideTransaction", func(t *testing.T) {
			if err := later(ctx, "alone"); err != nil {
				t.Fatal(err)
			}
			exists(t, "alone", true)
			if err := later(ctx, "alone"); !errors.Is(err, errDup) {
				t.Fatalf("second insert: %v, want errDup", err)
			}
		})
	}, schema())
}

// TestExecLaterPipelines checks, on Postgres, that a kept statement rides
// with the next one: both ran as the named statements of a pipeline.
func TestExecLaterPipelines(t *testing.T) {
	db := dbtest.Postgres(t, schema())
	ctx := context.Background()
	err := database.RunInTx(ctx, db, func(ctx context.Context) error {
		a := database.NewArgs(db)
		q := database.Conn(ctx, db).NewRaw("INSERT INTO things (id, n) VALUES (?, ?)", a.AddAll("p", 1)...)
		if err := database.ExecLater(ctx, db, q, a, translateThing); err != nil {
			return err
		}
		var named int64
		b := database.NewArgs(db)
		r := database.Conn(ctx, db).NewRaw("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE ? AND statement LIKE '%things%'", b.Add("tk\\_%"))
		if err := database.Scan(ctx, db, r, b, &named); err != nil {
			return err
		}
		if named != 2 {
			t.Errorf("%d statements on things prepared for a pipeline, want 2 (the insert and this select)", named)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
