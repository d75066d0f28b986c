package tenancy

import (
	"context"
	"time"
)

// Events records the audit trail's events: Record writes one event of type
// typ about a resource of tenantID ("" for the platform's own), with data
// (the resource after the change, never a secret), on the transaction ctx
// carries. *event.Recorder (package tenancy/event) implements it.
type Events interface {
	Record(ctx context.Context, tenantID, typ, resourceType, resourceID string, data any) error
}

// The events tenancy's services record.
const (
	eventModuleToggled = "module.toggled"
	eventAPIKeyCreated = "api_key.created"
	eventAPIKeyRevoked = "api_key.revoked"
	eventTenantCreated = "tenant.created"
	eventUserCreated   = "user.created"
	eventLimitSet      = "entitlement.limit_set"
	eventLimitCleared  = "entitlement.limit_cleared"
	eventMemberAdded   = "member.added"
	eventMemberRole    = "member.role_changed"
	eventMemberRemoved = "member.removed"
	eventThreshold     = "entitlement.threshold"
	eventNoteRead      = "notification.read"
	eventNotesReadAll  = "notification.read_all"
)

// WithEvents makes the services record an event for every change, in the
// transaction of the change: module.toggled, api_key.created (the key
// without its secret) and api_key.revoked; tenant.created and user.created
// (a platform event: no tenant); entitlement.limit_set and
// entitlement.limit_cleared; entitlement.threshold (a use of a metered
// feature crossing 80 % or reaching 100 % of its limit, in the use's
// transaction); member.added, member.role_changed and member.removed;
// notification.read (one notification's first read) and
// notification.read_all (a tenant marking its unread notifications
// read). tenantkit.New always passes one; services without it
// record nothing.
func WithEvents(e Events) Option { return func(o *options) { o.events = e } }

// revokedKey is the data of an api_key.revoked event.
type revokedKey struct {
	ID        string    `json:"id"`
	RevokedAt time.Time `json:"revoked_at"`
}

// record writes an event when events is set.
func record(ctx context.Context, events Events, tenantID, typ, resourceType, resourceID string, data any) error {
	if events == nil {
		return nil
	}
	return events.Record(ctx, tenantID, typ, resourceType, resourceID, data)
}

// limitChange is the data of an entitlement.limit_set or
// entitlement.limit_cleared event: the override as it now is (Limit nil
// with Unlimited false: no override).
type limitChange struct {
	TenantID  string `json:"tenant_id"`
	Feature   string `json:"feature"`
	Limit     *int64 `json:"limit"`
	Unlimited bool   `json:"unlimited"`
}

// removedMember is the data of a member.removed event.
type removedMember struct {
	TenantID string `json:"tenant_id"`
	UserID   string `json:"user_id"`
}

// inTx runs fn in a transaction of tx, or alone when tx is nil.
func inTx(ctx context.Context, tx Transactor, fn func(ctx context.Context) error) error {
	if tx == nil {
		return fn(ctx)
	}
	return tx.InTx(ctx, fn)
}
