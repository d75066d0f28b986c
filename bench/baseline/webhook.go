package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// decodeWebhookSecret turns "whsec_<base64>" into the HMAC key.
func decodeWebhookSecret(s string) ([]byte, error) {
	raw, ok := strings.CutPrefix(s, "whsec_")
	if !ok {
		return nil, errors.New("webhook secret must start with whsec_")
	}
	return base64.StdEncoding.DecodeString(raw)
}

// verifyWebhook checks a Standard Webhooks signature: HMAC-SHA256 of
// "id.timestamp.body", timestamp within 5 minutes.
func (s *server) verifyWebhook(r *http.Request, body []byte) bool {
	id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if id == "" || err != nil || len(s.webhookKey) == 0 {
		return false
	}
	if d := time.Since(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return false
	}
	m := hmac.New(sha256.New, s.webhookKey)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, sig := range strings.Fields(r.Header.Get("webhook-signature")) {
		v, b64, ok := strings.Cut(sig, ",")
		if !ok || v != "v1" {
			continue
		}
		if got, err := base64.StdEncoding.DecodeString(b64); err == nil && hmac.Equal(got, want) {
			return true
		}
	}
	return false
}

// paymentWebhook answers POST /api/webhooks/payment-provider as
// tenantkit's webhook service does, in one transaction: record the event
// in the inbox by its id (a redelivery stops there), lock the invoice it
// names, apply the payment and keep it in the invoice's ledger, notify the
// tenant, and write the outcome.
func (s *server) paymentWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, 256<<10))
	if err != nil {
		respondError(w, fail(http.StatusRequestEntityTooLarge, "payload_too_large", "body too large"))
		return
	}
	if !s.verifyWebhook(r, body) {
		respondError(w, fail(http.StatusUnauthorized, "unauthenticated", "bad webhook signature"))
		return
	}
	var ev struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Data struct {
			PaymentID string `json:"payment_id"`
			InvoiceID string `json:"invoice_id"`
			Amount    int64  `json:"amount"`
			Currency  string `json:"currency"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ev); err != nil || ev.ID == "" || ev.Type == "" {
		respondError(w, fail(http.StatusBadRequest, "invalid_request", "bad event"))
		return
	}
	ctx := r.Context()
	outcome, duplicate := "ignored", false
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		now := time.Now().UTC()
		tag, err := tx.Exec(ctx, `INSERT INTO bench_baseline_webhook_events (id, type, payload, outcome, received_at)
			VALUES ($1, $2, $3, 'pending', $4) ON CONFLICT DO NOTHING`, ev.ID, ev.Type, string(body), now)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			duplicate = true
			return tx.QueryRow(ctx, `SELECT outcome FROM bench_baseline_webhook_events WHERE id = $1`, ev.ID).Scan(&outcome)
		}
		var tenantID *string
		if ev.Type == "payment.succeeded" {
			outcome = "unmatched"
			var (
				tid, number, currency, status      string
				total, received, refunded, paidNow int64
			)
			err = tx.QueryRow(ctx, `SELECT tenant_id, number, currency, status, total, received, refunded FROM invoices
				WHERE id = $1 LIMIT 1 FOR UPDATE`, ev.Data.InvoiceID).Scan(&tid, &number, &currency, &status, &total, &received, &refunded)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
			case err != nil:
				return err
			case strings.EqualFold(currency, ev.Data.Currency) && (status == "open" || status == "paid") && ev.Data.Amount > 0:
				outcome, tenantID = "applied", &tid
				received += ev.Data.Amount
				paidNow = max(0, received-refunded)
				due := max(0, total-paidNow)
				var paidAt *time.Time
				if status == "open" && due == 0 {
					status, paidAt = "paid", &now
				}
				if _, err := tx.Exec(ctx, `UPDATE invoices SET received = $3, amount_paid = $4, amount_due = $5, status = $6,
					paid_at = COALESCE($7, paid_at) WHERE tenant_id = $1 AND id = $2`,
					tid, ev.Data.InvoiceID, received, paidNow, due, status, paidAt); err != nil {
					return err
				}
				// The invoice's ledger entry, as billing writes it.
				if _, err := tx.Exec(ctx, `INSERT INTO invoice_payments (tenant_id, id, invoice_id, kind, amount, currency, source,
					method, reference, event_id, received_at, created_at)
					VALUES ($1, $2, $3, 'payment', $4, $5, 'webhook', '', $6, $7, $8, $8)`,
					tid, newID("pay"), ev.Data.InvoiceID, ev.Data.Amount, currency, ev.Data.PaymentID, ev.ID, now); err != nil {
					return err
				}
				data, _ := json.Marshal(map[string]any{"event_id": ev.ID, "invoice_id": ev.Data.InvoiceID, "invoice_number": number,
					"payment_id": ev.Data.PaymentID, "amount": ev.Data.Amount, "currency": currency,
					"amount_paid": paidNow, "amount_due": due, "invoice_status": status})
				if _, err := tx.Exec(ctx, `INSERT INTO notifications (tenant_id, id, type, title, body, data, dedupe_key, created_at)
					VALUES ($1, $2, 'payment.succeeded', 'Payment received', $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
					tid, newID("ntf"), fmt.Sprintf("A payment of %d %s was received for invoice %s.", ev.Data.Amount, currency, number),
					string(data), "webhook:"+ev.ID, now); err != nil {
					return err
				}
			}
		}
		_, err = tx.Exec(ctx, `UPDATE bench_baseline_webhook_events SET outcome = $2, tenant_id = $3, invoice_id = $4,
			processed_at = $5 WHERE id = $1`, ev.ID, outcome, tenantID, ev.Data.InvoiceID, time.Now().UTC())
		return err
	})
	if err != nil {
		respondError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"received": true, "duplicate": duplicate, "outcome": outcome})
}
