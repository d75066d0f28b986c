package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/currency"

	"github.com/tenantkit/tenantkit/catalog"
)

type customer struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

type lineItem struct {
	Description string `json:"description"`
	Quantity    int64  `json:"quantity"`
	UnitAmount  int64  `json:"unit_amount"`
	TaxRateBps  int    `json:"tax_rate_bps"`
	Amount      int64  `json:"amount"`
}

// invoice has the JSON shape of billing.Invoice.
type invoice struct {
	ID          string            `json:"id"`
	Number      string            `json:"number,omitempty"` // none on a draft
	Status      string            `json:"status"`
	Customer    customer          `json:"customer"`
	Currency    string            `json:"currency"`
	LineItems   []lineItem        `json:"line_items"`
	Subtotal    int64             `json:"subtotal"`
	Tax         int64             `json:"tax"`
	Total       int64             `json:"total"`
	AmountPaid  int64             `json:"amount_paid"`
	AmountDue   int64             `json:"amount_due"`
	DueDate     string            `json:"due_date,omitempty"`
	Memo        string            `json:"memo"`
	Metadata    map[string]string `json:"metadata"`
	CreatedAt   time.Time         `json:"created_at"`
	FinalizedAt *time.Time        `json:"finalized_at"`
	PaidAt      *time.Time        `json:"paid_at"`
	HostedURL   string            `json:"hosted_url,omitempty"`
}

