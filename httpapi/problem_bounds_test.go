package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWriteProblemBoundsWhatItQuotes: however much of the request a
// problem repeats, its detail and field errors stay within the bounds the
// document states, and what is cut says so.
func TestWriteProblemBoundsWhatItQuotes(t *testing.T) {
	long := strings.Repeat("é", 5000)
	errs := make([]FieldError, maxProblemErrors+5)
	for i := range errs {
		errs[i] = FieldError{Field: long, Code: "unknown_parameter", Message: "is not a query parameter of this endpoint"}
	}
	errs[0].Message = long
	p := InvalidRequest(long, errs...)
	rec := httptest.NewRecorder()
	writeProblem(rec, httptest.NewRequest(http.MethodGet, "/", nil), p)
	got := mustDecodeProblem(t, rec)

	if n := utf8.RuneCountInString(got.Detail); n != maxProblemDetail || !strings.HasSuffix(got.Detail, "…") {
		t.Errorf("detail has %d characters, want %d ending in …", n, maxProblemDetail)
	}
	if len(got.Errors) != maxProblemErrors {
		t.Fatalf("%d errors, want %d", len(got.Errors), maxProblemErrors)
	}
	if n := utf8.RuneCountInString(got.Errors[0].Field); n != maxFieldPathLen {
		t.Errorf("field has %d characters, want %d", n, maxFieldPathLen)
	}
	if n := utf8.RuneCountInString(got.Errors[0].Message); n != maxFieldMessageLen {
		t.Errorf("message has %d characters, want %d", n, maxFieldMessageLen)
	}
	if p.Detail != long || len(p.Errors) != maxProblemErrors+5 || p.Errors[0].Field != long {
		t.Error("writeProblem modified its argument")
	}
}
