package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// The webhook endpoints group (/api/webhook-endpoints): the endpoints a
// tenant registers for tenantkit's outbound webhooks, and their
// deliveries.

var _ WebhookEndpoints = (*outbound.Service)(nil)

// WebhookEndpoints serves the tenants' outbound webhook endpoints and
// their deliveries (/api/webhook-endpoints); *outbound.Service implements
// it. Every method acts for the tenant it is given: another tenant's
// endpoint or delivery is outbound.ErrNotFound (matching
// tenancy.ErrNotFound).
type WebhookEndpoints interface {
	// CreateEndpoint returns the endpoint and its secret, shown once.
	// *field.InvalidError ("url", "description", "event_types[i]");
	// outbound.ErrNotConfigured without a secret key.
	CreateEndpoint(ctx context.Context, tenantID string, in outbound.CreateEndpointInput) (outbound.Endpoint, string, error)
	// Endpoints returns a page, newest first.
	Endpoints(ctx context.Context, tenantID string, limit int, before string) ([]outbound.Endpoint, bool, error)
	Endpoint(ctx context.Context, tenantID, endpointID string) (outbound.Endpoint, error)
	// UpdateEndpoint: *field.InvalidError as CreateEndpoint.
	UpdateEndpoint(ctx context.Context, tenantID, endpointID string, in outbound.UpdateEndpointInput) (outbound.Endpoint, error)
	DeleteEndpoint(ctx context.Context, tenantID, endpointID string) error
	// RotateSecret returns the new secret, shown once;
	// outbound.ErrNotConfigured.
	RotateSecret(ctx context.Context, tenantID, endpointID string) (outbound.Endpoint, string, error)
	// SendTest: *outbound.StatusError (a conflict) for a disabled
	// endpoint.
	SendTest(ctx context.Context, tenantID, endpointID string) (outbound.Delivery, error)
	// Deliveries returns a page, newest first, with their attempts.
	Deliveries(ctx context.Context, tenantID, endpointID string, limit int, before string) ([]outbound.Delivery, bool, error)
	// Retry: *outbound.StatusError (a conflict naming the current
	// status) for a pending delivery or a disabled endpoint.
	Retry(ctx context.Context, tenantID, endpointID, deliveryID string) (outbound.Delivery, error)
}

// outboundWebhookEndpoints are the webhook endpoints group's rows of the
// route table. Creating an endpoint and rotating its secret are not
// idempotent: a replay would have to keep the secret.
func (a *API) outboundWebhookEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/webhook-endpoints", Group: GroupWebhookEndpoints, Tenant: true,
			Permission: tenancy.PermWebhooksManage, Query: ListQuery(), Handle: With(a.cfg.Services.Outbound, a.listWebhookEndpoints)},
		{Method: "POST", Path: "/api/webhook-endpoints", Group: GroupWebhookEndpoints, Tenant: true,
			Permission: tenancy.PermWebhooksManage, Handle: With(a.cfg.Services.Outbound, a.createWebhookEndpoint)},
		{Method: "GET", Path: "/api/webhook-endpoints/{id}", Group: GroupWebhookEndpoints, Tenant: true,
			Permission: tenancy.PermWebhooksManage, Handle: With(a.cfg.Services.Outbound, a.getWebhookEndpoint)},
		{Method: "PATCH", Path: "/api/webhook-endpoints/{id}", Group: GroupWebhookEndpoints, Tenant: true,
			Permission: tenancy.PermWebhooksManage, Handle: With(a.cfg.Services.Outbound, a.updateWebhookEndpoint)},
		{Method: "DELETE", Path: "/api/webhook-endpoints/{id}", Group: GroupWebhookEndpoints, Tenant: true,
			Permission: tenancy.PermWebhooksManage, Handle: With(a.cfg.Services.Outbound, a.deleteWebhookEndpoint)},
		{Method: "POST", Path: "/api/webhook-endpoints/{id}/rotate-secret", Group: GroupWebhookEndpoints, Tenant: true,
			Permission: tenancy.PermWebhooksManage, Handle: With(a.cfg.Services.Outbound, a.rotateWebhookSecret)},
		{Method: "POST", Path: "/api/webhook-endpoints/{id}/test", Group: GroupWebhookEndpoints, Tenant: true,
			Permission: tenancy.PermWebhooksManage, Idempotent: true, Handle: With(a.cfg.Services.Outbound, a.testWebhookEndpoint)},
		{Method: "GET", Path: "/api/webhook-endpoints/{id}/deliveries", Group: GroupWebhookEndpoints, Tenant: true,
			Permission: tenancy.PermWebhooksManage, Query: ListQuery(), Handle: With(a.cfg.Services.Outbound, a.listWebhookDeliveries)},
		{Method: "POST", Path: "/api/webhook-endpoints/{id}/deliveries/{delivery_id}/retry", Group: GroupWebhookEndpoints, Tenant: true,
			Permission: tenancy.PermWebhooksManage, Idempotent: true, Handle: With(a.cfg.Services.Outbound, a.retryWebhookDelivery)},
		{Method: "POST", Path: "/api/webhook-endpoints/deliveries/{delivery_id}/retry", Group: GroupWebhookEndpoints, Tenant: true,
			Permission: tenancy.PermWebhooksManage, Idempotent: true, Handle: With(a.cfg.Services.Outbound, a.retryWebhookDelivery)},
	}
}

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
	return PathID(r, id.WebhookEndpoint, "webhook endpoint")
}

