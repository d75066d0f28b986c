package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/portal"
	portalstore "github.com/tenantkit/tenantkit/portal/bunstore"
	"github.com/tenantkit/tenantkit/tenancy"
)

// listenURL is the base URL of a server listening on addr, as a browser
// on the same machine reaches it: an unspecified host (":8080",
// "0.0.0.0:8080") is 127.0.0.1. Sign-in links point at it unless a public
// URL is configured: the session cookie belongs to the link's host, so
// the link, the demo's printed URL and the server must agree on one
// (localhost and 127.0.0.1 are different hosts to a browser).
func listenURL(addr *net.TCPAddr) string {
	host := "127.0.0.1"
	if len(addr.IP) > 0 && !addr.IP.IsUnspecified() {
		host = addr.IP.String()
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(addr.Port))
}

// addrURL is listenURL of the listen address addr ("host:port"), resolved
// as the server resolves it when it starts listening there.
func addrURL(addr string) (string, error) {
	tcp, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: want host:port such as 127.0.0.1:8080", addr)
	}
	return listenURL(tcp), nil
}

// checkPublicURL refuses a public URL sign-in links cannot point at.
func checkPublicURL(flagName, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--%s %q: want http(s)://host[:port]", flagName, raw)
	}
	return nil
}

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
	cfg := a.kit.PortalConfig()
	cfg.Links, cfg.SessionSecret = a.links(), secret
	cfg.SessionIssuer, cfg.SessionAudience = a.cfg.JWTIssuer, a.cfg.JWTAudience
	cfg.CSRF, cfg.Logger, cfg.PublicURL = api.CSRF(), a.log, a.publicURL()
	h, err := portal.New(ctx, cfg)
	if err != nil {
		return fmt.Errorf("portal: %w", err)
	}
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		router.Handle(m, "/portal", adapt(h))
		router.Handle(m, "/portal/*path", adapt(h))
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
	fs.StringVar(&baseURL, "base-url", env("PUBLIC_URL", ""), "the server's public URL; empty: the URL of --addr (TENANTKIT_PUBLIC_URL)")
	fs.StringVar(&cfg.Addr, "addr", env("ADDR", defaultAddr), "the address the server listens on, which the link points at when --base-url is empty (TENANTKIT_ADDR)")
	positional, err := parse("login-link", fs, args, stdout)
	if err != nil {
		return err
	}
	switch {
	case len(positional) > 0:
		return usageError("login-link", "unexpected argument %q", positional[0])
	case email == "":
		return usageError("login-link", "--email is required")
	case baseURL == "":
		if baseURL, err = addrURL(cfg.Addr); err != nil {
			return usageError("login-link", "%v", err)
		}
	}
	if err := checkPublicURL("base-url", baseURL); err != nil {
		return usageError("login-link", "%v", err)
	}
	a, err := openApp(ctx, cfg, stderr, false)
	if err != nil {
		return err
	}
	defer a.close()
	ctx = tenancy.WithActor(ctx, cliActor())
	if _, err := a.findUser(ctx, email); err != nil {
		return err
	}
	if tenant != "" {
		if _, err := a.findTenant(ctx, tenant); err != nil {
			return err
		}
	}
	link, err := a.links().Issue(ctx, email, tenant, baseURL)
	if errors.Is(err, tenancy.ErrNotMember) {
		return failure(err, "%s is not a member of %s", email, tenant)
	}
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

// publicURL is where the hosted invoice pages are: --public-url when set,
// else the URL of --addr ("" when that does not resolve: no hosted_url).
func (a *app) publicURL() string {
	if a.cfg.PublicURL != "" {
		return a.cfg.PublicURL
	}
	u, err := addrURL(a.cfg.Addr)
	if err != nil {
		return ""
	}
	return u
}
