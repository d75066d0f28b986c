package operatorapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// The tenants' contract change requests, to approve or reject.

var _ Requests = (*contract.Service)(nil)

// Requests decides the tenants' contract requests.
// *contract.Service implements it.
type Requests interface {
	// AllRequests: *tenancy.InvalidError (fields "status", "tenant_id",
	// "cursor").
	AllRequests(ctx context.Context, f contract.AllFilter) ([]contract.Request, bool, error)
	// Approve and Reject: contract.ErrRequestNotFound (matching
	// tenancy.ErrNotFound); *contract.RequestTransitionError (matching
	// tenancy.ErrConflict) unless pending; *tenancy.InvalidError
	// ("reason", or the change's fields when it no longer applies).
	Approve(ctx context.Context, requestID, reason string) (contract.Request, error)
	Reject(ctx context.Context, requestID, reason string) (contract.Request, error)
}

// listContractRequests answers GET /api/operator/contract-requests:
// the requests of every tenant (or ?tenant_id=), newest first, by
// ?status=.
func (h *handlers) listContractRequests(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := httpapi.ParseListParams(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	reqs, more, err := h.Requests.AllRequests(r.Context(), contract.AllFilter{
		Filter:   contract.Filter{Status: q.Get("status"), Limit: limit, Before: before},
		TenantID: q.Get("tenant_id"),
	})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.NewListResponse(reqs, more, func(c contract.Request) string { return c.ID }))
	return nil
}

// approveContractRequest answers POST
// /api/operator/contract-requests/{id}/approve: an `immediately` request
// is applied now, a `next_period` one approved for the next period. A
// request no longer pending is 409 conflict, also for the second of two
// operators approving it at once.
func (h *handlers) approveContractRequest(w http.ResponseWriter, r *http.Request) error {
	reqID, err := httpapi.PathID(r, id.Contract, "contract request")
	if err != nil {
		return err
	}
	req, err := h.Requests.Approve(r.Context(), reqID, "")
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, req)
	return nil
}

// rejectContractRequest answers POST
// /api/operator/contract-requests/{id}/reject: the request is rejected
// with the reason, which the tenant's notification carries. The body is
// contract.DecisionInput, whose reason is required here (the service
// takes a rejection without one from Go callers).
func (h *handlers) rejectContractRequest(w http.ResponseWriter, r *http.Request) error {
	reqID, err := httpapi.PathID(r, id.Contract, "contract request")
	if err != nil {
		return err
	}
	var in contract.DecisionInput
	if err := httpapi.DecodeJSON(r, &in); err != nil {
		return err
	}
	in.Reason = strings.TrimSpace(in.Reason)
	if err := field.Check(in); err != nil {
		return err
	}
	req, err := h.Requests.Reject(r.Context(), reqID, in.Reason)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, req)
	return nil
}
