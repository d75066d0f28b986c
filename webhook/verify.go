package webhook

import (
	"fmt"
	"strconv"
	"time"
)

// Headers is what a Verifier reads of a delivery's HTTP header: the value
// of a header by case-insensitive name, "" when absent. http.Header
// implements it.
type Headers interface {
	Get(name string) string
}

// Verifier checks that a delivery comes from the payment provider: that its
// signature, computed over the raw body with a shared secret, is right and
// recent. It runs before the body is parsed.
type Verifier interface {
	// Verify returns nil when body carries a valid, fresh signature in h,
	// else an error wrapping ErrSignature. It must take the same time
	// whichever byte of a signature is wrong (compare in constant time).
	Verify(h Headers, body []byte) error
}

// The verification schemes NewVerifier knows.
const (
	// SchemeStandard is Standard Webhooks (https://www.standardwebhooks.com).
	SchemeStandard = "standard"
	// SchemeStripe is Stripe's Stripe-Signature header.
	SchemeStripe = "stripe"
)

// DefaultTolerance is how far a delivery's timestamp may be from the
// receiver's clock, either way, before it is refused as stale (a replay)
// or from the future. The bound is exclusive: a timestamp exactly
// DefaultTolerance away is refused, as the Standard Webhooks reference
// libraries' test suites require.
const DefaultTolerance = 5 * time.Minute

// NewVerifier returns the built-in Verifier of scheme (SchemeStandard,
// also for "", or SchemeStripe) accepting a signature made with any of
// secrets, so that a provider's secret can be rotated without downtime.
func NewVerifier(scheme string, secrets []string, opts ...VerifierOption) (Verifier, error) {
	switch scheme {
	case SchemeStandard, "":
		return NewStandardVerifier(secrets, opts...)
	case SchemeStripe:
		return NewStripeVerifier(secrets, opts...)
	}
	return nil, fmt.Errorf("webhook: unknown signature scheme %q: want %q or %q", scheme, SchemeStandard, SchemeStripe)
}

// VerifierOption configures a built-in Verifier.
type VerifierOption func(*verifierConfig)

// WithTolerance sets how far a delivery's timestamp may be from now
// (DefaultTolerance when unset); a timestamp d or more away is refused.
func WithTolerance(d time.Duration) VerifierOption {
	return func(c *verifierConfig) { c.tolerance = d }
}

// WithVerifierClock makes the verifier read the time from now (tests use a
// fixed clock).
func WithVerifierClock(now func() time.Time) VerifierOption {
	return func(c *verifierConfig) { c.now = now }
}

// verifierConfig is what the built-in verifiers share: the replay window.
type verifierConfig struct {
	tolerance time.Duration
	now       func() time.Time
}

func newVerifierConfig(opts []VerifierOption) verifierConfig {
	c := verifierConfig{tolerance: DefaultTolerance, now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// timestamp parses a Unix time in seconds and checks that it lies
// strictly within the tolerance of now, so that a captured delivery cannot
// be replayed later. now keeps its sub-second part: a delivery signed
// 300 s and 1 ms ago is 300.001 s old, not 300 s.
func (c verifierConfig) timestamp(raw string) (time.Time, error) {
	secs, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: timestamp %q is not a Unix time in seconds", ErrSignature, clean(raw, 20))
	}
	now := c.now()
	// Whole seconds first, which cannot overflow for any secs; only a
	// timestamp near now is turned into a time.Time.
	window := int64(c.tolerance/time.Second) + 1
	if secs < now.Unix()-window || secs > now.Unix()+window || !within(now.Sub(time.Unix(secs, 0)), c.tolerance) {
		return time.Time{}, fmt.Errorf("%w: timestamp is %s or more away from the server's clock", ErrSignature, c.tolerance)
	}
	return time.Unix(secs, 0), nil
}

// within reports whether -tol < d < tol.
func within(d, tol time.Duration) bool {
	return d < tol && d > -tol
}
