package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit/internal/fault"
	"github.com/tenantkit/tenantkit/tenancy"
)

// chain builds an endpoint's handler from its row in the route table. The
// checks run in a fixed order, each answering with its own problem:
// body limit → authentication (401) → rate limit (429) → the API the
// credential belongs to (an operator key outside the operator API: 401;
// any other credential on it: 403 insufficient_scope) → query string and
// X-Tenant-ID (400 invalid_request) → CSRF (403 csrf_failed) → scope (403
// insufficient_scope) → tenant (409/403) → role (403 forbidden) → module
// (403 module_disabled) → past due (402 payment_required, writes only,
// with Config.PastDueGrace) → idempotency → handler.
// Before all of them every answer gets X-Content-Type-Options: nosniff
// (as under Wrap, for hosts that mount Routes without it) and
// Cache-Control: no-store (noStore).
func (a *API) chain(ep Endpoint) http.Handler {
	handle := ep.Handle
	if handle == nil {
		handle = notConfigured
	}
	template := ep.Method + " " + ep.Path
	instruments := a.metrics.route(ep.Method, template)
	limit := bodyLimit(a.cfg.MaxBodyBytes)
	if ep.MaxBody > 0 {
		limit = bodyLimit(ep.MaxBody)
	}
	var h http.Handler = HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		f := logFieldsFrom(r.Context())
		f.route, f.metrics = template, instruments
		nameSpan(r.Context(), ep.Method, ep.Path)
		defer tagSpan(r.Context(), f, RequestIDFrom(r.Context()))
		if err := limit.check(r); err != nil {
			return err
		}
		if ep.Public {
			r = limit.bound(w, r)
			if ep.OwnRateLimit {
				return handle(w, r)
			}
			if err := a.rateLimit(w, r, "ip:"+a.clientIP.ip(r)); err != nil {
				return err
			}
			if err := checkQuery(r, ep.Query); err != nil {
				return err
			}
			return handle(w, r)
		}
		// ctx collects what authentication and the tenant add to the
		// request's context; the request is copied once, with all of it,
		// and its body capped, before the handler runs.
		ctx, p, err := a.authenticate(w, r, f)
		if err != nil {
			return err
		}
		if err := a.rateLimit(w, r, "cred:"+p.Credential.Key); err != nil {
			return err
		}
		if err := ep.admits(p); err != nil {
			return err
		}
		if err := checkQuery(r, ep.Query); err != nil {
			return err
		}
		if err := checkTenantHeader(r); err != nil {
			return err
		}
		if p.Ambient() && !ep.CSRFExempt && !isSafeMethod(r.Method) {
			if err := a.csrf.check(r, p.SessionBinding); err != nil {
				return err
			}
		}
		if sc := ep.scope(); sc != "" && !p.HasScope(sc) {
			return NewProblem(http.StatusForbidden, CodeInsufficientScope,
				fmt.Sprintf("this endpoint needs the scope %q", sc))
		}
		if ep.Tenant {
			if ctx, err = a.resolveTenant(ctx, r, p, ep, f); err != nil {
				return err
			}
		}
		r = r.WithContext(ctx)
		limit.capBody(w, r)
		if ep.Idempotent && a.cfg.Services.Idempotency != nil && r.Header.Get(IdempotencyKeyHeader) != "" {
			return a.idempotent(w, r, handle)
		}
		return handle(w, r)
	})
	return noSniff(noStore(h))
}

// noStore marks every answer of a route Cache-Control: no-store before
// anything else runs, so that no cache keeps a caller's own data, nor the
// 401, 403, 413 or 429 that may come instead. The routes whose answer is
// the same for everyone (the public catalog, the OpenAPI document) replace
// it with their own caching headers on success.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// resolveTenant finds the tenant r acts for and checks the caller's role
// and the endpoint's module there, returning ctx with the membership. For an endpoint behind a module, or one that
// reads entitlements (state), it reads the membership and the tenant's
// entitlement state together and carries the state on in the context,
// where the services' own module, limit and usage reads find it
// (tenancy.WithState): one read for all of them. A test tenant's clock
// goes in ctx too (withTestClock), and a write of a past-due tenant is
// refused with 402 (Config.PastDueGrace). The tenant goes in f, the
// request's log fields.
func (a *API) resolveTenant(ctx context.Context, r *http.Request, p *Principal, ep Endpoint, f *logFields) (context.Context, error) {
	var (
		m   tenancy.Membership
		err error
	)
	test := false // a test tenant whose clock is still to be read
	if ep.Module != "" || ep.State {
		var st tenancy.EntitlementState
		if m, st, err = a.cfg.Services.Entitlements.ResolveTenantState(ctx, p.Credential, r.Header.Get(tenantHeaderKey), ep.State); err != nil {
			return ctx, err
		}
		ctx, test = tenancy.WithState(ctx, st), st.Test
	} else if m, err = a.cfg.Services.Directory.ResolveTenant(ctx, p.Credential, r.Header.Get(tenantHeaderKey)); err != nil {
		return ctx, err
	}
	if m.TestClock != nil {
		ctx = tenancy.WithTestClock(ctx, *m.TestClock)
	} else if test {
		if ctx, err = a.withTestClock(ctx, m.TenantID); err != nil {
			return ctx, err
		}
	}
	f.tenantID = m.TenantID
	ctx = withMembership(ctx, m)
	if ep.Permission != "" && !m.Role.Can(ep.Permission) {
		return ctx, NewProblem(http.StatusForbidden, CodeForbidden,
			fmt.Sprintf("your role %q lacks the permission %q", m.Role, ep.Permission))
	}
	if ep.Module != "" {
		if err := a.cfg.Services.Entitlements.RequireModule(ctx, m.TenantID, ep.Module); err != nil {
			return ctx, err
		}
	}
	if a.checksPastDue(r, ep) {
		due, err := a.cfg.Services.Contracts.PastDue(ctx, m.TenantID, *a.cfg.PastDueGrace)
		if err != nil {
			return ctx, err
		}
		if due {
			return ctx, NewProblem(http.StatusPaymentRequired, CodePaymentRequired, fmt.Sprintf(
				"a platform invoice of this tenant is unpaid %spast its due date: pay it to continue "+
					"(GET /api/invoices?status=open lists it); reads still work", graceText(*a.cfg.PastDueGrace)))
		}
	}
	return ctx, nil
}

