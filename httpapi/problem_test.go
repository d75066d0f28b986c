package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
)

// mustDecodeProblem reads a problem+json response body.
func mustDecodeProblem(tb testing.TB, rec *httptest.ResponseRecorder) Problem {
	tb.Helper()
	if got, want := rec.Header().Get("Content-Type"), "application/problem+json"; got != want {
		tb.Fatalf("Content-Type = %q, want %q", got, want)
	}
	var p Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		tb.Fatalf("decode problem %q: %v", rec.Body.String(), err)
	}
	return p
}

// mustProblem asserts that err is a *Problem with the given status and code.
func mustProblem(tb testing.TB, err error, status int, code string) *Problem {
	tb.Helper()
	var p *Problem
	if !errors.As(err, &p) {
		tb.Fatalf("error = %v (%T), want *Problem %d %s", err, err, status, code)
	}
	if p.Status != status || p.Code != code {
		tb.Fatalf("problem = %d %s (%s), want %d %s", p.Status, p.Code, p.Detail, status, code)
	}
	return p
}

// testFieldsError is a validation error written as a literal: its fields
// come in path order, with code invalid.
func testFieldsError(fields map[string]string) error {
	return &field.InvalidError{Fields: fields}
}

// testCodedError is a validation error as the domains collect it: in the
// order found, with codes.
func testCodedError() error {
	f := field.Errors{}
	f.Required("subject")
	f.Add("subject", field.TooLong, "must have at most 200 characters") // a second error on a field is dropped
	f.Add("tags", field.TooMany, "must have at most 10 items")
	f.Add("line_items[0].quantity", field.OutOfRange, "must be between 1 and 1000000")
	return f.Err()
}

// testDetailError is a domain-style typed error that words itself.
type testDetailError struct{}

func (testDetailError) Error() string  { return "invoice inv_1 is paid, cannot void" }
func (testDetailError) Detail() string { return "invoice is paid, cannot void" }
func (testDetailError) Unwrap() error  { return errGoneForTest }

func TestNewProblem(t *testing.T) {
	p := NewProblem(http.StatusNotFound, CodeNotFound, "no such invoice")
	want := &Problem{
		Type:   "https://tenantkit.dev/problems/not_found",
		Title:  "Not Found",
		Status: 404,
		Detail: "no such invoice",
		Code:   "not_found",
	}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("NewProblem = %+v, want %+v", p, want)
	}
	if got, want := p.Error(), "httpapi: 404 not_found: no such invoice"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// errGoneForTest is the sentinel testDetailError matches.
var errGoneForTest = errors.New("gone")

