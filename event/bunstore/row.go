package bunstore

import (
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/event"
)

// row is a row of the events table; a platform event's tenant_id is ”.
type row struct {
	bun.BaseModel `bun:"table:events"`
	ID            string    `bun:"id,pk"`
	TenantID      string    `bun:"tenant_id,pk"`
	Type          string    `bun:"type"`
	ActorType     string    `bun:"actor_type"`
	ActorID       string    `bun:"actor_id"`
	CredentialID  string    `bun:"credential_id"`
	AuthMethod    string    `bun:"auth_method"`
	ClientIP      string    `bun:"client_ip"`
	RequestID     string    `bun:"request_id"`
	ResourceType  string    `bun:"resource_type"`
	ResourceID    string    `bun:"resource_id"`
	Data          string    `bun:"data"`
	CreatedAt     time.Time `bun:"created_at"`
}

func (r row) event() (event.Event, error) {
	e := event.Event{
		ID: r.ID, TenantID: r.TenantID, Type: r.Type,
		Actor: event.Actor{Type: r.ActorType, ID: r.ActorID, CredentialID: r.CredentialID,
			AuthMethod: r.AuthMethod, ClientIP: r.ClientIP},
		RequestID: r.RequestID,
		Resource:  event.Resource{Type: r.ResourceType, ID: r.ResourceID},
		Data:      json.RawMessage(r.Data),
		CreatedAt: r.CreatedAt.UTC(),
	}
	// Data is not checked here: CreateEvent checked it on the way in.
	return e, nil
}
