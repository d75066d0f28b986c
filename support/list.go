package support

import (
	"context"
	"fmt"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// Page sizes of List.
const (
	DefaultListLimit = 20
	MaxListLimit     = 100
)

// ListFilter selects and pages a tenant's tickets. The fields are strings,
// as they arrive in query parameters; Service.List checks them against
// their tags, which name them by their parameters.
type ListFilter struct {
	// Status keeps tickets in this status ("" = any).
	Status string `json:"status" validate:"omitempty,oneof=open pending on_hold solved closed"`
	// Priority keeps tickets of this priority ("" = any).
	Priority string `json:"priority" validate:"omitempty,oneof=low normal high urgent"`
	// RequesterID keeps tickets opened by this user ("" = anyone); the
	// HTTP edge sets it to the caller for requester=me.
	RequesterID string
	// Limit is the page size: 0 or less means DefaultListLimit, more than
	// MaxListLimit means MaxListLimit.
	Limit int
	// Before is the id of the last ticket of the previous page ("" for the
	// first page); the page holds older tickets only. Keyset pagination on
	// the time-sortable id keeps every page as cheap as the first. Anything
	// but a ticket id is an *InvalidError on "cursor", the query parameter
	// that carries it.
	Before string
}

// normalize clamps the limit and checks every filter, keyed by the query
// parameter a client sent: "status", "priority" and "cursor" (which carries
// Before).
func (f ListFilter) normalize() (ListFilter, error) {
	switch {
	case f.Limit <= 0:
		f.Limit = DefaultListLimit
	case f.Limit > MaxListLimit:
		f.Limit = MaxListLimit
	}
	errs := field.Errors{}
	errs.Merge(field.Check(f))
	if f.Before != "" && !id.Valid(id.Ticket, f.Before) {
		errs.Add("cursor", field.Invalid, "must point at a ticket of an earlier page")
	}
	return f, errs.Err()
}

// List returns a page of the tenant's tickets matching f, newest first,
// and whether more follow (ask again with Before set to the last id).
// Unknown status or priority values are an *InvalidError; module
// support.tickets must be on, as for Create. The slice is never nil.
func (s *Service) List(ctx context.Context, tenantID string, f ListFilter) ([]Ticket, bool, error) {
	if err := s.ent.RequireModule(ctx, tenantID, catalog.ModuleTickets); err != nil {
		return nil, false, fmt.Errorf("support: list tickets: %w", err)
	}
	f, err := f.normalize()
	if err != nil {
		return nil, false, fmt.Errorf("support: list tickets: %w", err)
	}
	ts, more, err := s.store.ListTickets(ctx, tenantID, f)
	if err != nil {
		return nil, false, fmt.Errorf("support: list tickets: %w", err)
	}
	if ts == nil {
		ts = []Ticket{}
	}
	return ts, more, nil
}
