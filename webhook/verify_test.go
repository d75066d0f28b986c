package webhook_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/webhook"
)

// The example of the Standard Webhooks specification
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md).
const (
	specSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specMsgID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specTimestamp = 1614265330
	specPayload   = `{"test": 2432232314}`
	specSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

// otherSecret is a second valid Standard Webhooks secret (24 bytes).
const otherSecret = "whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24="

// stripeSecret and stripeSignature: HMAC-SHA256 of "1614265330." + the spec
// payload under the whole secret string, hex, computed independently.
const (
	stripeSecret    = "whsec_test_secret_for_stripe_scheme"
	stripeSignature = "657475fbc874c59b6aa5fa851cc5d0316db11362828374c2d52ec1b7df09c2d3"
)

func specTime() time.Time { return time.Unix(specTimestamp, 0) }

// clockAt returns a verifier clock fixed at the spec's timestamp + d.
func clockAt(d time.Duration) webhook.VerifierOption {
	return webhook.WithVerifierClock(func() time.Time { return specTime().Add(d) })
}

func standardHeader(id, ts, sig string) http.Header {
	h := http.Header{}
	for k, v := range map[string]string{webhook.HeaderID: id, webhook.HeaderTimestamp: ts, webhook.HeaderSignature: sig} {
		if v != "" {
			h.Set(k, v)
		}
	}
	return h
}

func mustStandard(tb testing.TB, secrets []string, opts ...webhook.VerifierOption) *webhook.StandardVerifier {
	tb.Helper()
	v, err := webhook.NewStandardVerifier(secrets, opts...)
	if err != nil {
		tb.Fatalf("NewStandardVerifier: %v", err)
	}
	return v
}

func TestSignSpecVector(t *testing.T) {
	got, err := webhook.Sign(specSecret, specMsgID, specTime(), []byte(specPayload))
	if err != nil {
		t.Fatal(err)
	}
	want := webhook.SignedHeaders{ID: specMsgID, Timestamp: "1614265330", Signature: specSignature}
	if got != want {
		t.Fatalf("Sign = %+v, want %+v", got, want)
	}
}

func TestStandardVerifier(t *testing.T) {
	const ts = "1614265330"
	body := []byte(specPayload)
	other, err := webhook.Sign(otherSecret, specMsgID, specTime(), body)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		secrets []string
		header  http.Header
		body    []byte
		skew    time.Duration
		ok      bool
	}{
		{"SpecVector", []string{specSecret}, standardHeader(specMsgID, ts, specSignature), body, 0, true},
		{"WithinTolerance", []string{specSecret}, standardHeader(specMsgID, ts, specSignature), body, 4*time.Minute + 59*time.Second, true},
		{"WithinToleranceEarly", []string{specSecret}, standardHeader(specMsgID, ts, specSignature), body, -4*time.Minute - 59*time.Second, true},
		{"ExactlyToleranceOld", []string{specSecret}, standardHeader(specMsgID, ts, specSignature), body, 5 * time.Minute, false},
		{"ExactlyToleranceEarly", []string{specSecret}, standardHeader(specMsgID, ts, specSignature), body, -5 * time.Minute, false},
		{"StaleByAMillisecond", []string{specSecret}, standardHeader(specMsgID, ts, specSignature), body, 5*time.Minute + time.Millisecond, false},
		{"Stale", []string{specSecret}, standardHeader(specMsgID, ts, specSignature), body, 5*time.Minute + time.Second, false},
		{"FromTheFuture", []string{specSecret}, standardHeader(specMsgID, ts, specSignature), body, -5*time.Minute - time.Second, false},
		{"RotatedSecretSecond", []string{otherSecret, specSecret}, standardHeader(specMsgID, ts, specSignature), body, 0, true},
		{"RotatedSignatureSecond", []string{specSecret}, standardHeader(specMsgID, ts, other.Signature+" "+specSignature), body, 0, true},
		{"SeveralSignaturesNoneRight", []string{specSecret}, standardHeader(specMsgID, ts, other.Signature+" v1,AAAA"), body, 0, false},
		{"WrongSecret", []string{otherSecret}, standardHeader(specMsgID, ts, specSignature), body, 0, false},
		{"TamperedBody", []string{specSecret}, standardHeader(specMsgID, ts, specSignature), []byte(`{"test": 2432232315}`), 0, false},
		{"TamperedID", []string{specSecret}, standardHeader("msg_other", ts, specSignature), body, 0, false},
		{"TamperedTimestamp", []string{specSecret}, standardHeader(specMsgID, "1614265331", specSignature), body, 0, false},
		{"OtherVersion", []string{specSecret}, standardHeader(specMsgID, ts, "v2,"+strings.TrimPrefix(specSignature, "v1,")), body, 0, false},
		{"BareSignature", []string{specSecret}, standardHeader(specMsgID, ts, strings.TrimPrefix(specSignature, "v1,")), body, 0, false},
		{"MissingID", []string{specSecret}, standardHeader("", ts, specSignature), body, 0, false},
		{"MissingTimestamp", []string{specSecret}, standardHeader(specMsgID, "", specSignature), body, 0, false},
		{"MissingSignature", []string{specSecret}, standardHeader(specMsgID, ts, ""), body, 0, false},
		{"TimestampNotANumber", []string{specSecret}, standardHeader(specMsgID, "yesterday", specSignature), body, 0, false},
		{"TimestampHuge", []string{specSecret}, standardHeader(specMsgID, "9223372036854775807", specSignature), body, 0, false},
		{"NoHeaders", []string{specSecret}, http.Header{}, body, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustStandard(t, tt.secrets, clockAt(tt.skew))
			err := v.Verify(tt.header, tt.body)
			if tt.ok && err != nil {
				t.Fatalf("Verify = %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, webhook.ErrSignature) {
				t.Fatalf("Verify = %v, want ErrSignature", err)
			}
		})
	}
	t.Run("DefaultClockRefusesTheSpecVector", func(t *testing.T) {
		// Signed in 2021: a replay today is stale.
		err := mustStandard(t, []string{specSecret}).Verify(standardHeader(specMsgID, ts, specSignature), body)
		if !errors.Is(err, webhook.ErrSignature) {
			t.Fatalf("Verify = %v, want ErrSignature", err)
		}
	})
	t.Run("CustomTolerance", func(t *testing.T) {
		v := mustStandard(t, []string{specSecret}, clockAt(time.Hour), webhook.WithTolerance(2*time.Hour))
		if err := v.Verify(standardHeader(specMsgID, ts, specSignature), body); err != nil {
			t.Fatalf("Verify = %v", err)
		}
	})
	t.Run("FreshSignatureRoundTrips", func(t *testing.T) {
		now := time.Now()
		h, err := webhook.Sign(otherSecret, "msg_fresh", now, body)
		if err != nil {
			t.Fatal(err)
		}
		v := mustStandard(t, []string{specSecret, otherSecret})
		if err := v.Verify(standardHeader(h.ID, h.Timestamp, h.Signature), body); err != nil {
			t.Fatalf("Verify = %v", err)
		}
	})
}