// checksPastDue reports whether r must be refused when its tenant is past
// due (Config.PastDueGrace): a write, on an endpoint that does not stay
// open to a tenant that owes the platform.
func (a *API) checksPastDue(r *http.Request, ep Endpoint) bool {
	return a.cfg.PastDueGrace != nil && a.cfg.Services.Contracts != nil && !ep.PastDueOK && !isSafeMethod(r.Method)
}

// withTestClock returns ctx carrying the clock of a test tenant
// (tenancy.WithTestClock), so that what the services stamp and compute
// for it (invoices, tickets, due dates, past due) follows its clock, not
// the wall's. The membership read brings the clock along; the state read
// only says the tenant is a test tenant, and then this reads its clock.
func (a *API) withTestClock(ctx context.Context, tenantID string) (context.Context, error) {
	t, err := a.cfg.Services.Directory.Tenant(ctx, tenantID)
	if err != nil {
		return ctx, err
	}
	if t.Test && t.TestClock != nil {
		ctx = tenancy.WithTestClock(ctx, *t.TestClock)
	}
	return ctx, nil
}

// graceText says the grace period for people, as the past-due detail
// puts it before "past its due date": "7 days ", "1h30m0s " when it is no
// whole number of days, nothing when there is none.
func graceText(g time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case g == 0:
		return ""
	case g == day:
		return "1 day "
	case g%day == 0:
		return fmt.Sprintf("%d days ", g/day)
	}
	return g.String() + " "
}

// authenticate runs the Authenticator and returns the principal and the
// request's context carrying it. A missing or rejected credential is a 401; requests
// that fail are rate limited per client IP, which slows down guessing. The
// caller's user and credential go in f, the request's log fields.
func (a *API) authenticate(w http.ResponseWriter, r *http.Request, f *logFields) (context.Context, *Principal, error) {
	p, err := a.auth.Authenticate(r)
	if err != nil || p == nil {
		if lerr := a.rateLimit(w, r, "ip:"+a.clientIP.ip(r)); lerr != nil {
			return nil, nil, lerr
		}
		switch {
		case err == nil, errors.Is(err, ErrNoCredential):
			return nil, nil, NewProblem(http.StatusUnauthorized, CodeUnauthenticated, "authentication required: send Authorization: Bearer <API key or JWT>")
		case errors.Is(err, fault.ErrUnavailable), errors.Is(err, r.Context().Err()):
			return nil, nil, err // a fault, not the caller's doing: 5xx so that they retry
		default:
			zerolog.Ctx(r.Context()).Debug().Err(err).Msg("credential rejected")
			return nil, nil, errBadCredential
		}
	}
	f.userID, f.credentialID = p.User.ID, p.Credential.Key
	actor := p.actor(RequestIDFrom(r.Context()))
	actor.ClientIP = a.clientIP.ip(r)
	return tenancy.WithActor(WithPrincipal(r.Context(), p), actor), p, nil
}

// admits keeps the two APIs apart, whatever scopes a credential claims:
// the operator API takes operator keys only, and refuses a tenant's
// credential as one that lacks the operator scope (403
// insufficient_scope); the tenant API takes no operator key, which is no
// credential of any of its users (401).
func (ep Endpoint) admits(p *Principal) error {
	switch {
	case ep.Operator != "" && !p.Operator():
		return NewProblem(http.StatusForbidden, CodeInsufficientScope,
			fmt.Sprintf("this endpoint is the operator API: it needs an operator key with the scope %q", ep.Operator))
	case ep.Operator == "" && p.Operator():
		return NewProblem(http.StatusUnauthorized, CodeUnauthenticated,
			"operator keys are accepted only by the operator API (/api/operator/); send a tenant API key or JWT")
	}
	return nil
}

// rateLimit spends one token of key's bucket and writes the RateLimit
// headers; a refused request gets a 429. When the limiter cannot decide
// (Redis down), the request goes through: losing rate limiting for a while
// is better than losing the API.
func (a *API) rateLimit(w http.ResponseWriter, r *http.Request, key string) error {
	d, err := a.limiter.Allow(r.Context(), key)
	if err != nil {
		zerolog.Ctx(r.Context()).Warn().Err(err).Msg("rate limiter unavailable; allowing request")
		return nil
	}
	setRateLimitHeaders(w, d, "default")
	if !d.Allowed {
		kind, _, _ := strings.Cut(key, ":")
		a.metrics.limited(kind)
		return rateLimited(d)
	}
	return nil
}