// listWebhookEndpoints answers GET /api/webhook-endpoints.
func (a *API) listWebhookEndpoints(w http.ResponseWriter, r *http.Request) error {
	limit, before, err := ParseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	es, more, err := a.cfg.Services.Outbound.Endpoints(r.Context(), m.TenantID, limit, before)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, NewListResponse(es, more, func(e outbound.Endpoint) string { return e.ID }))
	return nil
}

// createWebhookEndpoint answers POST /api/webhook-endpoints: the endpoint
// with its secret, shown this once (201, Location).
func (a *API) createWebhookEndpoint(w http.ResponseWriter, r *http.Request) error {
	var in outbound.CreateEndpointInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	e, secret, err := a.cfg.Services.Outbound.CreateEndpoint(r.Context(), m.TenantID, in)
	if err != nil {
		return notConfiguredOutbound(err)
	}
	w.Header().Set("Location", "/api/webhook-endpoints/"+e.ID)
	WriteJSON(w, http.StatusCreated, endpointWithSecret{Endpoint: e, Secret: secret})
	return nil
}

// getWebhookEndpoint answers GET /api/webhook-endpoints/{id}.
func (a *API) getWebhookEndpoint(w http.ResponseWriter, r *http.Request) error {
	eid, err := endpointID(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	e, err := a.cfg.Services.Outbound.Endpoint(r.Context(), m.TenantID, eid)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, e)
	return nil
}

// updateWebhookEndpoint answers PATCH /api/webhook-endpoints/{id}.
func (a *API) updateWebhookEndpoint(w http.ResponseWriter, r *http.Request) error {
	eid, err := endpointID(r)
	if err != nil {
		return err
	}
	var in outbound.UpdateEndpointInput
	if err := DecodeJSON(r, &in); err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	e, err := a.cfg.Services.Outbound.UpdateEndpoint(r.Context(), m.TenantID, eid, in)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, e)
	return nil
}

// deleteWebhookEndpoint answers DELETE /api/webhook-endpoints/{id} (204).
func (a *API) deleteWebhookEndpoint(w http.ResponseWriter, r *http.Request) error {
	eid, err := endpointID(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	if err := a.cfg.Services.Outbound.DeleteEndpoint(r.Context(), m.TenantID, eid); err != nil {
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
	e, secret, err := a.cfg.Services.Outbound.RotateSecret(r.Context(), m.TenantID, eid)
	if err != nil {
		return notConfiguredOutbound(err)
	}
	WriteJSON(w, http.StatusOK, endpointWithSecret{Endpoint: e, Secret: secret})
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
	d, err := a.cfg.Services.Outbound.SendTest(r.Context(), m.TenantID, eid)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusAccepted, d)
	return nil
}

// listWebhookDeliveries answers GET /api/webhook-endpoints/{id}/deliveries:
// the endpoint's deliveries, newest first, each with its attempts.
func (a *API) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	eid, err := endpointID(r)
	if err != nil {
		return err
	}
	limit, before, err := ParseListParams(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	ds, more, err := a.cfg.Services.Outbound.Deliveries(r.Context(), m.TenantID, eid, limit, before)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, NewListResponse(ds, more, func(d outbound.Delivery) string { return d.ID }))
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
	d, err := a.cfg.Services.Outbound.Retry(r.Context(), m.TenantID, eid, did)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusAccepted, d)
	return nil
}