func TestNewStandardVerifierSecrets(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		ok      bool
	}{
		{"Spec", []string{specSecret}, true},
		{"Several", []string{specSecret, otherSecret}, true},
		{"None", nil, false},
		{"NoPrefix", []string{strings.TrimPrefix(specSecret, "whsec_")}, true},
		{"Unpadded", []string{strings.TrimSuffix(otherSecret, "=")}, true},
		{"UnpaddedNoPrefix", []string{strings.TrimSuffix(strings.TrimPrefix(otherSecret, "whsec_"), "=")}, true},
		{"NotBase64", []string{"whsec_not base64!"}, false},
		{"TooShort", []string{"whsec_c2hvcnQ="}, false},
		{"Empty", []string{"whsec_"}, false},
		{"OneBadAmongGood", []string{specSecret, "whsec_"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := webhook.NewStandardVerifier(tt.secrets)
			if (err == nil) != tt.ok {
				t.Fatalf("NewStandardVerifier = %v, want ok=%v", err, tt.ok)
			}
			for _, secret := range tt.secrets {
				if err != nil && len(secret) > len(webhook.SecretPrefix) && strings.Contains(err.Error(), secret) {
					t.Fatalf("error %q shows the secret", err)
				}
			}
		})
	}
}

func TestStripeVerifier(t *testing.T) {
	const ts = "1614265330"
	body := []byte(specPayload)
	sig := func(s string) http.Header {
		h := http.Header{}
		if s != "" {
			h.Set(webhook.HeaderStripeSignature, s)
		}
		return h
	}
	tests := []struct {
		name    string
		secrets []string
		header  http.Header
		body    []byte
		skew    time.Duration
		ok      bool
	}{
		{"KnownVector", []string{stripeSecret}, sig("t=" + ts + ",v1=" + stripeSignature), body, 0, true},
		{"WithV0AndSpaces", []string{stripeSecret}, sig("t=" + ts + ", v0=abcdef, v1=" + stripeSignature), body, 0, true},
		{"SecondV1", []string{stripeSecret}, sig("t=" + ts + ",v1=" + strings.Repeat("00", 32) + ",v1=" + stripeSignature), body, 0, true},
		{"RotatedSecret", []string{"whsec_an_older_secret_still_valid", stripeSecret}, sig("t=" + ts + ",v1=" + stripeSignature), body, 0, true},
		{"Stale", []string{stripeSecret}, sig("t=" + ts + ",v1=" + stripeSignature), body, 6 * time.Minute, false},
		{"StaleByAMillisecond", []string{stripeSecret}, sig("t=" + ts + ",v1=" + stripeSignature), body, 5*time.Minute + time.Millisecond, false},
		{"JustInTime", []string{stripeSecret}, sig("t=" + ts + ",v1=" + stripeSignature), body, 5*time.Minute - time.Millisecond, true},
		{"FromTheFuture", []string{stripeSecret}, sig("t=" + ts + ",v1=" + stripeSignature), body, -6 * time.Minute, false},
		{"WrongSecret", []string{"whsec_an_older_secret_still_valid"}, sig("t=" + ts + ",v1=" + stripeSignature), body, 0, false},
		{"TamperedBody", []string{stripeSecret}, sig("t=" + ts + ",v1=" + stripeSignature), []byte(`{}`), 0, false},
		{"TamperedTimestamp", []string{stripeSecret}, sig("t=1614265331,v1=" + stripeSignature), body, 0, false},
		{"OnlyV0", []string{stripeSecret}, sig("t=" + ts + ",v0=" + stripeSignature), body, 0, false},
		{"NoTimestamp", []string{stripeSecret}, sig("v1=" + stripeSignature), body, 0, false},
		{"TwoTimestamps", []string{stripeSecret}, sig("t=1,t=" + ts + ",v1=" + stripeSignature), body, 0, false},
		{"NotHex", []string{stripeSecret}, sig("t=" + ts + ",v1=zz"), body, 0, false},
		{"Missing", []string{stripeSecret}, sig(""), body, 0, false},
		{"Garbage", []string{stripeSecret}, sig(",,,===,t"), body, 0, false},
		{"StandardHeadersAreNotEnough", []string{stripeSecret}, standardHeader(specMsgID, ts, specSignature), body, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := webhook.NewStripeVerifier(tt.secrets, clockAt(tt.skew))
			if err != nil {
				t.Fatal(err)
			}
			err = v.Verify(tt.header, tt.body)
			if tt.ok && err != nil {
				t.Fatalf("Verify = %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, webhook.ErrSignature) {
				t.Fatalf("Verify = %v, want ErrSignature", err)
			}
		})
	}
	t.Run("SignStripeMatchesTheVector", func(t *testing.T) {
		if got, want := webhook.SignStripe(stripeSecret, specTime(), body), "t="+ts+",v1="+stripeSignature; got != want {
			t.Fatalf("SignStripe = %q, want %q", got, want)
		}
	})
}

