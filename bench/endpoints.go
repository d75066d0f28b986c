package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// endpoint is one row of the comparison: a request both servers answer
// on the same path. Adding an endpoint to the bench is adding a row here
// (and, when the baseline does not serve its path yet, its handler in
// bench/baseline). A row whose tenantkit handler still answers 501 is
// skipped and reported as such.
type endpoint struct {
	Name   string
	Method string
	Path   string
	// MinRatio is the throughput target: tenantkit's requests/s at least
	// this times the baseline's.
	MinRatio float64
	// build fills t with one request (method, path and query, body,
	// headers); t.URL is relative to the server's base URL. It is called
	// concurrently.
	build func(fx *fixture, t *vegeta.Target)
}

// endpoints is the table the bench drives, in order.
var endpoints = []endpoint{
	{Name: "list invoices", Method: http.MethodGet, Path: "/api/v1/collections/invoices", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			tn := fx.randomTenant()
			bearer(t, tn.Key)
			t.URL += "?limit=20"
		}},
	{Name: "get invoice", Method: http.MethodGet, Path: "/api/v1/collections/invoices/{id}", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			inv := fx.randomOpenInvoice()
			bearer(t, inv.Key)
			t.URL = strings.Replace(t.URL, "{id}", inv.ID, 1)
		}},
	{Name: "create invoice", Method: http.MethodPost, Path: "/api/v1/collections/invoices", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			bearer(t, fx.randomTenant().Key)
			jsonBody(t, newInvoiceBody())
		}},
	{Name: "create ticket", Method: http.MethodPost, Path: "/api/tickets", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			bearer(t, fx.randomTenant().Key)
			jsonBody(t, map[string]any{
				"subject":     "Export to CSV fails for " + strconv.Itoa(rand.IntN(1000)) + " rows",
				"description": "Steps to reproduce:\n1. Open the invoices list\n2. Click Export\n\nNothing is downloaded.",
				"priority":    []string{"low", "normal", "high", "urgent"}[rand.IntN(4)],
				"tags":        []string{"billing", "Export Issue"},
			})
		}},
	{Name: "comment on ticket", Method: http.MethodPost, Path: "/api/tickets/{id}/comments", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			tk := fx.Tickets[fx.pick(len(fx.Tickets))]
			bearer(t, tk.Key)
			t.URL = strings.Replace(t.URL, "{id}", tk.ID, 1)
			jsonBody(t, map[string]any{"body": "Thanks — we can reproduce it and are on it (" + strconv.Itoa(rand.IntN(1000)) + ")."})
		}},
	{Name: "entitlements", Method: http.MethodGet, Path: "/api/tenant/entitlements/limit", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			bearer(t, fx.randomTenant().Key)
		}},
	{Name: "invoice preview", Method: http.MethodPost, Path: "/api/invoices/preview", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			bearer(t, fx.randomTenant().Key)
			jsonBody(t, map[string]any{})
		}},
	{Name: finalizeEndpoint, Method: http.MethodPost, Path: "/api/v1/collections/invoices/{id}/finalize", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			d := fx.nextDraft()
			bearer(t, d.Key)
			t.URL = strings.Replace(t.URL, "{id}", d.ID, 1)
		}},
	{Name: "record payment", Method: http.MethodPost, Path: "/api/v1/collections/invoices/{id}/payments", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			inv := fx.randomOpenInvoice()
			bearer(t, inv.Key)
			t.URL = strings.Replace(t.URL, "{id}", inv.ID, 1)
			jsonBody(t, map[string]any{"amount": 1, "method": "bank_transfer", "reference": "SEPA " + strconv.Itoa(rand.IntN(1e6))})
		}},
	{Name: "webhook ingest", Method: http.MethodPost, Path: "/api/webhooks/payment-provider", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			inv := fx.randomOpenInvoice()
			n := eventSeq.Add(1)
			evt := fmt.Sprintf("evt_bench_%s_%d", fx.RunID, n)
			body, _ := json.Marshal(map[string]any{
				"id": evt, "type": "payment.succeeded",
				"created_at": time.Now().UTC().Format(time.RFC3339),
				"data": map[string]any{"payment_id": fmt.Sprintf("pay_bench_%s_%d", fx.RunID, n), "invoice_id": inv.ID,
					"amount": 1, "currency": inv.Currency, "failure_reason": nil},
			})
			t.Body = body
			t.Header.Set("Content-Type", "application/json")
			signWebhook(t.Header, fx.WebhookSecret, evt, body)
		}},
	{Name: "events list", Method: http.MethodGet, Path: "/api/events", MinRatio: 0.90,
		build: func(fx *fixture, t *vegeta.Target) {
			bearer(t, fx.randomTenant().Key)
			t.URL += "?limit=20"
		}},
}

