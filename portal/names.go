package portal

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/id"
)

// The events pages name who did what to which resource the way people
// know them: the actor's name and email, the invoice's number, the
// ticket's number and subject. A namer looks each one up once per page.

// namer names the actors and resources of one tenant's events.
type namer struct {
	h        *Handler
	ctx      context.Context
	tenantID string
	users    map[string]string
	invoices map[string]string
	tickets  map[string]string
}

func (h *Handler) namer(ctx context.Context, tenantID string) *namer {
	return &namer{h: h, ctx: ctx, tenantID: tenantID, users: map[string]string{}, invoices: map[string]string{},
		tickets: map[string]string{}}
}

// user is "Name <email>" of a user, or "" when there is no such user.
func (n *namer) user(userID string) string {
	if s, ok := n.users[userID]; ok {
		return s
	}
	s := ""
	if id.Valid(id.User, userID) {
		if u, err := n.h.cfg.Directory.User(n.ctx, userID); err == nil {
			s = u.Email
			if u.Name != "" {
				s = u.Name + " <" + u.Email + ">"
			}
		}
	}
	n.users[userID] = s
	return s
}

// actor names who made the change of e.
func (n *namer) actor(a event.Actor) string {
	switch a.Type {
	case event.ActorUser:
		if s := n.user(a.ID); s != "" {
			return s
		}
		return "A former member"
	case event.ActorCLI:
		if s := n.user(a.ID); s != "" {
			return s + " (command line)"
		}
		return "The platform's command line"
	case event.ActorOperator:
		return "The platform's operator"
	case event.ActorSystem:
		return "tenantkit (automatic)"
	}
	return a.Type
}

// resourceData is what the names of resources come from in an event's
// data: the resource as the API showed it after the change.
type resourceData struct {
	Number  json.RawMessage `json:"number"`
	Subject string          `json:"subject"`
	Name    string          `json:"name"`
	URL     string          `json:"url"`
	Email   string          `json:"email"`
}

// number is the data's number as text: "INV-000042" or "42".
func (d resourceData) number() string {
	var s string
	if json.Unmarshal(d.Number, &s) == nil {
		return s
	}
	var n int64
	if json.Unmarshal(d.Number, &n) == nil && n > 0 {
		return strconv.FormatInt(n, 10)
	}
	return ""
}

// resource names e's resource: its kind and how people know it.
func (n *namer) resource(e event.Event) string {
	var d resourceData
	_ = json.Unmarshal(e.Data, &d) // an event without such fields is named by its kind
	res := e.Resource
	switch res.Type {
	case "invoice":
		num := d.number()
		if num == "" {
			num = n.invoiceNumber(res.ID)
		}
		if num == "" {
			return "Draft invoice"
		}
		return "Invoice " + num
	case "ticket":
		if num := d.number(); num != "" && d.Subject != "" {
			return "Ticket #" + num + " " + d.Subject
		}
		// The data of a comment or a rating is not the ticket's.
		if s := n.ticket(res.ID); s != "" {
			return s
		}
		return "Ticket"
	case "customer":
		return "Customer " + first(d.Name, d.Email)
	case "webhook_endpoint":
		return "Webhook endpoint " + d.URL
	case "platform_invoice":
		if num := d.number(); num != "" {
			return "Platform invoice " + num
		}
	case "module":
		if m, ok := n.h.cfg.Catalog.Module(res.ID); ok {
			return "Module " + m.Name
		}
	case "member", "user", "session", "login_link":
		if s := n.user(res.ID); s != "" {
			return kind(res.Type) + " " + s
		}
	case "entitlement":
		return "Limit of " + strings.ReplaceAll(strings.ReplaceAll(res.ID, ".", " · "), "_", " ")
	}
	return kind(res.Type)
}

// invoiceNumber is the current number of the tenant's invoice, "" for a
// draft or an invoice that is gone.
func (n *namer) invoiceNumber(invoiceID string) string {
	if s, ok := n.invoices[invoiceID]; ok {
		return s
	}
	s := ""
	if id.Valid(id.Invoice, invoiceID) {
		if inv, err := n.h.cfg.Invoices.Get(n.ctx, n.tenantID, invoiceID); err == nil {
			s = inv.Number
		}
	}
	n.invoices[invoiceID] = s
	return s
}

// ticket is "Ticket #42 Subject" of the tenant's ticket, "" for a
// ticket that is gone.
func (n *namer) ticket(ticketID string) string {
	if s, ok := n.tickets[ticketID]; ok {
		return s
	}
	s := ""
	if id.Valid(id.Ticket, ticketID) {
		if t, err := n.h.cfg.Tickets.Get(n.ctx, n.tenantID, ticketID); err == nil {
			s = "Ticket #" + strconv.FormatInt(t.Number, 10) + " " + t.Subject
		}
	}
	n.tickets[ticketID] = s
	return s
}

// kind is a resource type as a word: "contract_request" → "Contract request".
func kind(typ string) string {
	s := strings.ReplaceAll(typ, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
