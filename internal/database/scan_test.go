package database_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

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

// BenchmarkScan reads benchRows with Scan on Postgres (pgx directly,
// direct.go): one row into a struct, and 50 into a slice. ns/op is the
// query's round trip; cpu-ns/op is the CPU this process spent on it (the
// server's is not in it), the figure a change to scanning moves.
func BenchmarkScan(b *testing.B) {
	db := dbtest.Postgres(b, benchSchema())
	ctx := context.Background()
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
	b.Run("Row", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			var row benchRow
			a := database.NewArgs(db)
			q := db.NewSelect().Model(&row).Where("tenant_id = ?", a.Add("t1")).Where("id = ?", a.Add("in_07"))
			if err := database.Scan(ctx, db, q, a, &row); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Slice50", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			var rows []benchRow
			a := database.NewArgs(db)
			q := db.NewSelect().Model(&rows).Where("tenant_id = ?", a.Add("t1")).Order("id")
			if err := database.Scan(ctx, db, q, a, &rows); err != nil || len(rows) != 50 {
				b.Fatal(len(rows), err)
			}
		}
	})
}

// reportCPU reports allocations and, when the function it returns is
// called, the CPU time (user and system) the process spent per operation
// since.
func reportCPU(b *testing.B) func() {
	b.ReportAllocs()
	start := cpuTime(b)
	return func() { b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op") }
}

// cpuTime is the CPU time the process has spent so far.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
