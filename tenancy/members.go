package tenancy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// Member is a membership with its user, as a tenant's members are listed.
type Member struct {
	TenantID string `json:"tenant_id"`
	UserID   string `json:"user_id"`
	Email    string `json:"email"`
	Name     string `json:"name"`
	Role     Role   `json:"role"`
	// CreatedAt is when the user joined the tenant.
	CreatedAt time.Time `json:"created_at"`
}

// MemberFilter selects a page of a tenant's members.
type MemberFilter struct {
	// Limit is the page size: 20 when 0, clamped to 1..100.
	Limit int
	// Before continues a list after the member with this user id.
	Before string
}

// ErrLastOwner: the change would leave a tenant without an owner. It
// matches ErrConflict.
var ErrLastOwner error = &conflictError{msg: "a tenant must keep an owner: make another member owner first"}

// errAlreadyMember refuses to add a member twice.
var errAlreadyMember error = &conflictError{msg: "the user is a member of this tenant already"}

// conflictError is a refusal that matches ErrConflict but says more
// than "already exists".
type conflictError struct{ msg string }

// Error implements error.
func (e *conflictError) Error() string { return e.msg }

// Detail is the sentence a client is shown.
func (e *conflictError) Detail() string { return e.msg }

// Is makes errors.Is(err, ErrConflict) true.
func (e *conflictError) Is(target error) bool { return target == ErrConflict }

// MemberStore is the persistence Members needs beside the DirectoryStore
// (which adds and reads single memberships). Implementations must be safe
// for concurrent use, join the transaction carried by ctx when there is
// one, confine every read and write to the tenant they are given, and
// translate driver errors into the sentinels named below.
// tenancytest.RunMembers checks all of it.
type MemberStore interface {
	// LockTenant locks the tenant's row until the transaction in ctx ends
	// (SELECT … FOR UPDATE on Postgres; SQLite serialises writers
	// anyway), so that changes of one tenant's members, and of its
	// contract, run one at a time. ErrNotFound when the tenant does not
	// exist.
	LockTenant(ctx context.Context, tenantID string) error
	// CountMembers returns how many members the tenant has with role, or
	// with any role when role is "". No error but a storage fault.
	CountMembers(ctx context.Context, tenantID string, role Role) (int64, error)
	// Members returns up to f.Limit (≥ 1) of the tenant's members with
	// their users, newest user (highest user id) first, with user id <
	// f.Before when set; and whether more follow. No error but a storage
	// fault.
	Members(ctx context.Context, tenantID string, f MemberFilter) (page []Member, hasMore bool, err error)
	// SetMemberRole changes the role of the user's membership of the
	// tenant. ErrNotFound when the user is not a member.
	SetMemberRole(ctx context.Context, tenantID, userID string, role Role) error
	// RemoveMember ends the user's membership of the tenant, and forgets
	// the tenant as the active one of the user's credentials.
	// ErrNotFound when the user is not a member.
	RemoveMember(ctx context.Context, tenantID, userID string) error
}

// Members changes who belongs to a tenant: adding a member takes one of
// the tenant's seats (the entitlement catalog.FeatureSeats: its contract's
// seats, or an operator's override), removing one frees it, and no change
// leaves a tenant without an owner. Each change locks the tenant
// (MemberStore.LockTenant), so that concurrent changes of one tenant run
// one after the other and never pass its seats.
type Members struct {
	store  MemberStore
	dir    *Directory
	ent    *Entitlements
	tx     Transactor
	now    func() time.Time
	events Events
	// sessions, when set, has Remove end the sessions acting for the
	// tenant (tenancy.New sets it).
	sessions *Sessions
}

// NewMembers returns Members on store, finding tenants and users in dir
// and seats in ent, running each change in a transaction of tx. It panics
// when tx is nil: without one the seat check and the insert would not be
// atomic.
func NewMembers(store MemberStore, dir *Directory, ent *Entitlements, tx Transactor, opts ...Option) *Members {
	if tx == nil {
		panic("tenancy: NewMembers without a Transactor: concurrent adds could pass the seats")
	}
	o := newOptions(opts)
	return &Members{store: store, dir: dir, ent: ent, tx: tx, now: o.now, events: o.events}
}

