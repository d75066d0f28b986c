package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
)

var _ tenancy.SettingsStore = (*Store)(nil)

// settingsRow is a tenant's row of tenant_settings.
type settingsRow struct {
	bun.BaseModel           `bun:"table:tenant_settings"`
	TenantID                string    `bun:"tenant_id,pk"`
	PaymentLinkTemplate     *string   `bun:"payment_link_template"`
	InvoiceFooter           *string   `bun:"invoice_footer"`
	ReplyToEmail            *string   `bun:"reply_to_email"`
	DefaultPaymentTermsDays *int      `bun:"default_payment_terms_days"`
	UpdatedAt               time.Time `bun:"updated_at"`
}

// Settings implements tenancy.SettingsStore.
func (s *Store) Settings(ctx context.Context, tenantID string) (tenancy.Settings, error) {
	var row settingsRow
	err := database.ForTenant(s.conn(ctx).NewSelect().Model(&row), tenantID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return tenancy.Settings{}, nil
	}
	if err != nil {
		return tenancy.Settings{}, translate(err)
	}
	return tenancy.Settings{PaymentLinkTemplate: row.PaymentLinkTemplate, InvoiceFooter: row.InvoiceFooter,
		ReplyToEmail: row.ReplyToEmail, DefaultPaymentTermsDays: row.DefaultPaymentTermsDays}, nil
}

// SaveSettings implements tenancy.SettingsStore: an upsert of the
// tenant's row. A tenant that does not exist fails the foreign key.
func (s *Store) SaveSettings(ctx context.Context, tenantID string, st tenancy.Settings) error {
	row := settingsRow{TenantID: tenantID, PaymentLinkTemplate: st.PaymentLinkTemplate, InvoiceFooter: st.InvoiceFooter,
		ReplyToEmail: st.ReplyToEmail, DefaultPaymentTermsDays: st.DefaultPaymentTermsDays, UpdatedAt: time.Now().UTC()}
	_, err := s.conn(ctx).NewInsert().Model(&row).On("CONFLICT (tenant_id) DO UPDATE").
		Set("payment_link_template = EXCLUDED.payment_link_template").
		Set("invoice_footer = EXCLUDED.invoice_footer").
		Set("reply_to_email = EXCLUDED.reply_to_email").
		Set("default_payment_terms_days = EXCLUDED.default_payment_terms_days").
		Set("updated_at = EXCLUDED.updated_at").Exec(ctx)
	return translate(err)
}
