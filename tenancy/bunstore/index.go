package bunstore

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
)

// Tenants implements tenancy.IndexStore. The search is a substring match
// on lower-cased columns, the same SQL on both dialects; it scans the
// tenants table, which an operator's search may: it spans tenants.
func (s *Store) Tenants(ctx context.Context, f tenancy.SearchFilter) ([]tenancy.Tenant, bool, error) {
	limit := max(f.Limit, 1) // the service clamped it; never scan without a bound
	var rows []tenantRow
	q := database.AcrossTenants(s.conn(ctx).NewSelect()).Model(&rows)
	if f.Query != "" {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			like := likePattern(f.Query)
			return q.Where(`LOWER(slug) LIKE ? ESCAPE '\'`, like).WhereOr(`LOWER(name) LIKE ? ESCAPE '\'`, like)
		})
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, func(r tenantRow) (tenancy.Tenant, error) { return r.tenant(), nil })
}

// Users implements tenancy.IndexStore, searching as Tenants does.
func (s *Store) Users(ctx context.Context, f tenancy.SearchFilter) ([]tenancy.User, bool, error) {
	limit := max(f.Limit, 1)
	var rows []userRow
	q := s.conn(ctx).NewSelect().Model(&rows)
	if f.Query != "" {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			like := likePattern(f.Query)
			return q.Where(`LOWER(email) LIKE ? ESCAPE '\'`, like).WhereOr(`LOWER(name) LIKE ? ESCAPE '\'`, like)
		})
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, func(r userRow) (tenancy.User, error) { return r.user(), nil })
}

// APIKeys implements tenancy.IndexStore; a tenant's keys are found by the
// index on (tenant_id, id). Without a tenant it is the operator's list of
// every key, across tenants.
func (s *Store) APIKeys(ctx context.Context, f tenancy.KeyFilter) ([]tenancy.APIKey, bool, error) {
	limit := max(f.Limit, 1)
	var rows []apiKeyRow
	q := s.conn(ctx).NewSelect().Model(&rows).ExcludeColumn("secret_hash")
	if f.TenantID != "" {
		q = database.ForTenant(q, f.TenantID)
	} else {
		q = database.AcrossTenants(q)
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, func(r apiKeyRow) (tenancy.APIKey, error) { return r.key(), nil })
}

// likePattern makes a LIKE pattern that finds text anywhere, ignoring
// case, with LIKE's own characters (and the escape) taken literally.
func likePattern(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(text)) + "%"
}
