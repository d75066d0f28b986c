package tenancy

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// DirectoryStore is the persistence Directory needs: tenants, users,
// memberships and the selected tenant of each credential. Implementations
// must be safe for concurrent use, join the transaction carried by ctx when
// there is one, and translate driver errors into the sentinels named
// below; raw driver errors never leave a Store. tenancytest.RunDirectory
// checks all of it.
type DirectoryStore interface {
	// CreateTenant inserts t. ErrConflict when the slug is taken.
	CreateTenant(ctx context.Context, t Tenant) error
	// Tenant returns the tenant with id. ErrNotFound when absent.
	Tenant(ctx context.Context, id string) (Tenant, error)
	// TenantBySlug returns the tenant with slug. ErrNotFound when absent.
	TenantBySlug(ctx context.Context, slug string) (Tenant, error)

	// CreateUser inserts u. ErrConflict when the email is taken.
	CreateUser(ctx context.Context, u User) error
	// User returns the user with id. ErrNotFound when absent.
	User(ctx context.Context, id string) (User, error)
	// UserByEmail returns the user with that (lower-case) email. ErrNotFound when absent.
	UserByEmail(ctx context.Context, email string) (User, error)

	// AddMembership inserts m. ErrConflict when the user is already a
	// member; ErrNotFound when the tenant or user does not exist.
	AddMembership(ctx context.Context, m Membership) error
	// Membership returns the user's membership of the tenant. ErrNotFound
	// when the user is not a member.
	Membership(ctx context.Context, tenantID, userID string) (Membership, error)
	// Memberships lists the user's tenants with roles, ordered by tenant
	// slug; none (not an error) for an unknown user.
	Memberships(ctx context.Context, userID string) ([]TenantMembership, error)

	// SetSelection records tenantID as the active tenant of a credential,
	// replacing an earlier one. ErrNotFound when the tenant or user does
	// not exist.
	SetSelection(ctx context.Context, credential, userID, tenantID string, at time.Time) error
	// Selection returns the active tenant recorded for a credential.
	// ErrNotFound when none is recorded.
	Selection(ctx context.Context, credential string) (string, error)
}

// Directory holds who is who: tenants on their plans, users, who is a
// member of which tenant with which role, and which tenant a credential
// acts for.
type Directory struct {
	store   DirectoryStore
	catalog *catalog.Catalog
	now     func() time.Time
	events  Events
	tx      Transactor // set by New; nil: a creation and its event are not atomic
}

// NewDirectory returns a Directory on store whose plans come from cat.
func NewDirectory(store DirectoryStore, cat *catalog.Catalog, opts ...Option) *Directory {
	o := newOptions(opts)
	return &Directory{store: store, catalog: cat, now: o.now, events: o.events}
}

// CreateTenantInput is what CreateTenant needs: the body of POST
// /api/operator/tenants, decoded as is. Its tags are the rules of each
// value, its json names the fields of an InvalidError; the plan's existence
// is checked by CreateTenant.
type CreateTenantInput struct {
	// Slug names the tenant in URLs: lower-case letters, digits and inner
	// hyphens, at most 63 (a DNS label's length).
	Slug string `json:"slug" validate:"required,max=63,slug"`
	// Name is the display name; surrounding white space is dropped.
	Name string `json:"name" validate:"required,max=200,line"`
	// PlanID is the id of a plan of the catalog (whose ids have at most 64
	// characters).
	PlanID string `json:"plan_id" validate:"required,max=64,line"`
	// Test makes a test tenant, with its own clock starting now.
	Test bool `json:"test"`
}

// CreateTenant creates a tenant on a plan of the catalog, with the plan's
// included seats, billed by the platform from its first period (the
// store starts its billed-through mark at that period's start). InvalidError (fields "slug", "name", "plan_id");
// ErrConflict when the slug is taken.
func (s *Directory) CreateTenant(ctx context.Context, in CreateTenantInput) (Tenant, error) {
	in.Name = strings.TrimSpace(in.Name)
	f := field.Errors{}
	f.Merge(field.Check(in))
	plan, ok := s.catalog.Plan(in.PlanID)
	if !ok {
		f.Addf("plan_id", field.Invalid, "unknown plan %q", in.PlanID)
	}
	if err := f.Err(); err != nil {
		return Tenant{}, fmt.Errorf("tenancy: create tenant: %w", err)
	}
	t := Tenant{
		ID: id.New(id.Tenant), Slug: in.Slug, Name: in.Name,
		PlanID: plan.ID, Seats: plan.IncludedSeats, CreatedAt: s.now().UTC().Truncate(time.Microsecond), Test: in.Test,
	}
	if t.Test {
		clock := t.CreatedAt
		t.TestClock = &clock
	}
	err := inTx(ctx, s.tx, func(ctx context.Context) error {
		if err := s.store.CreateTenant(ctx, t); err != nil {
			return err
		}
		return record(ctx, s.events, t.ID, eventTenantCreated, "tenant", t.ID, t)
	})
	if err != nil {
		return Tenant{}, fmt.Errorf("tenancy: create tenant %q: %w", in.Slug, err)
	}
	return t, nil
}

