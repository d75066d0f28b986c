package database_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// schema is a one-table schema for both dialects.
func schema() database.Source {
	sql := "CREATE TABLE things (id TEXT PRIMARY KEY, n INTEGER NOT NULL)"
	return fstest.MapFS{
		"postgres/20000101000001_things.tx.up.sql": {Data: []byte(sql)},
		"sqlite/20000101000001_things.tx.up.sql":   {Data: []byte(sql)},
	}
}

func count(t *testing.T, db bun.IDB) int64 {
	t.Helper()
	n, err := db.NewSelect().Table("things").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func insert(ctx context.Context, db bun.IDB, id string) error {
	_, err := database.Conn(ctx, db).NewRaw("INSERT INTO things (id, n) VALUES (?, 1)", id).Exec(ctx)
	return err
}

func TestRunInTx(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		boom := errors.New("boom")

		t.Run("Commit", func(t *testing.T) {
			err := database.RunInTx(ctx, db, func(ctx context.Context) error { return insert(ctx, db, "a") })
			if err != nil || count(t, db) != 1 {
				t.Fatalf("err %v, count %d", err, count(t, db))
			}
		})
		t.Run("RollbackKeepsError", func(t *testing.T) {
			err := database.RunInTx(ctx, db, func(ctx context.Context) error {
				if err := insert(ctx, db, "b"); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) || count(t, db) != 1 {
				t.Fatalf("err %v, count %d", err, count(t, db))
			}
		})
		t.Run("NestedFailureUndoesOnlyItself", func(t *testing.T) {
			err := database.RunInTx(ctx, db, func(ctx context.Context) error {
				if err := insert(ctx, db, "c"); err != nil {
					return err
				}
				inner := database.RunInTx(ctx, db, func(ctx context.Context) error {
					if !database.InTx(ctx) {
						t.Error("nested call does not see the transaction")
					}
					if err := insert(ctx, db, "d"); err != nil {
						return err
					}
					return boom
				})
				if !errors.Is(inner, boom) {
					t.Errorf("inner = %v", inner)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			if err := db.NewSelect().Table("things").Column("id").Order("id").Scan(ctx, &ids); err != nil {
				t.Fatal(err)
			}
			if strings.Join(ids, ",") != "a,c" {
				t.Fatalf("ids = %v, want a,c (d rolled back to its savepoint)", ids)
			}
		})
		t.Run("UniqueViolation", func(t *testing.T) {
			err := insert(ctx, db, "a")
			if !database.IsUniqueViolation(err) {
				t.Fatalf("IsUniqueViolation(%v) = false", err)
			}
			if w := database.Wrap(err); errors.Is(w, database.ErrUnavailable) {
				t.Fatalf("Wrap = %v: a refused statement is not an outage", w)
			}
		})
	}, schema())
}

func TestMigrate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if n, err := database.Pending(ctx, db, schema()); err == nil && n == 0 {
			t.Fatal("a fresh database reports no pending migrations")
		}
		// Replicas starting together: every one succeeds, the schema is applied once.
		var wg sync.WaitGroup
		applied := make([]int, 4)
		errs := make([]error, 4)
		for i := range applied {
			wg.Add(1)
			go func() { defer wg.Done(); applied[i], errs[i] = database.Migrate(ctx, db, schema()) }()
		}
		wg.Wait()
		total := 0
		for i := range applied {
			if errs[i] != nil {
				t.Fatalf("migrate %d: %v", i, errs[i])
			}
			total += applied[i]
		}
		if total != 1 {
			t.Fatalf("migrations applied %d times in all, want 1", total)
		}
		if n, err := database.Pending(ctx, db, schema()); err != nil || n != 0 {
			t.Fatalf("Pending = %d, %v", n, err)
		}
	})
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	for _, url := range []string{"mysql://x", "sqlite::memory:", "sqlite:", ""} {
		if db, err := database.Open(ctx, url, database.Options{}); err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded", url)
		}
	}
	_, err := database.Open(ctx, "postgres://u:secret@127.0.0.1:1/x?connect_timeout=1", database.Options{})
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("Open of an unreachable server = %v (must fail without showing the password)", err)
	}
}

