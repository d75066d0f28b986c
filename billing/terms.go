package billing

import (
	"context"
	"time"

	"github.com/tenantkit/tenantkit/tenancy"
)

// PaymentTerms reads a tenant's settings, of which the default payment
// terms: how many days after it is finalized an invoice without a due
// date of its own is due. *tenancy.TenantSettings implements it.
type PaymentTerms interface {
	Get(ctx context.Context, tenantID string) (tenancy.Settings, error)
}

// WithPaymentTerms makes an invoice finalized without a due date due the
// tenant's default_payment_terms_days after its finalization (in UTC);
// a tenant without the setting leaves it without one. tenantkit.New
// passes the tenants' settings.
func WithPaymentTerms(t PaymentTerms) Option { return func(s *Service) { s.terms = t } }

// defaultDueDate gives inv, about to be finalized at now, the tenant's
// default due date when it has none.
func (s *Service) defaultDueDate(ctx context.Context, inv *Invoice, now time.Time) error {
	if inv.DueDate != "" || s.terms == nil {
		return nil
	}
	st, err := s.terms.Get(ctx, inv.TenantID)
	if err != nil || st.DefaultPaymentTermsDays == nil {
		return err
	}
	inv.DueDate = now.UTC().AddDate(0, 0, *st.DefaultPaymentTermsDays).Format(time.DateOnly)
	return nil
}
