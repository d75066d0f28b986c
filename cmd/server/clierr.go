package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/database"
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
	// cause is the error behind the sentence, with its chain of context
	// and the driver's words: report logs it, never prints it.
	cause error
}

func (e *cliError) Error() string { return e.Message }

// Unwrap makes the cause matchable with errors.Is and errors.As.
func (e *cliError) Unwrap() error { return e.cause }

// failure is a failed cliError: the sentence msg for the operator, and the
// cause for the log.
func failure(cause error, format string, args ...any) *cliError {
	return &cliError{Code: codeFailed, Message: fmt.Sprintf(format, args...), cause: cause}
}

// usageError is a wrong command line for command name.
func usageError(name, format string, args ...any) *cliError {
	return &cliError{Code: codeUsage, Message: fmt.Sprintf(format, args...),
		hint: fmt.Sprintf("Run \"server %s -h\" for its usage.", name)}
}

// fieldErrors is what the domains' validation errors offer.
type fieldErrors interface{ FieldErrors() map[string]string }

// classify turns any error into a cliError whose message is a sentence
// for the operator, never a chain of wrapped errors: the domains'
// validation errors become their fields; the domains' other errors their
// own sentence, the detail the HTTP API answers them with
// (httpapi.ProblemFor, the one mapping of domain errors), and their
// sentinel a code; anything else, which the API would answer with a 5xx,
// a sentence saying that the command failed. report logs the error
// itself.
func classify(err error) *cliError {
	var ce *cliError
	if errors.As(err, &ce) {
		return ce
	}
	var fe fieldErrors
	if errors.As(err, &fe) && len(fe.FieldErrors()) > 0 {
		return &cliError{Code: codeInvalid, Message: fieldsMessage(fe.FieldErrors()), Fields: fe.FieldErrors(), cause: err}
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
	return &cliError{Code: code, Message: sentence(err), cause: err}
}

// sentence is the operator's sentence for err, which is not a cliError.
func sentence(err error) string {
	if p := httpapi.ProblemFor(err); p.Status < http.StatusInternalServerError {
		return strings.TrimRight(strings.TrimSpace(p.Detail), ";")
	}
	if database.Unavailable(err) || errors.Is(err, database.ErrUnavailable) {
		return "the database is unavailable; the log line above says why"
	}
	return "the command failed; the log line above says why"
}

// about names what err is about when the domain's sentence does not: a
// bare "not found" or "already exists", which the API answers under a
// path or a body that names the resource, becomes `tenant "x" not found`.
// Other errors are returned as they are.
func about(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	ce := classify(err)
	if ce.Message != tenancy.ErrNotFound.Error() && ce.Message != tenancy.ErrConflict.Error() {
		return err
	}
	named := *ce
	named.Message = fmt.Sprintf(format, args...) + " " + ce.Message
	return &named
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
// error, 2 for a usage error, 1 otherwise. The error behind the sentence,
// with its chain, goes to log: at debug level when a domain refused what
// it was asked (the sentence says why, as the API's problem detail
// does), at error level when the command failed for another reason (the
// database, a file, a setting: the sentence cannot say why).
func report(w io.Writer, log zerolog.Logger, err error, asJSON bool) int {
	if err == nil {
		return 0
	}
	ce := classify(err)
	if ce.cause != nil {
		if httpapi.ProblemFor(ce.cause).Status < http.StatusInternalServerError {
			log.Debug().Err(ce.cause).Str("code", ce.Code).Msg("command refused")
		} else {
			log.Error().Err(ce.cause).Str("code", ce.Code).Msg("command failed")
		}
	}
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
	on, _ := strconv.ParseBool(flagValue(args, "json", "true", "false"))
	return on
}

// flagValue returns the value of the flag name on the command line, read
// as the flag package would (-name, --name, -name=v, --name v; the last
// wins) but before the command's flags are parsed: def when it is absent,
// bare when it stands alone (a bool flag, or a flag at the end).
func flagValue(args []string, name, bare, def string) string {
	v := def
	for i, a := range args {
		if a == "--" {
			break
		}
		n, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || n != name {
			continue
		}
		switch {
		case hasValue:
			v = value
		case bare == "true" || i+1 == len(args):
			v = bare
		default:
			v = args[i+1]
		}
	}
	return v
}

// reportLogger is the logger report writes a failure's cause with: the
// --log-level and --log-format of the command line, read before the
// command parses them, else their defaults.
func reportLogger(args []string, w io.Writer) zerolog.Logger {
	cfg := config{
		LogLevel:  flagValue(args, "log-level", "", env("LOG_LEVEL", "info")),
		LogFormat: flagValue(args, "log-format", "", env("LOG_FORMAT", "json")),
	}
	log, err := newLogger(cfg, w)
	if err != nil {
		log, _ = newLogger(config{LogLevel: "info", LogFormat: "json"}, w)
	}
	return log
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
