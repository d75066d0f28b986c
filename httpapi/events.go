package httpapi

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The events group (/api/events): the active tenant's audit trail. The
// operator API lists every tenant's with the same filters (EventFilter).

var _ EventLog = (*event.Log)(nil)

// EventLog serves the audit trail at GET /api/events; *event.Log
// implements it.
type EventLog interface {
	// List returns a page of the tenant's events, newest first.
	List(ctx context.Context, tenantID string, f event.Filter) ([]event.Event, bool, error)
	// Get returns the tenant's event; event.ErrNotFound for another's.
	Get(ctx context.Context, tenantID, eventID string) (event.Event, error)
}

// eventEndpoints are the events group's rows of the route table.
func (a *API) eventEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/api/events", Group: GroupEvents, Tenant: true, Permission: tenancy.PermEventsRead,
			Query: EventListQuery(), Handle: With(a.cfg.Services.Events, a.listEvents)},
		{Method: "GET", Path: "/api/events/{id}", Group: GroupEvents, Tenant: true, Permission: tenancy.PermEventsRead,
			Handle: With(a.cfg.Services.Events, a.getEvent)},
	}
}

// EventListQuery is the query of an event list endpoint, for
// Endpoint.Query: the pagination parameters, the endpoint's own filters
// (the operator's tenant_id) and the event filters EventFilter reads.
func EventListQuery(filters ...string) []string {
	return ListQuery(slices.Concat(filters, []string{"type", "resource_id", "created_after", "created_before"})...)
}

// maxEventFilterLen bounds the type and resource_id filters: no event type
// or resource id is longer.
const maxEventFilterLen = 64

// EventFilter reads the list parameters and filters of an event list
// (EventListQuery): a 400 invalid_request *Problem naming each bad one.
func EventFilter(r *http.Request) (event.Filter, error) {
	limit, before, err := ParseListParams(r)
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
		return event.Filter{}, InvalidRequest("invalid event filter", errs...)
	}
	return f, nil
}

// eventID is an event's id, from which an event list's cursor is made.
func eventID(e event.Event) string { return e.ID }

// listEvents answers GET /api/events: the active tenant's events, newest
// first, filtered by type, resource_id and creation time.
func (a *API) listEvents(w http.ResponseWriter, r *http.Request) error {
	f, err := EventFilter(r)
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	es, more, err := a.cfg.Services.Events.List(r.Context(), m.TenantID, f)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, NewListResponse(es, more, eventID))
	return nil
}

// getEvent answers GET /api/events/{id}: one of the active tenant's
// events; another tenant's is 404.
func (a *API) getEvent(w http.ResponseWriter, r *http.Request) error {
	eventID, err := PathID(r, id.Event, "event")
	if err != nil {
		return err
	}
	m, _ := MembershipFrom(r.Context())
	e, err := a.cfg.Services.Events.Get(r.Context(), m.TenantID, eventID)
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, e)
	return nil
}
