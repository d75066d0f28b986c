package webhook_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/webhook"
)

// The fuzz targets' seeds are in testdata/fuzz/<target>/; run one with
//
//	go test ./webhook -run '^$' -fuzz '^FuzzParseEvent$' -fuzztime 30s

// FuzzParseEvent: any body is either an event whose id and type obey the
// documented bounds, or ErrMalformed — never a panic, never another error.
func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"id":"evt_1","type":"payment.succeeded","data":{"invoice_id":"inv_1","amount":1999,"currency":"USD"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := webhook.ParseEvent(body)
		if err != nil {
			if !errors.Is(err, webhook.ErrMalformed) {
				t.Fatalf("ParseEvent error %v does not wrap ErrMalformed", err)
			}
			return
		}
		for _, s := range []string{ev.ID, ev.Type} {
			if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r > '~' }) {
				t.Fatalf("ParseEvent accepted id/type %q", s)
			}
		}
		if len(ev.ID) > webhook.MaxEventIDLen || len(ev.Type) > webhook.MaxTypeLen {
			t.Fatalf("ParseEvent accepted an id or type past its bound: %d, %d bytes", len(ev.ID), len(ev.Type))
		}
		again, err := webhook.ParseEvent(body)
		if err != nil || again.ID != ev.ID || again.Type != ev.Type || again.Data.Amount != ev.Data.Amount {
			t.Fatalf("ParseEvent is not deterministic: %+v, %v", again, err)
		}
	})
}

// FuzzStandardVerify: whatever the headers and body, Verify answers nil
// or ErrSignature without panicking, and nil only when one of the
// signatures is the one the secret gives; a signature made by Sign always
// verifies.
func FuzzStandardVerify(f *testing.F) {
	f.Add(specMsgID, "1614265330", specSignature, []byte(specPayload))
	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte) {
		v, err := webhook.NewStandardVerifier([]string{specSecret}, clockAt(0))
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		h.Set(webhook.HeaderID, id)
		h.Set(webhook.HeaderTimestamp, ts)
		h.Set(webhook.HeaderSignature, sig)
		err = v.Verify(h, body)
		if err != nil && !errors.Is(err, webhook.ErrSignature) {
			t.Fatalf("Verify error %v does not wrap ErrSignature", err)
		}
		if err == nil {
			want, serr := webhook.Sign(specSecret, h.Get(webhook.HeaderID), time.Unix(1614265330, 0), body)
			if serr != nil || !hasSignature(h.Get(webhook.HeaderSignature), want.Signature) {
				t.Fatalf("Verify accepted %q for id %q ts %q, want %q", sig, id, ts, want.Signature)
			}
		}
		if id == "" || len(id) > webhook.MaxEventIDLen || strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r > '~' }) {
			return // Sign refuses such ids
		}
		signed, err := webhook.Sign(specSecret, id, specTime(), body)
		if err != nil {
			t.Fatalf("Sign: %v", err)
		}
		h = http.Header{}
		h.Set(webhook.HeaderID, signed.ID)
		h.Set(webhook.HeaderTimestamp, signed.Timestamp)
		h.Set(webhook.HeaderSignature, signed.Signature)
		if h.Get(webhook.HeaderID) != id {
			return // net/http would not carry this id as it is
		}
		if err := v.Verify(h, body); err != nil {
			t.Fatalf("Verify of a fresh signature: %v", err)
		}
	})
}

// FuzzStripeVerify: as FuzzStandardVerify, for the Stripe-Signature header.
func FuzzStripeVerify(f *testing.F) {
	f.Add("t=1614265330,v1="+stripeSignature, []byte(specPayload))
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		v, err := webhook.NewStripeVerifier([]string{stripeSecret}, clockAt(0))
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		h.Set(webhook.HeaderStripeSignature, header)
		err = v.Verify(h, body)
		if err != nil && !errors.Is(err, webhook.ErrSignature) {
			t.Fatalf("Verify error %v does not wrap ErrSignature", err)
		}
		if err == nil {
			// Hex is case-insensitive, as with Stripe.
			want := strings.TrimPrefix(webhook.SignStripe(stripeSecret, specTime(), body), "t=1614265330,")
			if !strings.Contains(strings.ToLower(header), want) {
				t.Fatalf("Verify accepted %q, want one %q", header, want)
			}
		}
		h.Set(webhook.HeaderStripeSignature, webhook.SignStripe(stripeSecret, specTime(), body))
		if err := v.Verify(h, body); err != nil {
			t.Fatalf("Verify of a fresh signature: %v", err)
		}
	})
}

// FuzzTolerance: a delivery signed at any offset from a clock at any
// sub-second fraction is accepted by both built-in schemes exactly when its
// timestamp (whole seconds, as sent) is less than DefaultTolerance from the
// clock, either way.
func FuzzTolerance(f *testing.F) {
	f.Add(int64(-300_001), uint16(500))
	f.Fuzz(func(t *testing.T, offsetMillis int64, fracMillis uint16) {
		const tenYears = 10 * 365 * 24 * time.Hour
		now := specTime().Add(time.Duration(fracMillis%1000) * time.Millisecond)
		signAt := now.Add(time.Duration(offsetMillis) * time.Millisecond % tenYears)
		d := now.Sub(time.Unix(signAt.Unix(), 0))
		want := d < webhook.DefaultTolerance && d > -webhook.DefaultTolerance
		clock := webhook.WithVerifierClock(func() time.Time { return now })
		body := []byte(specPayload)

		std := mustStandard(t, []string{specSecret}, clock)
		signed, err := webhook.Sign(specSecret, specMsgID, signAt, body)
		if err != nil {
			t.Fatal(err)
		}
		err = std.Verify(standardHeader(signed.ID, signed.Timestamp, signed.Signature), body)
		if (err == nil) != want {
			t.Fatalf("standard: signed %s from a clock at %s: Verify = %v, want accepted=%v", d, now.Format(time.RFC3339Nano), err, want)
		}

		stripe, err := webhook.NewStripeVerifier([]string{stripeSecret}, clock)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		h.Set(webhook.HeaderStripeSignature, webhook.SignStripe(stripeSecret, signAt, body))
		if err := stripe.Verify(h, body); (err == nil) != want {
			t.Fatalf("stripe: signed %s from a clock at %s: Verify = %v, want accepted=%v", d, now.Format(time.RFC3339Nano), err, want)
		}
	})
}

// hasSignature reports whether one of the space-separated signatures in
// list is sig (the library ignores what follows a second comma).
func hasSignature(list, sig string) bool {
	for _, f := range strings.Split(list, " ") {
		if f == sig || strings.HasPrefix(f, sig+",") {
			return true
		}
	}
	return false
}
