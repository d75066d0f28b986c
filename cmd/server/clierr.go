package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/webhook"
)

// The codes of cliError, stable for scripts (docs/operations.md).
const (
	codeUsage    = "usage"     // a wrong command line; exit status 2
	codeInvalid  = "invalid"   // input refused by validation; fields says which
	codeNotFound = "not_found" // the tenant, user, key or request does not exist
	codeConflict = "conflict"  // already exists, or its state does not allow it (no seat free, the last owner)
	codeFailed   = "failed"    // anything else: database unreachable, file unreadable…
)

// cliError is how a command reports a failure: a stable code, a sentence
// for the operator and, for invalid input, the refused fields.
type cliError struct {
	Code    string            `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
	// hint follows the message for people (never under --json), e.g. the
	// command to run for help.
	hint string
}

func (e *cliError) Error() string { return e.Message }

// usageError is a wrong command line for command name.
func usageError(name, format string, args ...any) *cliError {
	return &cliError{Code: codeUsage, Message: fmt.Sprintf(format, args...),
		hint: fmt.Sprintf("Run \"server %s -h\" for its usage.", name)}
}

// fieldErrors is what the domains' validation errors offer.
type fieldErrors interface{ FieldErrors() map[string]string }

// classify turns any error into a cliError: the domains' validation errors
// become their fields, their sentinels a code.
func classify(err error) *cliError {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce
	}
	var fe fieldErrors
	if errors.As(err, &fe) && len(fe.FieldErrors()) > 0 {
		return &cliError{Code: codeInvalid, Message: fieldsMessage(fe.FieldErrors()), Fields: fe.FieldErrors()}
	}
	code := codeFailed
	switch {
	case errors.Is(err, tenancy.ErrNotFound), errors.Is(err, billing.ErrNotFound),
		errors.Is(err, support.ErrNotFound), errors.Is(err, webhook.ErrNotFound):
		code = codeNotFound
	case errors.Is(err, tenancy.ErrConflict), errors.Is(err, billing.ErrConflict),
		errors.Is(err, tenancy.ErrLimitExceeded), errors.Is(err, support.ErrConflict), errors.Is(err, webhook.ErrConflict):
		code = codeConflict
	case errors.Is(err, tenancy.ErrInvalid), errors.Is(err, billing.ErrInvalid), errors.Is(err, billing.ErrCurrencyMismatch):
		code = codeInvalid
	}
	return &cliError{Code: code, Message: strings.TrimRight(strings.TrimSpace(err.Error()), ";")}
}

// fieldsMessage is the sentence for refused fields: "invalid input: plan:
// unknown plan "gold"; slug: must be …", in field order.
func fieldsMessage(fields map[string]string) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + strings.TrimRight(fields[k], "; ")
	}
	return "invalid input: " + strings.Join(parts, "; ")
}

// report prints the failure err on w — a line for people, or
// {"error":{…}} with --json — and returns the exit status: 0 without an
// error, 2 for a usage error, 1 otherwise.
func report(w io.Writer, err error, asJSON bool) int {
	if err == nil {
		return 0
	}
	ce := classify(err)
	if asJSON {
		_ = json.NewEncoder(w).Encode(map[string]*cliError{"error": ce})
	} else {
		fmt.Fprintln(w, "server: "+ce.Message)
		if ce.hint != "" {
			fmt.Fprintln(w, ce.hint)
		}
	}
	if ce.Code == codeUsage {
		return 2
	}
	return 1
}

// jsonRequested reports whether the command line asks for --json, read
// before the flags are parsed so that even a flag error is JSON.
func jsonRequested(args []string) bool {
	on := false
	for _, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "json" {
			continue
		}
		on = true
		if hasValue {
			on, _ = strconv.ParseBool(value)
		}
	}
	return on
}

// output prints v as JSON with --json, else the human line.
func output(w io.Writer, asJSON bool, v any, human string) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintln(w, human)
	return err
}
