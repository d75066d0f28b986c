package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/webhook"
)

// The Standard Webhooks specification's example.
const (
	specSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specMsgID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specPayload   = `{"test": 2432232314}`
	specSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

// writeFile writes content to a new file in the test's directory.
func writeFile(t *testing.T, content string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestWebhookSign(t *testing.T) {
	file := writeFile(t, specPayload)
	sign := func(t *testing.T, args ...string) (string, error) {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"webhook", "sign"}, args...), &stdout, &stderr)
		return stdout.String(), err
	}
	t.Run("SpecVector", func(t *testing.T) {
		out, err := sign(t, "--secret", specSecret, "--file", file, "--id", specMsgID, "--timestamp", "1614265330")
		if err != nil {
			t.Fatal(err)
		}
		want := "webhook-id: " + specMsgID + "\nwebhook-timestamp: 1614265330\nwebhook-signature: " + specSignature + "\n"
		if out != want {
			t.Fatalf("output:\n%s\nwant:\n%s", out, want)
		}
	})
	t.Run("JSON", func(t *testing.T) {
		out, err := sign(t, "--secret", specSecret, "--file", file, "--id", specMsgID, "--timestamp", "1614265330", "--json")
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]string
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("decode %s: %v", out, err)
		}
		want := map[string]string{"webhook-id": specMsgID, "webhook-timestamp": "1614265330", "webhook-signature": specSignature}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("--json = %v, want %v", got, want)
		}
	})
	t.Run("DefaultsToANewIDAndNow", func(t *testing.T) {
		out, err := sign(t, "--secret", specSecret, "--file", file, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var h webhook.SignedHeaders
		if err := json.Unmarshal([]byte(out), &h); err != nil {
			t.Fatal(err)
		}
		v, err := webhook.NewStandardVerifier([]string{specSecret})
		if err != nil {
			t.Fatal(err)
		}
		header := http.Header{}
		header.Set(webhook.HeaderID, h.ID)
		header.Set(webhook.HeaderTimestamp, h.Timestamp)
		header.Set(webhook.HeaderSignature, h.Signature)
		if err := v.Verify(header, []byte(specPayload)); err != nil || !strings.HasPrefix(h.ID, "msg_") {
			t.Fatalf("fresh signature %+v: %v", h, err)
		}
	})
	t.Run("SecretFromEnvironment", func(t *testing.T) {
		t.Setenv("TENANTKIT_WEBHOOK_SECRET", specSecret+",whsec_c2Vjb25kLXNlY3JldC1mb3Itcm90YXRpb24=")
		out, err := sign(t, "--file", file, "--id", specMsgID, "--timestamp", "1614265330")
		if err != nil || !strings.Contains(out, specSignature) {
			t.Fatalf("output %q, %v", out, err)
		}
	})
	t.Run("Stripe", func(t *testing.T) {
		const secret = "whsec_test_secret_for_stripe_scheme"
		out, err := sign(t, "--scheme", "stripe", "--secret", secret, "--file", file, "--timestamp", "1614265330")
		want := "Stripe-Signature: t=1614265330,v1=657475fbc874c59b6aa5fa851cc5d0316db11362828374c2d52ec1b7df09c2d3\n"
		if err != nil || out != want {
			t.Fatalf("output %q, %v; want %q", out, err, want)
		}
	})
	errs := []struct {
		name string
		args []string
	}{
		{"NoSecret", []string{"--file", file}},
		{"NoFile", []string{"--secret", specSecret}},
		{"MissingFile", []string{"--secret", specSecret, "--file", filepath.Join(t.TempDir(), "nope.json")}},
		{"BadSecret", []string{"--secret", "whsec_short", "--file", file}},
		{"BadScheme", []string{"--scheme", "hmac", "--secret", specSecret, "--file", file}},
		{"Positional", []string{"--secret", specSecret, "--file", file, "extra"}},
		{"TooLarge", []string{"--secret", specSecret, "--file", writeFile(t, strings.Repeat("x", webhook.MaxPayloadBytes+1))}},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TENANTKIT_WEBHOOK_SECRET", "")
			if out, err := sign(t, tt.args...); err == nil {
				t.Fatalf("webhook sign %v succeeded: %s", tt.args, out)
			}
		})
	}
	t.Run("UnknownSubcommand", func(t *testing.T) {
		if err := run(context.Background(), []string{"webhook", "verify"}, io.Discard, io.Discard); err == nil {
			t.Fatal("webhook verify succeeded")
		}
	})
}