// listResponse is tenantkit's list envelope.
type listResponse[T any] struct {
	Data       []T     `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

// The cursor is tenantkit's: base64url("v1:" + id of the last item).
func encodeCursor(id string) string { return base64.RawURLEncoding.EncodeToString([]byte("v1:" + id)) }

func decodeCursor(s string) (string, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return "", false
	}
	id, ok := strings.CutPrefix(string(raw), "v1:")
	if !ok || id == "" || len(id) > 64 {
		return "", false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return "", false
		}
	}
	return id, true
}

// listParams reads ?limit= (1..100, default 20) and ?cursor=.
func listParams(r *http.Request) (int, string, error) {
	q := r.URL.Query()
	limit := 20
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 100 {
			return 0, "", fail(http.StatusBadRequest, "invalid_request", "invalid limit")
		}
		limit = n
	}
	var before string
	if s := q.Get("cursor"); s != "" {
		var ok bool
		if before, ok = decodeCursor(s); !ok {
			return 0, "", fail(http.StatusBadRequest, "invalid_request", "invalid cursor")
		}
	}
	return limit, before, nil
}

// invoiceColumns are the invoice row's columns as billing's store selects
// them, and invoiceInsert its insert.
const (
	invoiceColumns = `"invoice_row"."tenant_id", "invoice_row"."id", "invoice_row"."number", "invoice_row"."status", "invoice_row"."customer_name", "invoice_row"."customer_email", "invoice_row"."customer_id", "invoice_row"."customer_address", "invoice_row"."customer_tax_id", "invoice_row"."customer_locale", "invoice_row"."currency", "invoice_row"."line_items", "invoice_row"."subtotal", "invoice_row"."tax", "invoice_row"."total", "invoice_row"."amount_paid", "invoice_row"."amount_due", "invoice_row"."received", "invoice_row"."refunded", "invoice_row"."due_date", "invoice_row"."memo", "invoice_row"."metadata", "invoice_row"."created_at", "invoice_row"."finalized_at", "invoice_row"."paid_at", "invoice_row"."overdue", "invoice_row"."uncollectible_reason"`
	invoiceInsert  = `INSERT INTO invoices (tenant_id, id, number, status, customer_name, customer_email,
		 customer_id, customer_address, customer_tax_id, customer_locale, currency,
		 line_items, subtotal, tax, total, amount_paid, amount_due, received, refunded,
		 due_date, memo, metadata, created_at, finalized_at, paid_at, overdue, uncollectible_reason)
		 VALUES ($1, $2, $3, $4, $5, $6, NULL, NULL, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)`
)

// scanInvoice reads an invoice row (invoiceColumns) and decodes its line
// items and metadata.
func scanInvoice(row pgx.Row) (storedInvoice, error) {
	var inv storedInvoice
	var customerID, address *string // an inline customer's: none
	var taxID, locale string
	if err := row.Scan(&inv.invoiceTenant, &inv.ID, &inv.number, &inv.Status, &inv.Customer.Name, &inv.Customer.Email,
		&customerID, &address, &taxID, &locale, &inv.Currency, &inv.lines, &inv.Subtotal, &inv.Tax, &inv.Total, &inv.AmountPaid, &inv.AmountDue,
		&inv.received, &inv.refunded, &inv.dueDate, &inv.Memo, &inv.meta, &inv.CreatedAt, &inv.FinalizedAt, &inv.PaidAt,
		&inv.overdue, &inv.uncollectible); err != nil {
		return inv, err
	}
	if err := json.Unmarshal([]byte(inv.lines), &inv.LineItems); err != nil {
		return inv, err
	}
	inv.Metadata = map[string]string{}
	if err := json.Unmarshal([]byte(inv.meta), &inv.Metadata); err != nil {
		return inv, err
	}
	if inv.number != nil {
		inv.Number = *inv.number
	}
	if inv.dueDate != nil {
		inv.DueDate = *inv.dueDate
	}
	inv.CreatedAt = inv.CreatedAt.UTC()
	return inv, nil
}

// writePage answers a list: the page's first limit items, and a cursor
// after the last when there is one more.
func writePage[T any](w http.ResponseWriter, page []T, limit int, id func(T) string) {
	resp := listResponse[T]{Data: page}
	if len(page) > limit {
		resp.Data, resp.HasMore = page[:limit], true
		next := encodeCursor(id(page[limit-1]))
		resp.NextCursor = &next
	}
	writeJSON(w, http.StatusOK, resp)
}

// keysetPage is the keyset query of a tenant's page as tenantkit's stores
// write it: selectFrom, then WHERE (tenant_id = $1) [AND (id < $2)]
// ORDER BY id DESC and the LIMIT (limit+1, to see whether a next page
// exists) written in as Bun writes it.
func keysetPage(selectFrom, tenantID, before string, limit int) (string, []any) {
	sql, args := selectFrom+` WHERE (tenant_id = $1)`, []any{tenantID}
	if before != "" {
		sql, args = sql+` AND (id < $2)`, append(args, before)
	}
	return sql + ` ORDER BY id DESC LIMIT ` + strconv.Itoa(limit+1), args
}

// listInvoices answers GET /api/v1/collections/invoices with billing's
// keyset query: tenant_id = $1 [AND id < $2] ORDER BY id DESC, its LIMIT
// written in as Bun writes it (one statement per page size, planned for
// the size; a bound LIMIT would let Postgres pick a generic plan).
func (s *server) listInvoices(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "collections:read", "invoices:read", readsMembership)
	if err != nil {
		respondError(w, err)
		return
	}
	limit, before, err := listParams(r)
	if err != nil {
		respondError(w, err)
		return
	}
	sql, args := keysetPage(`SELECT `+invoiceColumns+` FROM "invoices" AS "invoice_row"`, c.tenantID, before, limit)
	page := make([]invoice, 0, limit+1)
	if err := collect(r.Context(), s.db, sql, args, func(rows pgx.Rows) error {
		inv, err := scanInvoice(rows)
		page = append(page, inv.invoice)
		return err
	}); err != nil {
		respondError(w, err)
		return
	}
	shown := page[:min(len(page), limit)]
	ptrs := make([]*invoice, len(shown))
	for i := range shown {
		ptrs[i] = &shown[i]
	}
	if err := s.withHostedURLs(r.Context(), c.tenantID, ptrs); err != nil {
		respondError(w, err)
		return
	}
	writePage(w, page, limit, func(inv invoice) string { return inv.ID })
}

// getInvoice answers GET /api/v1/collections/invoices/{id}.
func (s *server) getInvoice(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "collections:read", "invoices:read", readsMembership)
	if err != nil {
		respondError(w, err)
		return
	}
	id, err := invoiceID(r)
	if err != nil {
		respondError(w, err)
		return
	}
	inv, err := scanInvoice(s.db.QueryRow(r.Context(), sqlGetInvoice, c.tenantID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		err = fail(http.StatusNotFound, "not_found", "invoice not found")
	}
	if err != nil {
		respondError(w, err)
		return
	}
	if err := s.withHostedURLs(r.Context(), c.tenantID, []*invoice{&inv.invoice}); err != nil {
		respondError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, inv.invoice)
}

// createInvoiceInput is the body of POST /api/v1/collections/invoices.
type createInvoiceInput struct {
	Customer  customer `json:"customer"`
	Currency  string   `json:"currency"`
	LineItems []struct {
		Description string `json:"description"`
		Quantity    int64  `json:"quantity"`
		UnitAmount  int64  `json:"unit_amount"`
		TaxRateBps  int    `json:"tax_rate_bps"`
	} `json:"line_items"`
	Status   string            `json:"status,omitempty"`
	DueDate  string            `json:"due_date,omitempty"`
	Memo     string            `json:"memo,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// validate checks the input and computes the invoice's amounts (tax per
// line rounded half away from zero), as billing does.
func (in createInvoiceInput) validate() (invoice, error) {
	bad := func(field string) error {
		return fail(http.StatusUnprocessableEntity, "validation_failed", field+" is invalid")
	}
	inv := invoice{Currency: in.Currency, Memo: in.Memo, DueDate: in.DueDate, Metadata: map[string]string{}}
	inv.Customer.Name = strings.TrimSpace(in.Customer.Name)
	if n := utf8.RuneCountInString(inv.Customer.Name); n < 1 || n > 200 {
		return inv, bad("customer.name")
	}
	inv.Customer.Email = strings.ToLower(strings.TrimSpace(in.Customer.Email))
	if a, err := mail.ParseAddress(inv.Customer.Email); err != nil || a.Address != inv.Customer.Email {
		return inv, bad("customer.email")
	}
	if u, err := currency.ParseISO(in.Currency); err != nil || u.String() != in.Currency {
		return inv, bad("currency")
	}
	if len(in.LineItems) < 1 || len(in.LineItems) > 100 {
		return inv, bad("line_items")
	}
	for _, l := range in.LineItems {
		desc := strings.TrimSpace(l.Description)
		if n := utf8.RuneCountInString(desc); n < 1 || n > 500 || l.Quantity < 1 || l.Quantity > 1_000_000 ||
			l.UnitAmount < 0 || l.UnitAmount > 1_000_000_000_000 || l.TaxRateBps < 0 || l.TaxRateBps > 10_000 {
			return inv, bad("line_items")
		}
		amount := uint64(l.Quantity) * uint64(l.UnitAmount)
		if amount > 1e15 {
			return inv, bad("line_items")
		}
		tax := (amount*uint64(l.TaxRateBps) + 5000) / 10000
		inv.LineItems = append(inv.LineItems, lineItem{Description: desc, Quantity: l.Quantity,
			UnitAmount: l.UnitAmount, TaxRateBps: l.TaxRateBps, Amount: int64(amount)})
		inv.Subtotal += int64(amount)
		inv.Tax += int64(tax)
	}
	inv.Total = inv.Subtotal + inv.Tax
	if inv.Total > 1e15 {
		return inv, bad("line_items")
	}
	if in.DueDate != "" {
		if t, err := time.Parse("2006-01-02", in.DueDate); err != nil || t.Format("2006-01-02") != in.DueDate {
			return inv, bad("due_date")
		}
	}
	if utf8.RuneCountInString(in.Memo) > 2000 || len(in.Metadata) > 50 {
		return inv, bad("memo")
	}
	for k, v := range in.Metadata {
		if k == "" || utf8.RuneCountInString(k) > 40 || utf8.RuneCountInString(v) > 500 {
			return inv, bad("metadata")
		}
		inv.Metadata[k] = v
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	inv.CreatedAt = now
	inv.AmountDue = inv.Total
	switch in.Status {
	case "", "open":
		inv.Status, inv.FinalizedAt = "open", &now
		if inv.Total == 0 {
			inv.Status, inv.PaidAt = "paid", &now
		}
	case "draft":
		inv.Status = "draft"
	default:
		return inv, bad("status")
	}
	return inv, nil
}

// createInvoice answers POST /api/v1/collections/invoices: validate, then
// one transaction that spends a unit of the monthly limit, takes the next
// number, inserts and records the event.
func (s *server) createInvoice(w http.ResponseWriter, r *http.Request) {
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
	var in createInvoiceInput
	if err := decodeBody(r, &in); err != nil {
		respondError(w, err)
		return
	}
	inv, err := in.validate()
	if err != nil {
		respondError(w, err)
		return
	}
	inv.ID = newID("inv")
	lines, _ := json.Marshal(inv.LineItems)
	meta, _ := json.Marshal(inv.Metadata)
	var dueDate *string
	if inv.DueDate != "" {
		dueDate = &inv.DueDate
	}
	err = pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if err := consume(ctx, tx, c, catalog.FeatureInvoices); err != nil {
			return err
		}
		var number *string // a draft is numbered when it is finalized
		if inv.Status != "draft" {
			n, err := nextNumber(ctx, tx, c.tenantID)
			if err != nil {
				return err
			}
			inv.Number, number = n, &n
		}
		insert := queued{invoiceInsert, []any{
			c.tenantID, inv.ID, number, inv.Status, inv.Customer.Name, inv.Customer.Email, "", "en", inv.Currency,
			string(lines), inv.Subtotal, inv.Tax, inv.Total, inv.AmountPaid, inv.AmountDue, 0, 0, dueDate, inv.Memo,
			string(meta), inv.CreatedAt, inv.FinalizedAt, inv.PaidAt, false, ""}}
		return s.recordEventAfter(ctx, tx, []queued{insert}, actorOf(r, &c), c.tenantID, "invoice.created", "invoice", inv.ID, inv)
	})
	if err != nil {
		respondError(w, err)
		return
	}
	if err := s.withHostedURLs(ctx, c.tenantID, []*invoice{&inv}); err != nil {
		respondError(w, err)
		return
	}
	w.Header().Set("Location", "/api/v1/collections/invoices/"+inv.ID)
	writeJSON(w, http.StatusCreated, inv)
}

// errDisabled answers a request to a module that is off.
var errDisabled = fail(http.StatusForbidden, "module_disabled", "the module is disabled for this tenant")
