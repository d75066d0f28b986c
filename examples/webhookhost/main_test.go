package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/webhook"
)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func TestHostReceivesPayment(t *testing.T) {
	ctx := context.Background()
	sqldb, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "host.db")+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer db.Close()
	host, app, err := newHost(ctx, db, []string{secret})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(host)
	defer srv.Close()

	// The tenant has an open invoice of 1999 USD.
	ten, err := app.Tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "shop", Name: "Shop", PlanID: catalog.PlanStarter})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := app.Billing.Create(ctx, ten.ID, billing.CreateInvoiceInput{
		Customer: billing.CustomerInput{Name: "Ada", Email: "ada@example.com"}, Currency: "USD",
		LineItems: []billing.LineItemInput{{Description: "Plan", Quantity: 1, UnitAmount: 1999}}})
	if err != nil {
		t.Fatal(err)
	}

	deliver := func(body string, sign bool) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+"/hooks/payments", strings.NewReader(body))
		if sign {
			h, err := webhook.Sign(secret, "msg_1", time.Now(), []byte(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("webhook-id", h.ID)
			req.Header.Set("webhook-timestamp", h.Timestamp)
			req.Header.Set("webhook-signature", h.Signature)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	event := fmt.Sprintf(`{"id":"evt_1","type":"payment.succeeded","created_at":"2026-11-21T10:00:00Z",`+
		`"data":{"payment_id":"pay_1","invoice_id":%q,"amount":1999,"currency":"USD","failure_reason":null}}`, inv.ID)

	if status, _ := deliver(event, false); status != http.StatusUnauthorized {
		t.Fatalf("unsigned: %d, want 401", status)
	}
	if status, body := deliver(event, true); status != 200 || !strings.Contains(body, `"outcome":"applied"`) {
		t.Fatalf("signed: %d %s", status, body)
	}
	if status, body := deliver(event, true); status != 200 || !strings.Contains(body, `"duplicate":true`) {
		t.Fatalf("redelivery: %d %s", status, body)
	}
	got, err := app.Billing.Get(ctx, ten.ID, inv.ID)
	if err != nil || got.Status != billing.StatusPaid || got.AmountPaid != 1999 {
		t.Fatalf("invoice after payment: %+v %v", got, err)
	}
}

// syncBuffer is what the command prints, read while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var (
	printedSecret = regexp.MustCompile(`verifies with (whsec_\S+)`)
	printedURL    = regexp.MustCompile(`webhook at (http://\S+);`)
)

// TestCommand runs the command as its doc comment says, with no secret
// configured: it prints the secret it made up and where it listens, and
// takes an event signed with that secret.
func TestCommand(t *testing.T) {
	t.Setenv("TENANTKIT_WEBHOOK_SECRET", "")
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-db", filepath.Join(t.TempDir(), "host.db")}, out)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhookhost: %v", err)
		}
	}()
	deadline := time.Now().Add(time.Minute)
	for !printedURL.MatchString(out.String()) {
		select {
		case err := <-done:
			done <- nil
			t.Fatalf("webhookhost ended: %v\n%s", err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhookhost printed no address within a minute: %q", out.String())
		}
	}
	secret := printedSecret.FindStringSubmatch(out.String())
	if secret == nil {
		t.Fatalf("no secret printed: %q", out.String())
	}
	body := []byte(`{"id":"evt_cmd","type":"customer.created","created_at":"2026-11-21T10:00:00Z","data":{}}`)
	h, err := webhook.Sign(secret[1], "msg_cmd", time.Now(), body)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", printedURL.FindStringSubmatch(out.String())[1], bytes.NewReader(body))
	req.Header.Set("webhook-id", h.ID)
	req.Header.Set("webhook-timestamp", h.Timestamp)
	req.Header.Set("webhook-signature", h.Signature)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"outcome":"ignored"`) {
		t.Fatalf("event signed with the printed secret: %d %s", resp.StatusCode, b)
	}
}
