package database_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
)

// benchRow is a row of 22 columns of the kinds the stores read, in the
// proportions of an invoice: text, nullable text, integers, a flag and
// timestamps, some of them NULL.
type benchRow struct {
	bun.BaseModel `bun:"table:bench_rows"`
	TenantID      string     `bun:"tenant_id,pk"`
	ID            string     `bun:"id,pk"`
	Number        *string    `bun:"number"`
	Status        string     `bun:"status"`
	CustomerName  string     `bun:"customer_name"`
	CustomerEmail string     `bun:"customer_email"`
	Currency      string     `bun:"currency"`
	LineItems     string     `bun:"line_items"`
	Subtotal      int64      `bun:"subtotal"`
	Tax           int64      `bun:"tax"`
	Total         int64      `bun:"total"`
	AmountPaid    int64      `bun:"amount_paid"`
	AmountDue     int64      `bun:"amount_due"`
	Count         int        `bun:"count"`
	DueDate       *string    `bun:"due_date"`
	Memo          string     `bun:"memo"`
	Metadata      string     `bun:"metadata"`
	CreatedAt     time.Time  `bun:"created_at"`
	FinalizedAt   *time.Time `bun:"finalized_at"`
	PaidAt        *time.Time `bun:"paid_at"`
	Overdue       bool       `bun:"overdue"`
	Reason        string     `bun:"reason"`
}

// benchSchema is the table of benchRow.
func benchSchema() database.Source {
	sql := `CREATE TABLE bench_rows (
		tenant_id TEXT NOT NULL, id TEXT NOT NULL, number TEXT, status TEXT NOT NULL,
		customer_name TEXT NOT NULL, customer_email TEXT NOT NULL, currency TEXT NOT NULL,
		line_items TEXT NOT NULL, subtotal BIGINT NOT NULL, tax BIGINT NOT NULL,
		total BIGINT NOT NULL, amount_paid BIGINT NOT NULL, amount_due BIGINT NOT NULL,
		count INTEGER NOT NULL, due_date TEXT, memo TEXT NOT NULL, metadata TEXT NOT NULL,
		created_at TIMESTAMPTZ NOT NULL, finalized_at TIMESTAMPTZ, paid_at TIMESTAMPTZ,
		overdue BOOLEAN NOT NULL, reason TEXT NOT NULL,
		PRIMARY KEY (tenant_id, id))`
	return fstest.MapFS{"postgres/20000101000001_bench_rows.tx.up.sql": {Data: []byte(sql)}}
}

// benchSelect is the select of one benchRow as a store writes it out
// (billing's selectInvoice and its kin): the text Bun builds for
// NewSelect().Model(&row).Where("tenant_id = ?", …).Where("id = ?", …).
const benchSelect = `SELECT "bench_row"."tenant_id", "bench_row"."id", "bench_row"."number", "bench_row"."status", ` +
	`"bench_row"."customer_name", "bench_row"."customer_email", "bench_row"."currency", "bench_row"."line_items", ` +
	`"bench_row"."subtotal", "bench_row"."tax", "bench_row"."total", "bench_row"."amount_paid", "bench_row"."amount_due", ` +
	`"bench_row"."count", "bench_row"."due_date", "bench_row"."memo", "bench_row"."metadata", "bench_row"."created_at", ` +
	`"bench_row"."finalized_at", "bench_row"."paid_at", "bench_row"."overdue", "bench_row"."reason" ` +
	`FROM "bench_rows" AS "bench_row" WHERE (tenant_id = ?) AND (id = ?)`

