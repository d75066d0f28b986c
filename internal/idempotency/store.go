// Package idempotency keeps Idempotency-Key claims and the responses they
// replay, in the same transaction as the work they guard. Store is the Bun
// implementation of httpapi.IdempotencyStore.
package idempotency

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
)

//go:embed migrations
var migrationsFS embed.FS

// Migrations returns the idempotency schema for both dialects.
func Migrations() fs.FS {
	sub, err := fs.Sub(migrationsFS, "migrations")
	if err != nil {
		panic(err) // embedded above; unreachable
	}
	return sub
}

// Store keeps Idempotency-Key outcomes in the database.
type Store struct {
	db  *bun.DB
	now func() time.Time
}

// New returns a Store on db (migrated with Migrations).
func New(db *bun.DB) *Store { return &Store{db: db, now: time.Now} }

type keyRow struct {
	bun.BaseModel `bun:"table:idempotency_keys"`
	TenantID      string    `bun:"tenant_id,pk"`
	Credential    string    `bun:"credential,pk"`
	Key           string    `bun:"key,pk"`
	RequestHash   string    `bun:"request_hash"`
	Status        int       `bun:"status"`
	ContentType   string    `bun:"content_type"`
	Location      string    `bun:"location"`
	Body          []byte    `bun:"body"`
	CreatedAt     time.Time `bun:"created_at"`
}

// Do implements httpapi.IdempotencyStore: it claims scope for requestHash
// and runs fn in the same transaction as the claim, or replays the stored
// response. The claim is an insert that, on
// a conflict, only takes over an expired row; a concurrent request with the
// same key blocks on the uncommitted claim (row lock on Postgres, the write
// lock on SQLite) and then finds the committed response to replay.
func (s *Store) Do(ctx context.Context, scope Scope, requestHash string, ttl time.Duration,
	fn func(ctx context.Context) (Response, error)) (Response, bool, error) {
	var (
		resp     Response
		replayed bool
	)
	err := database.RunInTx(ctx, s.db, func(ctx context.Context) error {
		db := database.Conn(ctx, s.db)
		now := s.now().UTC()
		claim := keyRow{TenantID: scope.TenantID, Credential: scope.Credential, Key: scope.Key,
			RequestHash: requestHash, CreatedAt: now}
		res, err := db.NewInsert().Model(&claim).
			On("CONFLICT (tenant_id, credential, key) DO UPDATE").
			Set("request_hash = EXCLUDED.request_hash, status = 0, content_type = '', location = '', body = NULL, created_at = EXCLUDED.created_at").
			Where("?TableAlias.created_at < ?", now.Add(-ttl)).
			Exec(ctx)
		if err != nil {
			return fmt.Errorf("idempotency: claim: %w", database.Wrap(err))
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var row keyRow
			err := db.NewSelect().Model(&row).
				Where("tenant_id = ?", scope.TenantID).Where("credential = ?", scope.Credential).
				Where("key = ?", scope.Key).Scan(ctx)
			if errors.Is(err, sql.ErrNoRows) {
				return ErrInProgress
			}
			if err != nil {
				return fmt.Errorf("idempotency: load: %w", database.Wrap(err))
			}
			switch {
			case row.RequestHash != requestHash:
				return ErrKeyReused
			case row.Status == 0:
				return ErrInProgress
			}
			resp = Response{Status: row.Status, ContentType: row.ContentType, Location: row.Location, Body: row.Body}
			replayed = true
			return nil
		}
		resp, err = fn(ctx)
		if err != nil {
			return err
		}
		_, err = db.NewUpdate().Model((*keyRow)(nil)).
			Set("status = ?", resp.Status).Set("content_type = ?", resp.ContentType).
			Set("location = ?", resp.Location).Set("body = ?", resp.Body).
			Where("tenant_id = ?", scope.TenantID).Where("credential = ?", scope.Credential).
			Where("key = ?", scope.Key).Exec(ctx)
		if err != nil {
			return fmt.Errorf("idempotency: store response: %w", database.Wrap(err))
		}
		return nil
	})
	return resp, replayed, err
}

// Purge deletes keys created before cutoff; the server calls it hourly.
func (s *Store) Purge(ctx context.Context, cutoff time.Time) (int64, error) {
	res, err := s.db.NewDelete().Model((*keyRow)(nil)).Where("created_at < ?", cutoff).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("idempotency: purge: %w", database.Wrap(err))
	}
	n, _ := res.RowsAffected()
	return n, nil
}
