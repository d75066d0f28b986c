package portal

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

func TestEventTypeGroupsListEveryTypeOnce(t *testing.T) {
	var got []string
	for _, g := range eventTypeGroups() {
		for _, typ := range g.Types {
			if !strings.HasPrefix(typ, g.Name+".") {
				t.Errorf("type %s in group %s", typ, g.Name)
			}
			got = append(got, typ)
		}
	}
	if !slices.Equal(got, tenantTypes()) {
		t.Fatalf("groups list %v, want tenantTypes() %v", got, tenantTypes())
	}
	for _, typ := range got {
		if !forTenants(typ) {
			t.Errorf("the picker offers %s, the platform's own", typ)
		}
	}
}

// TestPlatformOnlyTypes: the operator's and the platform's own event
// types are kept from tenants, the tenant's resources' are not.
func TestPlatformOnlyTypes(t *testing.T) {
	for typ, want := range map[string]bool{
		event.OperatorKeyCreated: false, event.OperatorKeyRevoked: false, event.PaymentEventApplied: false,
		event.LoginLinkCreated: false, event.UserCreated: false, event.TenantCreated: false,
		event.InvoicePaid: true, event.TicketCreated: true, event.PlatformInvoiceCreated: true, event.TenantPlanChanged: true,
	} {
		if got := forTenants(typ); got != want {
			t.Errorf("forTenants(%s) = %v, want %v", typ, got, want)
		}
	}
	f := endpointForm{Types: map[string]bool{event.InvoicePaid: true, event.OperatorKeyCreated: true}}
	err := f.check()
	if err == nil || !strings.Contains(err.Error(), "operator_key.created") {
		t.Fatalf("check of a form with operator_key.created: %v, want it refused by name", err)
	}
	if err := (endpointForm{Types: map[string]bool{event.InvoicePaid: true}}).check(); err != nil {
		t.Fatalf("check of invoice.paid: %v", err)
	}
}

func TestEndpointFormTypes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		checked []string
		want    []string
	}{
		{"None", nil, []string{}},
		{"InTypesOrder", []string{"ticket.created", "invoice.created"}, []string{"invoice.created", "ticket.created"}},
		{"UnknownKeptForTheService", []string{"no.such", "invoice.paid"}, []string{"invoice.paid", "no.such"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := endpointForm{Types: map[string]bool{}}
			for _, c := range tc.checked {
				f.Types[c] = true
			}
			if got := f.types(); !slices.Equal(got, tc.want) {
				t.Fatalf("types() = %v, want %v", got, tc.want)
			}
		})
	}
}

// renderPage executes page name with data as the handler would, for a
// member who may manage webhooks.
func renderPage(t *testing.T, name string, data any, errs map[string]string) string {
	t.Helper()
	return renderPageAs(t, name, data, errs, map[string]bool{"webhooks:manage": true})
}

// renderPageAs is renderPage for a member holding the permissions can.
func renderPageAs(t *testing.T, name string, data any, errs map[string]string, can map[string]bool) string {
	t.Helper()
	vs, err := newViews("/portal")
	if err != nil {
		t.Fatal(err)
	}
	if errs == nil {
		errs = map[string]string{}
	}
	var buf bytes.Buffer
	v := view{Title: "T", Nav: navOf(name), CSRF: "tok", Data: data, Errors: errs, Can: can}
	page, err := vs.page(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := page.ExecuteTemplate(&buf, "layout", v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestWebhookTemplates(t *testing.T) {
	now := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	ep := outbound.Endpoint{ID: "wep_1", URL: "https://hooks.example.com/in", EventTypes: []string{"invoice.paid"},
		Enabled: false, DisabledReason: outbound.DisabledFailing, FailingSince: &now, CreatedAt: now}

	t.Run("SecretPage", func(t *testing.T) {
		body := renderPage(t, "webhook_secret", secretPage{Endpoint: ep, Secret: "whsec_abc"}, nil)
		for _, want := range []string{`<code id="secret" class="secret">whsec_abc</code>`,
			"Copy it now: it will not be shown again.", `href="/portal/webhooks/wep_1"`} {
			if !strings.Contains(body, want) {
				t.Errorf("secret page lacks %q:\n%s", want, body)
			}
		}
	})

	t.Run("DetailWithDeliveries", func(t *testing.T) {
		failed := outbound.Delivery{ID: "whd_failed", EventType: "invoice.paid", Status: outbound.DeliveryFailed, CreatedAt: now,
			Attempts: []outbound.Attempt{
				{Number: 1, Status: "failed", HTTPStatus: 0, LatencyMS: 10000, Response: "timeout", AttemptedAt: now},
				{Number: 2, Status: "failed", HTTPStatus: 503, LatencyMS: 42, Response: "<b>down</b>", AttemptedAt: now}}}
		pending := outbound.Delivery{ID: "whd_pending", EventType: "invoice.paid", Status: outbound.DeliveryPending,
			Attempts: []outbound.Attempt{}, NextAttemptAt: &now, CreatedAt: now}
		succeeded := outbound.Delivery{ID: "whd_succeeded", EventType: "invoice.paid", Status: outbound.DeliverySucceeded, CreatedAt: now,
			Attempts: []outbound.Attempt{{Number: 1, Status: "succeeded", HTTPStatus: 200, AttemptedAt: now}}}
		p := webhookPage{Endpoint: ep, Form: formFor(ep), Groups: eventTypeGroups(), Collapse: true,
			Deliveries: []outbound.Delivery{succeeded, pending, failed}, Next: "whd_failed"}
		body := renderPage(t, "webhook", p, nil)
		for _, want := range []string{
			"(deliveries failed for too long)", "<dt>Failing since</dt><dd>3/4/2025 05:06 UTC</dd>",
			`id="retry-whd_failed"`, `id="retry-whd_pending"`, `data-label="Last HTTP code">503</td>`, `data-label="Latency">42 ms</td>`,
			`<summary>#1 failed</summary>`, `<summary>#2 failed · HTTP 503</summary>`, `<pre class="response">&lt;b&gt;down&lt;/b&gt;</pre>`,
			`href="/portal/webhooks/wep_1?before=whd_failed#deliveries-h" rel="next">Older<`,
			`value="invoice.paid" checked`, "<summary>Choose event types (1 chosen)</summary>", `<details >`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("detail lacks %q", want)
			}
		}
		if strings.Contains(body, `id="retry-whd_succeeded"`) {
			t.Error("a succeeded delivery has a retry button")
		}
		if strings.Contains(body, `id="enabled" name="enabled" value="true" checked`) {
			t.Error("a disabled endpoint's form is checked enabled")
		}
	})

	t.Run("TypeErrorsOpenTheChoice", func(t *testing.T) {
		p := webhookPage{Endpoint: ep, Form: formFor(ep), Groups: eventTypeGroups(), Collapse: true}
		body := renderPage(t, "webhook", p, map[string]string{"event_types[0]": "unknown event type \"x\"", "event_types[3]": "unknown event type \"y\""})
		for _, want := range []string{`<details open>`, `id="err-event_types">Event types: unknown event type &#34;x&#34;; unknown event type &#34;y&#34;</p>`,
			`aria-describedby="types-hint err-event_types" aria-invalid="true"`} {
			if !strings.Contains(body, want) {
				t.Errorf("refused types lack %q", want)
			}
		}
	})
}
