package main

import (
	"encoding/base64"
	"encoding/json"
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

const invoiceColumns = `tenant_id, id, number, status, customer_name, customer_email, currency, line_items,
	subtotal, tax, total, amount_paid, amount_due, received, refunded, due_date, memo, metadata,
	created_at, finalized_at, paid_at`

// listInvoices answers GET /api/v1/collections/invoices with billing's
// keyset query: tenant_id = $1 AND id < $2 ORDER BY id DESC LIMIT n+1.
func (s *server) listInvoices(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "collections:read", "invoices:read")
	if err != nil {
		respondError(w, err)
		return
	}
	limit, before, err := listParams(r)
	if err != nil {
		respondError(w, err)
		return
	}
	var rows pgx.Rows
	if before == "" {
		rows, err = s.db.Query(r.Context(), `SELECT `+invoiceColumns+` FROM invoices
			WHERE tenant_id = $1 ORDER BY id DESC LIMIT $2`, c.tenantID, limit+1)
	} else {
		rows, err = s.db.Query(r.Context(), `SELECT `+invoiceColumns+` FROM invoices
			WHERE tenant_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, c.tenantID, before, limit+1)
	}
	if err != nil {
		respondError(w, err)
		return
	}
	page := make([]invoice, 0, limit+1)
	for rows.Next() {
		var (
			inv                   invoice
			tenantID, lines, meta string
			received, refunded    int64
			number, dueDate       *string
		)
		if err := rows.Scan(&tenantID, &inv.ID, &number, &inv.Status, &inv.Customer.Name, &inv.Customer.Email,
			&inv.Currency, &lines, &inv.Subtotal, &inv.Tax, &inv.Total, &inv.AmountPaid, &inv.AmountDue,
			&received, &refunded, &dueDate, &inv.Memo, &meta, &inv.CreatedAt, &inv.FinalizedAt, &inv.PaidAt); err != nil {
			rows.Close()
			respondError(w, err)
			return
		}
		if err := json.Unmarshal([]byte(lines), &inv.LineItems); err != nil {
			rows.Close()
			respondError(w, err)
			return
		}
		inv.Metadata = map[string]string{}
		if err := json.Unmarshal([]byte(meta), &inv.Metadata); err != nil {
			rows.Close()
			respondError(w, err)
			return
		}
		if dueDate != nil {
			inv.DueDate = *dueDate
		}
		if number != nil {
			inv.Number = *number
		}
		inv.CreatedAt = inv.CreatedAt.UTC()
		page = append(page, inv)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		respondError(w, err)
		return
	}
	resp := listResponse[invoice]{Data: page}
	if len(page) > limit {
		resp.Data, resp.HasMore = page[:limit], true
		next := encodeCursor(page[limit-1].ID)
		resp.NextCursor = &next
	}
	writeJSON(w, http.StatusOK, resp)
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
// number and inserts.
func (s *server) createInvoice(w http.ResponseWriter, r *http.Request) {
	c, err := s.authenticate(r, "collections:write", "invoices:write")
	if err != nil {
		respondError(w, err)
		return
	}
	ctx := r.Context()
	if on, err := s.moduleOn(ctx, c, catalog.ModuleInvoices); err != nil || !on {
		respondError(w, orDisabled(err))
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
		_, err := tx.Exec(ctx, `INSERT INTO invoices (`+invoiceColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 0, 0, $14, $15, $16, $17, $18, $19)`,
			c.tenantID, inv.ID, number, inv.Status, inv.Customer.Name, inv.Customer.Email, inv.Currency,
			string(lines), inv.Subtotal, inv.Tax, inv.Total, inv.AmountPaid, inv.AmountDue, dueDate, inv.Memo,
			string(meta), inv.CreatedAt, inv.FinalizedAt, inv.PaidAt)
		return err
	})
	if err != nil {
		respondError(w, err)
		return
	}
	w.Header().Set("Location", "/api/v1/collections/invoices/"+inv.ID)
	writeJSON(w, http.StatusCreated, inv)
}

// orDisabled is err, or module_disabled when there is none.
func orDisabled(err error) error {
	if err != nil {
		return err
	}
	return fail(http.StatusForbidden, "module_disabled", "the module is disabled for this tenant")
}
