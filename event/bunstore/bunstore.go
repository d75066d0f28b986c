// Package bunstore keeps tenantkit's events (package tenancy/event) on
// Postgres or SQLite through Bun. Every query runs on the transaction the
// context carries (database.Conn): an event is written in the transaction
// of the change it records.
package bunstore

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/id"
)

// Store is event.Store on Postgres or SQLite.
type Store struct {
	db bun.IDB
	// subscribed is the SQL of WithSubscribers; "" without it.
	subscribed string
}

var _ event.Store = (*Store)(nil)

// Option configures a Store.
type Option func(*Store)

// WithSubscribers makes CreateEvent, when asked, tell in the statement
// that inserts the event (its RETURNING clause) whether its tenant has a
// subscriber: exists is a boolean SQL expression with one ? standing for
// the tenant id, e.g. outbound/bunstore.EndpointsExist. Without it
// CreateEvent reports every event subscribed, and the subscribers make
// their own query. tenantkit.New sets it: a mutation of a tenant without
// webhook endpoints then costs one round trip for its event, not two.
func WithSubscribers(exists string) Option {
	return func(s *Store) { s.subscribed = exists }
}

// New returns the Store on db. Apply Migrations first.
func New(db bun.IDB, opts ...Option) *Store {
	s := &Store{db: db}
	for _, o := range opts {
		o(s)
	}
	return s
}

//go:embed migrations
var migrationsFS embed.FS

// Migrations returns the events table for both dialects (folders
// "postgres" and "sqlite"), for database.Migrate.
func Migrations() fs.FS { return database.Embedded(migrationsFS) }

// errInvalidData is an event whose data is not JSON, which CreateEvent
// refuses to store.
var errInvalidData = errors.New("event: data is not JSON")

func (s *Store) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

// CreateEvent implements event.Store. It refuses data that is not JSON
// (errInvalidData): the rows it writes are read back unchecked. With ask
// and WithSubscribers, the insert also answers the subscribers' question;
// an event of the platform's own has none.
func (s *Store) CreateEvent(ctx context.Context, e event.Event, ask bool) (bool, error) {
	r := row{
		ID: e.ID, Type: e.Type,
		ActorType: e.Actor.Type, ActorID: e.Actor.ID, CredentialID: e.Actor.CredentialID,
		AuthMethod: e.Actor.AuthMethod, ClientIP: e.Actor.ClientIP, RequestID: e.RequestID,
		ResourceType: e.Resource.Type, ResourceID: e.Resource.ID,
		Data: string(e.Data), CreatedAt: e.CreatedAt.UTC(),
	}
	if len(e.Data) == 0 {
		r.Data = "null"
	} else if !json.Valid(e.Data) {
		return false, errInvalidData
	}
	r.TenantID = e.TenantID
	q := s.conn(ctx).NewInsert().Model(&r)
	if !ask || s.subscribed == "" {
		_, err := q.Exec(ctx)
		return true, translate(err)
	}
	if e.TenantID == "" {
		_, err := q.Exec(ctx)
		return false, translate(err)
	}
	var subscribed bool
	err := q.Returning(s.subscribed, e.TenantID).Scan(ctx, &subscribed)
	return subscribed, translate(err)
}

// Event implements event.Store: an operator's (tenantID "") may be any
// tenant's.
func (s *Store) Event(ctx context.Context, tenantID, id string) (event.Event, error) {
	var r row
	q := s.conn(ctx).NewSelect().Model(&r).Where("id = ?", id)
	if tenantID != "" {
		q = database.ForTenant(q, tenantID)
	} else {
		q = database.AcrossTenants(q)
	}
	if err := q.Scan(ctx); err != nil {
		return event.Event{}, translate(err)
	}
	return r.event()
}

// Events implements event.Store: an operator's list (no f.TenantID) spans
// tenants.
func (s *Store) Events(ctx context.Context, f event.Filter) ([]event.Event, bool, error) {
	limit := max(f.Limit, 1)
	var rows []row
	q := s.conn(ctx).NewSelect().Model(&rows)
	if f.TenantID != "" {
		q = database.ForTenant(q, f.TenantID)
	} else {
		q = database.AcrossTenants(q)
	}
	if f.Type != "" {
		q = q.Where("type = ?", f.Type)
	}
	if f.ResourceID != "" {
		q = q.Where("resource_id = ?", f.ResourceID)
	}
	if !f.CreatedAfter.IsZero() {
		q = q.Where("created_at > ?", f.CreatedAfter.UTC())
	}
	if !f.CreatedBefore.IsZero() {
		q = q.Where("created_at < ?", f.CreatedBefore.UTC())
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, row.event)
}

// PruneEvents implements event.Store. The retention is the platform's, so
// it spans tenants. It deletes by id, which carries the creation time
// (event.Event.ID), on the primary key: no index of created_at to keep up
// on every insert.
func (s *Store) PruneEvents(ctx context.Context, before time.Time) (int64, error) {
	res, err := database.AcrossTenants(s.conn(ctx).NewDelete()).Model((*row)(nil)).
		Where("id < ?", id.Floor(id.Event, before)).
		Exec(ctx)
	if err != nil {
		return 0, translate(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, database.Wrap(err)
	}
	return n, nil
}

// translate turns driver errors into the domain's sentinels.
func translate(err error) error {
	return database.Translate(err, event.ErrNotFound, event.ErrNotFound)
}
