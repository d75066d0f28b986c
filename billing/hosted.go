package billing

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
)

// The hosted invoice page (SPEC §18) shows a finalized invoice to anyone
// holding its token, at {public URL}/pay/{token}, without signing in.
//
// A token is HMAC-SHA256(key, invoice id, version), base64url without
// padding (43 characters, 256 bits), under a key derived from the
// server's secret key: it cannot be guessed, and it can be shown again in
// every response about the invoice without being stored. The database
// holds only the SHA-256 of each invoice's current token (HostedStore),
// which is how a page request finds its invoice: the token is hashed and
// the hash looked up, so no token is ever compared in Go and a wrong
// token costs the same as a right one. Rotating bumps the version: the
// old hash is replaced in one statement, so the old URL is dead at once.

// HostedStore keeps the hashes of the hosted pages' tokens: one current
// token per finalized invoice. Implementations confine every statement to
// the tenant they are given, except HostedInvoice, the one lookup by
// token; billingtest.RunHosted checks them.
type HostedStore interface {
	// HostedVersions returns the token version of each of the tenant's
	// invoices among ids that has a token.
	HostedVersions(ctx context.Context, tenantID string, ids []string) (map[string]int, error)
	// IssueHostedTokens records version 1, with its hash, for each of the
	// tenant's invoices in hashes (invoice id → hash) that has no token
	// yet; an invoice that has one keeps it.
	IssueHostedTokens(ctx context.Context, tenantID string, hashes map[string]string) error
	// RotateHostedToken replaces the invoice's token of version from by
	// version from+1 with hash. ErrConflict when its version is not from
	// (a concurrent rotation), ErrNotFound when it has no token.
	RotateHostedToken(ctx context.Context, tenantID, invoiceID string, from int, hash string) error
	// HostedInvoice returns the tenant and the invoice whose current token
	// hashes to hash, whichever tenant owns it. ErrNotFound when none.
	HostedInvoice(ctx context.Context, hash string) (tenantID, invoiceID string, err error)
}

// Hosted issues, rotates and resolves the hosted pages' tokens.
type Hosted struct {
	store    HostedStore
	invoices *Service
	key      []byte
}

// NewHosted returns the hosted pages' tokens on store, for the invoices of
// invoices, keyed by secret (at least 32 bytes: the server's secret key,
// of which it uses a key derived for this purpose only).
func NewHosted(store HostedStore, invoices *Service, secret []byte) (*Hosted, error) {
	if len(secret) < 32 {
		return nil, errors.New("billing: the hosted pages need a secret key of at least 32 bytes")
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("tenantkit hosted invoice tokens v1"))
	return &Hosted{store: store, invoices: invoices, key: m.Sum(nil)}, nil
}

// Finalized reports whether an invoice in status st has a hosted page:
// every status but draft.
func Finalized(st Status) bool { return st.Valid() && st != StatusDraft }

// token is the invoice's token of version v.
func (h *Hosted) token(invoiceID string, v int) string {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte(invoiceID + "\x00" + strconv.Itoa(v)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// HashToken is what the database keeps of a token: its SHA-256, in hex.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Tokens returns the current token of each finalized invoice among invs,
// all the tenant's (drafts have none), issuing version 1 to those that
// have none yet: an invoice's first token is recorded the first time it
// is shown, which is also the first time anyone can know it.
func (h *Hosted) Tokens(ctx context.Context, tenantID string, invs ...Invoice) (map[string]string, error) {
	var ids []string
	for _, inv := range invs {
		if Finalized(inv.Status) {
			ids = append(ids, inv.ID)
		}
	}
	out := make(map[string]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	versions, err := h.store.HostedVersions(ctx, tenantID, ids)
	if err != nil {
		return nil, fmt.Errorf("billing: hosted tokens: %w", err)
	}
	missing := map[string]string{}
	for _, id := range ids {
		v, ok := versions[id]
		if !ok {
			v = 1
			missing[id] = HashToken(h.token(id, v))
		}
		out[id] = h.token(id, v)
	}
	if len(missing) > 0 {
		if err := h.store.IssueHostedTokens(ctx, tenantID, missing); err != nil {
			return nil, fmt.Errorf("billing: issue hosted tokens: %w", err)
		}
	}
	return out, nil
}

// Rotate gives the tenant's invoice a new token, killing the old one at
// once, and returns the new one. ErrNotFound for no such invoice;
// *TransitionError (ErrConflict) for a draft, which has no page;
// ErrConflict when another rotation of the invoice won the race.
func (h *Hosted) Rotate(ctx context.Context, tenantID, invoiceID string) (string, error) {
	inv, err := h.invoices.Get(ctx, tenantID, invoiceID)
	if err != nil {
		return "", err
	}
	if !Finalized(inv.Status) {
		return "", &TransitionError{InvoiceID: inv.ID, Status: inv.Status, Action: "rotate the hosted URL"}
	}
	if _, err := h.Tokens(ctx, tenantID, inv); err != nil {
		return "", err
	}
	versions, err := h.store.HostedVersions(ctx, tenantID, []string{inv.ID})
	if err != nil {
		return "", fmt.Errorf("billing: rotate hosted token: %w", err)
	}
	from := versions[inv.ID]
	next := h.token(inv.ID, from+1)
	if err := h.store.RotateHostedToken(ctx, tenantID, inv.ID, from, HashToken(next)); err != nil {
		return "", fmt.Errorf("billing: rotate hosted token of %s: %w", inv.ID, err)
	}
	return next, nil
}

// Invoice returns the invoice whose current token is token.
// ErrNotFound for any other token: unknown, rotated away or malformed,
// all alike.
func (h *Hosted) Invoice(ctx context.Context, token string) (Invoice, error) {
	tenantID, invoiceID, err := h.store.HostedInvoice(ctx, HashToken(token))
	if err != nil {
		return Invoice{}, fmt.Errorf("billing: hosted invoice: %w", err)
	}
	return h.invoices.Get(ctx, tenantID, invoiceID)
}
