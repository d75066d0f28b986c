package portal

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// notConfiguredText is what the pages say, as the API does, when the
// server has no secret key for the endpoints' secrets.
const notConfiguredText = "Outbound webhooks are not configured on this server (no secret key). Ask the operator to set one."

// webhookProblem turns outbound.ErrNotConfigured into the 501 the API
// answers; other errors pass as they are.
func webhookProblem(err error) error {
	if errors.Is(err, outbound.ErrNotConfigured) {
		return httpapi.NewProblem(http.StatusNotImplemented, httpapi.CodeNotImplemented, notConfiguredText)
	}
	return err
}

// typeGroup is the event types of one resource, one fieldset of the form.
type typeGroup struct {
	Name  string
	Types []string
}

// platformOnly are the event types of the platform's own business (its
// operators' keys, the payment provider's inbox, sign-in links, users and
// tenants as the operator creates them): a tenant's endpoint is never
// sent them, so the form does not offer them and refuses them. Prefixes
// end in ".".
var platformOnly = []string{"operator_key.", "payment_event.", "login_link.", event.UserCreated, event.TenantCreated}

// forTenants reports whether a tenant's endpoint may subscribe to typ.
func forTenants(typ string) bool {
	for _, p := range platformOnly {
		if typ == p || strings.HasSuffix(p, ".") && strings.HasPrefix(typ, p) {
			return false
		}
	}
	return true
}

// tenantTypes is event.Types() without the platform's own.
func tenantTypes() []string {
	var out []string
	for _, t := range event.Types() {
		if forTenants(t) {
			out = append(out, t)
		}
	}
	return out
}

// eventTypeGroups groups the types a tenant's endpoint may receive
// (tenantTypes) by resource ("invoice", "ticket", …), in the order
// Types gives.
func eventTypeGroups() []typeGroup {
	var out []typeGroup
	for _, t := range tenantTypes() {
		name, _, _ := strings.Cut(t, ".")
		if n := len(out); n > 0 && out[n-1].Name == name {
			out[n-1].Types = append(out[n-1].Types, t)
			continue
		}
		out = append(out, typeGroup{Name: name, Types: []string{t}})
	}
	return out
}

// endpointForm is the create and edit form, as typed.
type endpointForm struct {
	URL, Description string
	// Types are the checked event types; none means every type.
	Types   map[string]bool
	Enabled bool
}

// formOf reads the form the request posted.
func formOf(r *http.Request) endpointForm {
	p := r.PostForm
	f := endpointForm{URL: strings.TrimSpace(p.Get("url")), Description: p.Get("description"),
		Types: map[string]bool{}, Enabled: p.Get("enabled") == "true"}
	for _, t := range p["event_types"] {
		f.Types[t] = true
	}
	return f
}

// formFor is the edit form of e as it is.
func formFor(e outbound.Endpoint) endpointForm {
	f := endpointForm{URL: e.URL, Description: e.Description, Types: map[string]bool{}, Enabled: e.Enabled}
	for _, t := range e.EventTypes {
		f.Types[t] = true
	}
	return f
}

// check refuses the platform's own event types (platformOnly), which
// the form does not offer, at the path of the service's refusals.
func (f endpointForm) check() error {
	errs := field.Errors{}
	for i, t := range f.types() {
		if event.IsType(t) && !forTenants(t) {
			errs.Add("event_types["+strconv.Itoa(i)+"]", field.Invalid, t+" is the platform's own and is never sent to a tenant")
		}
	}
	return errs.Err()
}

// types lists the checked types in the order of event.Types (which also
// keeps any the form carried that are not known, for the service to
// refuse by name).
func (f endpointForm) types() []string {
	out := []string{}
	for _, t := range event.Types() {
		if f.Types[t] {
			out = append(out, t)
		}
	}
	for t := range f.Types {
		if !event.IsType(t) {
			out = append(out, t)
		}
	}
	return out
}

type webhookList struct {
	Endpoints  []outbound.Endpoint
	Next       string
	Configured bool
}

func (h *Handler) listWebhooks(w http.ResponseWriter, r *http.Request, rq *request) error {
	before := r.URL.Query().Get("before")
	if before != "" && !id.Valid(id.WebhookEndpoint, before) {
		return httpapi.NewProblem(http.StatusBadRequest, httpapi.CodeInvalidRequest, "That page is not valid.")
	}
	es, more, err := h.cfg.Webhooks.Endpoints(r.Context(), rq.membership.TenantID, 20, before)
	if err != nil {
		return err
	}
	d := webhookList{Endpoints: es, Configured: h.cfg.Webhooks.Configured()}
	if more && len(es) > 0 {
		d.Next = es[len(es)-1].ID
	}
	var notice error
	if !d.Configured {
		notice = webhookProblem(outbound.ErrNotConfigured)
	}
	return h.renderForm(w, r, rq, http.StatusOK, "webhooks", "Webhooks", d, notice)
}

