package support

import (
	"context"

	"github.com/tenantkit/tenantkit/tenancy"
)

// Entitlements is what support needs from tenancy: whether the tenant has
// the tickets module on, and a share of its monthly ticket allowance.
// *tenancy.Entitlements implements it; it is declared here, where it is used,
// so that support depends on the behaviour and not on tenancy's service.
type Entitlements interface {
	// RequireModule returns nil when module is on for the tenant, else an
	// error wrapping tenancy.ErrModuleDisabled (or tenancy.ErrNotFound for
	// an unknown tenant).
	RequireModule(ctx context.Context, tenantID, module string) error
	// Allowance checks that module is on for the tenant, as RequireModule
	// does, and returns its allowance of the metered feature, in one read.
	Allowance(ctx context.Context, tenantID, module, feature string) (tenancy.Allowance, error)
	// Use spends n units of the allowance within the transaction carried
	// by ctx, so that they are given back if that transaction rolls back.
	// It returns an error wrapping tenancy.ErrLimitExceeded, with nothing
	// spent, when the allowance would be passed, under any concurrency.
	Use(ctx context.Context, a tenancy.Allowance, n int64) error
}

// Transactor runs fn in one transaction, carried by the context fn
// receives, and commits only if fn returns nil; inside a transaction ctx
// already carries, it runs fn in a savepoint of it. fn's error must come
// back unwrapped so that errors.Is still matches it. Service runs Create
// through it, and its Store and Entitlements must join the transaction the
// context carries: tenantkit.NewTransactor gives the one the Bun stores
// join.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Notifier tells a tenant that something happened to one of its tickets
// (a service level target missed). *tenancy.Notifications implements it;
// Notify must run on the transaction ctx carries, so that a notification
// exists if and only if the change it reports commits.
type Notifier interface {
	// Notify creates a notification for the tenant. An error wrapping
	// tenancy.ErrConflict when n.Key was used before.
	Notify(ctx context.Context, tenantID string, n tenancy.NewNotification) (tenancy.Notification, error)
}
