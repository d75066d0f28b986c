package tenantkit

import (
	"fmt"

	"go.opentelemetry.io/otel/trace"

	"github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/mail/mailqueue"
	"github.com/tenantkit/tenantkit/webhook/outbound"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// Option tunes what New builds.
type Option func(*options)

type options struct {
	secretKey    []byte
	webhookAllow []string
	outbound     []outbound.Option
	deliveries   riverqueue.Options
	tracer       trace.TracerProvider
	platformName string
	mail         *mailOptions
}

// mailOptions are WithMail's.
type mailOptions struct {
	sender          mail.Sender
	from, publicURL string
	queue           mailqueue.Options
}

// WithMail makes the App email the tenants' customers (App.Mail): their
// invoices with the PDF attached and the hosted page linked, the
// collection schedule's reminders, receipts of payment. sender is the
// mail server (mail.NewSMTP for TENANTKIT_SMTP_URL); from is the
// platform's sender address ("billing@example.com"), shown in each
// tenant's name; publicURL is the server's public URL, which the hosted
// pages' links start with (they need WithSecretKey too). q tunes the
// sending queue's workers and attempts.
func WithMail(sender mail.Sender, from, publicURL string, q mailqueue.Options) Option {
	return func(o *options) { o.mail = &mailOptions{sender: sender, from: from, publicURL: publicURL, queue: q} }
}

// WithPlatformName is the platform's name, printed as the issuer of its
// invoices to the tenants (their PDFs, App.InvoicePDF): your company's
// name. By default invoicepdf.DefaultPlatformName.
func WithPlatformName(name string) Option {
	return func(o *options) { o.platformName = name }
}

// WithSecretKey is the server key (outbound.KeyBytes = 32 bytes) that
// encrypts the outbound webhook endpoints' signing secrets at rest
// (AES-256-GCM). Every replica needs the same one, kept as carefully as
// the database's password; generate it with `openssl rand -base64 32`.
// Without it, creating an endpoint answers 501.
func WithSecretKey(key []byte) Option {
	return func(o *options) { o.secretKey = append([]byte(nil), key...) }
}

// WithWebhookAllow lets outbound webhooks reach the listed hosts and
// ranges (names, addresses, CIDRs) although they are not public, and over
// plain http (local development, tests). By default endpoints must be
// https URLs resolving to public addresses only.
func WithWebhookAllow(hostsOrCIDRs ...string) Option {
	return func(o *options) { o.webhookAllow = append(o.webhookAllow, hostsOrCIDRs...) }
}

// WithOutbound passes options to the outbound webhooks' service
// (App.Outbound): its retry schedule (outbound.WithSchedule), how long an
// endpoint may fail before it is disabled (outbound.WithDisableAfter), the
// bound of an attempt's HTTP request (outbound.WithTimeout), its clock or
// HTTP client. They apply after New's own (the guard of
// WithWebhookAllow, the sealer of WithSecretKey, the event recorder and
// the notifier).
func WithOutbound(opts ...outbound.Option) Option {
	return func(o *options) { o.outbound = append(o.outbound, opts...) }
}

// WithDeliveries sets the options of the delivery queue (App.Deliveries):
// workers per replica, the job timeout of an attempt (above its HTTP
// request's, outbound.WithTimeout) and the lease, the poll interval, the
// logger.
func WithDeliveries(q riverqueue.Options) Option {
	return func(o *options) { o.deliveries = q }
}

// errNoOutbound is the attempt's error of an App without an outbound service.
func errNoOutbound(deliveryID string) error {
	return fmt.Errorf("tenantkit: no outbound service to attempt delivery %s", deliveryID)
}
