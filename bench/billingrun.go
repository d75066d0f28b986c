package main

import (
	"context"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"os/exec"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// billingRunResult is one platform billing run over a database of
// tenants whose last period ended: the whole `server billing run`
// command, from exec to exit.
type billingRunResult struct {
	Tenants  int           `json:"tenants"`
	Invoices int           `json:"invoices"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	// PerSecond is Invoices / Elapsed.
	PerSecond float64 `json:"invoices_per_second"`
	// MaxRSS is the command's peak resident set, in bytes.
	MaxRSS int64 `json:"max_rss_bytes"`
	// Again is a second run at the same time, which finds nothing to do.
	Again time.Duration `json:"again_ns"`
}

// Tenants of the billing run measurement.
const (
	billingTenants      = 10_000
	billingTenantsQuick = 1_000
)

// measureBillingRun seeds tenants whose billing period ended (last
// month's, billed through its start), runs `server billing run` at the
// start of this month, checks that every tenant got exactly one invoice,
// and runs it again.
func measureBillingRun(ctx context.Context, cfg config, bin, dbURL string) (*billingRunResult, error) {
	n := billingTenants
	if cfg.Quick {
		n = billingTenantsQuick
	}
	now := time.Now().UTC()
	thisMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	lastMonth := thisMonth.AddDate(0, -1, 0)
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	ids := idGen{entropy: mrand.NewChaCha8([32]byte{3, 9})}
	plans := []string{"free", "starter", "growth", "enterprise"}
	seats := map[string]int{"free": 2, "starter": 3, "growth": 12, "enterprise": 50}
	i := 0
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"tenants"},
		[]string{"id", "slug", "name", "plan_id", "seats", "created_at", "billed_through"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if i >= n {
				return nil, nil
			}
			created := lastMonth.Add(time.Duration(i) * time.Second)
			plan := plans[i%len(plans)]
			row := []any{ids.at("ten", created), fmt.Sprintf("billing-%05d", i), fmt.Sprintf("Billing Tenant %d", i),
				plan, seats[plan], created, lastMonth}
			i++
			return row, nil
		}))
	if err != nil {
		return nil, fmt.Errorf("seed tenants: %w", err)
	}
	at := thisMonth.Add(time.Minute).Format(time.RFC3339)
	res := &billingRunResult{Tenants: n}
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, "billing", "run", "--at", at, "--database-url", dbURL, "--json")
	cmd.Env = childEnv()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("server billing run: %w", err)
	}
	res.Elapsed = time.Since(start)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	var answer map[string]any
	if err := json.Unmarshal(out, &answer); err != nil {
		return nil, fmt.Errorf("server billing run: %w: %s", err, out)
	}
	if err := conn.QueryRow(ctx, "SELECT count(DISTINCT tenant_id) FROM platform_invoices WHERE period_start = $1", lastMonth).Scan(&res.Invoices); err != nil {
		return nil, err
	}
	var total int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM platform_invoices").Scan(&total); err != nil {
		return nil, err
	}
	if res.Invoices != n || total != n {
		return nil, fmt.Errorf("billing run: %d tenants invoiced, %d invoices; want %d of each", res.Invoices, total, n)
	}
	res.PerSecond = float64(n) / res.Elapsed.Seconds()
	start = time.Now()
	if _, err := runCLI(ctx, bin, "billing", "run", "--at", at, "--database-url", dbURL, "--json"); err != nil {
		return nil, err
	}
	res.Again = time.Since(start)
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM platform_invoices").Scan(&total); err != nil {
		return nil, err
	}
	if total != n {
		return nil, fmt.Errorf("second billing run: %d invoices, want %d", total, n)
	}
	return res, nil
}
