package httpapi

import (
	"net/http"
	"time"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/id"
)

// eventFilters are the filters of the event lists (besides the operator's
// tenant_id).
var eventFilters = []string{"type", "resource_id", "created_after", "created_before"}

// maxEventFilterLen bounds the type and resource_id filters: no event type
// or resource id is longer.
const maxEventFilterLen = 64

// eventFilter reads the list parameters and filters of an event list.
func eventFilter(r *http.Request) (event.Filter, error) {
	limit, before, err := parseListParams(r)
	if err != nil {
		return event.Filter{}, err
	}
	q := r.URL.Query()
	f := event.Filter{Limit: limit, Before: before, Type: q.Get("type"), ResourceID: q.Get("resource_id")}
	var errs []FieldError
	for _, p := range []struct{ name, v string }{{"type", f.Type}, {"resource_id", f.ResourceID}} {
		if len(p.v) > maxEventFilterLen {
			errs = append(errs, FieldError{Field: p.name, Code: "too_long", Message: "must be at most 64 characters"})
		}
	}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"created_after", &f.CreatedAfter}, {"created_before", &f.CreatedBefore}} {
		s := q.Get(p.name)
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			errs = append(errs, FieldError{Field: p.name, Code: "invalid", Message: "must be an RFC 3339 date-time"})
			continue
		}
		*p.dst = t.UTC()
	}
	if len(errs) > 0 {
		return event.Filter{}, invalidRequest("invalid event filter", errs...)
	}
	return f, nil
}

func eventID(e event.Event) string { return e.ID }

// listEvents answers GET /api/events: the active tenant's events, newest
// first, filtered by type, resource_id and creation time.
func (a *API) listEvents(w http.ResponseWriter, r *http.Request) error {
	f, err := eventFilter(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	es, more, err := a.cfg.Events.List(r.Context(), m.TenantID, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(es, more, eventID))
	return nil
}

// getEvent answers GET /api/events/{id}: one of the active tenant's
// events; another tenant's is 404.
func (a *API) getEvent(w http.ResponseWriter, r *http.Request) error {
	eventID, err := pathID(r, id.Event, "event")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	e, err := a.cfg.Events.Get(r.Context(), m.TenantID, eventID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, e)
	return nil
}

// opListEvents answers GET /api/operator/events: every tenant's events
// (and the platform's own), or one tenant's with tenant_id.
func (a *API) opListEvents(w http.ResponseWriter, r *http.Request) error {
	f, err := eventFilter(r)
	if err != nil {
		return err
	}
	if t := r.URL.Query().Get("tenant_id"); t != "" {
		if !id.Valid(id.Tenant, t) {
			return invalidRequest("invalid event filter",
				FieldError{Field: "tenant_id", Code: "invalid", Message: "must be a tenant id (ten_…)"})
		}
		f.TenantID = t
	}
	es, more, err := a.cfg.Events.ListAll(r.Context(), f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newListResponse(es, more, eventID))
	return nil
}

// opGetEvent answers GET /api/operator/events/{id}: any tenant's event.
func (a *API) opGetEvent(w http.ResponseWriter, r *http.Request) error {
	eventID, err := pathID(r, id.Event, "event")
	if err != nil {
		return err
	}
	e, err := a.cfg.Events.GetAny(r.Context(), eventID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, e)
	return nil
}
