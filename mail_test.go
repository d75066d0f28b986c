package tenantkit_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/pdftest"
	"github.com/tenantkit/tenantkit/internal/smtptest"
	tkmail "github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/mail/mailqueue"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// mailEnv is an App that emails through a real SMTP server on 127.0.0.1,
// its queue started, its API served, and an owner's key at tenant
// "acme" (Acme GmbH).
type mailEnv struct {
	app  *tenantkit.App
	smtp *smtptest.Server
	url  string
	key  string
	// tenant is acme's id.
	tenant string
}

const mailPublicURL = "https://billing.example.test"

func newMailEnv(t *testing.T, db *bun.DB, so smtptest.Options, q mailqueue.Options) mailEnv {
	t.Helper()
	ctx := context.Background()
	if _, err := tenantkit.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}
	srv := smtptest.Start(t, so)
	sender, err := tkmail.NewSMTP(srv.URL(), srv.RootCAs)
	if err != nil {
		t.Fatal(err)
	}
	app, err := tenantkit.New(db, catalog.Default(),
		tenantkit.WithSecretKey([]byte(strings.Repeat("m", 32))),
		tenantkit.WithMail(sender, "billing@platform.test", mailPublicURL, q),
		tenantkit.WithDeliveries(riverqueue.Options{FetchPoll: 50 * time.Millisecond, DB: dbtest.RiverDB(t, db)}))
	if err != nil {
		t.Fatal(err)
	}
	startDeliveries(t, ctx, app)
	key := dbtest.OwnerKey(t, app, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme GmbH", PlanID: catalog.PlanGrowth},
		tenancy.CreateUserInput{Email: "owner@acme.test", Name: "Owner"})
	ten, err := app.Tenancy.Directory.FindTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	return mailEnv{app: app, smtp: srv, url: dbtest.Serve(t, app), key: key, tenant: ten.ID}
}

// call makes a request as acme's owner and fails t unless it answers want.
func (e mailEnv) call(t *testing.T, method, path, body string, want int, header ...string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, raw, want)
	}
	out := map[string]any{}
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// draft creates a customer in locale and a draft of 1,234.56 EUR to it,
// due on the date given, if any.
func (e mailEnv) draft(t *testing.T, locale string, due ...string) string {
	t.Helper()
	c := e.call(t, "POST", "/api/v1/collections/customers",
		`{"name":"Grete Müller","email":"grete@kunde.test","locale":"`+locale+`"}`, http.StatusCreated)
	dueDate := ""
	if len(due) > 0 {
		dueDate = `"due_date":"` + due[0] + `",`
	}
	inv := e.call(t, "POST", "/api/v1/collections/invoices", `{"customer_id":"`+c["id"].(string)+`","currency":"EUR","status":"draft",`+dueDate+
		`"line_items":[{"description":"Beratung","quantity":1,"unit_amount":123456}]}`, http.StatusCreated)
	return inv["id"].(string)
}

// parsed is a received message, taken apart.
type parsed struct {
	header mail.Header
	text   string
	html   string
	pdf    []byte
}

func parse(t *testing.T, raw []byte) parsed {
	t.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("message: %v\n%s", err, raw)
	}
	p := parsed{header: m.Header}
	var walk func(r io.Reader, ct string)
	walk = func(r io.Reader, ct string) {
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatalf("Content-Type %q: %v", ct, err)
		}
		if !strings.HasPrefix(mt, "multipart/") {
			t.Fatalf("a leaf at the top: %s", mt)
		}
		mr := multipart.NewReader(r, params["boundary"])
		for {
			part, err := mr.NextPart() // decodes quoted-printable
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pt := part.Header.Get("Content-Type")
			body, err := io.ReadAll(part)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case strings.HasPrefix(pt, "multipart/"):
				walk(bytes.NewReader(body), pt)
			case strings.HasPrefix(pt, "text/plain"):
				p.text = string(body)
			case strings.HasPrefix(pt, "text/html"):
				p.html = string(body)
			case strings.HasPrefix(pt, "application/pdf"):
				if p.pdf, err = base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(body)), "")); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	walk(m.Body, m.Header.Get("Content-Type"))
	return p
}

