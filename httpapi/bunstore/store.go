// Package bunstore keeps httpapi's Idempotency-Key outcomes in a Bun
// database: the responses they replay, stored in the same transaction as
// the work they guard. Store implements httpapi.IdempotencyStore.
package bunstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/database"
)

//go:embed migrations
var migrations embed.FS

// Migrations returns the idempotency schema for both dialects.
func Migrations() fs.FS { return database.Embedded(migrations) }

// Store keeps Idempotency-Key outcomes in the database.
type Store struct {
	db    *bun.DB
	tx    database.Transactor // the one the domain stores join
	now   func() time.Time
	local sync.Map // keys whose request runs in this process: lockKey → struct{}
}

var _ httpapi.IdempotencyStore = (*Store)(nil)

// New returns a Store on db (migrated with Migrations).
func New(db *bun.DB) *Store { return &Store{db: db, tx: database.NewTransactor(db), now: time.Now} }

type keyRow struct {
	bun.BaseModel `bun:"table:idempotency_keys"`
	TenantID      string    `bun:"tenant_id,pk"`
	Credential    string    `bun:"credential,pk"`
	Key           string    `bun:"key,pk"`
	RequestHash   string    `bun:"request_hash"`
	Status        int       `bun:"status"` // 0 only in rows an earlier version left behind
	ContentType   string    `bun:"content_type"`
	Location      string    `bun:"location"`
	Body          []byte    `bun:"body"`
	CreatedAt     time.Time `bun:"created_at"`
}

// errDecided carries out of the transaction an outcome found inside it:
// the key's response, or httpapi.ErrIdempotencyKeyReused, which roll the transaction back.
type errDecided struct {
	resp     httpapi.StoredResponse
	replayed bool
	err      error
}

func (e *errDecided) Error() string { return "idempotency: decided under the lock" }

// Do implements httpapi.IdempotencyStore: it runs fn and stores its
// response in one transaction, so that the work and the response commit
// together or not at all; or it replays the stored response.
//
// While fn runs, the key is held by a lock that lives exactly as long as
// the request: a map entry in this process, and on Postgres also a
// transaction-scoped advisory lock, which other replicas see. A retry
// meanwhile gets httpapi.ErrIdempotencyInProgress at once instead of queuing behind the
// first request's locks; the key's row is read only under the lock, in
// the transaction that will write it. Nothing about a running request is committed,
// so a request that fails, or whose process dies, or whose database
// connection is cut, leaves its key free, and the retry simply runs. On
// SQLite, processes sharing one file are serialised by its write lock,
// under which Do looks at the key again: a retry from another process
// waits for the first request and replays it. ctx must not carry a
// transaction of the caller's.
func (s *Store) Do(ctx context.Context, scope httpapi.IdempotencyScope, requestHash string, ttl time.Duration,
	fn func(ctx context.Context) (httpapi.StoredResponse, error)) (httpapi.StoredResponse, bool, error) {
	now := s.now().UTC()
	lock := lockKey(scope)
	if _, running := s.local.LoadOrStore(lock, struct{}{}); running {
		return httpapi.StoredResponse{}, false, httpapi.ErrIdempotencyInProgress
	}
	defer s.local.Delete(lock)

	var resp httpapi.StoredResponse
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		conn := database.Conn(ctx, s.db)
		if database.IsPostgres(s.db) {
			var held bool
			if err := conn.NewSelect().ColumnExpr("pg_try_advisory_xact_lock(?)", lock).Scan(ctx, &held); err != nil {
				return fmt.Errorf("idempotency: lock: %w", database.Wrap(err))
			}
			if !held {
				return httpapi.ErrIdempotencyInProgress // another replica runs it
			}
		}
		// Under the lock, the key's row is final: a response to replay, or
		// none (or an expired one) and the key is this request's.
		if r, replayed, decided, err := s.lookup(ctx, conn, scope, requestHash, now, ttl); decided {
			return &errDecided{resp: r, replayed: replayed, err: err}
		}
		var err error
		if resp, err = fn(ctx); err != nil {
			return err
		}
		return s.store(ctx, conn, scope, requestHash, resp, now, ttl)
	})
	var decided *errDecided
	if errors.As(err, &decided) {
		return decided.resp, decided.replayed, decided.err
	}
	if err != nil {
		return httpapi.StoredResponse{}, false, err
	}
	return resp, false, nil
}