// post sends body with header to url and decodes the JSON answer.
func post(t *testing.T, url string, header map[string]string, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// TestWebhookEndToEnd: the real server with a webhook secret takes an
// event signed by `server webhook sign` and marks the invoice paid.
func TestWebhookEndToEnd(t *testing.T) {
	databases(t, func(t *testing.T, dbURL string) {
		mustCLIJSON(t, dbURL, "tenant", "create", "--slug", "acme", "--name", "Acme", "--plan", "growth")
		mustCLIJSON(t, dbURL, "user", "create", "--email", "ann@acme.test", "--name", "Ann")
		mustCLIJSON(t, dbURL, "member", "add", "--tenant", "acme", "--email", "ann@acme.test", "--role", "owner")
		key := mustCLIJSON(t, dbURL, "apikey", "create", "--email", "ann@acme.test", "--scopes", "collections:read,collections:write")["key"].(string)
		bearer := map[string]string{"Authorization": "Bearer " + key}

		off := mustServe(t, dbURL)
		if status, _ := post(t, off.URL()+"/api/webhooks/payment-provider", nil, `{}`); status != http.StatusNotImplemented {
			t.Fatalf("webhook without a secret: %d, want 501", status)
		}

		s := mustServe(t, dbURL, "--webhook-secret", specSecret)
		status, inv := post(t, s.URL()+"/api/v1/collections/invoices", bearer,
			`{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD","line_items":[{"description":"Plan","quantity":1,"unit_amount":4900,"tax_rate_bps":0}]}`)
		if status != http.StatusCreated {
			t.Fatalf("create invoice: %d %v", status, inv)
		}
		event := fmt.Sprintf(`{"id":"evt_e2e","type":"payment.succeeded","created_at":"2026-11-21T10:00:00Z","data":{"payment_id":"pay_1","invoice_id":%q,"amount":4900,"currency":"USD","failure_reason":null}}`, inv["id"])
		var headers map[string]string
		if err := json.Unmarshal(mustCLI(t, dbURL, "webhook", "sign", "--secret", specSecret, "--file", writeFile(t, event), "--json"), &headers); err != nil {
			t.Fatal(err)
		}
		for i, wantDuplicate := range []bool{false, true} {
			status, ack := post(t, s.URL()+"/api/webhooks/payment-provider", headers, event)
			if status != http.StatusOK || ack["outcome"] != "applied" || ack["duplicate"] != wantDuplicate {
				t.Fatalf("delivery %d: %d %v", i, status, ack)
			}
		}
		if status, _ := post(t, s.URL()+"/api/webhooks/payment-provider", nil, event); status != http.StatusUnauthorized {
			t.Fatalf("unsigned delivery: %d, want 401", status)
		}
		status, got := get(t, s.URL()+"/api/v1/collections/invoices/"+inv["id"].(string), key)
		if status != http.StatusOK || got["status"] != "paid" || got["amount_paid"] != 4900.0 {
			t.Fatalf("invoice after the webhook: %d %v", status, got)
		}
	})
}

func TestWebhookSchemeFlag(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "tk.db")
	t.Run("Stripe", func(t *testing.T) {
		s := mustServe(t, url, "--webhook-secret", "whsec_test_secret_for_stripe_scheme", "--webhook-scheme", "stripe")
		body := `{"id":"evt_stripe","type":"customer.created"}`
		h := map[string]string{webhook.HeaderStripeSignature: webhook.SignStripe("whsec_test_secret_for_stripe_scheme", time.Now(), []byte(body))}
		if status, ack := post(t, s.URL()+"/api/webhooks/payment-provider", h, body); status != http.StatusOK || ack["outcome"] != "ignored" {
			t.Fatalf("stripe delivery: %d %v", status, ack)
		}
	})
	t.Run("Unknown", func(t *testing.T) {
		err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--database-url", url,
			"--log-level", "warn", "--webhook-secret", specSecret, "--webhook-scheme", "hmac"}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "webhook-scheme") {
			t.Fatalf("serve with an unknown scheme: %v", err)
		}
	})
	t.Run("BadSecret", func(t *testing.T) {
		err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--database-url", url,
			"--log-level", "warn", "--webhook-secret", "not-a-whsec-secret"}, io.Discard, io.Discard)
		if err == nil || strings.Contains(err.Error(), "not-a-whsec-secret") {
			t.Fatalf("serve with a bad secret: %v (must fail without showing it)", err)
		}
	})
}

// TestWebhookSecretForms: the server starts with Standard Webhooks secrets
// in every form the reference libraries take — without the whsec_ prefix,
// without base64 padding — and verifies deliveries signed with each.
func TestWebhookSecretForms(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "tk.db")
	forms := []struct{ configured, padded string }{
		{"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
		{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS="},
		{"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwBr", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwBr=="},
	}
	var configured []string
	for _, f := range forms {
		configured = append(configured, f.configured)
	}
	s := mustServe(t, url, "--webhook-secret", strings.Join(configured, ","))
	for i, f := range forms {
		body := fmt.Sprintf(`{"id":"evt_form_%d","type":"customer.created"}`, i)
		h, err := webhook.Sign(f.padded, fmt.Sprintf("msg_form_%d", i), time.Now(), []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		headers := map[string]string{webhook.HeaderID: h.ID, webhook.HeaderTimestamp: h.Timestamp, webhook.HeaderSignature: h.Signature}
		if status, ack := post(t, s.URL()+"/api/webhooks/payment-provider", headers, body); status != http.StatusOK || ack["outcome"] != "ignored" {
			t.Fatalf("delivery signed with %s (configured as %s): %d %v", f.padded, f.configured, status, ack)
		}
	}
}
