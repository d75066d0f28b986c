package main

import (
	"context"

	"github.com/tenantkit/tenantkit/tenancy"
)

// The commands that name a tenant and a user look both up before they
// act, so that a missing one is reported by name: the services answer
// either with the same bare "not found".

// findTenant returns the tenant with id or slug ref; `tenant "x" not
// found` when there is none.
func (a *app) findTenant(ctx context.Context, ref string) (tenancy.Tenant, error) {
	t, err := a.tenancy.Directory.FindTenant(ctx, ref)
	return t, about(err, "tenant %q", ref)
}

// findUser returns the user with email or id ref; `user "x" not found`
// when there is none.
func (a *app) findUser(ctx context.Context, ref string) (tenancy.User, error) {
	u, err := a.tenancy.Directory.FindUser(ctx, ref)
	return u, about(err, "user %q", ref)
}

// findTenantAndUser looks up the tenant and the user a member command
// names, so that its own "not found" can only be about the membership.
func (a *app) findTenantAndUser(ctx context.Context, tenant, user string) error {
	if _, err := a.findTenant(ctx, tenant); err != nil {
		return err
	}
	_, err := a.findUser(ctx, user)
	return err
}
