// Package idempotency keeps Idempotency-Key claims, and the responses they
// replay in the same transaction as the work they guard. Store is the Bun
// implementation of httpapi.IdempotencyStore.
package idempotency

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/database"
)

//go:embed migrations
var migrations embed.FS

// Migrations returns the idempotency schema for both dialects.
func Migrations() fs.FS { return database.Embedded(migrations) }

// Lease is how long a claim protects a key whose request has not
// finished: retries meanwhile get ErrInProgress. A claim older than that
// (its process died, or the request runs far longer than any HTTP client
// waits) may be taken over by a retry; the first request then cannot
// store its response and its work rolls back, so the work still happens
// once.
const Lease = time.Minute

// Store keeps Idempotency-Key outcomes in the database.
type Store struct {
	db  *bun.DB
	tx  database.Transactor // the one the domain stores join
	now func() time.Time
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
	Status        int       `bun:"status"` // 0 while the claiming request runs
	ContentType   string    `bun:"content_type"`
	Location      string    `bun:"location"`
	Body          []byte    `bun:"body"`
	CreatedAt     time.Time `bun:"created_at"`
	Claim         string    `bun:"claim"` // the claiming request's random token
}

// Do implements httpapi.IdempotencyStore: it claims scope for requestHash,
// then runs fn and stores its response in one transaction, so that the
// work and the response commit together or not at all; or it replays the
// stored response.
//
// The claim commits on its own, before fn runs, so that a retry arriving
// while fn runs finds it and gets ErrInProgress at once instead of queuing
// behind the first request's locks. Only the claim's owner can store the
// response (the claim token must still match), and a failed fn deletes
// the claim, so that a retry runs afresh. ctx must not carry a
// transaction: the claim has to be visible to other requests before fn's
// work commits.
func (s *Store) Do(ctx context.Context, scope Scope, requestHash string, ttl time.Duration,
	fn func(ctx context.Context) (Response, error)) (Response, bool, error) {
	now := s.now().UTC()
	// Look before claiming: a plain read, which never waits for a running
	// request's transaction (on SQLite a claim would queue for the write
	// lock that transaction holds).
	if resp, replayed, decided, err := s.lookup(ctx, scope, requestHash, now, ttl); decided {
		return resp, replayed, err
	}
	token := rand.Text()
	claimed, err := s.claim(ctx, scope, requestHash, token, now, ttl)
	if err != nil {
		return Response{}, false, err
	}
	if !claimed {
		// Another request claimed the key between the look and the claim.
		if resp, replayed, decided, err := s.lookup(ctx, scope, requestHash, now, ttl); decided {
			return resp, replayed, err
		}
		return Response{}, false, ErrInProgress
	}

	var resp Response
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if resp, err = fn(ctx); err != nil {
			return err
		}
		res, err := database.Conn(ctx, s.db).NewUpdate().Model((*keyRow)(nil)).
			Set("status = ?", resp.Status).Set("content_type = ?", resp.ContentType).
			Set("location = ?", resp.Location).Set("body = ?", resp.Body).
			Where("tenant_id = ?", scope.TenantID).Where("credential = ?", scope.Credential).
			Where("key = ?", scope.Key).Where("claim = ?", token).Where("status = 0").
			Exec(ctx)
		if err != nil {
			return fmt.Errorf("idempotency: store response: %w", database.Wrap(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			// A retry took the key over after Lease: its run counts, ours
			// rolls back.
			return ErrInProgress
		}
		return nil
	})
	if err != nil {
		s.release(context.WithoutCancel(ctx), scope, token)
		return Response{}, false, err
	}
	return resp, false, nil
}

// lookup reads scope's row and decides from it alone: decided is false
// when the key is free to claim (no row, an expired one, or an abandoned
// claim); else the outcome is the stored response to replay, ErrKeyReused
// or ErrInProgress (or the read's failure).
func (s *Store) lookup(ctx context.Context, scope Scope, requestHash string, now time.Time, ttl time.Duration) (
	resp Response, replayed, decided bool, err error) {
	var row keyRow
	err = s.db.NewSelect().Model(&row).
		Column("request_hash", "status", "content_type", "location", "body", "created_at").
		Where("tenant_id = ?", scope.TenantID).Where("credential = ?", scope.Credential).
		Where("key = ?", scope.Key).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Response{}, false, false, nil
	case err != nil:
		return Response{}, false, true, fmt.Errorf("idempotency: load: %w", database.Wrap(err))
	case row.CreatedAt.Before(now.Add(-ttl)):
		return Response{}, false, false, nil
	case row.RequestHash != requestHash:
		return Response{}, false, true, ErrKeyReused
	case row.Status == 0 && row.CreatedAt.Before(now.Add(-Lease)):
		return Response{}, false, false, nil
	case row.Status == 0:
		return Response{}, false, true, ErrInProgress
	}
	return Response{Status: row.Status, ContentType: row.ContentType, Location: row.Location, Body: row.Body}, true, true, nil
}

// claim inserts scope's row for this request, or takes over an expired row
// or an abandoned claim, and commits at once. It reports whether the key
// is now this request's.
func (s *Store) claim(ctx context.Context, scope Scope, requestHash, token string, now time.Time, ttl time.Duration) (bool, error) {
	row := keyRow{TenantID: scope.TenantID, Credential: scope.Credential, Key: scope.Key,
		RequestHash: requestHash, CreatedAt: now, Claim: token}
	res, err := s.db.NewInsert().Model(&row).
		On("CONFLICT (tenant_id, credential, key) DO UPDATE").
		Set("request_hash = EXCLUDED.request_hash, status = 0, content_type = '', location = '', body = NULL").
		Set("created_at = EXCLUDED.created_at, claim = EXCLUDED.claim").
		Where("?TableAlias.created_at < ? OR (?TableAlias.status = 0 AND ?TableAlias.created_at < ?)",
			now.Add(-ttl), now.Add(-Lease)).
		Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("idempotency: claim: %w", database.Wrap(err))
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// release deletes this request's claim after its work failed, so that a
// retry runs at once instead of waiting out the lease. When that fails
// too, the lease frees the key later.
func (s *Store) release(ctx context.Context, scope Scope, token string) {
	_, _ = s.db.NewDelete().Model((*keyRow)(nil)).
		Where("tenant_id = ?", scope.TenantID).Where("credential = ?", scope.Credential).
		Where("key = ?", scope.Key).Where("claim = ?", token).Where("status = 0").
		Exec(ctx)
}

// Purge deletes keys created before cutoff; the App's Scheduler calls it
// at every tick.
func (s *Store) Purge(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.NewDelete().Model((*keyRow)(nil)).Where("created_at < ?", cutoff).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("idempotency: purge: %w", database.Wrap(err))
	}
	n, _ := res.RowsAffected()
	return n, nil
}
