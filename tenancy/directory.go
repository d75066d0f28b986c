package tenancy

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"regexp"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
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

// Input bounds.
const (
	maxNameLen  = 200
	maxEmailLen = 254
)

// slugRE is a slug's form; its length, at most maxSlugLen, is checked
// apart: {0,61} here compiled at start into a program of 61 copies, 0.8 of
// the server's 20 ms of package initialisation (GODEBUG=inittrace=1).
var slugRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$`)

// maxSlugLen is the longest slug, a DNS label's length.
const maxSlugLen = 63

// CreateTenantInput is what CreateTenant needs.
type CreateTenantInput struct {
	Slug   string
	Name   string
	PlanID string
}

// CreateTenant creates a tenant on a plan of the catalog, with the plan's
// included seats. InvalidError (fields "slug", "name", "plan");
// ErrConflict when the slug is taken.
func (s *Directory) CreateTenant(ctx context.Context, in CreateTenantInput) (Tenant, error) {
	fields := map[string]string{}
	if len(in.Slug) > maxSlugLen || !slugRE.MatchString(in.Slug) {
		fields["slug"] = "must be 1-63 lower-case letters, digits or inner hyphens"
	}
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" || len(in.Name) > maxNameLen {
		fields["name"] = fmt.Sprintf("must be 1-%d characters", maxNameLen)
	}
	plan, ok := s.catalog.Plan(in.PlanID)
	if !ok {
		fields["plan"] = fmt.Sprintf("unknown plan %q", in.PlanID)
	}
	if len(fields) > 0 {
		return Tenant{}, fmt.Errorf("tenancy: create tenant: %w", &InvalidError{Fields: fields})
	}
	t := Tenant{
		ID: id.New(id.Tenant), Slug: in.Slug, Name: in.Name,
		PlanID: plan.ID, Seats: plan.IncludedSeats, CreatedAt: s.now().UTC(),
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

// CreateUserInput is what CreateUser needs.
type CreateUserInput struct {
	Email string
	Name  string
}

// CreateUser creates a user. Emails are stored lower-case and unique:
// ErrConflict when the email is taken; InvalidError (fields "email",
// "name").
func (s *Directory) CreateUser(ctx context.Context, in CreateUserInput) (User, error) {
	fields := map[string]string{}
	email, err := normalizeEmail(in.Email)
	if err != nil {
		fields["email"] = err.Error()
	}
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" || len(in.Name) > maxNameLen {
		fields["name"] = fmt.Sprintf("must be 1-%d characters", maxNameLen)
	}
	if len(fields) > 0 {
		return User{}, fmt.Errorf("tenancy: create user: %w", &InvalidError{Fields: fields})
	}
	u := User{ID: id.New(id.User), Email: email, Name: in.Name, CreatedAt: s.now().UTC()}
	err = inTx(ctx, s.tx, func(ctx context.Context) error {
		if err := s.store.CreateUser(ctx, u); err != nil {
			return err
		}
		return record(ctx, s.events, "", eventUserCreated, "user", u.ID, u)
	})
	if err != nil {
		return User{}, fmt.Errorf("tenancy: create user %s: %w", email, err)
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
	norm, err := normalizeEmail(email)
	if err != nil {
		return User{}, fmt.Errorf("tenancy: user %q: %w", email, ErrNotFound)
	}
	u, err := s.store.UserByEmail(ctx, norm)
	if err != nil {
		return User{}, fmt.Errorf("tenancy: user %s: %w", norm, err)
	}
	return u, nil
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

func normalizeEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" || len(email) > maxEmailLen {
		return "", fmt.Errorf("must be a valid email address of at most %d characters", maxEmailLen)
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email {
		return "", errors.New("must be a valid email address")
	}
	return email, nil
}
