package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/fault"
	"github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/webhook"
)

// errorMapping says which response a domain error gets.
type errorMapping struct {
	err    error  // matched with errors.Is
	status int    // HTTP status
	code   string // problem code
}

// errorTable is the one place where domain errors meet HTTP: each sentinel
// error maps to a status and problem code (e.g. tenancy.ErrNotFound → 404
// not_found). Domain packages cannot import httpapi, so the table lives here.
// The first match wins, so list specific errors before general ones.
//
// The problem's detail is the domain's own sentence (domainDetail), never
// the context callers wrapped around it ("billing: invoice inv_…: "): that
// chain is for the log. Unmatched errors are 500s whose details only reach
// the log.
//
// The table is read-only after package initialisation.
var errorTable = []errorMapping{
	// tenancy
	{tenancy.ErrNotFound, http.StatusNotFound, CodeNotFound},
	{tenancy.ErrConflict, http.StatusConflict, CodeConflict},
	{tenancy.ErrInvalid, http.StatusUnprocessableEntity, CodeValidationFailed},
	{tenancy.ErrUnauthenticated, http.StatusUnauthorized, CodeUnauthenticated},
	{tenancy.ErrNotMember, http.StatusForbidden, CodeForbidden},
	{tenancy.ErrNoTenant, http.StatusForbidden, CodeForbidden},
	{tenancy.ErrTenantNotSelected, http.StatusConflict, CodeTenantNotSelected},
	{tenancy.ErrForbidden, http.StatusForbidden, CodeForbidden},
	{tenancy.ErrModuleDisabled, http.StatusForbidden, CodeModuleDisabled},
	{tenancy.ErrLimitExceeded, http.StatusForbidden, CodeEntitlementLimitExceeded},
	// support
	{support.ErrNotFound, http.StatusNotFound, CodeNotFound},
	{support.ErrConflict, http.StatusConflict, CodeConflict},
	{support.ErrForbidden, http.StatusForbidden, CodeForbidden},
	{support.ErrInvalid, http.StatusUnprocessableEntity, CodeValidationFailed},
	// mail
	{mail.ErrNotConfigured, http.StatusConflict, CodeMailNotConfigured},
	// billing
	{billing.ErrNotFound, http.StatusNotFound, CodeNotFound},
	{billing.ErrConflict, http.StatusConflict, CodeConflict},
	{billing.ErrInvalid, http.StatusUnprocessableEntity, CodeValidationFailed},
	{billing.ErrCurrencyMismatch, http.StatusUnprocessableEntity, CodeValidationFailed},
	// webhook
	{webhook.ErrSignature, http.StatusUnauthorized, CodeUnauthenticated},
	{webhook.ErrMalformed, http.StatusBadRequest, CodeInvalidRequest},
	{webhook.ErrNotFound, http.StatusNotFound, CodeNotFound},
	{webhook.ErrConflict, http.StatusConflict, CodeConflict},
	// storage faults: the client may retry
	{fault.ErrUnavailable, http.StatusServiceUnavailable, CodeNotReady},
}

// detailer is a domain error that words itself for the client, typically a
// typed error whose sentence is built from its fields
// (tenancy.LimitError: "monthly limit of 3 tickets reached; resets …").
// Domain packages implement it by its method; they cannot name the type.
type detailer interface {
	error
	Detail() string
}

// statusReporter is a domain conflict that names the status its resource
// has now (refused invoice and ticket moves); "" when it is not about one.
type statusReporter interface {
	error
	CurrentStatus() string
}

// domainDetail returns the client's sentence for err, which errors.Is
// matched to the table's sentinel: the Detail of the outermost detailer in
// err's chain that matches the sentinel too; else the message of the
// outermost error that begins with the sentinel's message (the sentinel
// itself, or a refinement made with fmt.Errorf("%w: reason", sentinel));
// else the sentinel's message. The context callers wrap around an error
// ("support: create ticket: ") is never part of it.
func domainDetail(err, sentinel error) string {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if d, ok := e.(detailer); ok && errors.Is(e, sentinel) {
			return d.Detail()
		}
	}
	prefix := sentinel.Error()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if msg := e.Error(); strings.HasPrefix(msg, prefix) {
			return msg
		}
	}
	return prefix
}

// problemFor translates any error a handler returns into the problem the
// client sees: a *Problem anywhere in the chain as is, a too-large body as
// 413, a *field.InvalidError (any domain's InvalidError) as 422 with its
// field errors as they are, an errorTable match with its status and code,
// and anything else as an opaque 500.
func problemFor(err error) *Problem {
	return mapError(err, errorTable)
}

// mapError is problemFor with the mapping table as a parameter, so tests can
// exercise the table walk without touching the package's table.
func mapError(err error, table []errorMapping) *Problem {
	if err == nil {
		return nil
	}
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return NewProblem(http.StatusRequestEntityTooLarge, CodePayloadTooLarge,
			fmt.Sprintf("request body is larger than %d bytes", tooLarge.Limit))
	}
	var invalid *field.InvalidError
	if errors.As(err, &invalid) {
		return ValidationProblem(invalid.Errors())
	}
	for _, m := range table {
		if errors.Is(err, m.err) {
			if m.status >= 500 {
				// A fault's message is for the log (writeError logs it),
				// never for the client: it may quote the driver.
				return NewProblem(m.status, m.code, "temporarily unavailable; retry shortly")
			}
			p := NewProblem(m.status, m.code, domainDetail(err, m.err))
			var le *tenancy.LimitError
			if m.code == CodeEntitlementLimitExceeded && errors.As(err, &le) {
				limit, usage, resetsAt := le.Limit, le.Usage, le.ResetsAt.UTC()
				p.Limit, p.Usage = &limit, &usage
				if !resetsAt.IsZero() { // seats are a level: nothing resets them
					p.ResetsAt = &resetsAt
				}
			}
			var sr statusReporter
			if m.code == CodeConflict && errors.As(err, &sr) {
				p.CurrentStatus = sr.CurrentStatus()
			}
			return p
		}
	}
	return NewProblem(http.StatusInternalServerError, CodeInternal, "internal server error")
}
