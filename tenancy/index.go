package tenancy

import (
	"context"
	"fmt"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// SearchFilter selects a page of tenants or users.
type SearchFilter struct {
	// Query, when set, keeps the tenants whose slug or name, or the users
	// whose email or name, contains it, ignoring case.
	Query string `json:"q" validate:"max=200,text"`
	// Limit is the page size: 20 when 0, clamped to 1..100.
	Limit int
	// Before continues a list after the item with this id.
	Before string
}

// KeyFilter selects a page of API keys.
type KeyFilter struct {
	// TenantID, when set, keeps the keys pinned to that tenant.
	TenantID string
	// Limit is the page size: 20 when 0, clamped to 1..100.
	Limit int
	// Before continues a list after the key with this id.
	Before string
}

// IndexStore is the persistence Index needs. Implementations must be
// safe for concurrent use, join the transaction carried by ctx when there
// is one, and return pages newest (highest id) first, with id < Before
// when it is set, at most Limit (≥ 1) items and whether more match beyond
// them. These reads span tenants: they serve the platform's operators,
// never a tenant's request. tenancytest.RunIndex checks all of it.
type IndexStore interface {
	// Tenants returns a page of tenants; with f.Query, those whose slug or
	// name contains it, ignoring case (the store treats % and _ in it as
	// plain characters). No error but a storage fault.
	Tenants(ctx context.Context, f SearchFilter) ([]Tenant, bool, error)
	// Users returns a page of users; with f.Query, those whose email or
	// name contains it, ignoring case. No error but a storage fault.
	Users(ctx context.Context, f SearchFilter) ([]User, bool, error)
	// APIKeys returns a page of API keys, revoked ones included, without
	// their secrets (only hashes are stored); with f.TenantID, the keys
	// pinned to that tenant. No error but a storage fault.
	APIKeys(ctx context.Context, f KeyFilter) ([]APIKey, bool, error)
}

// Index lists what the platform holds, across tenants, a page at a time:
// tenants, users and API keys, for the platform's operators (the operator
// API and the CLI's list commands).
type Index struct {
	store IndexStore
	dir   *Directory
}

// NewIndex returns an Index on store, finding tenants in dir.
func NewIndex(store IndexStore, dir *Directory) *Index {
	return &Index{store: store, dir: dir}
}

// Tenants returns a page of tenants, newest first, searched by slug or
// name, and whether more follow. InvalidError (fields "q", "cursor").
func (s *Index) Tenants(ctx context.Context, f SearchFilter) ([]Tenant, bool, error) {
	if err := checkSearch(f, id.Tenant, "a tenant id"); err != nil {
		return nil, false, fmt.Errorf("tenancy: list tenants: %w", err)
	}
	f.Limit = clampLimit(f.Limit)
	ts, more, err := s.store.Tenants(ctx, f)
	if err != nil {
		return nil, false, fmt.Errorf("tenancy: list tenants: %w", err)
	}
	return ts, more, nil
}

// Users returns a page of users, newest first, searched by email or name,
// and whether more follow. InvalidError (fields "q", "cursor").
func (s *Index) Users(ctx context.Context, f SearchFilter) ([]User, bool, error) {
	if err := checkSearch(f, id.User, "a user id"); err != nil {
		return nil, false, fmt.Errorf("tenancy: list users: %w", err)
	}
	f.Limit = clampLimit(f.Limit)
	us, more, err := s.store.Users(ctx, f)
	if err != nil {
		return nil, false, fmt.Errorf("tenancy: list users: %w", err)
	}
	return us, more, nil
}

// APIKeys returns a page of API keys, newest first, without secrets, and
// whether more follow: all of them, or with tenantRef (id or slug) those
// pinned to that tenant. InvalidError (field "cursor"); ErrNotFound for
// an unknown tenant.
func (s *Index) APIKeys(ctx context.Context, tenantRef string, f KeyFilter) ([]APIKey, bool, error) {
	if f.Before != "" && !id.Valid(id.APIKey, f.Before) {
		return nil, false, fmt.Errorf("tenancy: list api keys: %w", invalid("cursor", "must be an API key id"))
	}
	f.TenantID = ""
	if tenantRef != "" {
		t, err := s.dir.FindTenant(ctx, tenantRef)
		if err != nil {
			return nil, false, err
		}
		f.TenantID = t.ID
	}
	f.Limit = clampLimit(f.Limit)
	ks, more, err := s.store.APIKeys(ctx, f)
	if err != nil {
		return nil, false, fmt.Errorf("tenancy: list api keys: %w", err)
	}
	return ks, more, nil
}

// checkSearch checks a search's text (its tag) and position.
func checkSearch(f SearchFilter, prefix, what string) error {
	fe := field.Errors{}
	fe.Merge(field.Check(f))
	if f.Before != "" && !id.Valid(prefix, f.Before) {
		fe.Add("cursor", field.Invalid, "must be "+what)
	}
	return fe.Err()
}
