package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/smtptest"
)

// TestServeEmailsInvoices: the server started with TENANTKIT_SMTP_URL's
// flag and --mail-from emails an invoice sent over the API through that
// mail server, linking its hosted page under --public-url; started
// without, the same send answers 409 mail_not_configured.
func TestServeEmailsInvoices(t *testing.T) {
	dbURL := dbtest.SQLiteURL(t)
	smtpd := smtptest.Start(t, smtptest.Options{Plain: true, User: "tk", Password: "pw"})
	srv := mustStartServerProc(t, freeAddr(t), "--database-url", dbURL, "--scheduler-interval", "0",
		"--smtp-url", smtpd.URL(), "--mail-from", "billing@platform.test", "--public-url", "https://billing.example.test")
	mustExecCLI(t, dbURL, "tenant", "create", "--slug", "mailco", "--name", "Mail Co", "--plan", "growth")
	mustExecCLI(t, dbURL, "user", "create", "--email", "owner@mail.test", "--name", "Owner")
	mustExecCLI(t, dbURL, "member", "add", "--tenant", "mailco", "--email", "owner@mail.test", "--role", "owner")
	key := mustCreateKey(t, dbURL, "owner@mail.test", "collections:read,collections:write", "mailco")

	inv := mustCallAPI(t, "POST", srv.URL()+"/api/v1/collections/invoices", bearer(key),
		`{"customer":{"name":"Ada","email":"ada@customer.test"},"currency":"USD","line_items":[{"description":"Plan","quantity":1,"unit_amount":4200}]}`)
	if inv.Status != http.StatusCreated {
		t.Fatalf("create invoice: %d %v", inv.Status, inv.Body)
	}
	id := inv.Body["id"].(string)
	res := mustCallAPI(t, "POST", srv.URL()+"/api/v1/collections/invoices/"+id+"/send", bearer(key), "")
	if res.Status != http.StatusAccepted || res.Body["status"] != "queued" {
		t.Fatalf("send: %d %v, want 202 queued", res.Status, res.Body)
	}
	got := smtpd.Wait(t, 1, 30*time.Second)[0]
	body := string(got.Data)
	if got.User != "tk" || got.To[0] != "ada@customer.test" || !strings.Contains(body, "https://billing.example.test/pay/") ||
		!strings.Contains(body, "Subject: Invoice "+inv.Body["number"].(string)+" from Mail Co") {
		t.Errorf("received from %q to %v:\n%.600s", got.User, got.To, body)
	}

	plain := mustStartServerProc(t, freeAddr(t), "--database-url", dbURL, "--scheduler-interval", "0")
	res = mustCallAPI(t, "POST", plain.URL()+"/api/v1/collections/invoices/"+id+"/send", bearer(key), "")
	if res.Status != http.StatusConflict || res.Body["code"] != "mail_not_configured" {
		t.Errorf("send without mail: %d %v, want 409 mail_not_configured", res.Status, res.Body)
	}
}
