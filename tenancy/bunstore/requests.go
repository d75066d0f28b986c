package bunstore

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

type contractRequestRow struct {
	bun.BaseModel `bun:"table:contract_requests"`
	TenantID      string     `bun:"tenant_id,pk"`
	ID            string     `bun:"id,pk"`
	Type          string     `bun:"type"`
	PlanID        *string    `bun:"plan_id"`
	ModuleID      *string    `bun:"module_id"`
	Seats         *int       `bun:"seats"`
	Effective     string     `bun:"effective"`
	Note          string     `bun:"note"`
	Status        string     `bun:"status"`
	SubmittedBy   string     `bun:"submitted_by"`
	CreatedAt     time.Time  `bun:"created_at"`
	DecidedAt     *time.Time `bun:"decided_at"`
	EffectiveAt   *time.Time `bun:"effective_at"`
	AppliedAt     *time.Time `bun:"applied_at"`
	Reason        string     `bun:"reason"`
}

func toRequestRow(r contract.Request) contractRequestRow {
	return contractRequestRow{
		TenantID: r.TenantID, ID: r.ID, Type: string(r.Type), PlanID: r.PlanID, ModuleID: r.ModuleID, Seats: r.Seats,
		Effective: string(r.Effective), Note: r.Note, Status: string(r.Status), SubmittedBy: r.SubmittedBy,
		CreatedAt: r.CreatedAt, DecidedAt: r.DecidedAt, EffectiveAt: r.EffectiveAt, AppliedAt: r.AppliedAt, Reason: r.Reason,
	}
}

func (r contractRequestRow) request() contract.Request {
	return contract.Request{
		ID: r.ID, TenantID: r.TenantID, Type: contract.ChangeType(r.Type), PlanID: r.PlanID, ModuleID: r.ModuleID, Seats: r.Seats,
		Effective: contract.Effective(r.Effective), Note: r.Note, Status: contract.RequestStatus(r.Status), SubmittedBy: r.SubmittedBy,
		CreatedAt: r.CreatedAt.UTC(), DecidedAt: utc(r.DecidedAt), EffectiveAt: utc(r.EffectiveAt), AppliedAt: utc(r.AppliedAt),
		Reason: r.Reason,
	}
}

// CreateRequest implements contract.Store. ON CONFLICT DO NOTHING
// covers the partial unique index on pending requests, and, unlike a
// caught unique violation, keeps the caller's Postgres transaction usable.
func (s *Store) CreateRequest(ctx context.Context, req contract.Request) error {
	row := toRequestRow(req)
	res, err := s.conn(ctx).NewInsert().Model(&row).On("CONFLICT DO NOTHING").Exec(ctx)
	return affected(res, err, tenancy.ErrConflict)
}

// Request implements contract.Store.
func (s *Store) Request(ctx context.Context, tenantID, id string) (contract.Request, error) {
	return s.getRequest(ctx, tenantID, id, false)
}

// RequestForUpdate implements contract.Store.
func (s *Store) RequestForUpdate(ctx context.Context, tenantID, id string) (contract.Request, error) {
	return s.getRequest(ctx, tenantID, id, true)
}

func (s *Store) getRequest(ctx context.Context, tenantID, id string, lock bool) (contract.Request, error) {
	db := s.conn(ctx)
	var row contractRequestRow
	q := database.ForTenant(db.NewSelect().Model(&row), tenantID).Where("id = ?", id)
	if lock && database.IsPostgres(db) {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return contract.Request{}, translate(err)
	}
	return row.request(), nil
}

// UpdateRequest implements contract.Store.
func (s *Store) UpdateRequest(ctx context.Context, req contract.Request, from contract.RequestStatus) error {
	db := s.conn(ctx)
	row := toRequestRow(req)
	res, err := database.ForTenant(db.NewUpdate().Model(&row), req.TenantID).
		Column("status", "decided_at", "effective_at", "applied_at", "reason").
		Where("id = ?", req.ID).Where("status = ?", string(from)).
		Exec(ctx)
	if err := affected(res, err, tenancy.ErrNotFound); !errors.Is(err, tenancy.ErrNotFound) {
		return err
	}
	if _, err := s.Request(ctx, req.TenantID, req.ID); err != nil {
		return err
	}
	return tenancy.ErrConflict
}

// ListRequests implements contract.Store.
func (s *Store) ListRequests(ctx context.Context, tenantID string, f contract.Filter) ([]contract.Request, bool, error) {
	var rows []contractRequestRow
	return s.listRequests(ctx, database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID), &rows, f)
}

// AllRequests implements contract.Store: the operators' query across
// tenants, confined by database.ForTenant only when a tenant is asked for.
func (s *Store) AllRequests(ctx context.Context, f contract.AllFilter) ([]contract.Request, bool, error) {
	var rows []contractRequestRow
	q := s.conn(ctx).NewSelect().Model(&rows)
	if f.TenantID != "" {
		q = database.ForTenant(q, f.TenantID)
	} else {
		q = database.AcrossTenants(q)
	}
	return s.listRequests(ctx, q, &rows, f.Filter)
}

// listRequests runs q, a select into rows, with f's conditions and page.
func (s *Store) listRequests(ctx context.Context, q *bun.SelectQuery, rows *[]contractRequestRow, f contract.Filter) ([]contract.Request, bool, error) {
	limit := max(f.Limit, 1) // the service clamped it; never scan without a bound
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	more := len(*rows) > limit
	if more {
		*rows = (*rows)[:limit]
	}
	page := make([]contract.Request, len(*rows))
	for i, r := range *rows {
		page[i] = r.request()
	}
	return page, more, nil
}

// RequestTenant implements contract.Store. Like billing's InvoiceTenant it
// spans tenants: its caller does not know the tenant yet.
func (s *Store) RequestTenant(ctx context.Context, id string) (string, error) {
	var tenantID string
	err := database.AcrossTenants(s.conn(ctx).NewSelect()).Model((*contractRequestRow)(nil)).Column("tenant_id").
		Where("id = ?", id).Limit(1).Scan(ctx, &tenantID)
	if err != nil {
		return "", translate(err)
	}
	return tenantID, nil
}

// DueRequests implements contract.Store: the scheduler's query across
// tenants, served by the partial index on approved requests.
func (s *Store) DueRequests(ctx context.Context, tenantID string, now time.Time, limit int) ([]contract.Request, error) {
	var rows []contractRequestRow
	q := s.conn(ctx).NewSelect().Model(&rows)
	if tenantID != "" {
		q = database.ForTenant(q, tenantID)
	} else {
		q = database.AcrossTenants(q).Where("tenant_id IN (SELECT id FROM tenants WHERE NOT test)")
	}
	err := q.Where("status = ?", string(contract.RequestApproved)).Where("effective_at <= ?", now).
		OrderExpr("effective_at, id").Limit(int64(max(limit, 1))).Scan(ctx)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]contract.Request, len(rows))
	for i, r := range rows {
		out[i] = r.request()
	}
	return out, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
