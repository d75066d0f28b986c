// Package bunstore keeps outbound webhooks (package outbound) on Postgres
// or SQLite through Bun: endpoints, deliveries and their attempts. Every
// query runs on the transaction the context carries (database.Conn), so
// that deliveries are written in the transaction of the event they
// deliver.
package bunstore

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// Store is outbound's EndpointStore and DeliveryStore on Postgres or SQLite.
type Store struct {
	db bun.IDB
}

var (
	_ outbound.EndpointStore = (*Store)(nil)
	_ outbound.DeliveryStore = (*Store)(nil)
)

// New returns the Store on db. Apply Migrations first.
func New(db bun.IDB) *Store { return &Store{db: db} }

// EndpointsExist is the SQL that tells whether a tenant (the ?) has an
// enabled webhook endpoint, by the index the dispatch query uses: the
// event log's store asks it in the statement that inserts an event
// (tenancy/event/bunstore.WithSubscribers), so that Dispatch runs only
// for tenants with somewhere to deliver.
const EndpointsExist = "EXISTS (SELECT 1 FROM webhook_endpoints WHERE tenant_id = ? AND enabled)"

//go:embed migrations
var migrationsFS embed.FS

// Migrations returns the tables webhook_endpoints, webhook_deliveries and
// webhook_attempts for both dialects (folders "postgres" and "sqlite"),
// for database.Migrate, and the triggers that keep each tenant's count of
// enabled endpoints (tenants.enabled_webhook_endpoints): apply them with
// tenancy/bunstore's, which create the tenants table.
func Migrations() fs.FS { return database.Embedded(migrationsFS) }

type endpointRow struct {
	bun.BaseModel           `bun:"table:webhook_endpoints"`
	ID                      string     `bun:"id,pk"`
	TenantID                string     `bun:"tenant_id,pk"`
	URL                     string     `bun:"url"`
	Description             string     `bun:"description"`
	EventTypes              string     `bun:"event_types"`
	Enabled                 bool       `bun:"enabled"`
	DisabledReason          string     `bun:"disabled_reason"`
	Secret                  string     `bun:"secret"`
	PreviousSecret          string     `bun:"previous_secret"`
	SecretRotatedAt         *time.Time `bun:"secret_rotated_at"`
	PreviousSecretExpiresAt *time.Time `bun:"previous_secret_expires_at"`
	FailingSince            *time.Time `bun:"failing_since"`
	CreatedAt               time.Time  `bun:"created_at"`
	UpdatedAt               time.Time  `bun:"updated_at"`
}

func newEndpointRow(e outbound.StoredEndpoint) (endpointRow, error) {
	types := e.EventTypes
	if types == nil {
		types = []string{}
	}
	raw, err := json.Marshal(types)
	if err != nil {
		return endpointRow{}, err
	}
	return endpointRow{
		ID: e.ID, TenantID: e.TenantID, URL: e.URL, Description: e.Description, EventTypes: string(raw),
		Enabled: e.Enabled, DisabledReason: e.DisabledReason, Secret: e.Secret, PreviousSecret: e.PreviousSecret,
		SecretRotatedAt: utc(e.SecretRotatedAt), PreviousSecretExpiresAt: utc(e.PreviousSecretExpiresAt),
		FailingSince: utc(e.FailingSince), CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC(),
	}, nil
}

func (r endpointRow) stored() (outbound.StoredEndpoint, error) {
	e := outbound.StoredEndpoint{
		Endpoint: outbound.Endpoint{
			ID: r.ID, TenantID: r.TenantID, URL: r.URL, Description: r.Description, EventTypes: []string{},
			Enabled: r.Enabled, DisabledReason: r.DisabledReason,
			SecretRotatedAt: utc(r.SecretRotatedAt), PreviousSecretExpiresAt: utc(r.PreviousSecretExpiresAt),
			FailingSince: utc(r.FailingSince), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		},
		Secret: r.Secret, PreviousSecret: r.PreviousSecret,
	}
	if err := json.Unmarshal([]byte(r.EventTypes), &e.EventTypes); err != nil {
		return outbound.StoredEndpoint{}, database.Wrap(err)
	}
	return e, nil
}

func (r endpointRow) endpoint() (outbound.Endpoint, error) {
	e, err := r.stored()
	return e.Endpoint, err
}

type deliveryRow struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`
	ID            string     `bun:"id,pk"`
	TenantID      string     `bun:"tenant_id,pk"`
	EndpointID    string     `bun:"endpoint_id"`
	EventID       string     `bun:"event_id"`
	EventType     string     `bun:"event_type"`
	Status        string     `bun:"status"`
	Payload       string     `bun:"payload"`
	AttemptCount  int        `bun:"attempt_count"`
	RoundStart    int        `bun:"round_start"`
	Retries       int        `bun:"retries"`
	NextAttemptAt *time.Time `bun:"next_attempt_at"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
}

func (r deliveryRow) delivery() outbound.Delivery {
	return outbound.Delivery{
		ID: r.ID, EndpointID: r.EndpointID, EventID: r.EventID, EventType: r.EventType, Status: r.Status,
		Attempts: []outbound.Attempt{}, NextAttemptAt: utc(r.NextAttemptAt),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

type attemptRow struct {
	bun.BaseModel `bun:"table:webhook_attempts"`
	TenantID      string    `bun:"tenant_id,pk"`
	DeliveryID    string    `bun:"delivery_id,pk"`
	Number        int       `bun:"number,pk"`
	Status        string    `bun:"status"`
	HTTPStatus    int       `bun:"http_status"`
	LatencyMS     int64     `bun:"latency_ms"`
	Response      string    `bun:"response"`
	AttemptedAt   time.Time `bun:"attempted_at"`
}

func (r attemptRow) attempt() outbound.Attempt {
	return outbound.Attempt{Number: r.Number, Status: r.Status, HTTPStatus: r.HTTPStatus,
		LatencyMS: r.LatencyMS, Response: r.Response, AttemptedAt: r.AttemptedAt.UTC()}
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (s *Store) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

// translate turns driver errors into the domain's sentinels.
func translate(err error) error {
	return database.Translate(err, outbound.ErrNotFound, outbound.ErrConflict)
}

// affected turns an update's result into ErrNotFound when it changed no
// row.
func affected(res interface{ RowsAffected() (int64, error) }, err error, none error) error {
	if err != nil {
		return translate(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return database.Wrap(err)
	}
	if n == 0 {
		return none
	}
	return nil
}