func TestMapError(t *testing.T) {
	errNotFound := errors.New("invoice not found")
	errGone := errGoneForTest
	table := []errorMapping{
		{err: errNotFound, status: http.StatusNotFound, code: CodeNotFound},
		{err: errGone, status: http.StatusConflict, code: CodeConflict},
	}
	conflict := NewProblem(http.StatusConflict, CodeConflict, "already paid")

	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantCode   string
		wantDetail string
		wantErrors []FieldError
	}{
		{name: "Problem", err: conflict, wantStatus: 409, wantCode: CodeConflict, wantDetail: "already paid"},
		{name: "WrappedProblem", err: fmt.Errorf("ctx: %w", conflict), wantStatus: 409, wantCode: CodeConflict, wantDetail: "already paid"},
		{name: "MaxBytes", err: fmt.Errorf("read: %w", &http.MaxBytesError{Limit: 10}), wantStatus: 413, wantCode: CodePayloadTooLarge, wantDetail: "request body is larger than 10 bytes"},
		{
			name:       "FieldsError",
			err:        fmt.Errorf("billing: create: %w", testFieldsError(map[string]string{"currency": "is not supported", "customer.email": "is required"})),
			wantStatus: 422, wantCode: CodeValidationFailed, wantDetail: "currency is not supported; customer.email is required",
			wantErrors: []FieldError{
				{Field: "currency", Code: "invalid", Message: "is not supported"},
				{Field: "customer.email", Code: "invalid", Message: "is required"},
			},
		},
		{
			name:       "FieldsErrorWithSentences",
			err:        testFieldsError(map[string]string{"plan_id": `unknown plan "gold"`}),
			wantStatus: 422, wantCode: CodeValidationFailed, wantDetail: `unknown plan "gold"`,
			wantErrors: []FieldError{{Field: "plan_id", Code: "invalid", Message: `unknown plan "gold"`}},
		},
		{
			name:       "FieldsErrorMany",
			err:        testFieldsError(map[string]string{"a": "is required", "b": "is required", "c": "is required", "d": "is required", "e": "is required"}),
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantDetail: "a is required; b is required; c is required; and 2 more problems (see errors)",
			wantErrors: []FieldError{
				{Field: "a", Code: "invalid", Message: "is required"}, {Field: "b", Code: "invalid", Message: "is required"},
				{Field: "c", Code: "invalid", Message: "is required"}, {Field: "d", Code: "invalid", Message: "is required"},
				{Field: "e", Code: "invalid", Message: "is required"},
			},
		},
		{
			name:       "InvalidErrorInOrderWithCodes",
			err:        fmt.Errorf("support: create ticket: %w", testCodedError()),
			wantStatus: 422, wantCode: CodeValidationFailed,
			wantDetail: "subject is required; tags must have at most 10 items; line_items[0].quantity must be between 1 and 1000000",
			wantErrors: []FieldError{
				{Field: "subject", Code: "required", Message: "is required"},
				{Field: "tags", Code: "too_many", Message: "must have at most 10 items"},
				{Field: "line_items[0].quantity", Code: "out_of_range", Message: "must be between 1 and 1000000"},
			},
		},
		{name: "TableSentinel", err: errNotFound, wantStatus: 404, wantCode: CodeNotFound, wantDetail: "invoice not found"},
		{name: "TableWrapped", err: fmt.Errorf("billing: get inv_1: %w", errNotFound), wantStatus: 404, wantCode: CodeNotFound, wantDetail: "invoice not found"},
		{name: "TableRefined", err: fmt.Errorf("webhook: handle: %w", fmt.Errorf("%w: id is required", errGone)), wantStatus: 409, wantCode: CodeConflict, wantDetail: "gone: id is required"},
		{name: "TableDetailer", err: fmt.Errorf("billing: void inv_1: %w", testDetailError{}), wantStatus: 409, wantCode: CodeConflict, wantDetail: "invoice is paid, cannot void"},
		{name: "TableSecondEntry", err: errGone, wantStatus: 409, wantCode: CodeConflict, wantDetail: "gone"},
		{name: "Unmapped", err: errors.New("pq: password authentication failed for db secret"), wantStatus: 500, wantCode: CodeInternal, wantDetail: "internal server error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mapError(tt.err, table)
			if p.Status != tt.wantStatus || p.Code != tt.wantCode || p.Detail != tt.wantDetail {
				t.Errorf("got %d %s %q, want %d %s %q", p.Status, p.Code, p.Detail, tt.wantStatus, tt.wantCode, tt.wantDetail)
			}
			if !reflect.DeepEqual(p.Errors, tt.wantErrors) {
				t.Errorf("errors = %+v, want %+v", p.Errors, tt.wantErrors)
			}
		})
	}

	t.Run("Nil", func(t *testing.T) {
		if p := problemFor(nil); p != nil {
			t.Errorf("problemFor(nil) = %+v, want nil", p)
		}
	})
}

func TestWriteProblem(t *testing.T) {
	tests := []struct {
		name          string
		problem       *Problem
		presetAuth    string
		wantStatus    int
		wantWWWAuth   string
		wantRequestID string
	}{
		{name: "NotFound", problem: NewProblem(404, CodeNotFound, "x"), wantStatus: 404, wantRequestID: "req_abc"},
		{name: "UnauthorizedChallenge", problem: NewProblem(401, CodeUnauthenticated, "x"), wantStatus: 401, wantWWWAuth: "Bearer", wantRequestID: "req_abc"},
		{name: "UnauthorizedKeepsCallerChallenge", problem: NewProblem(401, CodeUnauthenticated, "x"), presetAuth: `Bearer error="invalid_token"`, wantStatus: 401, wantWWWAuth: `Bearer error="invalid_token"`, wantRequestID: "req_abc"},
		{name: "BareProblemGetsTypeAndTitle", problem: &Problem{Status: 409, Code: CodeConflict}, wantStatus: 409, wantRequestID: "req_abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r = r.WithContext(event.WithRequestID(r.Context(), "req_abc"))
			rec := httptest.NewRecorder()
			if tt.presetAuth != "" {
				rec.Header().Set("WWW-Authenticate", tt.presetAuth)
			}
			writeProblem(rec, r, tt.problem)

			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			if got := rec.Header().Get("WWW-Authenticate"); got != tt.wantWWWAuth {
				t.Errorf("WWW-Authenticate = %q, want %q", got, tt.wantWWWAuth)
			}
			got := mustDecodeProblem(t, rec)
			if got.RequestID != tt.wantRequestID {
				t.Errorf("request_id = %q, want %q", got.RequestID, tt.wantRequestID)
			}
			if got.Type != problemTypeBase+tt.problem.Code || got.Title != http.StatusText(tt.wantStatus) {
				t.Errorf("type, title = %q, %q", got.Type, got.Title)
			}
			if tt.problem.RequestID != "" {
				t.Errorf("writeProblem modified its argument: request_id %q", tt.problem.RequestID)
			}
		})
	}

	t.Run("JSONKeys", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, "/", nil)
		rec := httptest.NewRecorder()
		writeProblem(rec, r, ValidationProblem([]FieldError{{Field: "name", Code: "required", Message: "is required"}}))
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"type", "title", "status", "detail", "code", "errors"} {
			if _, ok := m[k]; !ok {
				t.Errorf("body %s lacks key %q", rec.Body, k)
			}
		}
		if got := m["errors"].([]any)[0].(map[string]any)["message"]; got != "name is required" {
			t.Errorf("errors[0].message = %q, want the sentence %q", got, "name is required")
		}
		if got := m["detail"]; got != "name is required" {
			t.Errorf("detail = %q, want %q", got, "name is required")
		}
	})
}

