package portal

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
)

// maxEventTypeLen bounds the type filter as typed.
const maxEventTypeLen = 100

type eventList struct {
	Events []eventRow
	Type   string
	// Next is the cursor of the older page, if any.
	Next string
}

// eventRow is one event as the list shows it: Link is the portal page of
// its resource, when the portal has one; Actor and Resource name them as
// people know them (namer).
type eventRow struct {
	event.Event
	Link                    string
	ActorName, ResourceName string
}

// rowOf is e as the pages show it.
func (h *Handler) rowOf(n *namer, e event.Event) eventRow {
	return eventRow{Event: e, Link: h.resourceLink(e.Resource), ActorName: n.actor(e.Actor), ResourceName: n.resource(e)}
}

func (h *Handler) listEvents(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := r.URL.Query()
	f := event.Filter{Type: strings.TrimSpace(q.Get("type")), Before: q.Get("before"), Limit: 20}
	if len(f.Type) > maxEventTypeLen || (f.Before != "" && !id.Valid(id.Event, f.Before)) {
		return httpapi.NewProblem(http.StatusBadRequest, httpapi.CodeInvalidRequest, "That filter is not valid.")
	}
	es, more, err := h.cfg.Events.List(r.Context(), rq.membership.TenantID, f)
	if err != nil {
		return err
	}
	d := eventList{Type: f.Type}
	n := h.namer(r.Context(), rq.membership.TenantID)
	for _, e := range es {
		d.Events = append(d.Events, h.rowOf(n, e))
	}
	if more && len(es) > 0 {
		d.Next = es[len(es)-1].ID
	}
	return h.render(w, r, rq, http.StatusOK, "events", "Events", d)
}

// resourceLink is the portal page of res, or "" when there is none.
func (h *Handler) resourceLink(res event.Resource) string {
	switch {
	case res.Type == "invoice" && id.Valid(id.Invoice, res.ID):
		return h.cfg.BasePath + "/invoices/" + res.ID
	case res.Type == "ticket" && id.Valid(id.Ticket, res.ID):
		return h.cfg.BasePath + "/tickets/" + res.ID
	case res.Type == "webhook_endpoint" && id.Valid(id.WebhookEndpoint, res.ID):
		return h.cfg.BasePath + "/webhooks/" + res.ID
	case res.Type == "customer" && id.Valid(id.Customer, res.ID):
		return h.cfg.BasePath + "/customers/" + res.ID
	}
	return ""
}

type eventPage struct {
	eventRow
	// JSON is the event's data, indented.
	JSON string
}

func (h *Handler) showEvent(w http.ResponseWriter, r *http.Request, rq *request) error {
	e, err := h.cfg.Events.Get(r.Context(), rq.membership.TenantID, r.PathValue("id"))
	if err != nil {
		return err
	}
	p := eventPage{eventRow: h.rowOf(h.namer(r.Context(), rq.membership.TenantID), e)}
	var buf bytes.Buffer
	if json.Indent(&buf, e.Data, "", "  ") == nil {
		p.JSON = buf.String()
	} else {
		p.JSON = string(e.Data)
	}
	return h.render(w, r, rq, http.StatusOK, "event", "Event "+e.Type, p)
}