func TestJoinTx(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		boom := errors.New("boom")
		ids := func(t *testing.T) string {
			t.Helper()
			var ids []string
			if err := db.NewSelect().Table("things").Column("id").Order("id").Scan(ctx, &ids); err != nil {
				t.Fatal(err)
			}
			return strings.Join(ids, ",")
		}

		t.Run("AloneCommits", func(t *testing.T) {
			err := database.JoinTx(ctx, db, func(ctx context.Context) error {
				if !database.InTx(ctx) {
					t.Error("fn runs without a transaction")
				}
				return insert(ctx, db, "a")
			})
			if err != nil || ids(t) != "a" {
				t.Fatalf("err %v, ids %q; want a", err, ids(t))
			}
		})
		t.Run("AloneRollsBack", func(t *testing.T) {
			err := database.JoinTx(ctx, db, func(ctx context.Context) error {
				if err := insert(ctx, db, "b"); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) || ids(t) != "a" {
				t.Fatalf("err %v, ids %q; want boom, a", err, ids(t))
			}
		})
		t.Run("JoinsTheOuterTransaction", func(t *testing.T) {
			// The joined work commits and rolls back with the outer
			// transaction: no savepoint of its own.
			err := database.RunInTx(ctx, db, func(ctx context.Context) error {
				if err := database.JoinTx(ctx, db, func(ctx context.Context) error { return insert(ctx, db, "c") }); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) || ids(t) != "a" {
				t.Fatalf("err %v, ids %q; want boom, a", err, ids(t))
			}
			err = database.RunInTx(ctx, db, func(ctx context.Context) error {
				return database.JoinTx(ctx, db, func(ctx context.Context) error { return insert(ctx, db, "d") })
			})
			if err != nil || ids(t) != "a,d" {
				t.Fatalf("err %v, ids %q; want a,d", err, ids(t))
			}
		})
	}, schema())
}

// thing is a row of the test schema.
type thing struct {
	bun.BaseModel `bun:"table:things"`
	ID            string `bun:"id,pk"`
	N             int64  `bun:"n"`
}