// lockKey names scope's lock: a 64-bit hash of the scope, in the space
// of Postgres's one-bigint advisory locks.
func lockKey(scope httpapi.IdempotencyScope) int64 {
	h := fnv.New64a()
	for _, part := range []string{"idempotency", scope.TenantID, scope.Credential, scope.Key} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return int64(h.Sum64())
}

// lookup reads scope's row on db (the transaction holding the key's lock)
// and decides from it alone: decided is
// false when the key is free (no row, an expired one, or a claim an
// earlier version left behind); else the outcome is the stored response
// to replay, httpapi.ErrIdempotencyKeyReused (or the read's failure).
func (s *Store) lookup(ctx context.Context, db bun.IDB, scope httpapi.IdempotencyScope, requestHash string, now time.Time, ttl time.Duration) (
	resp httpapi.StoredResponse, replayed, decided bool, err error) {
	var row keyRow
	q := db.NewSelect().Model(&row).Column("request_hash", "status", "content_type", "location", "body", "created_at")
	err = database.ForTenant(q, scope.TenantID).Where("credential = ?", scope.Credential).Where("key = ?", scope.Key).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return httpapi.StoredResponse{}, false, false, nil
	case err != nil:
		return httpapi.StoredResponse{}, false, true, fmt.Errorf("idempotency: load: %w", database.Wrap(err))
	case row.CreatedAt.Before(now.Add(-ttl)), row.Status == 0:
		return httpapi.StoredResponse{}, false, false, nil
	case row.RequestHash != requestHash:
		return httpapi.StoredResponse{}, false, true, httpapi.ErrIdempotencyKeyReused
	}
	return httpapi.StoredResponse{Status: row.Status, ContentType: row.ContentType, Location: row.Location, Body: row.Body}, true, true, nil
}

// store writes scope's row with resp, replacing an expired row or one an
// earlier version left unfinished, in the caller's transaction.
func (s *Store) store(ctx context.Context, db bun.IDB, scope httpapi.IdempotencyScope, requestHash string, resp httpapi.StoredResponse, now time.Time, ttl time.Duration) error {
	row := keyRow{TenantID: scope.TenantID, Credential: scope.Credential, Key: scope.Key,
		RequestHash: requestHash, Status: resp.Status, ContentType: resp.ContentType,
		Location: resp.Location, Body: resp.Body, CreatedAt: now}
	res, err := db.NewInsert().Model(&row).
		On("CONFLICT (tenant_id, credential, key) DO UPDATE").
		Set("request_hash = EXCLUDED.request_hash, status = EXCLUDED.status").
		Set("content_type = EXCLUDED.content_type, location = EXCLUDED.location, body = EXCLUDED.body").
		Set("created_at = EXCLUDED.created_at").
		Where("?TableAlias.created_at < ? OR ?TableAlias.status = 0", now.Add(-ttl)).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("idempotency: store response: %w", database.Wrap(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return httpapi.ErrIdempotencyInProgress // unreachable under the lock; never overwrite a response
	}
	return nil
}

// Purge deletes keys created before cutoff, every tenant's; the App's
// Scheduler calls it at every tick.
func (s *Store) Purge(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := database.AcrossTenants(database.Conn(ctx, s.db).NewDelete().Model((*keyRow)(nil))).
		Where("created_at < ?", cutoff.UTC()).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("idempotency: purge: %w", database.Wrap(err))
	}
	n, _ := res.RowsAffected()
	return n, nil
}
