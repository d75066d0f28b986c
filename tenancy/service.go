package tenancy

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/id"
)

// Service holds the rules of tenancy: who may act for which tenant, with
// which credential, within which entitlements.
type Service struct {
	store   Store
	catalog *catalog.Catalog
	now     func() time.Time
}

// Option configures a Service.
type Option func(*Service)

// WithClock makes the service read time from now (tests use a fixed clock).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// NewService returns a Service on store whose plans come from cat.
func NewService(store Store, cat *catalog.Catalog, opts ...Option) *Service {
	s := &Service{store: store, catalog: cat, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Catalog returns the catalog the service was built with.
func (s *Service) Catalog() *catalog.Catalog { return s.catalog }

// Input bounds.
const (
	maxNameLen  = 200
	maxEmailLen = 254
)

var slugRE = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)

// CreateTenantInput is what CreateTenant needs.
type CreateTenantInput struct {
	Slug   string
	Name   string
	PlanID string
}

// CreateTenant creates a tenant on a plan of the catalog, with the plan's
// included seats.
func (s *Service) CreateTenant(ctx context.Context, in CreateTenantInput) (Tenant, error) {
	fields := map[string]string{}
	if !slugRE.MatchString(in.Slug) {
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
	if err := s.store.CreateTenant(ctx, t); err != nil {
		return Tenant{}, fmt.Errorf("tenancy: create tenant %q: %w", in.Slug, err)
	}
	return t, nil
}

// Tenant returns a tenant by id.
func (s *Service) Tenant(ctx context.Context, tenantID string) (Tenant, error) {
	t, err := s.store.Tenant(ctx, tenantID)
	if err != nil {
		return Tenant{}, fmt.Errorf("tenancy: tenant %s: %w", tenantID, err)
	}
	return t, nil
}

// FindTenant returns a tenant by id or slug, as operators type either.
func (s *Service) FindTenant(ctx context.Context, ref string) (Tenant, error) {
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

// CreateUser creates a user. Emails are stored lower-case and unique.
func (s *Service) CreateUser(ctx context.Context, in CreateUserInput) (User, error) {
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
	if err := s.store.CreateUser(ctx, u); err != nil {
		return User{}, fmt.Errorf("tenancy: create user %s: %w", email, err)
	}
	return u, nil
}

// User returns a user by id.
func (s *Service) User(ctx context.Context, userID string) (User, error) {
	u, err := s.store.User(ctx, userID)
	if err != nil {
		return User{}, fmt.Errorf("tenancy: user %s: %w", userID, err)
	}
	return u, nil
}

// UserByEmail returns a user by email (case-insensitive).
func (s *Service) UserByEmail(ctx context.Context, email string) (User, error) {
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

// AddMember makes the user with email a member of the tenant (id or slug)
// with role.
func (s *Service) AddMember(ctx context.Context, tenantRef, email string, role Role) (Membership, error) {
	if !role.Valid() {
		return Membership{}, fmt.Errorf("tenancy: add member: %w", invalid("role", fmt.Sprintf("must be one of %v", Roles())))
	}
	t, err := s.FindTenant(ctx, tenantRef)
	if err != nil {
		return Membership{}, err
	}
	u, err := s.UserByEmail(ctx, email)
	if err != nil {
		return Membership{}, err
	}
	m := Membership{TenantID: t.ID, UserID: u.ID, Role: role, CreatedAt: s.now().UTC()}
	if err := s.store.AddMembership(ctx, m); err != nil {
		return Membership{}, fmt.Errorf("tenancy: add %s to %s: %w", u.Email, t.Slug, err)
	}
	return m, nil
}

// Memberships lists the tenants a user belongs to, with roles.
func (s *Service) Memberships(ctx context.Context, userID string) ([]TenantMembership, error) {
	ms, err := s.store.Memberships(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("tenancy: memberships of %s: %w", userID, err)
	}
	return ms, nil
}

// CreateAPIKeyInput is what CreateAPIKey needs.
type CreateAPIKeyInput struct {
	// UserEmail names the key's user.
	UserEmail string
	// Scopes the key carries; at least one.
	Scopes []Scope
	// Tenant (id or slug) pins the key to one tenant; optional.
	Tenant string
	// Name helps people recognise the key; optional.
	Name string
}

// CreateAPIKey creates a key and returns it with its secret, which is not
// stored and cannot be shown again.
func (s *Service) CreateAPIKey(ctx context.Context, in CreateAPIKeyInput) (APIKey, string, error) {
	fields := map[string]string{}
	if len(in.Scopes) == 0 {
		fields["scopes"] = "at least one scope is required"
	}
	for _, sc := range in.Scopes {
		if !sc.Valid() {
			fields["scopes"] = fmt.Sprintf("unknown scope %q (known: %v)", sc, Scopes())
		}
	}
	if len(in.Name) > maxNameLen {
		fields["name"] = fmt.Sprintf("must be at most %d characters", maxNameLen)
	}
	if len(fields) > 0 {
		return APIKey{}, "", fmt.Errorf("tenancy: create api key: %w", &InvalidError{Fields: fields})
	}
	u, err := s.UserByEmail(ctx, in.UserEmail)
	if err != nil {
		return APIKey{}, "", err
	}
	k := APIKey{ID: id.New(id.APIKey), UserID: u.ID, Name: in.Name, CreatedAt: s.now().UTC()}
	k.Scopes = slices.Compact(slices.Sorted(slices.Values(in.Scopes)))
	if in.Tenant != "" {
		t, err := s.FindTenant(ctx, in.Tenant)
		if err != nil {
			return APIKey{}, "", err
		}
		if _, err := s.store.Membership(ctx, t.ID, u.ID); err != nil {
			return APIKey{}, "", fmt.Errorf("tenancy: pin key to %s: %w", t.Slug, ErrNotMember)
		}
		k.TenantID = t.ID
	}
	secret, err := newSecret()
	if err != nil {
		return APIKey{}, "", fmt.Errorf("tenancy: generate key: %w", err)
	}
	k.Prefix = secret[:len(KeyPrefix)+6]
	if err := s.store.CreateAPIKey(ctx, k, HashSecret(secret)); err != nil {
		return APIKey{}, "", fmt.Errorf("tenancy: create api key: %w", err)
	}
	return k, secret, nil
}

// RevokeAPIKey revokes a key; requests with it fail from then on.
func (s *Service) RevokeAPIKey(ctx context.Context, keyID string) error {
	if err := s.store.RevokeAPIKey(ctx, keyID, s.now().UTC()); err != nil {
		return fmt.Errorf("tenancy: revoke key %s: %w", keyID, err)
	}
	return nil
}

// AuthenticateAPIKey returns the key and user behind a secret.
// ErrUnauthenticated for an unknown or revoked key.
func (s *Service) AuthenticateAPIKey(ctx context.Context, secret string) (APIKey, User, error) {
	if !LooksLikeKey(secret) || len(secret) > maxSecretLen {
		return APIKey{}, User{}, fmt.Errorf("tenancy: api key: %w", ErrUnauthenticated)
	}
	k, u, err := s.store.APIKeyByHash(ctx, HashSecret(secret))
	if errors.Is(err, ErrNotFound) || (err == nil && k.RevokedAt != nil) {
		return APIKey{}, User{}, fmt.Errorf("tenancy: api key: %w", ErrUnauthenticated)
	}
	if err != nil {
		return APIKey{}, User{}, fmt.Errorf("tenancy: api key: %w", err)
	}
	return k, u, nil
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
