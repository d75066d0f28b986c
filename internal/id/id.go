// Package id makes the identifiers tenantkit hands out: a short type prefix
// and a lower-case ULID, so that ids are unique, URL-safe and sort by
// creation time ("inv_01jd3…" < "inv_01jd4…").
package id

import (
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// Prefixes of every resource id, one place so that no two types collide.
const (
	Tenant      = "ten"
	User        = "usr"
	APIKey      = "key"
	OperatorKey = "opk"
	Invoice     = "inv"
	Payment     = "pay"
	Ticket      = "tkt"
	Comment     = "cmt"
	Contract    = "ccr"
	// Customer is a tenant's customer on record (billing.CustomerRecord),
	// whom its invoices may name by id.
	Customer = "cus"
	// PlatformInvoice is the platform's invoice to a tenant (the
	// contract's), as against Invoice, a tenant's to its customers.
	PlatformInvoice = "pin"
	Notification    = "ntf"
	WebhookEvent    = "whe"
	// Event is tenantkit's own audit event. The payment provider's events
	// keep their own ids (often "evt_…" too) in their own table, under a
	// "whe_" id of ours, so the two never meet.
	Event = "evt"
	// WebhookEndpoint and WebhookDelivery are the outbound webhooks'
	// endpoints and deliveries ("whe" being the provider's events).
	WebhookEndpoint = "wep"
	WebhookDelivery = "whd"
	// Session is a portal sign-in (tenancy.Sessions): the "sid" of the
	// session's signed cookie, never a credential by itself.
	Session = "ses"
	// Email is a message to a tenant's customer (package mail).
	Email         = "eml"
	RequestPrefix = "req"
)

// New returns a fresh id with the given prefix, e.g. New(Invoice) = "inv_01jd…".
// ulid.Make is monotonic within a process, so ids made in one millisecond
// still sort in the order they were made.
func New(prefix string) string {
	return format(prefix, ulid.Make())
}

// At returns a fresh id with the given prefix made at t: its ULID carries
// t's millisecond, so that ids made by At sort by their t (ids of one
// millisecond in the order they were made, as with New). The event log
// makes its ids at the events' created_at, and prunes by id (Floor).
func At(prefix string, t time.Time) string {
	return format(prefix, ulid.MustNew(ulid.Timestamp(t), ulid.DefaultEntropy()))
}

// Floor returns the least id of the given prefix that At can make at t or
// later: every id At made before t's millisecond sorts below it.
func Floor(prefix string, t time.Time) string {
	var u ulid.ULID
	if err := u.SetTime(ulid.Timestamp(t)); err != nil {
		panic("id: Floor of a time beyond the year 10889")
	}
	return format(prefix, u)
}

// format writes prefix, "_" and u in lower-case Crockford base32.
func format(prefix string, u ulid.ULID) string {
	return prefix + "_" + strings.ToLower(u.String())
}

// Valid reports whether s is an id of the given prefix exactly as New
// writes it: the prefix, "_", and 26 characters of lower-case Crockford
// base32 (no i, l, o or u) whose first is 0-7, so that it fits 128 bits.
// Anything else, including NUL bytes, invalid UTF-8, upper case and
// over-long input, is not an id of any resource: handlers answer it with
// 404 without touching the database.
func Valid(prefix, s string) bool {
	rest, ok := strings.CutPrefix(s, prefix+"_")
	if !ok || len(rest) != ulid.EncodedSize || rest[0] > '7' {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !isCrockford(rest[i]) {
			return false
		}
	}
	return true
}

// isCrockford reports whether c is a lower-case Crockford base32 digit.
func isCrockford(c byte) bool {
	switch {
	case '0' <= c && c <= '9':
		return true
	case 'a' <= c && c <= 'z':
		return c != 'i' && c != 'l' && c != 'o' && c != 'u'
	}
	return false
}
