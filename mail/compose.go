package mail

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	texttemplate "text/template"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/display"
)

// content is what a message says, before it is encoded.
type content struct {
	Subject  string
	Hello    string
	Body     string
	ViewPay  string
	Link     string // the hosted page; "" without one
	LinkText string
	Attached string // "" without an attachment
	Reply    string
	Footer   string
}

// compose reads the message's invoice, tenant and settings and writes the
// message: RFC 5322 headers, a multipart/alternative of text and HTML, and
// for an invoice message its PDF.
func (s *Service) compose(ctx context.Context, m Message) ([]byte, error) {
	inv, err := s.c.Invoices.Get(ctx, m.TenantID, m.InvoiceID)
	if err != nil {
		return nil, fmt.Errorf("mail: compose %s: %w", m.ID, err)
	}
	tenant, err := s.c.Tenants.Tenant(ctx, m.TenantID)
	if err != nil {
		return nil, fmt.Errorf("mail: compose %s: %w", m.ID, err)
	}
	settings, err := s.c.Settings.Get(ctx, m.TenantID)
	if err != nil {
		return nil, fmt.Errorf("mail: compose %s: %w", m.ID, err)
	}
	link, err := s.hostedLink(ctx, inv)
	if err != nil {
		return nil, fmt.Errorf("mail: compose %s: %w", m.ID, err)
	}
	var pdf []byte
	if m.Kind == KindInvoice && s.c.PDF != nil {
		if pdf, err = s.c.PDF.Collections(inv, tenant.Name, link); err != nil {
			return nil, fmt.Errorf("mail: compose %s: %w", m.ID, err)
		}
	}
	c := say(m.Kind, inv, tenant.Name, link, len(pdf) > 0)
	if settings.InvoiceFooter != nil {
		c.Footer = *settings.InvoiceFooter
	}
	var b bytes.Buffer
	h := textproto.MIMEHeader{}
	from := mail.Address{Name: tenant.Name, Address: s.from.Address}
	h.Set("From", from.String())
	h.Set("To", (&mail.Address{Name: inv.Customer.Name, Address: m.To}).String())
	if settings.ReplyToEmail != nil && *settings.ReplyToEmail != "" {
		h.Set("Reply-To", (&mail.Address{Address: *settings.ReplyToEmail}).String())
	}
	h.Set("Subject", mime.QEncoding.Encode("utf-8", c.Subject))
	h.Set("Date", m.CreatedAt.Format("Mon, 02 Jan 2006 15:04:05 -0700"))
	h.Set("Message-ID", m.MessageID)
	h.Set("MIME-Version", "1.0")
	h.Set("Auto-Submitted", "auto-generated")
	mixed := multipart.NewWriter(&b)
	h.Set("Content-Type", "multipart/mixed; boundary="+mixed.Boundary())
	writeHeader(&b, h)
	if err := writeAlternative(mixed, c); err != nil {
		return nil, err
	}
	if len(pdf) > 0 {
		if err := writePDF(mixed, inv.Number, pdf); err != nil {
			return nil, err
		}
	}
	if err := mixed.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// hostedLink is the invoice's hosted page, "" when the Service has no
// Links or public URL.
func (s *Service) hostedLink(ctx context.Context, inv billing.Invoice) (string, error) {
	if s.c.Links == nil || s.c.PublicURL == "" {
		return "", nil
	}
	tokens, err := s.c.Links.Tokens(ctx, inv.TenantID, inv)
	if err != nil || tokens[inv.ID] == "" {
		return "", err
	}
	return s.c.PublicURL + "/pay/" + tokens[inv.ID], nil
}

// say is what a message of kind about inv says, in the customer's locale.
func say(kind Kind, inv billing.Invoice, tenant, link string, attached bool) content {
	loc := inv.Customer.Locale
	t := textsFor(loc)
	vars := map[string]string{
		"tenant": tenant, "customer": inv.Customer.Name, "number": inv.Number,
		"total":       display.Money(loc, inv.Total, inv.Currency),
		"amount_due":  display.Money(loc, inv.AmountDue, inv.Currency),
		"amount_paid": display.Money(loc, inv.AmountPaid, inv.Currency),
		"due_date":    display.Date(loc, inv.DueDate),
	}
	c := content{Subject: fill(t.subject[kind], vars), Hello: fill(t.hello, vars), Body: fill(t.body[kind], vars),
		Reply: t.replyHint}
	if link != "" {
		c.ViewPay, c.Link, c.LinkText = t.viewPay, link, fill(t.viewLink, vars)
	}
	if attached {
		c.Attached = t.attached
	}
	return c
}

// writeHeader writes h in a stable order, then the blank line.
func writeHeader(w io.Writer, h textproto.MIMEHeader) {
	for _, k := range []string{"From", "To", "Reply-To", "Subject", "Date", "Message-ID", "MIME-Version",
		"Auto-Submitted", "Content-Type"} {
		for _, v := range h.Values(k) {
			fmt.Fprintf(w, "%s: %s\r\n", k, v)
		}
	}
	fmt.Fprint(w, "\r\n")
}

var textBody = texttemplate.Must(texttemplate.New("text").Parse(
	"{{.Hello}}\r\n\r\n{{.Body}}\r\n{{if .Link}}\r\n{{.ViewPay}}\r\n{{.Link}}\r\n{{end}}{{if .Attached}}\r\n{{.Attached}}\r\n{{end}}\r\n{{.Reply}}\r\n{{if .Footer}}\r\n-- \r\n{{.Footer}}\r\n{{end}}"))

var htmlBody = template.Must(template.New("html").Parse(`<!doctype html>
<html><body style="font-family:system-ui,sans-serif;color:#1a1a1a;line-height:1.5">
<p>{{.Hello}}</p>
<p>{{.Body}}</p>
{{if .Link}}<p><a href="{{.Link}}" style="display:inline-block;background:#0a58ca;color:#fff;padding:.6rem 1.2rem;border-radius:6px;text-decoration:none">{{.LinkText}}</a></p>
{{end}}{{if .Attached}}<p>{{.Attached}}</p>
{{end}}<p style="color:#555">{{.Reply}}</p>
{{if .Footer}}<p style="color:#555;white-space:pre-line">{{.Footer}}</p>
{{end}}</body></html>
`))

// writeAlternative writes the text and HTML bodies as one
// multipart/alternative part of mixed.
func writeAlternative(mixed *multipart.Writer, c content) error {
	var alt bytes.Buffer
	aw := multipart.NewWriter(&alt)
	for _, part := range []struct {
		typ string
		t   interface {
			Execute(io.Writer, any) error
		}
	}{{"text/plain; charset=utf-8", textBody}, {"text/html; charset=utf-8", htmlBody}} {
		w, err := aw.CreatePart(textproto.MIMEHeader{"Content-Type": {part.typ}, "Content-Transfer-Encoding": {"quoted-printable"}})
		if err != nil {
			return err
		}
		qp := quotedprintable.NewWriter(w)
		if err := part.t.Execute(qp, c); err != nil {
			return fmt.Errorf("mail: compose: %w", err)
		}
		if err := qp.Close(); err != nil {
			return err
		}
	}
	if err := aw.Close(); err != nil {
		return err
	}
	w, err := mixed.CreatePart(textproto.MIMEHeader{"Content-Type": {"multipart/alternative; boundary=" + aw.Boundary()}})
	if err != nil {
		return err
	}
	_, err = w.Write(alt.Bytes())
	return err
}

// writePDF attaches the invoice's PDF, base64 in lines of 76.
func writePDF(mixed *multipart.Writer, number string, pdf []byte) error {
	name := "invoice-" + number + ".pdf"
	w, err := mixed.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {mime.FormatMediaType("application/pdf", map[string]string{"name": name})},
		"Content-Transfer-Encoding": {"base64"},
		"Content-Disposition":       {mime.FormatMediaType("attachment", map[string]string{"filename": name})},
	})
	if err != nil {
		return err
	}
	enc := base64.StdEncoding.EncodeToString(pdf)
	for len(enc) > 76 {
		if _, err := io.WriteString(w, enc[:76]+"\r\n"); err != nil {
			return err
		}
		enc = enc[76:]
	}
	_, err = io.WriteString(w, enc+"\r\n")
	return err
}