func TestWriteError(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantLogged bool
	}{
		{name: "Internal", err: errors.New("dial tcp 10.0.0.5:5432: secret-host unreachable"), wantStatus: 500, wantLogged: true},
		{name: "ClientError", err: NewProblem(404, CodeNotFound, "no such invoice"), wantStatus: 404},
		// The client reads "invoice not found"; the chain goes to the log.
		{name: "DomainErrorChain", err: fmt.Errorf("billing: invoice inv_1: %w", billing.ErrNotFound), wantStatus: 404, wantLogged: true},
		{name: "NotReady", err: NewProblem(503, CodeNotReady, "database unreachable"), wantStatus: 503, wantLogged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := zerolog.New(&logs)
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r = r.WithContext(logger.WithContext(r.Context()))
			rec := httptest.NewRecorder()

			writeError(rec, r, tt.err)

			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			if tt.wantStatus == 500 && strings.Contains(rec.Body.String(), "secret-host") {
				t.Errorf("body leaks the internal error: %s", rec.Body)
			}
			if got := strings.Contains(logs.String(), tt.err.Error()); got != tt.wantLogged {
				t.Errorf("logged = %v, want %v; log: %s", got, tt.wantLogged, logs.String())
			}
		})
	}
}

func TestWriteJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteJSON(rec, http.StatusCreated, map[string]string{"memo": "<b>&</b>"})
	if rec.Code != http.StatusCreated {
		t.Errorf("status = %d, want %d", rec.Code, http.StatusCreated)
	}
	if got, want := rec.Header().Get("Content-Type"), "application/json; charset=utf-8"; got != want {
		t.Errorf("Content-Type = %q, want %q", got, want)
	}
	if got, want := rec.Body.String(), `{"memo":"<b>&</b>"}`+"\n"; got != want {
		t.Errorf("body = %q, want %q", got, want)
	}

	t.Run("EncodeFailurePanics", func(t *testing.T) {
		rec := httptest.NewRecorder()
		defer func() {
			if recover() == nil {
				t.Error("WriteJSON of a channel did not panic")
			}
			if rec.Code != http.StatusOK || rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != "" {
				t.Errorf("a response was started: %d %q", rec.Code, rec.Body)
			}
		}()
		WriteJSON(rec, http.StatusOK, map[string]any{"c": make(chan int)})
	})
}

func TestHandlerFunc(t *testing.T) {
	tests := []struct {
		name       string
		h          HandlerFunc
		wantStatus int
		wantBody   string
	}{
		{
			name: "OK",
			h: func(w http.ResponseWriter, r *http.Request) error {
				WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
				return nil
			},
			wantStatus: 200, wantBody: `{"ok":true}` + "\n",
		},
		{
			name: "ErrorBecomesProblem",
			h: func(w http.ResponseWriter, r *http.Request) error {
				return NewProblem(http.StatusConflict, CodeConflict, "invoice is paid")
			},
			wantStatus: 409,
		},
		{
			name: "ErrorAfterWriteIsNotWritten",
			h: func(w http.ResponseWriter, r *http.Request) error {
				w.WriteHeader(http.StatusAccepted)
				_, _ = w.Write([]byte("partial"))
				return errors.New("stream broke")
			},
			wantStatus: 202, wantBody: "partial",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := accessLog(zerolog.Nop())(tt.h)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			if tt.wantBody != "" && rec.Body.String() != tt.wantBody {
				t.Errorf("body = %q, want %q", rec.Body, tt.wantBody)
			}
		})
	}
}
