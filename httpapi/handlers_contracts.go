package httpapi

import (
	"net/http"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// listContractRequests answers GET /api/contract-requests: the tenant's
// contract change requests, newest first, filtered by ?status=.
func (a *API) listContractRequests(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	reqs, more, err := a.cfg.Contracts.Requests(r.Context(), m.TenantID, contract.Filter{
		Status: r.URL.Query().Get("status"), Limit: limit, Before: before})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(reqs, more, func(c contract.Request) string { return c.ID }))
	return nil
}

// submitContractRequest answers POST /api/contract-requests: a pending
// request submitted by the caller (201, Location), checked against the
// catalog and the tenant's contract.
func (a *API) submitContractRequest(w http.ResponseWriter, r *http.Request) error {
	var in contract.SubmitInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p, _ := PrincipalFrom(r.Context())
	m, _ := MembershipFrom(r.Context())
	req, err := a.cfg.Contracts.Submit(r.Context(), m.TenantID, p.User.ID, in)
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
	var in contract.PreviewInput
	if err := decodeOptionalJSON(r, &in); err != nil {
		return err
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
	contractID, err := pathID(r, id.Contract, "contract request")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	req, err := a.cfg.Contracts.Request(r.Context(), m.TenantID, contractID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, req)
	return nil
}

// cancelContractRequest answers POST /api/contract-requests/{id}/cancel:
// the request, cancelled. Its submitter may cancel it, and so may an
// owner or admin (tenancy.PermContractsManage); another member gets 403.
// A request that is no longer pending is 409 with its status; another
// tenant's is 404.
func (a *API) cancelContractRequest(w http.ResponseWriter, r *http.Request) error {
	contractID, err := pathID(r, id.Contract, "contract request")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	req, err := a.cfg.Contracts.Cancel(r.Context(), m, contractID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, req)
	return nil
}
