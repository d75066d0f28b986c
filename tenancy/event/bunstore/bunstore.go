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

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy/event"
)

// Store is event.Store on Postgres or SQLite.
type Store struct {
	db bun.IDB
	// subscribed is the SQL of WithSubscribers; "" without it.
	subscribed string
	// insert is insertEvent, and insertAsking insertEvent returning
	// subscribed (nil without it), each formatted for db once.
	insert, insertAsking *database.Stmt
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
// webhook endpoints then costs one round trip for its event, not two (the
// event log's cost on create invoice, bench --event-cost: 15.2 % with the
// second round trip).
func WithSubscribers(exists string) Option {
	return func(s *Store) { s.subscribed = exists }
}

// New returns the Store on db. Apply Migrations first.
func New(db bun.IDB, opts ...Option) *Store {
	s := &Store{db: db, insert: database.NewStmt(db, insertEvent)}
	for _, o := range opts {
		o(s)
	}
	if s.subscribed != "" {
		s.insertAsking = database.NewStmt(db, insertEvent+" RETURNING "+s.subscribed)
	}
	return s
}

//go:embed migrations
var migrationsFS embed.FS

// Migrations returns the events table for both dialects (folders
// "postgres" and "sqlite"), for database.Migrate.
func Migrations() fs.FS { return database.Embedded(migrationsFS) }

type row struct {
	bun.BaseModel `bun:"table:events"`
	ID            string    `bun:"id,pk"`
	TenantID      *string   `bun:"tenant_id"`
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
		ID: r.ID, Type: r.Type,
		Actor: event.Actor{Type: r.ActorType, ID: r.ActorID, CredentialID: r.CredentialID,
			AuthMethod: r.AuthMethod, ClientIP: r.ClientIP},
		RequestID: r.RequestID,
		Resource:  event.Resource{Type: r.ResourceType, ID: r.ResourceID},
		Data:      json.RawMessage(r.Data),
		CreatedAt: r.CreatedAt.UTC(),
	}
	if r.TenantID != nil {
		e.TenantID = *r.TenantID
	}
	// Data is not checked here: CreateEvent checks it on the way in, once
	// per event, where checking every row read cost 8.5% of the server's
	// CPU on GET /api/events (bench --profile, events list).
	return e, nil
}

// errInvalidData is an event whose data is not JSON, which CreateEvent
// refuses to store.
var errInvalidData = errors.New("event: data is not JSON")

func (s *Store) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

// CreateEvent implements event.Store. It refuses data that is not JSON
// (errInvalidData): the rows it writes are read back unchecked. With ask
// and WithSubscribers, the insert also answers the subscribers' question.
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
	if e.TenantID != "" {
		t := e.TenantID
		r.TenantID = &t
	}
	vals := []any{r.ID, r.TenantID, r.Type, r.ActorType, r.ActorID, r.CredentialID, r.AuthMethod,
		r.ClientIP, r.RequestID, r.ResourceType, r.ResourceID, r.Data, r.CreatedAt}
	if !ask || s.insertAsking == nil {
		_, err := s.insert.Exec(ctx, vals...)
		return true, translate(err)
	}
	var subscribed bool
	err := s.insertAsking.Scan(ctx, &subscribed, append(vals, r.TenantID)...) // the tenant again, for subscribed
	return subscribed, translate(err)
}

// insertEvent is CreateEvent's statement, written out: built by Bun from
// the row's model it cost 13 MB of every 287 MB a comment on a ticket
// allocated (bench --profile, heap), on every change of every domain.
// Store.insertAsking adds WithSubscribers' question to it.
const insertEvent = `INSERT INTO events (id, tenant_id, type, actor_type, actor_id, credential_id, auth_method, client_ip, request_id, resource_type, resource_id, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// Event implements event.Store.
func (s *Store) Event(ctx context.Context, tenantID, id string) (event.Event, error) {
	var r row
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewSelect().Model(&r).Where("id = ?", a.Add(id))
	if tenantID != "" {
		q = database.ForTenant(q, a.Add(tenantID))
	}
	if err := database.Scan(ctx, s.db, q, a, &r); err != nil {
		return event.Event{}, translate(err)
	}
	return r.event()
}

// Events implements event.Store.
func (s *Store) Events(ctx context.Context, f event.Filter) ([]event.Event, bool, error) {
	limit := max(f.Limit, 1)
	var rows []row
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewSelect().Model(&rows).OrderExpr("id DESC").Limit(int64(limit) + 1)
	if f.TenantID != "" {
		q = database.ForTenant(q, a.Add(f.TenantID))
	}
	if f.Type != "" {
		q = q.Where("type = ?", a.Add(f.Type))
	}
	if f.ResourceID != "" {
		q = q.Where("resource_id = ?", a.Add(f.ResourceID))
	}
	if !f.CreatedAfter.IsZero() {
		q = q.Where("created_at > ?", a.Add(f.CreatedAfter.UTC()))
	}
	if !f.CreatedBefore.IsZero() {
		q = q.Where("created_at < ?", a.Add(f.CreatedBefore.UTC()))
	}
	if f.Before != "" {
		q = q.Where("id < ?", a.Add(f.Before))
	}
	if err := database.Scan(ctx, s.db, q, a, &rows); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, row.event)
}

// PruneEvents implements event.Store.
func (s *Store) PruneEvents(ctx context.Context, before time.Time) (int64, error) {
	a := database.NewArgs(s.db)
	// By id, which carries the creation time (event.Event.ID), on the
	// primary key: no index of created_at to keep up on every insert.
	q := s.conn(ctx).NewDelete().Table("events").Where("id < ?", a.Add(id.Floor(id.Event, before)))
	res, err := database.Exec(ctx, s.db, q, a)
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