// Add makes the user (id or email) a member of the tenant (id or slug)
// with role, if the tenant has a free seat. A *LimitError (matching
// ErrLimitExceeded, with Feature catalog.FeatureSeats and no ResetsAt)
// when every seat is taken, under any concurrency; InvalidError (field
// "role"); ErrNotFound for an unknown tenant or user; ErrConflict when the
// user is a member already.
func (s *Members) Add(ctx context.Context, tenantRef, userRef string, role Role) (Member, error) {
	if err := field.Check(RoleInput{Role: role}); err != nil {
		return Member{}, fmt.Errorf("tenancy: add member: %w", err)
	}
	t, err := s.dir.FindTenant(ctx, tenantRef)
	if err != nil {
		return Member{}, err
	}
	u, err := s.dir.FindUser(ctx, userRef)
	if err != nil {
		return Member{}, err
	}
	m := Membership{TenantID: t.ID, UserID: u.ID, Role: role, CreatedAt: s.now().UTC()}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.store.LockTenant(ctx, t.ID); err != nil {
			return err
		}
		switch _, err := s.dir.store.Membership(ctx, t.ID, u.ID); {
		case err == nil:
			return errAlreadyMember
		case !errors.Is(err, ErrNotFound):
			return err
		}
		if err := s.ent.seatFree(ctx, t.ID); err != nil {
			return err
		}
		if err := s.dir.store.AddMembership(ctx, m); err != nil {
			return err
		}
		return record(ctx, s.events, t.ID, eventMemberAdded, "member", u.ID, memberOf(m, u))
	})
	if err != nil {
		return Member{}, fmt.Errorf("tenancy: add %s to %s: %w", u.Email, t.Slug, err)
	}
	return memberOf(m, u), nil
}

// SetRole changes the role of the user (id or email) in the tenant (id or
// slug). ErrLastOwner when it would demote the tenant's only owner;
// InvalidError (field "role"); ErrNotFound for an unknown tenant or user,
// or a user who is not a member.
func (s *Members) SetRole(ctx context.Context, tenantRef, userRef string, role Role) (Member, error) {
	if err := field.Check(RoleInput{Role: role}); err != nil {
		return Member{}, fmt.Errorf("tenancy: set role: %w", err)
	}
	t, u, err := s.find(ctx, tenantRef, userRef)
	if err != nil {
		return Member{}, err
	}
	var m Membership
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		cur, err := s.lockMember(ctx, t.ID, u.ID, role != RoleOwner)
		if err != nil {
			return err
		}
		m = cur
		if cur.Role == role {
			return nil
		}
		m.Role = role
		if err := s.store.SetMemberRole(ctx, t.ID, u.ID, role); err != nil {
			return err
		}
		return record(ctx, s.events, t.ID, eventMemberRole, "member", u.ID, memberOf(m, u))
	})
	if err != nil {
		return Member{}, fmt.Errorf("tenancy: set role of %s in %s: %w", u.Email, t.Slug, err)
	}
	return memberOf(m, u), nil
}

// Remove ends the membership of the user (id or email) in the tenant (id
// or slug), which frees a seat, and ends the user's sessions acting for
// the tenant: those whose active tenant it is, and all of them when it was
// the user's only tenant. ErrLastOwner for the tenant's only owner;
// ErrNotFound for an unknown tenant or user, or a user who is not a
// member.
func (s *Members) Remove(ctx context.Context, tenantRef, userRef string) error {
	t, u, err := s.find(ctx, tenantRef, userRef)
	if err != nil {
		return err
	}
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		if _, err := s.lockMember(ctx, t.ID, u.ID, true); err != nil {
			return err
		}
		if s.sessions != nil { // before RemoveMember forgets the selections
			if err := s.sessions.endForRemoval(ctx, t.ID, u.ID); err != nil {
				return err
			}
		}
		if err := s.store.RemoveMember(ctx, t.ID, u.ID); err != nil {
			return err
		}
		return record(ctx, s.events, t.ID, eventMemberRemoved, "member", u.ID, removedMember{TenantID: t.ID, UserID: u.ID})
	})
	if err != nil {
		return fmt.Errorf("tenancy: remove %s from %s: %w", u.Email, t.Slug, err)
	}
	return nil
}

