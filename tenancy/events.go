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
)

// WithEvents makes Modules and Keys record an event for every change, in
// the transaction of the change: module.toggled, api_key.created (the key
// without its secret) and api_key.revoked. tenantkit.New always passes
// one; services without it record nothing.
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
