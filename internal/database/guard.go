package database

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/uptrace/bun"
)

// TenantGuard is a bun.QueryHook for tests: it notes every statement that
// reads or changes a tenant table (one with a tenant_id column) without
// ForTenant's filter, or inserts into one without the tenant_id column,
// unless the statement is marked AcrossTenants. Violations lists them.
type TenantGuard struct {
	tables map[string]bool
	mu     sync.Mutex
	bad    []string
}

var _ bun.QueryHook = (*TenantGuard)(nil)

// NewTenantGuard returns a guard for db's tenant tables, read from its
// schema: run it after the migrations.
func NewTenantGuard(ctx context.Context, db *bun.DB) (*TenantGuard, error) {
	var q string
	if IsPostgres(db) {
		q = `SELECT table_name FROM information_schema.columns
			WHERE table_schema = current_schema() AND column_name = 'tenant_id'`
	} else {
		q = `SELECT m.name FROM sqlite_master AS m, pragma_table_info(m.name) AS c
			WHERE m.type = 'table' AND c.name = 'tenant_id'`
	}
	var names []string
	if err := db.NewRaw(q).Scan(ctx, &names); err != nil {
		return nil, fmt.Errorf("database: tenant tables: %w", err)
	}
	g := &TenantGuard{tables: map[string]bool{}}
	for _, n := range names {
		g.tables[n] = true
	}
	return g, nil
}

// BeforeQuery implements bun.QueryHook.
func (g *TenantGuard) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if reason := g.check(e.Query); reason != "" {
		g.mu.Lock()
		g.bad = append(g.bad, reason+": "+e.Query)
		g.mu.Unlock()
	}
	return ctx
}

// AfterQuery implements bun.QueryHook.
func (*TenantGuard) AfterQuery(context.Context, *bun.QueryEvent) {}

// Violations returns the statements the guard refused, each with why.
func (g *TenantGuard) Violations() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.bad...)
}

var (
	// tableRef finds the tables a statement names after FROM, JOIN,
	// UPDATE or INTO, quoted or not.
	tableRef = regexp.MustCompile(`(?i)\b(FROM|JOIN|UPDATE|INTO)\s+"?([a-z_][a-z0-9_]*)"?`)
	// tenantFilter is ForTenant's predicate as Bun writes it, its value
	// a literal.
	tenantFilter = regexp.MustCompile(`tenant_id"? = '`)
)

// check returns why query escapes the tenant filter, or "".
func (g *TenantGuard) check(query string) string {
	if strings.HasPrefix(query, "/* "+acrossTenants+" */") {
		return ""
	}
	// Bun writes each part of a Postgres UNION in parentheses.
	verb := strings.ToUpper(strings.Fields(strings.TrimLeft(query, "( ") + " x")[0])
	switch verb {
	case "SELECT", "UPDATE", "DELETE", "INSERT", "WITH":
	default:
		return "" // DDL, transactions, savepoints
	}
	reads, inserts := 0, 0
	for _, m := range tableRef.FindAllStringSubmatch(query, -1) {
		if !g.tables[strings.ToLower(m[2])] {
			continue
		}
		if strings.EqualFold(m[1], "INTO") {
			inserts++
		} else {
			reads++
		}
	}
	if inserts > 0 && !strings.Contains(query, "tenant_id") {
		return "an insert into a tenant table without tenant_id"
	}
	if n := len(tenantFilter.FindAllStringIndex(query, -1)); n < reads {
		return fmt.Sprintf("%d tenant tables named, %d tenant filters", reads, n)
	}
	return ""
}
