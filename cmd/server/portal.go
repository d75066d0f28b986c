package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/httpapi/portal"
	portalstore "github.com/tenantkit/tenantkit/httpapi/portal/bunstore"
	"github.com/tenantkit/tenantkit/tenancy"
)

// defaultPublicURL is where sign-in links point when neither --base-url
// nor TENANTKIT_PUBLIC_URL says otherwise.
const defaultPublicURL = "http://localhost:8080"

// sessionSecret is the HS256 secret of session cookies: TENANTKIT_JWT_SECRET
// when set; else one generated at the first start and kept in the
// database (table portal_secrets), so that every replica on the database
// signs and verifies with the same one and sessions survive restarts.
func (a *app) sessionSecret(ctx context.Context) ([]byte, error) {
	if a.cfg.JWTSecret != "" {
		return []byte(a.cfg.JWTSecret), nil
	}
	return portalstore.New(a.db).Secret(ctx, "session_jwt", 32)
}

// mountPortal serves the portal at /portal/ on router, on the API's CSRF
// tokens and the session secret.
func (a *app) mountPortal(ctx context.Context, router *bunrouter.Router, api *httpapi.API, secret []byte) error {
	k := a.kit
	h, err := portal.New(ctx, portal.Config{
		Directory: k.Tenancy.Directory, Entitlements: k.Tenancy.Entitlements, Modules: k.Tenancy.Modules,
		Notifications: k.Tenancy.Notifications, Invoices: k.Billing, Payments: k.Payments, Tickets: k.Support, Contracts: k.Contracts, Events: k.Events, Webhooks: k.Outbound,
		Catalog: k.Catalog, Links: a.links(), SessionSecret: secret,
		SessionIssuer: a.cfg.JWTIssuer, SessionAudience: a.cfg.JWTAudience,
		CSRF: api.CSRF(), Logger: a.log,
	})
	if err != nil {
		return fmt.Errorf("portal: %w", err)
	}
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		router.Handle(m, "/portal", adapt("/portal", h))
		router.Handle(m, "/portal/*path", adapt("/portal/*path", h))
	}
	return nil
}

func (a *app) links() *portal.Links { return a.kit.SignInLinks }

// runLoginLink prints a one-time sign-in link to the portal.
func runLoginLink(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg config
	var email, tenant, baseURL string
	fs := flag.NewFlagSet("login-link", flag.ContinueOnError)
	commonFlags(fs, &cfg)
	fs.StringVar(&email, "email", "", "the user's email")
	fs.StringVar(&tenant, "tenant", "", "tenant id or slug to start in (optional)")
	fs.StringVar(&baseURL, "base-url", env("PUBLIC_URL", defaultPublicURL), "the server's public URL (TENANTKIT_PUBLIC_URL)")
	positional, err := parse("login-link", fs, args, stdout)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageError("login-link", "unexpected argument %q", positional[0])
	}
	if email == "" {
		return usageError("login-link", "--email is required")
	}
	a, err := openApp(ctx, cfg, stderr, false)
	if err != nil {
		return err
	}
	defer a.close()
	link, err := a.links().Issue(tenancy.WithActor(ctx, cliActor()), email, tenant, baseURL)
	if err != nil {
		return err
	}
	return output(stdout, cfg.JSON, link, fmt.Sprintf("%s\n(valid once, until %s)", link.URL, link.ExpiresAt.Format(time.RFC3339)))
}

// printDemoLinks prints a sign-in link for each demo user.
func printDemoLinks(ctx context.Context, w io.Writer, a *app, url string, s demoSeed) {
	fmt.Fprintf(w, "Tenant portal: %s/portal/ — one-time sign-in links (15 minutes):\n", url)
	for _, u := range s.Users {
		link, err := a.links().Issue(ctx, u.Email, "", url)
		if err != nil {
			fmt.Fprintf(w, "  %s: %v\n", u.Email, err)
			continue
		}
		fmt.Fprintf(w, "  %-22s %s\n", u.Email, link.URL)
	}
	fmt.Fprintln(w)
}
