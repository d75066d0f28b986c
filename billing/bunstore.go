package billing

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
)

// BunStore is the Store on Postgres or SQLite through Bun. Every query runs
// on the transaction carried by the context when there is one, and every
// query of invoices goes through database.ForTenant.
type BunStore struct {
	db bun.IDB
}

var _ Store = (*BunStore)(nil)

// NewBunStore returns a Store on db. Apply bunstore.Migrations (tenancy) and
// Migrations first.
func NewBunStore(db bun.IDB) *BunStore { return &BunStore{db: db} }

func (s *BunStore) conn(ctx context.Context) bun.IDB { return database.Conn(ctx, s.db) }

type invoiceRow struct {
	bun.BaseModel `bun:"table:invoices"`
	TenantID      string     `bun:"tenant_id,pk"`
	ID            string     `bun:"id,pk"`
	Number        string     `bun:"number"`
	Status        string     `bun:"status"`
	CustomerName  string     `bun:"customer_name"`
	CustomerEmail string     `bun:"customer_email"`
	Currency      string     `bun:"currency"`
	LineItems     string     `bun:"line_items"`
	Subtotal      int64      `bun:"subtotal"`
	Tax           int64      `bun:"tax"`
	Total         int64      `bun:"total"`
	AmountPaid    int64      `bun:"amount_paid"`
	AmountDue     int64      `bun:"amount_due"`
	Received      int64      `bun:"received"`
	Refunded      int64      `bun:"refunded"`
	DueDate       *string    `bun:"due_date"`
	Memo          string     `bun:"memo"`
	Metadata      string     `bun:"metadata"`
	CreatedAt     time.Time  `bun:"created_at"`
	FinalizedAt   *time.Time `bun:"finalized_at"`
	PaidAt        *time.Time `bun:"paid_at"`
}

// lineRow is how a line item is kept in the line_items JSON column; its
// own type so that the API's JSON can change without touching stored rows.
type lineRow struct {
	Description string `json:"description"`
	Quantity    int64  `json:"quantity"`
	UnitAmount  int64  `json:"unit_amount"`
	TaxRateBps  int    `json:"tax_rate_bps"`
	Amount      int64  `json:"amount"`
}

func toRow(inv Invoice) (invoiceRow, error) {
	lines := make([]lineRow, len(inv.LineItems))
	for i, l := range inv.LineItems {
		lines[i] = lineRow(l)
	}
	lineJSON, err := json.Marshal(lines)
	if err != nil {
		return invoiceRow{}, fmt.Errorf("billing: encode line items: %w", err)
	}
	meta := inv.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return invoiceRow{}, fmt.Errorf("billing: encode metadata: %w", err)
	}
	row := invoiceRow{
		TenantID: inv.TenantID, ID: inv.ID, Number: inv.Number, Status: string(inv.Status),
		CustomerName: inv.Customer.Name, CustomerEmail: inv.Customer.Email, Currency: inv.Currency,
		LineItems: string(lineJSON), Subtotal: inv.Subtotal, Tax: inv.Tax, Total: inv.Total,
		AmountPaid: inv.AmountPaid, AmountDue: inv.AmountDue, Received: inv.Received, Refunded: inv.Refunded,
		Memo: inv.Memo, Metadata: string(metaJSON), CreatedAt: inv.CreatedAt,
		FinalizedAt: inv.FinalizedAt, PaidAt: inv.PaidAt,
	}
	if inv.DueDate != "" {
		row.DueDate = &inv.DueDate
	}
	return row, nil
}

func (r invoiceRow) invoice() (Invoice, error) {
	var lines []lineRow
	if err := json.Unmarshal([]byte(r.LineItems), &lines); err != nil {
		return Invoice{}, fmt.Errorf("billing: decode line items of %s: %w", r.ID, err)
	}
	meta := map[string]string{}
	if err := json.Unmarshal([]byte(r.Metadata), &meta); err != nil {
		return Invoice{}, fmt.Errorf("billing: decode metadata of %s: %w", r.ID, err)
	}
	if meta == nil { // a stored "null"
		meta = map[string]string{}
	}
	inv := Invoice{
		ID: r.ID, TenantID: r.TenantID, Number: r.Number, Status: Status(r.Status),
		Customer: Customer{Name: r.CustomerName, Email: r.CustomerEmail}, Currency: r.Currency,
		LineItems: make([]LineItem, len(lines)), Subtotal: r.Subtotal, Tax: r.Tax, Total: r.Total,
		AmountPaid: r.AmountPaid, AmountDue: r.AmountDue, Received: r.Received, Refunded: r.Refunded,
		Memo: r.Memo, Metadata: meta, CreatedAt: r.CreatedAt.UTC(),
		FinalizedAt: utc(r.FinalizedAt), PaidAt: utc(r.PaidAt),
	}
	for i, l := range lines {
		inv.LineItems[i] = LineItem(l)
	}
	if r.DueDate != nil {
		inv.DueDate = *r.DueDate
	}
	return inv, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// NextNumber implements Store with one upsert: the row lock it takes
// (Postgres) or the write lock of the transaction (SQLite) makes
// concurrent creates of one tenant queue here, each seeing the number
// the previous one committed.
func (s *BunStore) NextNumber(ctx context.Context, tenantID string) (int64, error) {
	var n int64
	a := database.NewArgs(s.db)
	q := s.conn(ctx).NewRaw(
		`INSERT INTO invoice_sequences (tenant_id, last_number) VALUES (?, 1)
		 ON CONFLICT (tenant_id) DO UPDATE SET last_number = invoice_sequences.last_number + 1
		 RETURNING last_number`, a.Add(tenantID))
	if err := database.Scan(ctx, s.db, q, a, &n); err != nil {
		return 0, translate(err)
	}
	return n, nil
}

// CreateInvoice implements Store.
func (s *BunStore) CreateInvoice(ctx context.Context, inv Invoice) error {
	row, err := toRow(inv)
	if err != nil {
		return err
	}
	a := database.NewArgs(s.db)
	_, err = database.Exec(ctx, s.db, database.BindRow(s.conn(ctx).NewInsert().Model(&row), a, &row), a)
	return translate(err)
}

// Invoice implements Store.
func (s *BunStore) Invoice(ctx context.Context, tenantID, id string) (Invoice, error) {
	return s.get(ctx, tenantID, id, false)
}

// InvoiceForUpdate implements Store.
func (s *BunStore) InvoiceForUpdate(ctx context.Context, tenantID, id string) (Invoice, error) {
	return s.get(ctx, tenantID, id, true)
}

func (s *BunStore) get(ctx context.Context, tenantID, id string, lock bool) (Invoice, error) {
	db := s.conn(ctx)
	var row invoiceRow
	q := database.ForTenant(db.NewSelect().Model(&row), tenantID).Where("id = ?", id)
	if lock && database.IsPostgres(db) {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return Invoice{}, translate(err)
	}
	return row.invoice()
}

// UpdateInvoice implements Store.
func (s *BunStore) UpdateInvoice(ctx context.Context, inv Invoice) error {
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewUpdate().Model((*invoiceRow)(nil)), a.Add(inv.TenantID)).
		Set("status = ?", a.Add(string(inv.Status))).
		Set("amount_paid = ?", a.Add(inv.AmountPaid)).Set("amount_due = ?", a.Add(inv.AmountDue)).
		Set("received = ?", a.Add(inv.Received)).Set("refunded = ?", a.Add(inv.Refunded)).
		Set("finalized_at = ?", a.Add(inv.FinalizedAt)).Set("paid_at = ?", a.Add(inv.PaidAt)).
		Where("id = ?", a.Add(inv.ID))
	res, err := database.Exec(ctx, s.db, q, a)
	return affected(res, err)
}

