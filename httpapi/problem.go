package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/fault"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/webhook"
)

// Problem codes: the stable, machine-readable half of every error response.
// Clients branch on Code, never on Title or Detail, so a code once published
// never changes meaning.
const (
	CodeInvalidRequest           = "invalid_request"            // 400: malformed JSON, unknown field, wrong type, bad query parameter
	CodeUnauthenticated          = "unauthenticated"            // 401: missing or bad credentials
	CodeInsufficientScope        = "insufficient_scope"         // 403: the credential lacks a required scope
	CodeForbidden                = "forbidden"                  // 403: the caller's role lacks a permission
	CodeCSRFFailed               = "csrf_failed"                // 403: session-authenticated unsafe request without a valid CSRF token
	CodeModuleDisabled           = "module_disabled"            // 403: the tenant has the endpoint's module switched off
	CodeEntitlementLimitExceeded = "entitlement_limit_exceeded" // 403: the tenant's plan limit is used up
	CodeNotFound                 = "not_found"                  // 404: no such resource (also another tenant's resource)
	CodeMethodNotAllowed         = "method_not_allowed"         // 405
	CodeTenantNotSelected        = "tenant_not_selected"        // 409: several memberships and no active tenant
	CodeConflict                 = "conflict"                   // 409: illegal state transition, duplicate, concurrent retry
	CodeIdempotencyKeyReused     = "idempotency_key_reused"     // same Idempotency-Key, different body (422)
	CodePayloadTooLarge          = "payload_too_large"          // 413
	CodeUnsupportedMediaType     = "unsupported_media_type"     // 415
	CodeValidationFailed         = "validation_failed"          // 422: well-formed input that breaks a rule; see Problem.Errors
	CodeRateLimited              = "rate_limited"               // 429
	CodeInternal                 = "internal"                   // 500: nothing more is said to the client
	CodeNotReady                 = "not_ready"                  // 503: database unreachable or migrations pending
	CodeNotImplemented           = "not_implemented"            // 501
)

// problemTypeBase prefixes every Problem.Type so that the type URI names the
// code and can later resolve to documentation.
const problemTypeBase = "https://tenantkit.dev/problems/"

// FieldError locates one problem in the request input: which field (a JSON
// path such as "line_items[0].quantity", or a query parameter name), a
// machine-readable code (field.Required, field.TooLong, …, or the edge's
// own "unknown_field", "invalid_type", "unknown_parameter", "repeated") and
// a message meant for people. It is the domains' field.Error. The message
// may be written to follow the field's name ("must be between 1 and 100"),
// as the domain packages write them; writeProblem sends it as a sentence
// naming the field (fieldSentence).
type FieldError = field.Error

// Problem is an RFC 9457 problem document and the error type of the HTTP
// edge: handlers return a *Problem (or a domain error that errorTable maps to
// one) and HandlerFunc writes it. Status and Code carry the meaning; Detail
// is one sentence for people, written for the client: never internals, never
// a chain of wrapped Go errors.
type Problem struct {
	Type      string       `json:"type"`
	Title     string       `json:"title"`
	Status    int          `json:"status"`
	Detail    string       `json:"detail,omitempty"`
	Code      string       `json:"code"`
	RequestID string       `json:"request_id,omitempty"`
	Errors    []FieldError `json:"errors,omitempty"`

	// Limit, Usage and ResetsAt are extension members (RFC 9457 §3.2) of
	// entitlement_limit_exceeded problems: the tenant's limit of the
	// feature per period, what it has used of it, and when the period
	// ends and usage starts again from zero.
	Limit    *int64     `json:"limit,omitempty"`
	Usage    *int64     `json:"usage,omitempty"`
	ResetsAt *time.Time `json:"resets_at,omitempty"`
	// CurrentStatus is an extension member of a conflict that refused a
	// move the resource's status does not allow (an invoice's or a
	// ticket's): the status it is in now.
	CurrentStatus string `json:"current_status,omitempty"`
}

// NewProblem returns a problem with the given HTTP status, problem code and
// human-readable detail; Title is the status text and Type derives from code.
func NewProblem(status int, code, detail string) *Problem {
	return &Problem{
		Type:   problemTypeBase + code,
		Title:  http.StatusText(status),
		Status: status,
		Detail: detail,
		Code:   code,
	}
}

// Error makes *Problem an error, so that handlers and helpers can return it
// through ordinary error paths and problemFor can find it with errors.As.
func (p *Problem) Error() string {
	if p.Detail == "" {
		return fmt.Sprintf("httpapi: %d %s", p.Status, p.Code)
	}
	return fmt.Sprintf("httpapi: %d %s: %s", p.Status, p.Code, p.Detail)
}

// ValidationProblem is the 422 validation_failed answer for input that
// parsed but broke a rule the handler checks itself (a service's
// *field.InvalidError is answered the same way without it). Its detail
// repeats the field messages as sentences: the one, or the first few of
// several.
func ValidationProblem(errs []FieldError) *Problem {
	p := NewProblem(http.StatusUnprocessableEntity, CodeValidationFailed, validationDetail(fieldSentences(errs)))
	p.Errors = errs
	return p
}

// InvalidRequest is the 400 invalid_request answer for input that could
// not be understood (a value of the wrong type, a bad query parameter),
// optionally pointing at the offending fields.
func InvalidRequest(detail string, errs ...FieldError) *Problem {
	p := NewProblem(http.StatusBadRequest, CodeInvalidRequest, detail)
	p.Errors = errs
	return p
}