// webhookFormData is the create page.
type webhookFormData struct {
	Form       endpointForm
	Groups     []typeGroup
	Configured bool
	// Collapse folds the event types away (never on this page).
	Collapse bool
}

func (h *Handler) newWebhook(w http.ResponseWriter, r *http.Request, rq *request) error {
	d := webhookFormData{Form: endpointForm{Types: map[string]bool{}}, Groups: eventTypeGroups(),
		Configured: h.cfg.Webhooks.Configured()}
	var ferr error
	if !d.Configured {
		ferr = webhookProblem(outbound.ErrNotConfigured)
	}
	return h.renderForm(w, r, rq, http.StatusOK, "webhook_new", "New webhook endpoint", d, ferr)
}

// secretPage shows an endpoint's secret, once: in the answer to the POST
// that created or rotated it, never behind a redirect or a GET.
type secretPage struct {
	Endpoint outbound.Endpoint
	Secret   string
	Rotated  bool
}

func (h *Handler) createWebhook(w http.ResponseWriter, r *http.Request, rq *request) error {
	f := formOf(r)
	var (
		e      outbound.Endpoint
		secret string
	)
	err := f.check()
	if err == nil {
		e, secret, err = h.cfg.Webhooks.CreateEndpoint(r.Context(), rq.membership.TenantID, outbound.CreateEndpointInput{
			URL: f.URL, Description: f.Description, EventTypes: f.types()})
	}
	if err == nil {
		return h.render(w, r, rq, http.StatusCreated, "webhook_secret", "Endpoint created", secretPage{Endpoint: e, Secret: secret})
	}
	err = webhookProblem(err)
	if statusOf(err) >= 500 && statusOf(err) != http.StatusNotImplemented {
		return err
	}
	d := webhookFormData{Form: f, Groups: eventTypeGroups(), Configured: h.cfg.Webhooks.Configured()}
	return h.renderForm(w, r, rq, statusOf(err), "webhook_new", "New webhook endpoint", d, err)
}

// webhookPage is an endpoint with its edit form, actions and a page of
// its deliveries.
type webhookPage struct {
	Endpoint   outbound.Endpoint
	Form       endpointForm
	Groups     []typeGroup
	Deliveries []outbound.Delivery
	// Next is the cursor of the older deliveries, if any; Before the
	// cursor of this page.
	Next, Before string
	// Collapse folds the event types of the edit form away, unless one
	// is refused.
	Collapse bool
}

// endpoint reads the tenant's endpoint named in the path: ErrNotFound
// for a malformed id or another tenant's endpoint.
func (h *Handler) endpoint(r *http.Request, rq *request) (outbound.Endpoint, error) {
	return h.cfg.Webhooks.Endpoint(r.Context(), rq.membership.TenantID, r.PathValue("id"))
}

// webhookPageOf gathers e's page, its deliveries from before.
func (h *Handler) webhookPageOf(r *http.Request, rq *request, e outbound.Endpoint, before string) (webhookPage, error) {
	p := webhookPage{Endpoint: e, Form: formFor(e), Groups: eventTypeGroups(), Before: before, Collapse: true}
	ds, more, err := h.cfg.Webhooks.Deliveries(r.Context(), rq.membership.TenantID, e.ID, 20, before)
	if err != nil {
		return p, err
	}
	p.Deliveries = ds
	if more && len(ds) > 0 {
		p.Next = ds[len(ds)-1].ID
	}
	return p, nil
}

func (h *Handler) showWebhook(w http.ResponseWriter, r *http.Request, rq *request) error {
	e, err := h.endpoint(r, rq)
	if err != nil {
		return err
	}
	before := r.URL.Query().Get("before")
	if before != "" && !id.Valid(id.WebhookDelivery, before) {
		return httpapi.NewProblem(http.StatusBadRequest, httpapi.CodeInvalidRequest, "That page is not valid.")
	}
	p, err := h.webhookPageOf(r, rq, e, before)
	if err != nil {
		return err
	}
	return h.render(w, r, rq, http.StatusOK, "webhook", "Webhook endpoint", p)
}

