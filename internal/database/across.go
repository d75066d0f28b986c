package database

// acrossTenants is the comment that marks a statement meant to span
// tenants: a worker's queue, the operator's views, a user's memberships.
// TenantGuard lets such a statement through without ForTenant's filter.
const acrossTenants = "across tenants"

// commentQuery is any Bun query that takes a comment.
type commentQuery[Q any] interface {
	Comment(comment string) Q
}

// AcrossTenants marks q as meant to read or change several tenants' rows,
// so that a reader (and TenantGuard) sees the choice in the statement:
// Bun writes it as a leading /* across tenants */ comment. Count drops a
// query's comment: count with ColumnExpr("count(*)") and Scan instead.
func AcrossTenants[Q commentQuery[Q]](q Q) Q { return q.Comment(acrossTenants) }
