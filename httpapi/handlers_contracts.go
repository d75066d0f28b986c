package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/tenantkit/tenantkit/billing"
)

// Contracts serves the contract requests and the invoice preview;
// *billing.Service implements it.
type Contracts interface {
	// ContractRequests returns a page of the tenant's contract change
	// requests, newest first, and whether more follow.
	ContractRequests(ctx context.Context, tenantID string, f billing.ContractRequestFilter) ([]billing.ContractRequest, bool, error)
	// SubmitContractRequest records the request of the user userID as
	// pending. *billing.InvalidError; billing.ErrConflict when one of the
	// same type is pending.
	SubmitContractRequest(ctx context.Context, tenantID, userID string, in billing.SubmitContractRequestInput) (billing.ContractRequest, error)
	// ContractRequest returns the tenant's request; billing.ErrNotFound.
	ContractRequest(ctx context.Context, tenantID, requestID string) (billing.ContractRequest, error)
	// Preview computes the tenant's next platform invoice, with in's
	// hypothetical change when it has one.
	Preview(ctx context.Context, tenantID string, in billing.PreviewInput) (billing.Preview, error)
}

var _ Contracts = (*billing.Service)(nil)

// listContractRequests answers GET /api/contract-requests: the tenant's
// contract change requests, newest first, filtered by ?status=.
func (a *API) listContractRequests(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	reqs, more, err := a.cfg.Contracts.ContractRequests(r.Context(), m.TenantID, billing.ContractRequestFilter{
		Status: r.URL.Query().Get("status"), Limit: limit, Before: before})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(reqs, more, func(c billing.ContractRequest) string { return c.ID }))
	return nil
}

// submitContractRequest answers POST /api/contract-requests: a pending
// request submitted by the caller (201, Location), checked against the
// catalog and the tenant's contract.
func (a *API) submitContractRequest(w http.ResponseWriter, r *http.Request) error {
	var in billing.SubmitContractRequestInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p, _ := PrincipalFrom(r.Context())
	m, _ := MembershipFrom(r.Context())
	req, err := a.cfg.Contracts.SubmitContractRequest(r.Context(), m.TenantID, p.User.ID, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/contract-requests/"+req.ID)
	writeJSON(w, http.StatusCreated, req)
	return nil
}

// previewInvoice answers POST /api/invoices/preview: the tenant's next
// platform invoice, optionally with a hypothetical change. The body is
// optional: none (or only white space) previews the current contract, like
// {}. Nothing is stored.
func (a *API) previewInvoice(w http.ResponseWriter, r *http.Request) error {
	var in billing.PreviewInput
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return err
			}
			return invalidRequest("could not read request body")
		}
		if len(bytes.TrimSpace(body)) > 0 {
			r.Body = io.NopCloser(bytes.NewReader(body))
			if err := decodeJSON(r, &in); err != nil {
				return err
			}
		}
	}
	m, _ := MembershipFrom(r.Context())
	preview, err := a.cfg.Contracts.Preview(r.Context(), m.TenantID, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, preview)
	return nil
}

// getContractRequest answers GET /api/contract-requests/{id}; another
// tenant's request is 404.
func (a *API) getContractRequest(w http.ResponseWriter, r *http.Request) error {
	m, _ := MembershipFrom(r.Context())
	req, err := a.cfg.Contracts.ContractRequest(r.Context(), m.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, req)
	return nil
}