// TestArgs checks that queries with bound arguments (Args) read and write
// what the same queries with Bun's written-in values would, on both
// dialects, in and out of a transaction.
func TestArgs(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		insert := func(ctx context.Context, row thing) error {
			a := database.NewArgs(db)
			_, err := database.Exec(ctx, db, database.BindRow(database.Conn(ctx, db).NewInsert().Model(&row), a, &row), a)
			return err
		}
		for _, row := range []thing{{ID: "a", N: 1}, {ID: "b", N: 2}, {ID: "it's", N: 3}} {
			if err := insert(ctx, row); err != nil {
				t.Fatalf("insert %v: %v", row, err)
			}
		}

		t.Run("Struct", func(t *testing.T) {
			var got thing
			a := database.NewArgs(db)
			q := db.NewSelect().Model(&got).Where("id = ?", a.Add("it's"))
			if err := database.Scan(ctx, db, q, a, &got); err != nil || got != (thing{ID: "it's", N: 3}) {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
		t.Run("ErrNoRows", func(t *testing.T) {
			var got thing
			a := database.NewArgs(db)
			q := db.NewSelect().Model(&got).Where("id = ?", a.Add("none"))
			if err := database.Scan(ctx, db, q, a, &got); !errors.Is(err, sql.ErrNoRows) {
				t.Fatalf("err = %v, want sql.ErrNoRows", err)
			}
		})
		t.Run("SliceReusedArg", func(t *testing.T) {
			var got []thing
			a := database.NewArgs(db)
			one := a.Add(1)
			q := db.NewSelect().Model(&got).Where("n > ?", one).WhereOr("n = ?", one).Order("id")
			if err := database.Scan(ctx, db, q, a, &got); err != nil || len(got) != 3 || got[2].ID != "it's" {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
		t.Run("ScalarReturning", func(t *testing.T) {
			var n int64
			a := database.NewArgs(db)
			q := db.NewUpdate().Model((*thing)(nil)).Set("n = n + ?", a.Add(10)).Where("id = ?", a.Add("a")).Returning("n")
			if err := database.Scan(ctx, db, q, a, &n); err != nil || n != 11 {
				t.Fatalf("got %d, %v; want 11", n, err)
			}
		})
		// Each kind of destination gets from Scan (on Postgres: pgx
		// directly, direct.go and scan.go) what Bun's own Scan puts there:
		// the columns pgx decodes in place (text, integers, booleans,
		// timestamps, bytea; NULL or not) and those handed to Bun's
		// scanners (JSON, a sql.Scanner, date, numeric, real, uuid).
		type row struct {
			ID     string     `bun:"id"`
			N      int64      `bun:"n"`
			Big    int64      `bun:"big"`
			On     bool       `bun:"flag"`
			At     time.Time  `bun:"at"`
			Null   string     `bun:"absent"`
			NAt    *time.Time `bun:"nat"`
			Raw    []byte     `bun:"raw"`
			NInt   int        `bun:"nint"`
			NStr   *string    `bun:"nstr"`
			SStr   *string    `bun:"sstr"`
			NOn    bool       `bun:"non"`
			POn    *bool      `bun:"pon"`
			Doc    scanned    `bun:"doc"`
			DocB   scanned    `bun:"docb"`
			Named  *scanned   `bun:"named"`
			Local  time.Time  `bun:"local"`
			NLocal *time.Time `bun:"nlocal"`
			Day    time.Time  `bun:"day"`
			Ratio  string     `bun:"ratio"`
			Third  float64    `bun:"third"`
			UID    string     `bun:"uid"`
			Empty  []byte     `bun:"empty"`
			Low    int32      `bun:"low"`
		}
		at := time.Date(2026, 11, 27, 10, 11, 12, 345678000, time.UTC)
		sel := func(a *database.Args) *bun.SelectQuery {
			return db.NewSelect().Table("things").
				ColumnExpr("id, n, CAST(n AS BIGINT) * ? AS big, n > ? AS flag", a.Add(int64(1)<<40), a.Add(1)).
				ColumnExpr("? AS at, NULL AS absent, NULL AS nat, CAST(id AS BLOB) AS raw", a.Add("2026-11-27 10:11:12.345678")).
				ColumnExpr("n AS nint, NULL AS nstr, id AS sstr, NULL AS non, n > ? AS pon", a.Add(2)).
				ColumnExpr(`'{"a": 1}' AS doc, '{"b": 2}' AS docb, id AS named`).
				ColumnExpr("? AS local, NULL AS nlocal, '2026-11-27' AS day", a.Add("2026-11-27 10:11:12.345678")).
				ColumnExpr("CAST(n AS REAL) / 4 AS ratio, CAST(n AS REAL) / 3 AS third, '00000000-0000-0000-0000-00000000000a' AS uid").
				ColumnExpr("CAST('' AS BLOB) AS empty, CAST(n AS BIGINT) * ? + n AS low", a.Add(int64(1)<<32)).
				Where("id <> ?", a.Add("")).Order("id")
		}
		if database.IsPostgres(db) {
			sel = func(a *database.Args) *bun.SelectQuery {
				return db.NewSelect().Table("things").
					ColumnExpr("id, n, n::bigint * ? AS big, n > ? AS flag", a.Add(int64(1)<<40), a.Add(1)).
					ColumnExpr("?::timestamptz AS at, NULL::text AS absent, NULL::timestamptz AS nat, convert_to(id, 'UTF8') AS raw", a.Add(at)).
					ColumnExpr("n AS nint, NULL::text AS nstr, id AS sstr, NULL::boolean AS non, n > ? AS pon", a.Add(2)).
					ColumnExpr(`'{"a": 1}'::json AS doc, '{"b": 2}'::jsonb AS docb, id AS named`).
					ColumnExpr("?::timestamp AS local, NULL::timestamp AS nlocal, '2026-11-27'::date AS day", a.Add(at)).
					ColumnExpr("(n::numeric / 4)::numeric(10, 2) AS ratio, n::real / 3 AS third, '00000000-0000-0000-0000-00000000000a'::uuid AS uid").
					ColumnExpr("''::bytea AS empty, n::bigint * ? + n AS low", a.Add(int64(1)<<32)).
					Where("id <> ?", a.Add("")).Order("id")
			}
		}
		// filled is a row whose every field is set, pointers to values:
		// what a reused destination holds before the scan.
		filled := func() row {
			s, b := "stale", true
			return row{
				ID: "stale", N: 9, Big: 9, On: true, At: at, Null: "stale", NAt: &at, Raw: []byte("stale"),
				NInt: 9, NStr: &s, SStr: &s, NOn: true, POn: &b, Doc: scanned{"stale"}, DocB: scanned{"stale"},
				Named: &scanned{"stale"}, Local: at, NLocal: &at, Day: at, Ratio: "stale", Third: 9, UID: "stale",
				Empty: []byte("stale"), Low: 9,
			}
		}
		kinds := []struct {
			name string
			dest func() []any
		}{
			{"StructRow", func() []any { return []any{new(row)} }},
			{"StructRowFilled", func() []any { r := filled(); return []any{&r} }},
			{"Slice", func() []any { return []any{new([]row)} }},
			{"SliceReused", func() []any { return []any{&[]row{filled(), filled(), filled(), filled()}} }},
			{"SliceOfPointers", func() []any { return []any{new([]*row)} }},
			{"SliceOfPointersReused", func() []any {
				a, b := filled(), filled()
				rows := make([]*row, 2, 3)
				rows[0], rows[1] = &a, &b
				return []any{&rows}
			}},
			{"SliceOfScalars", func() []any { return []any{new([]string)} }},
			{"Scalars", func() []any {
				return []any{
					new(string), new(int64), new(int64), new(bool), new(time.Time), new(string), new(*time.Time), new([]byte),
					new(int), new(*string), new(*string), new(bool), new(*bool), new(scanned), new(scanned), new(*scanned),
					new(time.Time), new(*time.Time), new(time.Time), new(string), new(float64), new(string), new([]byte), new(int32),
				}
			}},
		}
		for _, k := range kinds {
			t.Run("Kinds/"+k.name, func(t *testing.T) {
				want, got := k.dest(), k.dest()
				q := sel
				if k.name == "SliceOfScalars" {
					q = func(a *database.Args) *bun.SelectQuery {
						return db.NewSelect().Table("things").Column("id").Where("id <> ?", a.Add("")).Order("id")
					}
				}
				if err := q(database.NewArgs(nil)).Scan(ctx, want...); err != nil {
					t.Fatalf("Bun: %v", err)
				}
				a := database.NewArgs(db)
				if err := database.Scan(ctx, db, q(a), a, got...); err != nil {
					t.Fatalf("Scan: %v", err)
				}
				for i := range want {
					w, g := reflect.ValueOf(want[i]).Elem().Interface(), reflect.ValueOf(got[i]).Elem().Interface()
					if !reflect.DeepEqual(normalTimes(w), normalTimes(g)) {
						t.Errorf("destination %d: Scan gave %+v, Bun %+v", i, g, w)
					}
				}
			})
		}
		t.Run("ColumnWithoutField", func(t *testing.T) {
			var got thing
			a := database.NewArgs(db)
			q := db.NewSelect().Model(&got).ColumnExpr("id, n, 1 AS nowhere").Where("id = ?", a.Add("a"))
			if err := database.Scan(ctx, db, q, a, &got); err == nil || !strings.Contains(err.Error(), "nowhere") {
				t.Fatalf("err = %v, want one about the column nowhere", err)
			}
		})
		t.Run("PlanPerColumns", func(t *testing.T) {
			// One row type read with other columns, or another type of
			// column, in turn: each query is read by the plan of its own.
			for _, c := range []struct {
				cols string
				want thing
			}{
				{"id, n", thing{ID: "b", N: 2}},
				{"n", thing{N: 2}},
				{"id, CAST(n AS TEXT) AS n", thing{ID: "b", N: 2}},
				{"id, n", thing{ID: "b", N: 2}},
			} {
				var got thing
				a := database.NewArgs(db)
				q := db.NewSelect().Model(&got).ColumnExpr(c.cols).Where("id = ?", a.Add("b"))
				if err := database.Scan(ctx, db, q, a, &got); err != nil || got != c.want {
					t.Errorf("%s: got %+v, %v; want %+v", c.cols, got, err, c.want)
				}
			}
		})
		t.Run("SliceEmptied", func(t *testing.T) {
			got := []thing{{ID: "stale"}}
			a := database.NewArgs(db)
			q := db.NewSelect().Model(&got).Where("id = ?", a.Add("none"))
			if err := database.Scan(ctx, db, q, a, &got); err != nil || len(got) != 0 {
				t.Fatalf("got %+v, %v; want no rows, no error", got, err)
			}
		})
		t.Run("StatementError", func(t *testing.T) {
			var n int64
			a := database.NewArgs(db)
			q := db.NewRaw("INSERT INTO things (id, n) VALUES (?, NULL) RETURNING n", a.Add("z"))
			if err := database.Scan(ctx, db, q, a, &n); err == nil || errors.Is(err, sql.ErrNoRows) {
				t.Fatalf("err = %v, want the NOT NULL violation", err)
			}
		})
		t.Run("ExecInTransaction", func(t *testing.T) {
			boom := errors.New("boom")
			err := database.RunInTx(ctx, db, func(ctx context.Context) error {
				if err := insert(ctx, thing{ID: "c", N: 4}); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) || count(t, db) != 3 {
				t.Fatalf("err %v, count %d; want the insert rolled back", err, count(t, db))
			}
		})
	}, schema())
}

// scanned is a sql.Scanner that keeps what it was handed, type and value.
type scanned struct{ Src string }

// Scan implements sql.Scanner.
func (s *scanned) Scan(src any) error {
	s.Src = fmt.Sprintf("%T %v", src, src)
	return nil
}

// normalTimes is v with its times in UTC, for comparing the times two
// drivers decoded in different locations.
func normalTimes(v any) any {
	switch v := v.(type) {
	case time.Time:
		return v.UTC()
	case *time.Time:
		if v != nil {
			u := v.UTC()
			return &u
		}
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() != reflect.Uint8:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = normalTimes(rv.Index(i).Interface())
		}
		return out
	case rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct:
		return normalTimes(rv.Elem().Interface())
	case rv.Kind() == reflect.Struct:
		cp := reflect.New(rv.Type()).Elem()
		cp.Set(rv)
		for i := 0; i < cp.NumField(); i++ {
			if f := cp.Field(i); f.CanSet() {
				if n := reflect.ValueOf(normalTimes(f.Interface())); n.IsValid() && n.Type().AssignableTo(f.Type()) {
					f.Set(n)
				}
			}
		}
		return cp.Interface()
	}
	return v
}

// TestScanAfterServerClosedConnections: the connections a pool keeps are
// closed by the server (a restart, an administrator, a proxy's idle
// timeout); the next queries, bound (pgx directly) or not, and a
// transaction, get fresh ones rather than fail.
func TestScanAfterServerClosedConnections(t *testing.T) {
	ctx := context.Background()
	rawURL := dbtest.PostgresURL(t)
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	db, err := database.Open(ctx, rawURL+sep+"application_name=closed_by_server", database.Options{MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := database.Migrate(ctx, db, schema()); err != nil {
		t.Fatal(err)
	}
	get := func() error {
		var got thing
		a := database.NewArgs(db)
		return database.Scan(ctx, db, db.NewSelect().Model(&got).Where("id = ?", a.Add("none")), a, &got)
	}
	// Two connections in the pool.
	err = database.RunInTx(ctx, db, func(ctx context.Context) error {
		return errors.Join(get(), insert(ctx, db, "x"))
	})
	if !errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("warm-up: %v", err)
	}
	admin := dbtest.Postgres(t)
	var closed int
	if err := admin.NewRaw("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'closed_by_server'").Scan(ctx, &closed); err != nil || closed == 0 {
		t.Fatalf("terminated %d connections: %v", closed, err)
	}
	time.Sleep(1100 * time.Millisecond) // the pool checks a connection idle for more than a second
	if err := get(); !errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("bound query after the server closed the pool's connections: %v", err)
	}
	if err := database.RunInTx(ctx, db, func(ctx context.Context) error { return insert(ctx, db, "y") }); err != nil {
		t.Fatalf("transaction after the server closed the pool's connections: %v", err)
	}
}

// TestConnectionLostInTransaction: the server closes a transaction's
// connection between two of its statements; the next statement fails and
// the transaction ends with an error — promptly, not waiting on itself —
// and the pool goes on with a fresh connection.
func TestConnectionLostInTransaction(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	db := dbtest.Postgres(t, schema())
	admin := dbtest.Postgres(t)
	get := func(ctx context.Context) error {
		var got thing
		a := database.NewArgs(db)
		return database.Scan(ctx, db, db.NewSelect().Model(&got).Where("id = ?", a.Add("none")), a, &got)
	}
	err := database.RunInTx(ctx, db, func(ctx context.Context) error {
		var pid int64
		a := database.NewArgs(db)
		if err := database.Scan(ctx, db, database.Conn(ctx, db).NewRaw("SELECT pg_backend_pid() WHERE ? = 1", a.Add(1)), a, &pid); err != nil {
			return err
		}
		if _, err := admin.ExecContext(ctx, "SELECT pg_terminate_backend(?)", pid); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		if err := get(ctx); err == nil || errors.Is(err, sql.ErrNoRows) {
			t.Errorf("query on the lost connection: %v, want an error", err)
		}
		return get(ctx)
	})
	if err == nil || ctx.Err() != nil {
		t.Fatalf("RunInTx = %v (context: %v), want the lost connection's error, in time", err, ctx.Err())
	}
	if err := get(ctx); !errors.Is(err, sql.ErrNoRows) {
		t.Fatalf("query after the lost transaction: %v", err)
	}
}
