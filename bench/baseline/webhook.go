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

// sqlWebhookEvent is the webhook inbox's insert (webhook/bunstore).
const sqlWebhookEvent = `INSERT INTO webhook_events AS "event_row" (id, type, payload, outcome, reason, tenant_id, invoice_id, received_at, processed_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`

// errDuplicate rolls back a redelivered event's transaction.
var errDuplicate = errors.New("duplicate event")

// paymentWebhook answers POST /api/webhooks/payment-provider as
// tenantkit's webhook service does, in one transaction: lock the invoice
// the event names, apply the payment and keep it in the invoice's ledger,
// record the event in the event log, notify the tenant, and record the
// delivery with its outcome in the inbox.
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
	a := actorOf(r, nil)
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		now := time.Now().UTC().Truncate(time.Microsecond)
		var tenantID *string
		if ev.Type == "payment.succeeded" {
			outcome = "unmatched"
			inv, err := scanInvoice(tx.QueryRow(ctx, sqlLockInvoiceByID, ev.Data.InvoiceID))
			switch {
			case errors.Is(err, pgx.ErrNoRows):
			case err != nil:
				return err
			case strings.EqualFold(inv.Currency, ev.Data.Currency) && (inv.Status == "open" || inv.Status == "paid") && ev.Data.Amount > 0:
				tid := inv.invoiceTenant
				outcome, tenantID = "applied", &tid
				inv.received += ev.Data.Amount
				inv.settle(now)
				if _, err := tx.Exec(ctx, sqlSettleInvoice, tid, inv.Status, inv.AmountPaid, inv.AmountDue,
					inv.received, inv.refunded, inv.FinalizedAt, inv.PaidAt, inv.overdue, inv.uncollectible, inv.ID); err != nil {
					return err
				}
				// The invoice's ledger entry, as billing writes it, before the
				// event's insert.
				insert := queued{sqlInsertPayment, []any{tid, newID("pay"), inv.ID, "payment", ev.Data.Amount, inv.Currency,
					"webhook", "", ev.Data.PaymentID, ev.ID, now, now}}
				data := map[string]any{"event_id": ev.ID, "invoice_id": inv.ID, "invoice_number": inv.Number,
					"payment_id": ev.Data.PaymentID, "amount": ev.Data.Amount, "currency": inv.Currency,
					"amount_paid": inv.AmountPaid, "amount_due": inv.AmountDue, "invoice_status": inv.Status}
				if err := s.recordEventAfter(ctx, tx, []queued{insert}, a, tid, "payment_event.applied", "payment_event", ev.ID, data); err != nil {
					return err
				}
				raw, _ := json.Marshal(data)
				if _, err := tx.Exec(ctx, sqlNotification, tid, newID("ntf"), "payment.succeeded", "Payment received",
					fmt.Sprintf("A payment of %d %s was received for invoice %s.", ev.Data.Amount, inv.Currency, inv.Number),
					string(raw), "webhook:"+ev.ID, now, nil); err != nil {
					return err
				}
			}
		}
		// The inbox records the event once, after its effect; a
		// redelivery inserts nothing and rolls the effect back.
		tag, err := tx.Exec(ctx, sqlWebhookEvent, ev.ID, ev.Type, string(body), outcome, "", tenantID, ev.Data.InvoiceID, now, now)
		if err == nil && tag.RowsAffected() == 0 {
			duplicate = true
			return errDuplicate
		}
		return err
	})
	if errors.Is(err, errDuplicate) {
		err = nil
	}
	if err != nil {
		respondError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"received": true, "duplicate": duplicate, "outcome": outcome})
}