func TestNewVerifier(t *testing.T) {
	tests := []struct {
		name    string
		scheme  string
		secrets []string
		want    string // type name, or "" for an error
	}{
		{"DefaultIsStandard", "", []string{specSecret}, "*webhook.StandardVerifier"},
		{"Standard", "standard", []string{specSecret}, "*webhook.StandardVerifier"},
		{"Stripe", "stripe", []string{stripeSecret}, "*webhook.StripeVerifier"},
		{"StripeShortSecret", "stripe", []string{"short"}, ""},
		{"StripeNoSecret", "stripe", nil, ""},
		{"StandardNoSecret", "standard", nil, ""},
		{"UnknownScheme", "hmac", []string{specSecret}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := webhook.NewVerifier(tt.scheme, tt.secrets)
			switch {
			case tt.want == "" && err == nil:
				t.Fatalf("NewVerifier(%q) = %T, want an error", tt.scheme, v)
			case tt.want != "" && err != nil:
				t.Fatalf("NewVerifier(%q): %v", tt.scheme, err)
			case tt.want != "" && typeName(v) != tt.want:
				t.Fatalf("NewVerifier(%q) = %s, want %s", tt.scheme, typeName(v), tt.want)
			}
		})
	}
}

func typeName(v any) string {
	switch v.(type) {
	case *webhook.StandardVerifier:
		return "*webhook.StandardVerifier"
	case *webhook.StripeVerifier:
		return "*webhook.StripeVerifier"
	}
	return "?"
}