// ListInvoices implements Store. The filters are equalities on columns
// that follow tenant_id in an index, and the order is the index's id.
func (s *BunStore) ListInvoices(ctx context.Context, tenantID string, f ListFilter) ([]Invoice, bool, error) {
	limit := f.Limit
	if limit < 1 {
		limit = DefaultListLimit
	}
	rows := make([]invoiceRow, 0, limit+1) // room for the page: no growing by reflection
	a := database.NewArgs(s.db)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), a.Add(tenantID))
	if f.Status != "" {
		q = q.Where("status = ?", a.Add(f.Status))
	}
	if f.CustomerEmail != "" {
		q = q.Where("customer_email = ?", a.Add(f.CustomerEmail))
	}
	if f.Before != "" {
		q = q.Where("id < ?", a.Add(f.Before))
	}
	if err := database.Scan(ctx, s.db, q.OrderExpr("id DESC").Limit(int64(limit+1)), a, &rows); err != nil {
		return nil, false, translate(err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	page := make([]Invoice, len(rows))
	for i, r := range rows {
		inv, err := r.invoice()
		if err != nil {
			return nil, false, err
		}
		page[i] = inv
	}
	return page, more, nil
}

// InvoiceTenant implements Store. It is the only query not confined by
// database.ForTenant: its caller does not know the tenant yet.
func (s *BunStore) InvoiceTenant(ctx context.Context, id string) (string, error) {
	var tenantID string
	err := s.conn(ctx).NewSelect().Model((*invoiceRow)(nil)).Column("tenant_id").
		Where("id = ?", id).Limit(1).Scan(ctx, &tenantID)
	if err != nil {
		return "", translate(err)
	}
	return tenantID, nil
}

// UpdateInvoiceByID implements Store: SELECT … FOR UPDATE by id (on
// SQLite the transaction holds the database's write lock from its start,
// which serialises it just the same), then UpdateInvoice, on the caller's
// transaction or, without one, on a transaction of its own.
func (s *BunStore) UpdateInvoiceByID(ctx context.Context, id string, change func(*Invoice) error) (Invoice, error) {
	var out Invoice
	err := database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		db := s.conn(ctx)
		var row invoiceRow
		a := database.NewArgs(s.db)
		q := db.NewSelect().Model(&row).Where("id = ?", a.Add(id)).Limit(1)
		if database.IsPostgres(db) {
			q = q.For("UPDATE")
		}
		if err := database.Scan(ctx, s.db, q, a, &row); err != nil {
			return translate(err)
		}
		loaded, err := row.invoice()
		if err != nil {
			return err
		}
		inv := loaded
		inv.LineItems, inv.Metadata = slices.Clone(loaded.LineItems), maps.Clone(loaded.Metadata)
		if err := change(&inv); err != nil {
			return err
		}
		// The row as loaded with the fields UpdateInvoice writes taken from
		// change's copy: what the row holds once written, whatever else
		// change did to its copy.
		loaded.Status, loaded.AmountPaid, loaded.AmountDue = inv.Status, inv.AmountPaid, inv.AmountDue
		loaded.Received, loaded.Refunded = inv.Received, inv.Refunded
		loaded.FinalizedAt, loaded.PaidAt = inv.FinalizedAt, inv.PaidAt
		if err := s.UpdateInvoice(ctx, loaded); err != nil {
			return err
		}
		out = loaded
		return nil
	})
	return out, err
}

// translate turns driver errors into the domain's sentinels.
func translate(err error) error { return database.Translate(err, ErrNotFound, ErrConflict) }

func affected(res sql.Result, err error) error {
	if err != nil {
		return translate(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return database.Wrap(err)
	} else if n == 0 {
		return ErrNotFound
	}
	return nil
}
