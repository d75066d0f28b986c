package tenancy

import (
	"context"
	"errors"
	"fmt"
)

// Credential identifies what a request was authenticated with, for
// remembering its active tenant: an API key id, a session id (a JWT's
// "sid"), or the user id when there is neither.
type Credential struct {
	// Key is unique per credential, e.g. "key:key_01…", "sid:abc", "user:usr_01…".
	Key string
	// UserID is the user the credential belongs to.
	UserID string
	// PinnedTenantID is set for an API key pinned to one tenant.
	PinnedTenantID string
}

// SelectTenant records tenantID as the credential's active tenant, visible
// to every server replica. ErrNotFound when the user is not a member (so
// that a tenant one does not belong to is indistinguishable from none).
func (s *Directory) SelectTenant(ctx context.Context, cred Credential, tenantID string) (Membership, error) {
	if cred.PinnedTenantID != "" && cred.PinnedTenantID != tenantID {
		return Membership{}, fmt.Errorf("tenancy: select %s: key is pinned to another tenant: %w", tenantID, ErrNotFound)
	}
	m, err := s.store.Membership(ctx, tenantID, cred.UserID)
	if err != nil {
		return Membership{}, fmt.Errorf("tenancy: select tenant %s: %w", tenantID, err)
	}
	if err := s.store.SetSelection(ctx, cred.Key, cred.UserID, tenantID, s.now().UTC()); err != nil {
		return Membership{}, fmt.Errorf("tenancy: select tenant %s: %w", tenantID, err)
	}
	return m, nil
}

// ResolveTenant decides which tenant a request acts for, in this order: a
// tenant named by the request (X-Tenant-ID, which must be a membership:
// ErrNotMember otherwise), the key's pinned tenant, the credential's
// selection, the user's only membership. ErrTenantNotSelected when the user
// has several and chose none; ErrNoTenant when they have none.
func (s *Directory) ResolveTenant(ctx context.Context, cred Credential, requested string) (Membership, error) {
	switch {
	case requested != "":
		if cred.PinnedTenantID != "" && requested != cred.PinnedTenantID {
			return Membership{}, fmt.Errorf("tenancy: tenant %s: key is pinned to another tenant: %w", requested, ErrNotMember)
		}
		return s.membership(ctx, requested, cred.UserID, ErrNotMember)
	case cred.PinnedTenantID != "":
		return s.membership(ctx, cred.PinnedTenantID, cred.UserID, ErrNotMember)
	}
	selected, err := s.store.Selection(ctx, cred.Key)
	switch {
	case err == nil:
		m, err := s.store.Membership(ctx, selected, cred.UserID)
		if err == nil {
			return m, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return Membership{}, fmt.Errorf("tenancy: resolve tenant: %w", err)
		}
		// The membership was removed since: fall through to the defaults.
	case !errors.Is(err, ErrNotFound):
		return Membership{}, fmt.Errorf("tenancy: resolve tenant: %w", err)
	}
	ms, err := s.store.Memberships(ctx, cred.UserID)
	if err != nil {
		return Membership{}, fmt.Errorf("tenancy: resolve tenant: %w", err)
	}
	switch len(ms) {
	case 0:
		return Membership{}, fmt.Errorf("tenancy: resolve tenant: %w", ErrNoTenant)
	case 1:
		return Membership{TenantID: ms[0].Tenant.ID, UserID: cred.UserID, Role: ms[0].Role, TestClock: ms[0].Tenant.TestClock}, nil
	default:
		return Membership{}, fmt.Errorf("tenancy: resolve tenant: %w", ErrTenantNotSelected)
	}
}

func (s *Directory) membership(ctx context.Context, tenantID, userID string, notFound error) (Membership, error) {
	m, err := s.store.Membership(ctx, tenantID, userID)
	if errors.Is(err, ErrNotFound) {
		return Membership{}, fmt.Errorf("tenancy: tenant %s: %w", tenantID, notFound)
	}
	if err != nil {
		return Membership{}, fmt.Errorf("tenancy: tenant %s: %w", tenantID, err)
	}
	return m, nil
}
