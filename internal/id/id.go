// Package id makes the identifiers tenantkit hands out: a short type prefix
// and a lower-case ULID, so that ids are unique, URL-safe and sort by
// creation time ("inv_01jd3…" < "inv_01jd4…").
package id

import (
	"strings"

	"github.com/oklog/ulid/v2"
)

// Prefixes of every resource id, one place so that no two types collide.
const (
	Tenant        = "ten"
	User          = "usr"
	APIKey        = "key"
	Invoice       = "inv"
	Ticket        = "tkt"
	Contract      = "ccr"
	Notification  = "ntf"
	WebhookEvent  = "whe"
	RequestPrefix = "req"
)

// New returns a fresh id with the given prefix, e.g. New(Invoice) = "inv_01jd…".
// ulid.Make is monotonic within a process, so ids made in one millisecond
// still sort in the order they were made.
func New(prefix string) string {
	return prefix + "_" + strings.ToLower(ulid.Make().String())
}

// Valid reports whether s looks like an id of the given prefix. Handlers use
// it to answer 404 for garbage ids without touching the database.
func Valid(prefix, s string) bool {
	rest, ok := strings.CutPrefix(s, prefix+"_")
	if !ok || len(rest) != ulid.EncodedSize {
		return false
	}
	_, err := ulid.ParseStrict(strings.ToUpper(rest))
	return err == nil
}
