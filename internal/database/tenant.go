package database

// whereQuery is any Bun query that takes a WHERE clause (select, update,
// delete).
type whereQuery[Q any] interface {
	Where(query string, args ...any) Q
}

// ForTenant confines q to one tenant's rows. Every store query of tenant
// data goes through it, so tenant isolation is written once and cannot be
// forgotten in one query; inserts carry the tenant in the row they write.
// tenantID is the tenant's id, or an Arg standing for it (Args.Add).
func ForTenant[Q whereQuery[Q], T string | Arg](q Q, tenantID T) Q {
	return q.Where("tenant_id = ?", tenantID)
}
