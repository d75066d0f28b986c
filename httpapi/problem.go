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

	"github.com/tenantkit/tenantkit/field"
)

// Problem codes: the stable, machine-readable half of every error response.
// Clients branch on Code, never on Title or Detail, so a code once published
// never changes meaning.
const (
	CodeInvalidRequest           = "invalid_request"            // 400: malformed JSON, unknown field, wrong type, bad query parameter
	CodeUnauthenticated          = "unauthenticated"            // 401: missing or bad credentials
	CodePaymentRequired          = "payment_required"           // 402: the tenant is past due on a platform invoice; only reads go through
	CodeInsufficientScope        = "insufficient_scope"         // 403: the credential lacks a required scope
	CodeForbidden                = "forbidden"                  // 403: the caller's role lacks a permission
	CodeCSRFFailed               = "csrf_failed"                // 403: session-authenticated unsafe request without a valid CSRF token
	CodeModuleDisabled           = "module_disabled"            // 403: the tenant has the endpoint's module switched off
	CodeEntitlementLimitExceeded = "entitlement_limit_exceeded" // 403: the tenant's plan limit is used up
	CodeNotFound                 = "not_found"                  // 404: no such resource (also another tenant's resource)
	CodeMethodNotAllowed         = "method_not_allowed"         // 405
	CodeTenantNotSelected        = "tenant_not_selected"        // 409: several memberships and no active tenant
	CodeConflict                 = "conflict"                   // 409: illegal state transition, duplicate, concurrent retry
	CodeMailNotConfigured        = "mail_not_configured"        // 409: sending an email on a server without a mail server
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
	out.bound()
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
