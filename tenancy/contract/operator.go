package contract

import (
	"context"
	"fmt"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// AllFilter selects and pages contract requests across tenants, newest
// first, as the platform's operators look at them.
type AllFilter struct {
	Filter
	// TenantID keeps only the requests of this tenant ("" for every
	// tenant).
	TenantID string
}

// AllRequests returns a page of the requests of every tenant (or of
// f.TenantID), newest first, and whether there are more (continue with
// f.Before set to the last id). It is the operators' view: nothing
// confines it to one tenant. f.Limit is clamped as for Requests.
// *tenancy.InvalidError for an unknown status ("status"), a malformed
// tenant id ("tenant_id") or a Before that is no request id ("cursor").
func (s *Service) AllRequests(ctx context.Context, f AllFilter) ([]Request, bool, error) {
	fe := checkFilter(f.Filter)
	if f.TenantID != "" && !id.Valid(id.Tenant, f.TenantID) {
		fe.Add("tenant_id", field.Invalid, "must be a tenant id: ten_ and 26 lower-case letters and digits")
	}
	if err := fe.Err(); err != nil {
		return nil, false, fmt.Errorf("contract: list requests of every tenant: %w", err)
	}
	f.Limit = clampLimit(f.Limit)
	page, more, err := s.store.AllRequests(ctx, f)
	if err != nil {
		return nil, false, fmt.Errorf("contract: list requests of every tenant: %w", err)
	}
	if page == nil {
		page = []Request{}
	}
	return page, more, nil
}
