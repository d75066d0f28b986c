package webhook

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// The headers of a Standard Webhooks delivery.
const (
	// HeaderID carries the message id; a redelivery carries the same one.
	HeaderID = "webhook-id"
	// HeaderTimestamp carries the signing time in Unix seconds.
	HeaderTimestamp = "webhook-timestamp"
	// HeaderSignature carries "v1,<base64 HMAC-SHA256>" values separated by
	// spaces: one per secret the sender signs with during a rotation.
	HeaderSignature = "webhook-signature"
)

// SecretPrefix is how providers write a Standard Webhooks secret:
// "whsec_" + base64 of the key. As in the reference libraries, the prefix
// may be left out.
const SecretPrefix = "whsec_"

// MinSecretBytes is the shortest key a Standard Webhooks secret may decode
// to: 128 bits. Secrets made by providers are 24 to 64 bytes.
const MinSecretBytes = 16

// StandardVerifier verifies Standard Webhooks signatures: webhook-signature
// holds "v1,<base64 HMAC-SHA256 of 'id.timestamp.body'>" values, and any of
// them made with any configured secret is accepted. The HMAC and the
// constant-time comparison are the Standard Webhooks Go library's; the
// timestamp is checked here, against an injectable clock.
type StandardVerifier struct {
	hooks []*standardwebhooks.Webhook
	cfg   verifierConfig
}

var _ Verifier = (*StandardVerifier)(nil)

// NewStandardVerifier returns a verifier accepting signatures made with any
// of secrets, each the standard base64 of a key of at least MinSecretBytes
// bytes, with or without the "whsec_" prefix and the trailing "=" padding
// (every form the reference libraries take).
func NewStandardVerifier(secrets []string, opts ...VerifierOption) (*StandardVerifier, error) {
	if len(secrets) == 0 {
		return nil, errors.New("webhook: standard verifier: no secret configured")
	}
	v := &StandardVerifier{cfg: newVerifierConfig(opts)}
	for i, s := range secrets {
		wh, err := newStandardHook(s)
		if err != nil {
			// The secret itself never goes into an error: errors get logged.
			return nil, fmt.Errorf("webhook: standard verifier: secret %d: %w", i+1, err)
		}
		v.hooks = append(v.hooks, wh)
	}
	return v, nil
}

// newStandardHook decodes a secret into the library's signer. The library
// would take a key of any length but not unpadded base64; here the padding
// is optional and a key shorter than MinSecretBytes is refused, so that a
// misconfigured secret is caught at start.
func newStandardHook(secret string) (*standardwebhooks.Webhook, error) {
	key, err := decodeSecret(secret)
	if err != nil {
		return nil, err
	}
	if len(key) < MinSecretBytes {
		return nil, fmt.Errorf("must decode to at least %d bytes, not %d", MinSecretBytes, len(key))
	}
	return standardwebhooks.NewWebhookRaw(key)
}

// decodeSecret reads "[whsec_]<standard base64, padded or not>". A base64
// key never starts with "whsec_" ('_' is not in the alphabet), so the
// prefix is unambiguous.
func decodeSecret(secret string) ([]byte, error) {
	b64 := strings.TrimRight(strings.TrimPrefix(secret, SecretPrefix), "=")
	key, err := base64.RawStdEncoding.DecodeString(b64)
	// The decoder skips line breaks; a secret has none.
	if err != nil || strings.ContainsAny(b64, "\r\n") {
		return nil, errors.New("must be standard base64, with or without the whsec_ prefix")
	}
	return key, nil
}

// Verify implements Verifier: the three headers must be present, the
// timestamp within the tolerance, and one v1 signature right for one
// secret. Errors wrap ErrSignature.
func (v *StandardVerifier) Verify(h Headers, body []byte) error {
	id, ts, sig := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	if id == "" || ts == "" || sig == "" {
		return fmt.Errorf("%w: the %s, %s and %s headers are required", ErrSignature, HeaderID, HeaderTimestamp, HeaderSignature)
	}
	if _, err := v.cfg.timestamp(ts); err != nil {
		return err
	}
	// The library reads an http.Header, which is a map keyed by canonical
	// names; building the map keeps net/http out of this package.
	hdr := map[string][]string{"Webhook-Id": {id}, "Webhook-Timestamp": {ts}, "Webhook-Signature": {sig}}
	for _, wh := range v.hooks {
		if wh.VerifyIgnoringTimestamp(body, hdr) == nil {
			return nil
		}
	}
	return fmt.Errorf("%w: no v1 signature matches a configured secret", ErrSignature)
}

// SignedHeaders are the headers that carry a Standard Webhooks signature;
// as JSON, an object keyed by the header names.
type SignedHeaders struct {
	ID        string `json:"webhook-id"`
	Timestamp string `json:"webhook-timestamp"`
	Signature string `json:"webhook-signature"`
}

// Sign signs body as a Standard Webhooks sender would: message id msgID at
// time ts with secret, in any form NewStandardVerifier takes. Operators use
// it (server webhook sign) to send test events; tests use it to deliver
// events.
func Sign(secret, msgID string, ts time.Time, body []byte) (SignedHeaders, error) {
	wh, err := newStandardHook(secret)
	if err != nil {
		return SignedHeaders{}, fmt.Errorf("webhook: sign: secret %w", err)
	}
	if checkToken(msgID, MaxEventIDLen) != "" {
		return SignedHeaders{}, fmt.Errorf("webhook: sign: message id must be 1-%d printable ASCII characters without spaces", MaxEventIDLen)
	}
	sig, err := wh.Sign(msgID, ts, body)
	if err != nil {
		return SignedHeaders{}, fmt.Errorf("webhook: sign: %w", err)
	}
	return SignedHeaders{ID: msgID, Timestamp: strconv.FormatInt(ts.Unix(), 10), Signature: sig}, nil
}