func (p parsed) subject(t *testing.T) string {
	t.Helper()
	s, err := new(mime.WordDecoder).DecodeHeader(p.header.Get("Subject"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// waitEvent waits for the tenant's event of typ about resource.
func waitEvent(t *testing.T, app *tenantkit.App, tenantID, typ, resource string) event.Event {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		es, _, err := app.Events.List(context.Background(), tenantID, event.Filter{Type: typ, ResourceID: resource})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) > 0 {
			return es[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event about %s", typ, resource)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestInvoiceEmailedToCustomer: finalizing with "send": true emails the
// invoice over SMTP (STARTTLS, AUTH) in the customer's language, with its
// amounts in the customer's locale, its hosted page's link (which opens
// the page) and its PDF (whose text names the invoice); invoice.sent is
// recorded. A send repeated with one Idempotency-Key is one email; a
// payment in full sends a receipt; the collection schedule's reminders go
// to the customer once per step, however often it runs.
func TestInvoiceEmailedToCustomer(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		e := newMailEnv(t, db, smtptest.Options{User: "tk", Password: "s3cret"}, mailqueue.Options{})
		id := e.draft(t, "de-DE")
		inv := e.call(t, "POST", "/api/v1/collections/invoices/"+id+"/finalize", `{"send":true}`, http.StatusOK)
		number := inv["number"].(string)

		got := e.smtp.Wait(t, 1, 20*time.Second)[0]
		if !got.TLS || got.User != "tk" || got.From != "billing@platform.test" || len(got.To) != 1 || got.To[0] != "grete@kunde.test" {
			t.Fatalf("envelope %+v (TLS %v, user %q), want STARTTLS, AUTH as tk, billing@platform.test → grete@kunde.test", got.To, got.TLS, got.User)
		}
		p := parse(t, got.Data)
		if s := p.subject(t); s != "Rechnung "+number+" von Acme GmbH" {
			t.Errorf("Subject %q", s)
		}
		if from := p.header.Get("From"); !strings.Contains(from, "Acme GmbH") || !strings.Contains(from, "billing@platform.test") {
			t.Errorf("From %q", from)
		}
		for _, want := range []string{"Guten Tag Grete Müller,", "1.234,56\u00a0€", "Rechnung online ansehen und bezahlen:", mailPublicURL + "/pay/"} {
			if !strings.Contains(p.text, want) {
				t.Errorf("text part lacks %q:\n%s", want, p.text)
			}
		}
		if !strings.Contains(p.html, "Rechnung "+number+" ansehen") || !strings.Contains(p.html, `href="`+mailPublicURL+"/pay/") {
			t.Errorf("HTML part:\n%s", p.html)
		}
		link := regexp.MustCompile(`/pay/[A-Za-z0-9_-]{43}`).FindString(p.text)
		res, err := http.Get(e.url + link)
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || !strings.Contains(string(page), number) {
			t.Errorf("the email's link %s: %d", link, res.StatusCode)
		}
		if text := pdftest.Text(t, p.pdf); !strings.Contains(text, number) || !strings.Contains(text, "Grete Müller") ||
			!strings.Contains(text, mailPublicURL+link) {
			t.Errorf("the attached PDF reads:\n%s", text)
		}
		sent := waitEvent(t, e.app, e.tenant, event.InvoiceSent, id)
		var m tkmail.Message
		if err := json.Unmarshal(sent.Data, &m); err != nil || m.Status != tkmail.StatusSent || m.Attempts != 1 ||
			m.MessageID != p.header.Get("Message-ID") {
			t.Errorf("invoice.sent data %s (%v), want the message sent at the first attempt as %s", sent.Data, err, p.header.Get("Message-ID"))
		}

		// One Idempotency-Key, one email.
		for range 2 {
			q := e.call(t, "POST", "/api/v1/collections/invoices/"+id+"/send", "", http.StatusAccepted, "Idempotency-Key", "resend-1")
			if q["status"] != "queued" || q["kind"] != "invoice" || q["to"] != "grete@kunde.test" {
				t.Fatalf("send: %v", q)
			}
		}
		e.smtp.Wait(t, 2, 20*time.Second)

		// Paid in full: a receipt.
		e.call(t, "POST", "/api/v1/collections/invoices/"+id+"/payments", `{"amount":123456,"method":"bank_transfer","reference":"WIRE-42"}`, http.StatusCreated)
		msgs := e.smtp.Wait(t, 3, 20*time.Second)
		if s := parse(t, msgs[2].Data).subject(t); s != "Zahlungsbestätigung für Rechnung "+number+" von Acme GmbH" {
			t.Errorf("receipt's Subject %q", s)
		}

		// A reminder per reminder step of the schedule (the first, a day
		// after the due date; the overdue step only tells the tenant),
		// once however often it runs.
		id2 := e.draft(t, "fr", time.Now().UTC().Format(time.DateOnly))
		e.call(t, "POST", "/api/v1/collections/invoices/"+id2+"/finalize", "", http.StatusOK)
		for range 2 {
			if _, err := e.app.Dunning.Run(context.Background(), time.Now().Add(4*24*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		msgs = e.smtp.Wait(t, 4, 20*time.Second)
		if s := parse(t, msgs[3].Data).subject(t); !strings.HasPrefix(s, "Rappel : la facture ") {
			t.Errorf("reminder's Subject %q", s)
		}
		time.Sleep(time.Second) // a duplicate would arrive by now
		msgs = e.smtp.Messages()
		ids := map[string]bool{}
		for _, m := range msgs {
			ids[parse(t, m.Data).header.Get("Message-ID")] = true
		}
		if len(msgs) != 4 || len(ids) != 4 {
			t.Errorf("%d messages with %d Message-IDs, want 4 of each", len(msgs), len(ids))
		}
	})
}

// TestMailServerKilledMidSend: the SMTP server is killed while it reads
// the first message and comes back on the same address; the queue sends
// the message again, and the customer gets it once. Telling the mail
// service of its cause again queues nothing new.
func TestMailServerKilledMidSend(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		restarted := make(chan struct{})
		e := newMailEnv(t, db, smtptest.Options{OnData: func(n int, s *smtptest.Server) error {
			if n == 1 {
				s.Kill()
				go func() { s.Restart(t); close(restarted) }()
				return errors.New("killed")
			}
			return nil
		}}, mailqueue.Options{})
		id := e.draft(t, "en")
		e.call(t, "POST", "/api/v1/collections/invoices/"+id+"/finalize", `{"send":true}`, http.StatusOK)
		<-restarted
		sent := waitEvent(t, e.app, e.tenant, event.InvoiceSent, id)
		var m tkmail.Message
		if err := json.Unmarshal(sent.Data, &m); err != nil || m.Attempts != 2 {
			t.Errorf("invoice.sent data %s, want a message sent at its second attempt", sent.Data)
		}
		// Pay it: its receipt's cause is the invoice.paid event.
		e.call(t, "POST", "/api/v1/collections/invoices/"+id+"/payments", `{"amount":123456,"method":"card"}`, http.StatusCreated)
		e.smtp.Wait(t, 2, 20*time.Second)
		paid := waitEvent(t, e.app, e.tenant, event.InvoicePaid, id)
		if err := e.app.Mail.Dispatch(context.Background(), paid); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		if n := len(e.smtp.Messages()); n != 2 {
			t.Errorf("%d messages, want 2: the invoice once, the receipt once", n)
		}
	})
}

// TestMailGivenUp: a message the server refuses at every attempt is
// marked failed after the last one, and email.failed recorded with the
// server's answer.
func TestMailGivenUp(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		e := newMailEnv(t, db, smtptest.Options{OnData: func(int, *smtptest.Server) error {
			return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "rejected by policy"}
		}}, mailqueue.Options{MaxAttempts: 2})
		id := e.draft(t, "en")
		e.call(t, "POST", "/api/v1/collections/invoices/"+id+"/finalize", `{"send":true}`, http.StatusOK)
		failed := waitEvent(t, e.app, e.tenant, event.EmailFailed, id)
		var m tkmail.Message
		if err := json.Unmarshal(failed.Data, &m); err != nil || m.Status != tkmail.StatusFailed || m.Attempts != 2 ||
			!strings.Contains(m.Error, "rejected by policy") {
			t.Errorf("email.failed data %s, want failed after 2 attempts with the server's answer", failed.Data)
		}
	})
}