// maxDetailSentences bounds how many field sentences a validation detail
// repeats; errors[] has them all.
const maxDetailSentences = 3

// validationDetail sums up a validation problem's field sentences.
func validationDetail(errs []FieldError) string {
	switch n := len(errs); {
	case n == 0:
		return "the input is invalid"
	case n == 1:
		return errs[0].Message
	case n <= maxDetailSentences:
		msgs := make([]string, n)
		for i, fe := range errs {
			msgs[i] = fe.Message
		}
		return strings.Join(msgs, "; ")
	default:
		msgs := make([]string, maxDetailSentences)
		for i, fe := range errs[:maxDetailSentences] {
			msgs[i] = fe.Message
		}
		return fmt.Sprintf("%s; and %d more problems (see errors)", strings.Join(msgs, "; "), n-maxDetailSentences)
	}
}

// fieldSentences returns errs with every message made a sentence of its own
// (fieldSentence); errs itself is not modified.
func fieldSentences(errs []FieldError) []FieldError {
	if len(errs) == 0 {
		return errs
	}
	out := make([]FieldError, len(errs))
	for i, fe := range errs {
		fe.Message = fieldSentence(fe.Field, fe.Message)
		out[i] = fe
	}
	return out
}

// predicateOpeners are the words a field message begins with when it is
// written to follow the field's name, the convention of the domain
// packages and of this one ("must have at most 200 characters", "is
// required").
var predicateOpeners = []string{"must ", "is ", "are ", "has ", "have ", "may ", "can ", "cannot ", "would ", "should "}

// fieldSentence makes a field's message read on its own: a message written
// to follow the field's name gets the name as its subject ("subject must
// have at most 200 characters"); any other message (`unknown plan "gold"`)
// is a sentence already and is kept.
func fieldSentence(field, msg string) string {
	if field == "" {
		return msg
	}
	for _, w := range predicateOpeners {
		if strings.HasPrefix(msg, w) {
			return field + " " + msg
		}
	}
	return msg
}

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

// writeProblem sends p as application/problem+json, stamped with the request
// id so that a client's bug report leads straight to the log line, and with
// each field message made a sentence that names its field. p itself
// is not modified, so shared *Problem values are safe to write concurrently.
// A 401 also gets the WWW-Authenticate challenge RFC 9110 requires unless the
// caller has set a more specific one; a 429's Retry-After is the caller's.
func writeProblem(w http.ResponseWriter, r *http.Request, p *Problem) {
	out := *p
	if out.RequestID == "" {
		out.RequestID = RequestIDFrom(r.Context())
	}
	if out.Type == "" {
		out.Type = problemTypeBase + out.Code
	}
	if out.Title == "" {
		out.Title = http.StatusText(out.Status)
	}
	out.Errors = fieldSentences(out.Errors)
	// "Www-Authenticate" is net/http's canonical form of WWW-Authenticate.
	if out.Status == http.StatusUnauthorized && w.Header().Get("Www-Authenticate") == "" {
		w.Header().Set("Www-Authenticate", "Bearer")
	}
	writeBody(w, out.Status, "application/problem+json", &out)
}

// writeError answers a handler's error: problemFor decides the response and,
// for server-side failures, the request logger records the full error, which
// the response body never contains.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	if err == nil {
		return
	}
	p := problemFor(err)
	var direct *Problem
	switch {
	case p.Status >= http.StatusInternalServerError:
		zerolog.Ctx(r.Context()).Error().Err(err).Int("status", p.Status).Str("code", p.Code).Msg("request failed")
	case !errors.As(err, &direct):
		// The client saw the domain's sentence; the chain, with its ids
		// and context, is for whoever debugs the request.
		zerolog.Ctx(r.Context()).Debug().Err(err).Int("status", p.Status).Str("code", p.Code).Msg("request refused")
	}
	writeProblem(w, r, p)
}

// WriteJSON sends v as the JSON response body with the given status: how
// every handler answers success, HTML escaping off.
//
// The body is encoded before anything is written so that an encoding failure
// cannot leave a half-sent 200 behind; such a failure is a programming error
// (an unsupported type in a response struct) and panics, which recoverer
// turns into a logged 500.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	writeBody(w, status, "application/json; charset=utf-8", v)
}

// writeBody encodes v and writes it with the given status and content type.
// HTML escaping is off: the body is served as JSON, never embedded in HTML,
// and clients should see "<" rather than "\u003c".
func writeBody(w http.ResponseWriter, status int, contentType string, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Errorf("httpapi: encode %T response: %w", v, err))
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Del("Content-Length") // a stale length set by earlier code would truncate the body
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes()) // the client went away; nothing left to tell it
}

// HandlerFunc is an http.Handler written as a function that returns its
// error instead of writing it, so that every handler answers failures the
// same way (errorTable) and cannot forget to return after writing one.
// Every endpoint's handler (Endpoint.Handle) is one.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// ServeHTTP runs h and writes its error, if any, as a problem. When h had
// already started the response the error can no longer be sent, so it is
// only logged.
func (h HandlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	err := h(w, r)
	if err == nil {
		return
	}
	if responseStarted(w) {
		zerolog.Ctx(r.Context()).Error().Err(err).Msg("handler failed after writing the response")
		return
	}
	writeError(w, r, err)
}