// webhookAction runs one change of the endpoint named in the path and
// redirects to its page with the flash done; a refusal is shown on that
// page (refused).
func (h *Handler) webhookAction(w http.ResponseWriter, r *http.Request, rq *request, done string,
	act func(e outbound.Endpoint) error, refill func(p *webhookPage)) error {
	e, err := h.endpoint(r, rq)
	if err != nil {
		return err
	}
	if err = act(e); err != nil {
		return h.refused(w, r, rq, e, err, refill)
	}
	http.Redirect(w, r, h.cfg.BasePath+"/webhooks/"+e.ID+"?done="+done, http.StatusSeeOther)
	return nil
}

// refused shows e's page with the refusal err: beside its field, or as
// the page's message, the form refilled by refill. A 5xx (but the 501 of
// a server without a secret key), a 404 or a 403 is an error page.
func (h *Handler) refused(w http.ResponseWriter, r *http.Request, rq *request, e outbound.Endpoint, err error,
	refill func(p *webhookPage)) error {
	err = webhookProblem(err)
	status := statusOf(err)
	if (status >= 500 && status != http.StatusNotImplemented) || status == http.StatusNotFound || status == http.StatusForbidden {
		return err
	}
	// Show the endpoint as it is now: a conflict may come from a change
	// made meanwhile.
	now, gerr := h.cfg.Webhooks.Endpoint(r.Context(), rq.membership.TenantID, e.ID)
	if gerr != nil {
		return gerr
	}
	p, perr := h.webhookPageOf(r, rq, now, "")
	if perr != nil {
		return perr
	}
	refill(&p)
	return h.renderForm(w, r, rq, status, "webhook", "Webhook endpoint", p, err)
}

func (h *Handler) updateWebhook(w http.ResponseWriter, r *http.Request, rq *request) error {
	f := formOf(r)
	return h.webhookAction(w, r, rq, "updated", func(e outbound.Endpoint) error {
		if err := f.check(); err != nil {
			return err
		}
		types := f.types()
		_, err := h.cfg.Webhooks.UpdateEndpoint(r.Context(), rq.membership.TenantID, e.ID, outbound.UpdateEndpointInput{
			URL: &f.URL, Description: &f.Description, EventTypes: &types, Enabled: &f.Enabled})
		return err
	}, func(p *webhookPage) { p.Form = f })
}

func (h *Handler) testWebhook(w http.ResponseWriter, r *http.Request, rq *request) error {
	return h.webhookAction(w, r, rq, "tested", func(e outbound.Endpoint) error {
		_, err := h.cfg.Webhooks.SendTest(r.Context(), rq.membership.TenantID, e.ID)
		return err
	}, func(*webhookPage) {})
}

func (h *Handler) retryDelivery(w http.ResponseWriter, r *http.Request, rq *request) error {
	did := r.PathValue("delivery_id")
	return h.webhookAction(w, r, rq, "retried", func(e outbound.Endpoint) error {
		_, err := h.cfg.Webhooks.Retry(r.Context(), rq.membership.TenantID, e.ID, did)
		return err
	}, func(*webhookPage) {})
}

// rotateWebhook gives the endpoint a new secret and shows it in this
// answer, once.
func (h *Handler) rotateWebhook(w http.ResponseWriter, r *http.Request, rq *request) error {
	e, err := h.endpoint(r, rq)
	if err != nil {
		return err
	}
	rotated, secret, err := h.cfg.Webhooks.RotateSecret(r.Context(), rq.membership.TenantID, e.ID)
	if err != nil {
		return h.refused(w, r, rq, e, err, func(*webhookPage) {})
	}
	return h.render(w, r, rq, http.StatusOK, "webhook_secret", "New signing secret",
		secretPage{Endpoint: rotated, Secret: secret, Rotated: true})
}

func (h *Handler) confirmDeleteWebhook(w http.ResponseWriter, r *http.Request, rq *request) error {
	e, err := h.endpoint(r, rq)
	if err != nil {
		return err
	}
	return h.render(w, r, rq, http.StatusOK, "webhook_delete", "Delete webhook endpoint", e)
}

func (h *Handler) deleteWebhook(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := h.cfg.Webhooks.DeleteEndpoint(r.Context(), rq.membership.TenantID, r.PathValue("id")); err != nil {
		return err
	}
	http.Redirect(w, r, h.cfg.BasePath+"/webhooks?done=deleted", http.StatusSeeOther)
	return nil
}
