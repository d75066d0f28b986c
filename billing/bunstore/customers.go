package bunstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	segjson "github.com/segmentio/encoding/json"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
)

var _ billing.CustomerStore = (*Store)(nil)

// customerRow is a row of the customers table.
type customerRow struct {
	bun.BaseModel `bun:"table:customers"`
	TenantID      string `bun:"tenant_id,pk"`
	ID            string `bun:"id,pk"`
	Name          string `bun:"name"`
	// NameFolded is Name lower-cased, what ?search= matches.
	NameFolded string     `bun:"name_folded"`
	Email      string     `bun:"email"`
	Address    *string    `bun:"address"` // JSON; NULL for none
	TaxID      string     `bun:"tax_id"`
	Locale     string     `bun:"locale"`
	Metadata   string     `bun:"metadata"`
	ArchivedAt *time.Time `bun:"archived_at"`
	CreatedAt  time.Time  `bun:"created_at"`
	UpdatedAt  time.Time  `bun:"updated_at"`
}

// customerColumns are what SaveCustomer writes.
var customerColumns = []string{"name", "name_folded", "email", "address", "tax_id", "locale",
	"metadata", "archived_at", "updated_at"}

// encodeAddress is the JSON of a, nil for none.
func encodeAddress(a *billing.Address) (*string, error) {
	if a == nil {
		return nil, nil
	}
	b, err := segjson.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("billing: encode address: %w", err)
	}
	s := string(b)
	return &s, nil
}

// decodeAddress reads what encodeAddress wrote.
func decodeAddress(s *string) (*billing.Address, error) {
	if s == nil || *s == "" {
		return nil, nil
	}
	var a billing.Address
	if err := segjson.Unmarshal([]byte(*s), &a); err != nil {
		return nil, fmt.Errorf("billing: decode address: %w", err)
	}
	return &a, nil
}

func toCustomerRow(c billing.CustomerRecord) (customerRow, error) {
	addr, err := encodeAddress(c.Address)
	if err != nil {
		return customerRow{}, err
	}
	meta := c.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	metaJSON, err := segjson.Marshal(meta)
	if err != nil {
		return customerRow{}, fmt.Errorf("billing: encode metadata: %w", err)
	}
	return customerRow{TenantID: c.TenantID, ID: c.ID, Name: c.Name, NameFolded: strings.ToLower(c.Name),
		Email: c.Email, Address: addr, TaxID: c.TaxID, Locale: c.Locale, Metadata: string(metaJSON),
		ArchivedAt: c.ArchivedAt, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}, nil
}

func (r customerRow) customer() (billing.CustomerRecord, error) {
	addr, err := decodeAddress(r.Address)
	if err != nil {
		return billing.CustomerRecord{}, err
	}
	meta := map[string]string{}
	if err := segjson.Unmarshal([]byte(r.Metadata), &meta); err != nil {
		return billing.CustomerRecord{}, fmt.Errorf("billing: decode metadata of %s: %w", r.ID, err)
	}
	if meta == nil {
		meta = map[string]string{}
	}
	return billing.CustomerRecord{ID: r.ID, TenantID: r.TenantID, Name: r.Name, Email: r.Email,
		Address: addr, TaxID: r.TaxID, Locale: r.Locale, Metadata: meta, ArchivedAt: utc(r.ArchivedAt),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}, nil
}

// translateCustomer is translate with ErrCustomerNotFound for a missing row.
func translateCustomer(err error) error {
	return database.Translate(err, billing.ErrCustomerNotFound, billing.ErrConflict)
}

// CreateCustomer implements billing.CustomerStore.
func (s *Store) CreateCustomer(ctx context.Context, c billing.CustomerRecord) error {
	r, err := toCustomerRow(c)
	if err != nil {
		return err
	}
	_, err = s.conn(ctx).NewInsert().Model(&r).Returning("NULL").Exec(ctx)
	// A foreign key failure is an unknown tenant: ErrNotFound as invoices.
	return translate(err)
}