// BenchmarkScan reads benchRows with Scan on Postgres (pgx directly,
// direct.go): one row into a struct, its query built by Bun (Row) or
// written out as the stores write their hot queries (RowWrittenOut, a
// Stmt), and
// 50 rows into a slice (Slice50). Pgxpool is the same SQL run on a plain
// pgxpool of the same size with QueryRow or Query and Scan into the
// fields, the floor a change to this path is measured against.
//
// ns/op is wall time per query; cpu-ns/op is the CPU this process spent
// per query (the server's is not in it), the figure a change to the path
// moves. Queries run in parallel, eight goroutines per CPU against a pool
// of eight connections, as a server under load runs them: run one after
// another, a query's CPU is mostly the scheduler spinning while it waits
// for Postgres. Their context carries as many values as a request's
// does by the time it reaches a store, which the look-up of a transaction
// in it walks.
func BenchmarkScan(b *testing.B) {
	db := dbtest.Postgres(b, benchSchema())
	ctx := requestContext()
	at := time.Date(2026, 11, 27, 10, 11, 12, 345678000, time.UTC)
	for i := range 50 {
		number := fmt.Sprintf("INV-%04d", i)
		row := benchRow{
			TenantID: "t1", ID: fmt.Sprintf("in_%02d", i), Number: &number, Status: "open",
			CustomerName: "Ada Lovelace", CustomerEmail: "ada@example.com", Currency: "EUR",
			LineItems: `[{"description":"Consulting","quantity":3,"unit_amount":12000}]`,
			Subtotal:  36000, Tax: 6840, Total: 42840, AmountDue: 42840, Count: 1,
			Metadata: "{}", CreatedAt: at, FinalizedAt: &at,
		}
		if _, err := db.NewInsert().Model(&row).Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var probe benchRow
	if want := db.NewSelect().Model(&probe).Where("tenant_id = ?", bun.Safe("?")).Where("id = ?", bun.Safe("?")).String(); benchSelect != want {
		b.Fatalf("benchSelect:\n%s\nBun builds:\n%s", benchSelect, want)
	}
	b.Run("Row", func(b *testing.B) {
		parallel(b, func() error {
			var row benchRow
			a := database.NewArgs(db)
			q := db.NewSelect().Model(&row).Where("tenant_id = ?", a.Add("t1")).Where("id = ?", a.Add("in_07"))
			return database.Scan(ctx, db, q, a, &row)
		})
	})
	b.Run("RowWrittenOut", func(b *testing.B) {
		stmt := database.NewStmt(db, benchSelect)
		parallel(b, func() error {
			var row benchRow
			return stmt.Scan(ctx, &row, "t1", "in_07")
		})
	})
	b.Run("Slice50", func(b *testing.B) {
		parallel(b, func() error {
			var rows []benchRow
			a := database.NewArgs(db)
			q := db.NewSelect().Model(&rows).Where("tenant_id = ?", a.Add("t1")).Order("id")
			if err := database.Scan(ctx, db, q, a, &rows); err != nil || len(rows) != 50 {
				return fmt.Errorf("%d rows: %v", len(rows), err)
			}
			return nil
		})
	})
	b.Run("Pgxpool", func(b *testing.B) {
		pool := benchPool(b, db)
		one := numbered(benchSelect)
		all := numbered(strings.TrimSuffix(benchSelect, " AND (id = ?)") + ` ORDER BY "id"`)
		b.Run("Row", func(b *testing.B) {
			parallel(b, func() error {
				var row benchRow
				return pool.QueryRow(ctx, one, "t1", "in_07").Scan(row.fields()...)
			})
		})
		b.Run("Slice50", func(b *testing.B) {
			parallel(b, func() error {
				rows, err := pool.Query(ctx, all, "t1")
				if err != nil {
					return err
				}
				defer rows.Close()
				var out []benchRow
				for rows.Next() {
					out = append(out, benchRow{})
					if err := rows.Scan(out[len(out)-1].fields()...); err != nil {
						return err
					}
				}
				if err := rows.Err(); err != nil || len(out) != 50 {
					return fmt.Errorf("%d rows: %v", len(out), err)
				}
				return nil
			})
		})
	})
}

// requestContext is a context as deep as a request's when it reaches a
// store: ten values (the server's, net/http's, the router's, the
// request id, the caller, the tenant, …).
func requestContext() context.Context {
	type key int
	ctx := context.Background()
	for i := range key(10) {
		ctx = context.WithValue(ctx, i, i)
	}
	return ctx
}

// parallel runs query b.N times over eight goroutines per CPU and reports
// its CPU and allocations per run.
func parallel(b *testing.B, query func() error) {
	b.SetParallelism(8)
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := query(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// benchPool opens a pgxpool on db's database (dbtest made it for this
// benchmark), as large as db's pool.
func benchPool(b *testing.B, db *bun.DB) *pgxpool.Pool {
	b.Helper()
	ctx := context.Background()
	var name string
	if err := db.NewRaw("SELECT current_database()").Scan(ctx, &name); err != nil {
		b.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(os.Getenv(dbtest.EnvDatabaseURL))
	if err != nil {
		b.Fatal(err)
	}
	cfg.ConnConfig.Database = name
	cfg.MaxConns = int32(db.Stats().MaxOpenConnections)
	cfg.MinConns = cfg.MaxConns
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close) // before dbtest drops the database: cleanups run last first
	return pool
}

// numbered is query with its placeholders numbered for Postgres ($1, $2, …).
func numbered(query string) string {
	var sb strings.Builder
	n := 0
	for _, r := range query {
		if r != '?' {
			sb.WriteRune(r)
			continue
		}
		n++
		fmt.Fprintf(&sb, "$%d", n)
	}
	return sb.String()
}

// fields are pointers to r's fields in column order, for pgx's Scan.
func (r *benchRow) fields() []any {
	return []any{&r.TenantID, &r.ID, &r.Number, &r.Status, &r.CustomerName, &r.CustomerEmail, &r.Currency,
		&r.LineItems, &r.Subtotal, &r.Tax, &r.Total, &r.AmountPaid, &r.AmountDue, &r.Count, &r.DueDate,
		&r.Memo, &r.Metadata, &r.CreatedAt, &r.FinalizedAt, &r.PaidAt, &r.Overdue, &r.Reason}
}

// reportCPU reports allocations and, when the function it returns is
// called, the CPU time the process spent per operation since: cpu-ns/op
// user and system, user-ns/op user only (the system's share is mostly
// the query's send and receive, the same whatever runs them).
func reportCPU(b *testing.B) func() {
	b.ReportAllocs()
	user, sys := cpuTime(b)
	return func() {
		u, s := cpuTime(b)
		b.ReportMetric(float64(u-user+s-sys)/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(u-user)/float64(b.N), "user-ns/op")
	}
}

// cpuTime is the user and system CPU time the process has spent so far.
func cpuTime(b *testing.B) (user, sys time.Duration) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano()), time.Duration(u.Stime.Nano())
}
