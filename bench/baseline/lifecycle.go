package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/tenantkit/tenantkit/catalog"
)

// storedInvoice is an invoice row as read for a change: the invoice, and
// what the row holds beside its JSON shape.
type storedInvoice struct {
	invoice
	number             *string
	dueDate            *string
	lines, meta        string
	received, refunded int64
	overdue            bool
	uncollectible      string
	invoiceTenant      string
}

// Billing's statements of an invoice's change.
const (
	sqlGetInvoice      = `SELECT ` + invoiceColumns + ` FROM "invoices" AS "invoice_row" WHERE (tenant_id = $1) AND (id = $2)`
	sqlLockInvoice     = sqlGetInvoice + ` FOR UPDATE`
	sqlLockInvoiceByID = `SELECT ` + invoiceColumns + ` FROM "invoices" AS "invoice_row" WHERE (id = $1) LIMIT 1 FOR UPDATE`
	sqlNextNumber      = `INSERT INTO "invoice_sequences" (tenant_id, last_number) VALUES ($1, 1) ON CONFLICT (tenant_id) DO UPDATE SET last_number = "invoice_sequences".last_number + 1 RETURNING last_number`
	sqlFinalizeInvoice = `UPDATE "invoices" AS "invoice_row" SET number = $2, status = $3, customer_name = $4, customer_email = $5, customer_address = NULL, customer_tax_id = '', customer_locale = 'en', line_items = $6, subtotal = $7, tax = $8, total = $9, amount_paid = $10, amount_due = $11, received = $12, refunded = $13, due_date = $14, memo = $15, metadata = $16, finalized_at = $17, paid_at = $18 WHERE (tenant_id = $1) AND (id = $19)`
	sqlSettleInvoice   = `UPDATE "invoices" AS "invoice_row" SET status = $2, amount_paid = $3, amount_due = $4, received = $5, refunded = $6, finalized_at = $7, paid_at = $8, overdue = $9, uncollectible_reason = $10 WHERE (tenant_id = $1) AND (id = $11)`
	sqlInsertPayment   = `INSERT INTO invoice_payments (tenant_id, id, invoice_id, kind, amount, currency, source, method, reference, event_id, received_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
)

// nextNumber advances the tenant's invoice counter, as billing does.
func nextNumber(ctx context.Context, tx pgx.Tx, tenantID string) (string, error) {
	var n int64
	if err := tx.QueryRow(ctx, sqlNextNumber, tenantID).Scan(&n); err != nil {
		return "", err
	}
	return fmt.Sprintf("INV-%06d", n), nil
}

// lockInvoice reads the tenant's invoice and locks it until tx ends
// (billing's InvoiceForUpdate).
func lockInvoice(ctx context.Context, tx pgx.Tx, tenantID, id string) (storedInvoice, error) {
	inv, err := scanInvoice(tx.QueryRow(ctx, sqlLockInvoice, tenantID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return inv, fail(http.StatusNotFound, "not_found", "invoice not found")
	}
	return inv, err
}

// settle recomputes the sums and moves open ↔ paid, as billing does.
func (inv *storedInvoice) settle(now time.Time) {
	inv.AmountPaid = max(0, inv.received-inv.refunded)
	inv.AmountDue = max(0, inv.Total-inv.AmountPaid)
	if inv.Status == "open" && inv.AmountDue == 0 {
		inv.Status, inv.PaidAt = "paid", &now
	}
}

// invoiceID is the path's invoice id, or a 404.
func invoiceID(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if !strings.HasPrefix(id, "inv_") || len(id) != 30 {
		return "", fail(http.StatusNotFound, "not_found", "invoice not found")
	}
	return id, nil
}

// finalizeInvoice answers POST /api/v1/collections/invoices/{id}/finalize
// as billing does, in one transaction: lock the draft, take the next
// number, open it, and write every column a draft's change may touch.
func (s *server) finalizeInvoice(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "collections:write", "invoices:write", readsState)
	if err != nil {
		respondError(w, err)
		return
	}
	ctx := r.Context()
	if !s.moduleOn(c.st, catalog.ModuleInvoices) {
		respondError(w, errDisabled)
		return
	}
	id, err := invoiceID(r)
	if err != nil {
		respondError(w, err)
		return
	}
	var inv storedInvoice
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if inv, err = lockInvoice(ctx, tx, c.tenantID, id); err != nil {
			return err
		}
		if inv.Status != "draft" {
			return fail(http.StatusConflict, "conflict", "invoice is "+inv.Status+", cannot finalize")
		}
		if inv.number == nil {
			n, err := nextNumber(ctx, tx, c.tenantID)
			if err != nil {
				return err
			}
			inv.Number, inv.number = n, &n
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		if err := defaultDueDate(ctx, tx, c.tenantID, &inv, now); err != nil {
			return err
		}
		inv.Status, inv.FinalizedAt = "open", &now
		inv.settle(now)
		if _, err := tx.Exec(ctx, sqlFinalizeInvoice,
			c.tenantID, inv.number, inv.Status, inv.Customer.Name, inv.Customer.Email, inv.lines, inv.Subtotal,
			inv.Tax, inv.Total, inv.AmountPaid, inv.AmountDue, inv.received, inv.refunded, inv.dueDate, inv.Memo, inv.meta,
			inv.FinalizedAt, inv.PaidAt, id); err != nil {
			return err
		}
		return s.recordEvent(ctx, tx, actorOf(r, &c), c.tenantID, "invoice.finalized", "invoice", id, inv.invoice)
	})
	if err != nil {
		respondError(w, err)
		return
	}
	if err := s.withHostedURLs(ctx, c.tenantID, []*invoice{&inv.invoice}); err != nil {
		respondError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, inv.invoice)
}

// sqlSettings reads the tenant's settings, as tenancy's store does.
const sqlSettings = `SELECT "settings_row"."tenant_id", "settings_row"."payment_link_template", "settings_row"."invoice_footer", "settings_row"."reply_to_email", "settings_row"."default_payment_terms_days", "settings_row"."updated_at" FROM "tenant_settings" AS "settings_row" WHERE (tenant_id = $1)`

// defaultDueDate gives a draft finalized at now without a due date the
// tenant's default payment terms, as billing does.
func defaultDueDate(ctx context.Context, tx pgx.Tx, tenantID string, inv *storedInvoice, now time.Time) error {
	if inv.DueDate != "" {
		return nil
	}
	var tid string
	var link, footer, replyTo *string
	var days *int
	var updated time.Time
	err := tx.QueryRow(ctx, sqlSettings, tenantID).Scan(&tid, &link, &footer, &replyTo, &days, &updated)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && days == nil) {
		return nil
	}
	if err != nil {
		return err
	}
	due := now.AddDate(0, 0, *days).Format(time.DateOnly)
	inv.DueDate, inv.dueDate = due, &due
	return nil
}

// payment has the JSON shape of billing.Payment.
type payment struct {
	ID         string    `json:"id"`
	InvoiceID  string    `json:"invoice_id"`
	Kind       string    `json:"kind"`
	Amount     int64     `json:"amount"`
	Currency   string    `json:"currency"`
	Source     string    `json:"source"`
	Method     string    `json:"method,omitempty"`
	Reference  string    `json:"reference"`
	ReceivedAt time.Time `json:"received_at"`
	CreatedAt  time.Time `json:"created_at"`
}

// recordPayment answers POST /api/v1/collections/invoices/{id}/payments as
// billing's Ledger.Record does, in one transaction: lock the open invoice,
// add the payment to its sums (no more than is due), write the invoice's
// money columns and the ledger entry.
func (s *server) recordPayment(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "collections:write", "invoices:write", readsState)
	if err != nil {
		respondError(w, err)
		return
	}
	ctx := r.Context()
	if !s.moduleOn(c.st, catalog.ModuleInvoices) {
		respondError(w, errDisabled)
		return
	}
	id, err := invoiceID(r)
	if err != nil {
		respondError(w, err)
		return
	}
	var in struct {
		Amount     int64      `json:"amount"`
		Currency   string     `json:"currency,omitempty"`
		Method     string     `json:"method"`
		Reference  string     `json:"reference,omitempty"`
		ReceivedAt *time.Time `json:"received_at,omitempty"`
	}
	if err := decodeBody(r, &in); err != nil {
		respondError(w, err)
		return
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	bad := func(field string) {
		respondError(w, fail(http.StatusUnprocessableEntity, "validation_failed", field+" is invalid"))
	}
	switch {
	case in.Amount < 1 || in.Amount > 1_000_000_000_000_000:
		bad("amount")
		return
	case !strings.Contains(" bank_transfer cash check card other ", " "+in.Method+" "):
		bad("method")
		return
	case utf8.RuneCountInString(in.Reference) > 200 || strings.ContainsRune(in.Reference, 0):
		bad("reference")
		return
	case in.ReceivedAt != nil && in.ReceivedAt.After(now):
		bad("received_at")
		return
	}
	p := payment{ID: newID("pay"), InvoiceID: id, Kind: "payment", Amount: in.Amount, Source: "manual",
		Method: in.Method, Reference: in.Reference, ReceivedAt: now, CreatedAt: now}
	if in.ReceivedAt != nil {
		p.ReceivedAt = in.ReceivedAt.UTC().Truncate(time.Microsecond)
	}
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		inv, err := lockInvoice(ctx, tx, c.tenantID, id)
		if err != nil {
			return err
		}
		switch {
		case inv.Status != "open":
			return fail(http.StatusConflict, "conflict", "invoice is "+inv.Status+", cannot record a payment")
		case in.Currency != "" && in.Currency != inv.Currency:
			return fail(http.StatusUnprocessableEntity, "validation_failed", "currency is invalid")
		case in.Amount > inv.AmountDue:
			return fail(http.StatusUnprocessableEntity, "validation_failed", "amount is invalid")
		}
		inv.received += in.Amount
		inv.settle(now)
		if _, err := tx.Exec(ctx, sqlSettleInvoice, c.tenantID, inv.Status, inv.AmountPaid, inv.AmountDue,
			inv.received, inv.refunded, inv.FinalizedAt, inv.PaidAt, inv.overdue, inv.uncollectible, id); err != nil {
			return err
		}
		p.Currency = inv.Currency
		insert := queued{sqlInsertPayment, []any{c.tenantID, p.ID, id, p.Kind, p.Amount, p.Currency, p.Source,
			p.Method, p.Reference, "", p.ReceivedAt, p.CreatedAt}}
		typ := "invoice.payment_recorded"
		if inv.Status == "paid" {
			typ = "invoice.paid"
		}
		return s.recordEventAfter(ctx, tx, []queued{insert}, actorOf(r, &c), c.tenantID, typ, "invoice", id, inv.invoice)
	})
	if err != nil {
		respondError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, p)
}