// Customer implements billing.CustomerStore.
func (s *Store) Customer(ctx context.Context, tenantID, id string) (billing.CustomerRecord, error) {
	return s.customer(ctx, tenantID, id, false)
}

// CustomerForUpdate implements billing.CustomerStore; on SQLite the
// transaction's write lock serialises writers instead of FOR UPDATE.
func (s *Store) CustomerForUpdate(ctx context.Context, tenantID, id string) (billing.CustomerRecord, error) {
	return s.customer(ctx, tenantID, id, true)
}

func (s *Store) customer(ctx context.Context, tenantID, id string, lock bool) (billing.CustomerRecord, error) {
	var row customerRow
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&row), tenantID).Where("id = ?", id)
	if lock && database.IsPostgres(s.db) {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return billing.CustomerRecord{}, translateCustomer(err)
	}
	return row.customer()
}

// SaveCustomer implements billing.CustomerStore: an UPDATE of the customer
// and one of its drafts, on the caller's transaction or one of its own.
func (s *Store) SaveCustomer(ctx context.Context, c billing.CustomerRecord) error {
	r, err := toCustomerRow(c)
	if err != nil {
		return err
	}
	return database.JoinTx(ctx, s.db, func(ctx context.Context) error {
		res, err := database.ForTenant(s.conn(ctx).NewUpdate().Model(&r), c.TenantID).
			Column(customerColumns...).
			Where("id = ?", c.ID).
			Exec(ctx)
		if err := affected(res, err); err != nil {
			if err == billing.ErrNotFound {
				return billing.ErrCustomerNotFound
			}
			return err
		}
		_, err = database.ForTenant(s.conn(ctx).NewUpdate().Model((*invoiceRow)(nil)), c.TenantID).
			Set("customer_name = ?", c.Name).
			Set("customer_email = ?", c.Email).
			Set("customer_address = ?", r.Address).
			Set("customer_tax_id = ?", c.TaxID).
			Set("customer_locale = ?", c.Locale).
			Where("customer_id = ?", c.ID).
			Where("status = ?", billing.StatusDraft).
			Exec(ctx)
		return translate(err)
	})
}

// ListCustomers implements billing.CustomerStore. The search is a
// substring match (LIKE '%…%'), which no index serves: it reads the
// tenant's customers from its primary key, newest first, until the page
// is full.
func (s *Store) ListCustomers(ctx context.Context, tenantID string, f billing.CustomerFilter) ([]billing.CustomerRecord, bool, error) {
	limit := f.Limit
	if limit < 1 {
		limit = billing.DefaultListLimit
	}
	rows := make([]customerRow, 0, limit+1)
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID)
	if !f.Archived {
		q = q.Where("archived_at IS NULL")
	}
	if f.Search != "" {
		pattern := "%" + escapeLike(strings.ToLower(f.Search)) + "%"
		q = q.Where(`(name_folded LIKE ? ESCAPE '\' OR email LIKE ? ESCAPE '\')`, pattern, pattern)
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translateCustomer(err)
	}
	return database.Page(rows, limit, customerRow.customer)
}

// escapeLike makes s match itself in a LIKE pattern with ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Outstanding implements billing.CustomerStore.
func (s *Store) Outstanding(ctx context.Context, tenantID, customerID string) ([]billing.Outstanding, error) {
	out := []billing.Outstanding{}
	err := database.ForTenant(s.conn(ctx).NewSelect().Model((*invoiceRow)(nil)), tenantID).
		ColumnExpr("currency").
		ColumnExpr("CAST(SUM(amount_due) AS BIGINT) AS amount_due").
		Where("customer_id = ?", customerID).
		Where("status = ?", billing.StatusOpen).
		GroupExpr("currency").
		OrderExpr("currency").
		Scan(ctx, &out)
	if err != nil {
		return nil, translate(err)
	}
	return out, nil
}
