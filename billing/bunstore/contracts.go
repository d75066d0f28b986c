package bunstore

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/database"
)

var _ billing.ContractStore = (*Store)(nil)

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

func toRequestRow(r billing.ContractRequest) contractRequestRow {
	return contractRequestRow{
		TenantID: r.TenantID, ID: r.ID, Type: string(r.Type), PlanID: r.PlanID, ModuleID: r.ModuleID, Seats: r.Seats,
		Effective: string(r.Effective), Note: r.Note, Status: string(r.Status), SubmittedBy: r.SubmittedBy,
		CreatedAt: r.CreatedAt, DecidedAt: r.DecidedAt, EffectiveAt: r.EffectiveAt, AppliedAt: r.AppliedAt, Reason: r.Reason,
	}
}

func (r contractRequestRow) request() billing.ContractRequest {
	return billing.ContractRequest{
		ID: r.ID, TenantID: r.TenantID, Type: billing.ChangeType(r.Type), PlanID: r.PlanID, ModuleID: r.ModuleID, Seats: r.Seats,
		Effective: billing.Effective(r.Effective), Note: r.Note, Status: billing.RequestStatus(r.Status), SubmittedBy: r.SubmittedBy,
		CreatedAt: r.CreatedAt.UTC(), DecidedAt: utc(r.DecidedAt), EffectiveAt: utc(r.EffectiveAt), AppliedAt: utc(r.AppliedAt),
		Reason: r.Reason,
	}
}

// CreateContractRequest implements billing.ContractStore. ON CONFLICT DO NOTHING
// covers the partial unique index on pending requests, and, unlike a
// caught unique violation, keeps the caller's Postgres transaction usable.
func (s *Store) CreateContractRequest(ctx context.Context, req billing.ContractRequest) error {
	row := toRequestRow(req)
	res, err := s.conn(ctx).NewInsert().Model(&row).On("CONFLICT DO NOTHING").Exec(ctx)
	if err != nil {
		return translate(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return database.Wrap(err)
	} else if n == 0 {
		return billing.ErrConflict
	}
	return nil
}

// ContractRequest implements billing.ContractStore.
func (s *Store) ContractRequest(ctx context.Context, tenantID, id string) (billing.ContractRequest, error) {
	return s.getRequest(ctx, tenantID, id, false)
}

// ContractRequestForUpdate implements billing.ContractStore.
func (s *Store) ContractRequestForUpdate(ctx context.Context, tenantID, id string) (billing.ContractRequest, error) {
	return s.getRequest(ctx, tenantID, id, true)
}

func (s *Store) getRequest(ctx context.Context, tenantID, id string, lock bool) (billing.ContractRequest, error) {
	db := s.conn(ctx)
	var row contractRequestRow
	q := database.ForTenant(db.NewSelect().Model(&row), tenantID).Where("id = ?", id)
	if lock && database.IsPostgres(db) {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return billing.ContractRequest{}, translate(err)
	}
	return row.request(), nil
}

// UpdateContractRequest implements billing.ContractStore.
func (s *Store) UpdateContractRequest(ctx context.Context, req billing.ContractRequest, from billing.RequestStatus) error {
	db := s.conn(ctx)
	row := toRequestRow(req)
	res, err := database.ForTenant(db.NewUpdate().Model(&row), req.TenantID).
		Column("status", "decided_at", "effective_at", "applied_at", "reason").
		Where("id = ?", req.ID).Where("status = ?", string(from)).
		Exec(ctx)
	if err := affected(res, err); !errors.Is(err, billing.ErrNotFound) {
		return err
	}
	if _, err := s.ContractRequest(ctx, req.TenantID, req.ID); err != nil {
		return err
	}
	return billing.ErrConflict
}

// ListContractRequests implements billing.ContractStore.
func (s *Store) ListContractRequests(ctx context.Context, tenantID string, f billing.ContractRequestFilter) ([]billing.ContractRequest, bool, error) {
	limit := f.Limit
	switch {
	case limit <= 0:
		limit = billing.DefaultListLimit
	case limit > billing.MaxListLimit:
		limit = billing.MaxListLimit
	}
	var rows []contractRequestRow
	q := database.ForTenant(s.conn(ctx).NewSelect().Model(&rows), tenantID)
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if f.Before != "" {
		q = q.Where("id < ?", f.Before)
	}
	if err := q.OrderExpr("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, translate(err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	page := make([]billing.ContractRequest, len(rows))
	for i, r := range rows {
		page[i] = r.request()
	}
	return page, more, nil
}

// ContractRequestTenant implements billing.ContractStore. Like InvoiceTenant it is
// not confined by database.ForTenant: its caller does not know the tenant yet.
func (s *Store) ContractRequestTenant(ctx context.Context, id string) (string, error) {
	var tenantID string
	err := s.conn(ctx).NewSelect().Model((*contractRequestRow)(nil)).Column("tenant_id").
		Where("id = ?", id).Limit(1).Scan(ctx, &tenantID)
	if err != nil {
		return "", translate(err)
	}
	return tenantID, nil
}

// DueContractRequests implements billing.ContractStore: the scheduler's query
// across tenants, served by the partial index on approved requests.
func (s *Store) DueContractRequests(ctx context.Context, now time.Time, limit int) ([]billing.ContractRequest, error) {
	var rows []contractRequestRow
	err := s.conn(ctx).NewSelect().Model(&rows).
		Where("status = ?", string(billing.RequestApproved)).Where("effective_at <= ?", now).
		OrderExpr("effective_at, id").Limit(int64(max(limit, 1))).Scan(ctx)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]billing.ContractRequest, len(rows))
	for i, r := range rows {
		out[i] = r.request()
	}
	return out, nil
}