// List returns a page of the tenant's (id or slug) members, newest user
// first, and whether more follow (continue with f.Before set to the last
// user id). InvalidError (field "cursor") for a Before that is no user id;
// ErrNotFound for an unknown tenant.
func (s *Members) List(ctx context.Context, tenantRef string, f MemberFilter) ([]Member, bool, error) {
	if f.Before != "" && !id.Valid(id.User, f.Before) {
		return nil, false, fmt.Errorf("tenancy: members: %w", invalid("cursor", "must be a user id"))
	}
	t, err := s.dir.FindTenant(ctx, tenantRef)
	if err != nil {
		return nil, false, err
	}
	f.Limit = clampLimit(f.Limit)
	ms, more, err := s.store.Members(ctx, t.ID, f)
	if err != nil {
		return nil, false, fmt.Errorf("tenancy: members of %s: %w", t.Slug, err)
	}
	return ms, more, nil
}

// find returns the tenant and the user a change names.
func (s *Members) find(ctx context.Context, tenantRef, userRef string) (Tenant, User, error) {
	t, err := s.dir.FindTenant(ctx, tenantRef)
	if err != nil {
		return Tenant{}, User{}, err
	}
	u, err := s.dir.FindUser(ctx, userRef)
	if err != nil {
		return Tenant{}, User{}, err
	}
	return t, u, nil
}

// lockMember locks the tenant and returns the user's membership of it.
// With losesOwner (the change takes the membership's owner role away), it
// refuses with ErrLastOwner when the membership is the tenant's only
// owner: counted under the lock, so that two owners removing each other
// at once cannot both succeed.
func (s *Members) lockMember(ctx context.Context, tenantID, userID string, losesOwner bool) (Membership, error) {
	if err := s.store.LockTenant(ctx, tenantID); err != nil {
		return Membership{}, err
	}
	m, err := s.dir.store.Membership(ctx, tenantID, userID)
	if err != nil {
		return Membership{}, err
	}
	if losesOwner && m.Role == RoleOwner {
		owners, err := s.store.CountMembers(ctx, tenantID, RoleOwner)
		if err != nil {
			return Membership{}, err
		}
		if owners <= 1 {
			return Membership{}, ErrLastOwner
		}
	}
	return m, nil
}

// seatFree returns a *LimitError unless the tenant has a free seat. It
// reads the store, never a state the context carries: the caller holds
// the tenant's lock, and only a read made under it counts the members
// that concurrent adds committed.
func (s *Entitlements) seatFree(ctx context.Context, tenantID string) error {
	st, err := s.store.EntitlementState(ctx, tenantID, StateQuery{Period: periodKey(Now(ctx, s.now))})
	if err != nil {
		return err
	}
	plan, ok := s.catalog.Plan(st.PlanID)
	if !ok {
		return fmt.Errorf("tenancy: tenant %s is on plan %q, which the catalog lacks", tenantID, st.PlanID)
	}
	limit := limitOf(st, plan, catalog.FeatureSeats)
	if limit >= 0 && st.Members >= limit {
		return &LimitError{Feature: catalog.FeatureSeats, Unit: "seats", Limit: limit, Usage: st.Members}
	}
	return nil
}

func memberOf(m Membership, u User) Member {
	return Member{TenantID: m.TenantID, UserID: u.ID, Email: u.Email, Name: u.Name, Role: m.Role, CreatedAt: m.CreatedAt}
}
