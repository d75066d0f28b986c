package bunstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
)

var _ billing.HostedStore = (*Store)(nil)

// hostedRow is an invoice's row of invoice_hosted_tokens: the hash of its
// current token, never the token.
type hostedRow struct {
	bun.BaseModel `bun:"table:invoice_hosted_tokens"`
	TenantID      string `bun:"tenant_id,pk"`
	InvoiceID     string `bun:"invoice_id,pk"`
	Version       int    `bun:"version"`
	TokenHash     string `bun:"token_hash"`
}

// HostedVersions implements billing.HostedStore.
func (s *Store) HostedVersions(ctx context.Context, tenantID string, ids []string) (map[string]int, error) {
	var rows []hostedRow
	err := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID).
		Where("invoice_id IN (?)", bun.In(ids)).Scan(ctx)
	if err != nil {
		return nil, translate(err)
	}
	out := make(map[string]int, len(rows))
	for _, r := range rows {
		out[r.InvoiceID] = r.Version
	}
	return out, nil
}

// IssueHostedTokens implements billing.HostedStore: one insert, keeping
// the token of an invoice that has one (a concurrent first showing).
func (s *Store) IssueHostedTokens(ctx context.Context, tenantID string, hashes map[string]string) error {
	rows := make([]hostedRow, 0, len(hashes))
	for id, h := range hashes {
		rows = append(rows, hostedRow{TenantID: tenantID, InvoiceID: id, Version: 1, TokenHash: h})
	}
	_, err := s.conn(ctx).NewInsert().Model(&rows).On("CONFLICT (tenant_id, invoice_id) DO NOTHING").Exec(ctx)
	return translate(err)
}

// RotateHostedToken implements billing.HostedStore.
func (s *Store) RotateHostedToken(ctx context.Context, tenantID, invoiceID string, from int, hash string) error {
	res, err := database.ForTenant(s.conn(ctx).NewUpdate().Model((*hostedRow)(nil)), tenantID).
		Set("version = ?", from+1).Set("token_hash = ?", hash).
		Where("invoice_id = ?", invoiceID).Where("version = ?", from).Exec(ctx)
	if err != nil {
		return translate(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return translate(err)
	}
	v, err := s.HostedVersions(ctx, tenantID, []string{invoiceID})
	if err != nil {
		return err
	}
	if _, ok := v[invoiceID]; ok {
		return billing.ErrConflict
	}
	return billing.ErrNotFound
}

// HostedInvoice implements billing.HostedStore: the one lookup across
// tenants, by the token's hash (unique).
func (s *Store) HostedInvoice(ctx context.Context, hash string) (string, string, error) {
	var row hostedRow
	err := database.AcrossTenants(s.conn(ctx).NewSelect().Model(&row)).Where("token_hash = ?", hash).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", billing.ErrNotFound
	}
	if err != nil {
		return "", "", translate(err)
	}
	return row.TenantID, row.InvoiceID, nil
}
