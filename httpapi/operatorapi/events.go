package operatorapi

import (
	"context"
	"net/http"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
)

// The audit trail of every tenant, and the platform's own events.

var _ Events = (*event.Log)(nil)

// Events reads the audit trail across tenants; *event.Log implements it.
type Events interface {
	// ListAll returns a page of every tenant's events (or f.TenantID's),
	// newest first.
	ListAll(ctx context.Context, f event.Filter) ([]event.Event, bool, error)
	// GetAny returns the event of any tenant; event.ErrNotFound when
	// there is none with that id.
	GetAny(ctx context.Context, eventID string) (event.Event, error)
}

// listEvents answers GET /api/operator/events: every tenant's events
// (and the platform's own), or one tenant's with tenant_id, filtered as
// the tenants' own list is (httpapi.EventFilter).
func (h *handlers) listEvents(w http.ResponseWriter, r *http.Request) error {
	f, err := httpapi.EventFilter(r)
	if err != nil {
		return err
	}
	if t := r.URL.Query().Get("tenant_id"); t != "" {
		if !id.Valid(id.Tenant, t) {
			return httpapi.InvalidRequest("invalid event filter",
				httpapi.FieldError{Field: "tenant_id", Code: "invalid", Message: "must be a tenant id (ten_…)"})
		}
		f.TenantID = t
	}
	es, more, err := h.Events.ListAll(r.Context(), f)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, httpapi.NewListResponse(es, more, func(e event.Event) string { return e.ID }))
	return nil
}

// getEvent answers GET /api/operator/events/{id}: any tenant's event.
func (h *handlers) getEvent(w http.ResponseWriter, r *http.Request) error {
	eventID, err := httpapi.PathID(r, id.Event, "event")
	if err != nil {
		return err
	}
	e, err := h.Events.GetAny(r.Context(), eventID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, e)
	return nil
}
