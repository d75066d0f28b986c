package bunstore

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

type operatorKeyRow struct {
	bun.BaseModel `bun:"table:operator_keys"`
	ID            string     `bun:"id,pk"`
	Name          string     `bun:"name"`
	Scopes        string     `bun:"scopes"`
	Prefix        string     `bun:"prefix"`
	SecretHash    string     `bun:"secret_hash"`
	CreatedAt     time.Time  `bun:"created_at"`
	RevokedAt     *time.Time `bun:"revoked_at"`
}

func (r operatorKeyRow) key() operator.Key {
	k := operator.Key{ID: r.ID, Name: r.Name, Prefix: r.Prefix, CreatedAt: r.CreatedAt.UTC(), RevokedAt: utc(r.RevokedAt),
		Scopes: []tenancy.Scope{}}
	for _, sc := range strings.Fields(r.Scopes) {
		k.Scopes = append(k.Scopes, tenancy.Scope(sc))
	}
	return k
}

// CreateOperatorKey implements operator.KeyStore.
func (s *Store) CreateOperatorKey(ctx context.Context, k operator.Key, secretHash string) error {
	scopes := make([]string, len(k.Scopes))
	for i, sc := range k.Scopes {
		scopes[i] = string(sc)
	}
	row := operatorKeyRow{ID: k.ID, Name: k.Name, Scopes: strings.Join(scopes, " "), Prefix: k.Prefix,
		SecretHash: secretHash, CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt}
	_, err := s.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err)
}

// OperatorKeyByHash implements operator.KeyStore.
func (s *Store) OperatorKeyByHash(ctx context.Context, secretHash string) (operator.Key, error) {
	var row operatorKeyRow
	if err := s.conn(ctx).NewSelect().Model(&row).Where("secret_hash = ?", secretHash).Scan(ctx); err != nil {
		return operator.Key{}, translate(err)
	}
	return row.key(), nil
}

// OperatorKeys implements operator.KeyStore.
func (s *Store) OperatorKeys(ctx context.Context, f operator.Filter) ([]operator.Key, bool, error) {
	limit := max(f.Limit, 1) // the service clamped it; never scan without a bound
	var rows []operatorKeyRow
	q := s.conn(ctx).NewSelect().Model(&rows).ExcludeColumn("secret_hash")
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	return database.Page(rows, limit, func(r operatorKeyRow) (operator.Key, error) { return r.key(), nil })
}

// RevokeOperatorKey implements operator.KeyStore with one UPDATE …
// RETURNING, on both dialects.
func (s *Store) RevokeOperatorKey(ctx context.Context, id string, at time.Time) (operator.Key, error) {
	var row operatorKeyRow
	err := s.conn(ctx).NewUpdate().Model(&row).
		Set("revoked_at = COALESCE(revoked_at, ?)", at).
		Where("id = ?", id).
		Returning("id, name, scopes, prefix, created_at, revoked_at").
		Scan(ctx)
	if err != nil {
		return operator.Key{}, translate(err)
	}
	return row.key(), nil
}
