package bunstore

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
)

type secretRow struct {
	bun.BaseModel `bun:"table:portal_secrets,alias:s"`
	Name          string    `bun:"name,pk"`
	Value         []byte    `bun:"value"`
	CreatedAt     time.Time `bun:"created_at"`
}

// Secret returns the secret called name, generating size random bytes
// the first time any replica asks: every replica on the database then
// signs with the same one.
func (s *Store) Secret(ctx context.Context, name string, size int) ([]byte, error) {
	conn := s.conn(ctx)
	fresh := secretRow{Name: name, Value: make([]byte, size), CreatedAt: time.Now().UTC()}
	_, _ = rand.Read(fresh.Value)
	if _, err := conn.NewInsert().Model(&fresh).On("CONFLICT (name) DO NOTHING").Exec(ctx); err != nil {
		return nil, fmt.Errorf("portal: secret %s: %w", name, database.Wrap(err))
	}
	var r secretRow
	if err := conn.NewSelect().Model(&r).Where("name = ?", name).Scan(ctx); err != nil {
		return nil, fmt.Errorf("portal: secret %s: %w", name, database.Wrap(err))
	}
	return r.Value, nil
}