// Tenant returns a tenant by id. ErrNotFound when absent.
func (s *Directory) Tenant(ctx context.Context, tenantID string) (Tenant, error) {
	t, err := s.store.Tenant(ctx, tenantID)
	if err != nil {
		return Tenant{}, fmt.Errorf("tenancy: tenant %s: %w", tenantID, err)
	}
	return t, nil
}

// FindTenant returns a tenant by id or slug, as operators type either.
// ErrNotFound when absent.
func (s *Directory) FindTenant(ctx context.Context, ref string) (Tenant, error) {
	var (
		t   Tenant
		err error
	)
	if id.Valid(id.Tenant, ref) {
		t, err = s.store.Tenant(ctx, ref)
	} else {
		t, err = s.store.TenantBySlug(ctx, ref)
	}
	if err != nil {
		return Tenant{}, fmt.Errorf("tenancy: tenant %q: %w", ref, err)
	}
	return t, nil
}

// CreateUserInput is what CreateUser needs: the body of POST
// /api/operator/users, decoded as is. Its tags are the rules of each value,
// checked once the email is trimmed and in lower case and the name trimmed.
type CreateUserInput struct {
	Email string `json:"email" validate:"required,max=254,email"`
	Name  string `json:"name" validate:"required,max=200,line"`
}

// CreateUser creates a user. Emails are stored lower-case and unique:
// ErrConflict when the email is taken; InvalidError (fields "email",
// "name").
func (s *Directory) CreateUser(ctx context.Context, in CreateUserInput) (User, error) {
	in.Email, in.Name = NormalizeEmail(in.Email), strings.TrimSpace(in.Name)
	if err := field.Check(in); err != nil {
		return User{}, fmt.Errorf("tenancy: create user: %w", err)
	}
	u := User{ID: id.New(id.User), Email: in.Email, Name: in.Name, CreatedAt: s.now().UTC()}
	err := inTx(ctx, s.tx, func(ctx context.Context) error {
		if err := s.store.CreateUser(ctx, u); err != nil {
			return err
		}
		return record(ctx, s.events, "", eventUserCreated, "user", u.ID, u)
	})
	if err != nil {
		return User{}, fmt.Errorf("tenancy: create user %s: %w", in.Email, err)
	}
	return u, nil
}

// User returns a user by id. ErrNotFound when absent.
func (s *Directory) User(ctx context.Context, userID string) (User, error) {
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return User{}, fmt.Errorf("tenancy: user %s: %w", userID, err)
	}
	return u, nil
}

// UserByEmail returns a user by email (case-insensitive). ErrNotFound when
// absent.
func (s *Directory) UserByEmail(ctx context.Context, email string) (User, error) {
	norm := NormalizeEmail(email)
	// An address no user can have (UserRef.Email's rule) names no user,
	// and need not reach the store.
	if norm == "" || field.Check(UserRef{Email: norm}) != nil {
		return User{}, fmt.Errorf("tenancy: user %q: %w", email, ErrNotFound)
	}
	u, err := s.store.UserByEmail(ctx, norm)
	if err != nil {
		return User{}, fmt.Errorf("tenancy: user %s: %w", norm, err)
	}
	return u, nil
}

// UserRef names a user by id or by email, as the operator API's bodies do
// (which of the two, or both, is theirs to say). Its tags are the form of
// each, of an email once normalized (NormalizeEmail): the form CreateUser
// gives every address.
type UserRef struct {
	UserID string `json:"user_id" validate:"omitempty,id=usr"`
	Email  string `json:"email" validate:"omitempty,max=254,email"`
}

// FindUser returns a user by id or email, as operators type either.
// ErrNotFound when absent.
func (s *Directory) FindUser(ctx context.Context, ref string) (User, error) {
	if id.Valid(id.User, ref) {
		return s.User(ctx, ref)
	}
	return s.UserByEmail(ctx, ref)
}

// Memberships lists the tenants a user belongs to, with roles.
func (s *Directory) Memberships(ctx context.Context, userID string) ([]TenantMembership, error) {
	ms, err := s.store.Memberships(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("tenancy: memberships of %s: %w", userID, err)
	}
	return ms, nil
}

// NormalizeEmail is an email as users are stored and found by: trimmed, in
// lower case.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
