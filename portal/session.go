package portal

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/tenancy"
)

// request is what the checks learnt about a request: who (nil when
// nobody signed in), for which tenant, with which role.
type request struct {
	principal   *httpapi.Principal
	memberships []tenancy.TenantMembership
	membership  tenancy.Membership
	tenant      tenancy.Tenant
}

// binding names the session CSRF tokens are bound to ("" before sign-in).
func (rq *request) binding() string {
	if rq == nil || rq.principal == nil {
		return ""
	}
	return rq.principal.SessionBinding
}

// can reports whether the member may use p here: their role holds it and
// the session carries the scope it needs, as the API decides.
func (rq *request) can(p tenancy.Permission) bool {
	if rq == nil || rq.principal == nil || rq.membership.TenantID == "" || !rq.membership.Role.Can(p) {
		return false
	}
	sc := p.Scope()
	return sc == "" || rq.principal.HasScope(sc)
}

// actor is the signed-in member as the audit trail records the changes
// they make here. The client's address is left out: the portal has no
// trusted-proxy settings to resolve it by.
func (rq *request) actor(r *http.Request) tenancy.Actor {
	p := rq.principal
	return tenancy.Actor{Kind: tenancy.ActorUser, ID: p.User.ID, Credential: p.Credential.Key,
		Method: string(p.Method), RequestID: httpapi.RequestIDFrom(r.Context())}
}

// session authenticates the session cookie. A cookie that no longer
// verifies (expired, signed with another secret, or naming a session that
// ended) is cleared and the request goes on signed out.
func (h *Handler) session(w http.ResponseWriter, r *http.Request) (*request, error) {
	rq := &request{}
	p, err := h.auth.Authenticate(r)
	switch {
	case errors.Is(err, httpapi.ErrNoCredential):
		return rq, nil
	case errors.Is(err, tenancy.ErrUnauthenticated): // expired, ended, or signed with another secret
		h.clearSession(w, r)
		return rq, nil
	case err != nil:
		return rq, err
	}
	rq.principal = p
	if rq.memberships, err = h.cfg.Directory.Memberships(r.Context(), p.User.ID); err != nil {
		return rq, err
	}
	return rq, nil
}

// resolveTenant finds the tenant the session acts for, as the API does
// for the same credential (the session's sid).
func (h *Handler) resolveTenant(r *http.Request, rq *request) error {
	m, err := h.cfg.Directory.ResolveTenant(r.Context(), rq.principal.Credential, "")
	if err != nil {
		return err
	}
	rq.membership = m
	for _, tm := range rq.memberships {
		if tm.Tenant.ID == m.TenantID {
			rq.tenant = tm.Tenant
		}
	}
	return nil
}

// allScopes: a portal session may use every scope; the member's role
// decides what they do.
var allScopes = []tenancy.Scope{tenancy.ScopeCollectionsRead, tenancy.ScopeCollectionsWrite,
	tenancy.ScopeTicketsRead, tenancy.ScopeTicketsWrite}

// signSession returns a session JWT for user: sub and email name the user,
// sid the session (the credential its active tenant is remembered for,
// and what sign-out ends).
func (h *Handler) signSession(user tenancy.User, sess tenancy.Session) (string, error) {
	now, expires, sid := sess.CreatedAt, sess.ExpiresAt, sess.ID
	scopes := make([]string, 0, len(allScopes))
	for _, s := range allScopes {
		scopes = append(scopes, string(s))
	}
	claims := httpapi.Claims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: user.ID, Issuer: h.cfg.SessionIssuer,
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(expires)},
		Email: user.Email, Scope: strings.Join(scopes, " "), SID: sid,
	}
	if h.cfg.SessionAudience != "" {
		claims.Audience = jwt.ClaimStrings{h.cfg.SessionAudience}
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(h.cfg.SessionSecret)
}

func (h *Handler) setSession(w http.ResponseWriter, r *http.Request, token string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{Name: httpapi.SessionCookie, Value: token, Path: "/", Expires: expires,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
}

func (h *Handler) clearSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: httpapi.SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
}

// loginPage answers the link: a page with one button that signs in. The
// GET itself changes nothing, so that link previews and prefetchers do
// not use up the link.
func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	token := r.URL.Query().Get("token")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	return h.render(w, r, rq, http.StatusOK, "login", "Sign in", loginData{Token: token})
}

type loginData struct{ Token, Error string }

// login redeems the link and starts the session.
func (h *Handler) login(w http.ResponseWriter, r *http.Request, rq *request) error {
	token := r.PostForm.Get("token")
	link, err := h.cfg.Links.Consume(r.Context(), token)
	if errors.Is(err, ErrLinkInvalid) {
		return h.render(w, r, rq, http.StatusUnauthorized, "login", "Sign in",
			loginData{Error: "This sign-in link is invalid, expired or already used. Ask for a new one."})
	}
	if err != nil {
		return err
	}
	user, err := h.cfg.Directory.User(r.Context(), link.UserID)
	if err != nil {
		return err
	}
	sess, err := h.cfg.Sessions.Start(r.Context(), user.ID, h.cfg.SessionTTL)
	if err != nil {
		return err
	}
	jwtToken, err := h.signSession(user, sess)
	if err != nil {
		return err
	}
	if link.TenantID != "" {
		cred := tenancy.Credential{Key: "sid:" + sess.ID, UserID: user.ID}
		if _, err := h.cfg.Directory.SelectTenant(r.Context(), cred, link.TenantID); err != nil {
			return err
		}
	}
	h.setSession(w, r, jwtToken, sess.ExpiresAt)
	http.Redirect(w, r, h.cfg.BasePath+"/", http.StatusSeeOther)
	return nil
}

// logout ends the session: the cookie is cleared in this browser, and
// refused from then on wherever it was copied to.
func (h *Handler) logout(w http.ResponseWriter, r *http.Request, rq *request) error {
	if id := rq.principal.SessionID; id != "" {
		if err := h.cfg.Sessions.End(r.Context(), id); err != nil {
			return err
		}
	}
	h.clearSession(w, r)
	http.Redirect(w, r, h.cfg.BasePath+"/signin?signed_out=1", http.StatusSeeOther)
	return nil
}

func (h *Handler) signinHelp(w http.ResponseWriter, r *http.Request, rq *request) error {
	return h.render(w, r, rq, http.StatusOK, "signin", "Sign in", r.URL.Query().Get("signed_out") != "")
}

// tenantsPage is the tenant switcher.
func (h *Handler) tenantsPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	if m, err := h.cfg.Directory.ResolveTenant(r.Context(), rq.principal.Credential, ""); err == nil {
		rq.membership = m
	}
	return h.render(w, r, rq, http.StatusOK, "tenants", "Choose a tenant", nil)
}

// selectTenant switches the session's tenant.
func (h *Handler) selectTenant(w http.ResponseWriter, r *http.Request, rq *request) error {
	id := r.PostForm.Get("tenant_id")
	if !slices.ContainsFunc(rq.memberships, func(m tenancy.TenantMembership) bool { return m.Tenant.ID == id }) {
		return httpapi.NewProblem(http.StatusNotFound, httpapi.CodeNotFound, "You are not a member of that tenant.")
	}
	if _, err := h.cfg.Directory.SelectTenant(r.Context(), rq.principal.Credential, id); err != nil {
		return err
	}
	http.Redirect(w, r, h.cfg.BasePath+"/", http.StatusSeeOther)
	return nil
}