// deepPage and firstPage list the big tenant's invoices: page 1, and the
// page after DeepDepth invoices.
var (
	firstPage = endpoint{Name: "list page 1 (big tenant)", Method: http.MethodGet, Path: "/api/v1/collections/invoices",
		build: func(fx *fixture, t *vegeta.Target) {
			bearer(t, fx.BigKeys[rand.IntN(len(fx.BigKeys))])
			t.URL += "?limit=20"
		}}
	deepPage = endpoint{Name: "list deep page (big tenant)", Method: http.MethodGet, Path: "/api/v1/collections/invoices",
		build: func(fx *fixture, t *vegeta.Target) {
			bearer(t, fx.BigKeys[rand.IntN(len(fx.BigKeys))])
			t.URL += "?limit=20&cursor=" + fx.DeepCursor
		}}
)

// finalizeEndpoint names the row that consumes the pool of drafts.
const finalizeEndpoint = "finalize invoice"

// eventSeq numbers webhook events so that every delivery is new.
var eventSeq atomic.Int64

// targeter makes the vegeta Targeter of ep against base.
func targeter(fx *fixture, ep endpoint, base string) vegeta.Targeter {
	return func(t *vegeta.Target) error {
		*t = vegeta.Target{Method: ep.Method, URL: ep.Path, Header: http.Header{}}
		ep.build(fx, t)
		t.URL = base + t.URL
		return nil
	}
}

func (fx *fixture) randomTenant() benchTenant { return fx.Tenants[fx.pick(len(fx.Tenants))] }

func (fx *fixture) randomOpenInvoice() invoiceRef {
	return fx.OpenInvoices[fx.pick(len(fx.OpenInvoices))]
}

func bearer(t *vegeta.Target, key string) { t.Header.Set("Authorization", "Bearer "+key) }

func jsonBody(t *vegeta.Target, v any) {
	t.Body, _ = json.Marshal(v)
	t.Header.Set("Content-Type", "application/json")
}

// newInvoiceBody is a typical invoice: two or three lines with tax.
func newInvoiceBody() map[string]any {
	lines := []map[string]any{
		{"description": "Consulting hours", "quantity": 1 + rand.IntN(40), "unit_amount": 15000, "tax_rate_bps": 825},
		{"description": "Hosting (monthly)", "quantity": 1, "unit_amount": 4999, "tax_rate_bps": 825},
	}
	if rand.IntN(2) == 0 {
		lines = append(lines, map[string]any{"description": "Onboarding workshop", "quantity": 1, "unit_amount": 120000, "tax_rate_bps": 0})
	}
	c := rand.IntN(500)
	return map[string]any{
		"customer":   map[string]any{"name": fmt.Sprintf("Customer %d GmbH", c), "email": fmt.Sprintf("AP@customer%d.example", c)},
		"currency":   []string{"USD", "USD", "USD", "EUR", "GBP"}[rand.IntN(5)],
		"line_items": lines,
		"due_date":   time.Now().AddDate(0, 0, 30).Format("2006-01-02"),
		"memo":       "Thank you for your business.",
		"metadata":   map[string]string{"po": "PO-" + strconv.Itoa(rand.IntN(99999))},
	}
}

// signWebhook adds Standard Webhooks headers signed with secret (whsec_…).
func signWebhook(h http.Header, secret, msgID string, body []byte) {
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msgID + "." + ts + "."))
	m.Write(body)
	h.Set("webhook-id", msgID)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
}

// endpointNamed is the endpoint table's row of that name.
func endpointNamed(name string) (endpoint, bool) {
	for _, ep := range endpoints {
		if ep.Name == name {
			return ep, true
		}
	}
	return endpoint{}, false
}
