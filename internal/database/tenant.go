package database

import "github.com/uptrace/bun"

// whereQuery is any Bun query that takes a WHERE clause (select, update,
// delete).
type whereQuery[Q any] interface {
	Where(query string, args ...any) Q
}

// ForTenant confines q to one tenant's rows. Every store query of a tenant
// table goes through it (or ForTenantAs), so tenant isolation is written
// once and cannot be forgotten in one query: TenantGuard fails a test's
// statement that lacks it. Inserts carry the tenant in the row they write.
func ForTenant[Q whereQuery[Q]](q Q, tenantID string) Q {
	return q.Where("tenant_id = ?", tenantID)
}

// ForTenantAs is ForTenant for the table known as alias in q, where q
// names several tenant tables (a join, a subquery): each is confined.
func ForTenantAs[Q whereQuery[Q]](q Q, alias, tenantID string) Q {
	return q.Where("?.tenant_id = ?", bun.Ident(alias), tenantID)
}
