package httpapi

import (
	"errors"
	"net/http"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// endpointWithSecret is the answer that shows an endpoint's secret: the
// create and the rotation, once each.
type endpointWithSecret struct {
	outbound.Endpoint
	// Secret is "whsec_…", shown this once.
	Secret string `json:"secret"`
}

// notConfiguredOutbound turns outbound.ErrNotConfigured into 501.
func notConfiguredOutbound(err error) error {
	if errors.Is(err, outbound.ErrNotConfigured) {
		return NewProblem(http.StatusNotImplemented, CodeNotImplemented,
			"outbound webhooks are not configured on this server (no secret key)")
	}
	return err
}

func endpointID(r *http.Request) (string, error) {
	return pathID(r, id.WebhookEndpoint, "webhook endpoint")
}

// listWebhookEndpoints answers GET /api/webhook-endpoints.
func (a *API) listWebhookEndpoints(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	es, more, err := a.cfg.Outbound.Endpoints(r.Context(), m.TenantID, limit, before)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(es, more, func(e outbound.Endpoint) string { return e.ID }))
	return nil
}

// createWebhookEndpoint answers POST /api/webhook-endpoints: the endpoint
// with its secret, shown this once (201, Location).
func (a *API) createWebhookEndpoint(w http.ResponseWriter, r *http.Request) error {
	var in outbound.CreateEndpointInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	e, secret, err := a.cfg.Outbound.CreateEndpoint(r.Context(), m.TenantID, in)
	if err != nil {
		return notConfiguredOutbound(err)
	}
	w.Header().Set("Location", "/api/webhook-endpoints/"+e.ID)
	writeJSON(w, http.StatusCreated, endpointWithSecret{Endpoint: e, Secret: secret})
	return nil
}

// getWebhookEndpoint answers GET /api/webhook-endpoints/{id}.
func (a *API) getWebhookEndpoint(w http.ResponseWriter, r *http.Request) error {
	eid, err := endpointID(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	e, err := a.cfg.Outbound.Endpoint(r.Context(), m.TenantID, eid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, e)
	return nil
}

// updateWebhookEndpoint answers PATCH /api/webhook-endpoints/{id}.
func (a *API) updateWebhookEndpoint(w http.ResponseWriter, r *http.Request) error {
	eid, err := endpointID(r)
	if err != nil {
		return err
	}
	var in outbound.UpdateEndpointInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	e, err := a.cfg.Outbound.UpdateEndpoint(r.Context(), m.TenantID, eid, in)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, e)
	return nil
}

// deleteWebhookEndpoint answers DELETE /api/webhook-endpoints/{id} (204).
func (a *API) deleteWebhookEndpoint(w http.ResponseWriter, r *http.Request) error {
	eid, err := endpointID(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	if err := a.cfg.Outbound.DeleteEndpoint(r.Context(), m.TenantID, eid); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// rotateWebhookSecret answers POST /api/webhook-endpoints/{id}/rotate-secret:
// the endpoint with its new secret, shown this once.
func (a *API) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	eid, err := endpointID(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	e, secret, err := a.cfg.Outbound.RotateSecret(r.Context(), m.TenantID, eid)
	if err != nil {
		return notConfiguredOutbound(err)
	}
	writeJSON(w, http.StatusOK, endpointWithSecret{Endpoint: e, Secret: secret})
	return nil
}

// testWebhookEndpoint answers POST /api/webhook-endpoints/{id}/test: the
// webhook.test delivery it scheduled (202).
func (a *API) testWebhookEndpoint(w http.ResponseWriter, r *http.Request) error {
	eid, err := endpointID(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	d, err := a.cfg.Outbound.SendTest(r.Context(), m.TenantID, eid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, d)
	return nil
}

// listWebhookDeliveries answers GET /api/webhook-endpoints/{id}/deliveries:
// the endpoint's deliveries, newest first, each with its attempts.
func (a *API) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	eid, err := endpointID(r)
	if err != nil {
		return err
	}
	limit, before, err := parseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	ds, more, err := a.cfg.Outbound.Deliveries(r.Context(), m.TenantID, eid, limit, before)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(ds, more, func(d outbound.Delivery) string { return d.ID }))
	return nil
}

// retryWebhookDelivery answers POST …/deliveries/{delivery_id}/retry, with
// or without the endpoint's id in the path: the delivery, pending, its
// next attempt due at once (202); 409 with current_status when it has
// succeeded or its endpoint is disabled.
func (a *API) retryWebhookDelivery(w http.ResponseWriter, r *http.Request) error {
	eid := ""
	if r.PathValue("id") != "" {
		var err error
		if eid, err = endpointID(r); err != nil {
			return err
		}
	}
	did := r.PathValue("delivery_id")
	if !id.Valid(id.WebhookDelivery, did) {
		return NewProblem(http.StatusNotFound, CodeNotFound, "webhook delivery not found")
	}
	m, _ := MembershipFrom(r.Context())
	d, err := a.cfg.Outbound.Retry(r.Context(), m.TenantID, eid, did)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, d)
	return nil
}
