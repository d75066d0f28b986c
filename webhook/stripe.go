package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// HeaderStripeSignature carries a Stripe-style signature:
// "t=<unix seconds>,v1=<hex HMAC-SHA256 of 't.body'>[,v1=…]".
const HeaderStripeSignature = "Stripe-Signature"

// StripeVerifier verifies Stripe-style signatures. As Stripe does, the
// whole secret string (including its "whsec_" prefix) is the HMAC key;
// any v1 value made with any configured secret is accepted, and other
// schemes in the header (v0) are ignored.
type StripeVerifier struct {
	keys [][]byte
	cfg  verifierConfig
}

var _ Verifier = (*StripeVerifier)(nil)

// NewStripeVerifier returns a verifier accepting signatures made with any
// of secrets (the endpoint secrets the provider shows, used as they are).
func NewStripeVerifier(secrets []string, opts ...VerifierOption) (*StripeVerifier, error) {
	if len(secrets) == 0 {
		return nil, errors.New("webhook: stripe verifier: no secret configured")
	}
	v := &StripeVerifier{cfg: newVerifierConfig(opts)}
	for i, s := range secrets {
		if len(s) < MinSecretBytes {
			return nil, fmt.Errorf("webhook: stripe verifier: secret %d is shorter than %d bytes", i+1, MinSecretBytes)
		}
		v.keys = append(v.keys, []byte(s))
	}
	return v, nil
}

// Verify implements Verifier. As Stripe's own library does, it refuses a
// header with a part that is not key=value, takes every v1 value that is a
// SHA-256 in hex (ignoring others and other schemes), and signs the
// timestamp as the decimal number it parses to. The timestamp must be less
// than the tolerance (DefaultTolerance: Stripe's 300 s) from now, either
// way. Errors wrap ErrSignature.
func (v *StripeVerifier) Verify(h Headers, body []byte) error {
	raw := h.Get(HeaderStripeSignature)
	if raw == "" {
		return fmt.Errorf("%w: the %s header is required", ErrSignature, HeaderStripeSignature)
	}
	var (
		ts    string
		seenT bool
		sigs  [][]byte
	)
	for _, part := range strings.Split(raw, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || strings.Contains(value, "=") {
			return fmt.Errorf("%w: %s is not a list of key=value", ErrSignature, HeaderStripeSignature)
		}
		switch key {
		case "t":
			if seenT {
				return fmt.Errorf("%w: %s has more than one t=", ErrSignature, HeaderStripeSignature)
			}
			ts, seenT = value, true
		case "v1":
			if sig, err := hex.DecodeString(value); err == nil && len(sig) == sha256.Size {
				sigs = append(sigs, sig)
			}
		}
	}
	if !seenT || len(sigs) == 0 {
		return fmt.Errorf("%w: %s needs t= and at least one v1=", ErrSignature, HeaderStripeSignature)
	}
	at, err := v.cfg.timestamp(ts)
	if err != nil {
		return err
	}
	signed := strconv.FormatInt(at.Unix(), 10)
	for _, key := range v.keys {
		want := stripeMAC(key, signed, body)
		for _, sig := range sigs {
			if hmac.Equal(sig, want) {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: no v1 signature matches a configured secret", ErrSignature)
}

// stripeMAC is the HMAC-SHA256 of "<ts>.<body>" under key.
func stripeMAC(key []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// SignStripe returns the Stripe-Signature value for body signed with
// secret at ts, for tests and for operators sending test events.
func SignStripe(secret string, ts time.Time, body []byte) string {
	t := strconv.FormatInt(ts.Unix(), 10)
	return "t=" + t + ",v1=" + hex.EncodeToString(stripeMAC([]byte(secret), t, body))
}
