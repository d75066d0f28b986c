package tenantkit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel/trace"

	"github.com/tenantkit/tenantkit/billing"
	billingstore "github.com/tenantkit/tenantkit/billing/bunstore"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	eventstore "github.com/tenantkit/tenantkit/event/bunstore"
	"github.com/tenantkit/tenantkit/httpapi"
	idempotencystore "github.com/tenantkit/tenantkit/httpapi/bunstore"
	"github.com/tenantkit/tenantkit/httpapi/operatorapi"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/invoicepdf"
	"github.com/tenantkit/tenantkit/mail"
	mailstore "github.com/tenantkit/tenantkit/mail/bunstore"
	"github.com/tenantkit/tenantkit/mail/mailqueue"
	"github.com/tenantkit/tenantkit/portal"
	portalstore "github.com/tenantkit/tenantkit/portal/bunstore"
	"github.com/tenantkit/tenantkit/support"
	supportstore "github.com/tenantkit/tenantkit/support/bunstore"
	"github.com/tenantkit/tenantkit/tenancy"
	tenancystore "github.com/tenantkit/tenantkit/tenancy/bunstore"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/tenancy/operator"
	"github.com/tenantkit/tenantkit/webhook"
	webhookstore "github.com/tenantkit/tenantkit/webhook/bunstore"
	"github.com/tenantkit/tenantkit/webhook/outbound"
	outboundstore "github.com/tenantkit/tenantkit/webhook/outbound/bunstore"
	"github.com/tenantkit/tenantkit/webhook/outbound/riverqueue"
)

// App is every tenantkit service wired on one database: each domain's
// Service on its Bun store, all of them running their transactions through
// one Transactor, so that work spanning domains (a payment and its
// notification, a create and its Idempotency-Key) commits or rolls back as
// one. Build it with New; use the services directly, or serve them over
// HTTP with httpapi.New(ctx, app.HTTPConfig()), and run its Scheduler.
//
// A host may replace a service after New, for instance Support with one on
// a store of its own (examples/txstore); HTTPConfig serves what the fields
// hold when it is called. The other services keep what New gave them:
// Webhooks applies payments with the Payments that New built, Dunning
// writes invoices off with the Billing that New built, and the Scheduler
// runs the Dunning New built.
type App struct {
	// Catalog holds the plans and modules the tenants' contracts are on.
	Catalog *catalog.Catalog
	// Tenancy keeps tenants, users, API keys, memberships, entitlements,
	// modules and notifications, one service per concept.
	Tenancy *tenancy.Services
	// Contracts keeps the tenants' contract terms and change requests, and
	// previews the platform's next invoice to a tenant.
	Contracts *contract.Service
	// Billing keeps the tenants' invoices to their customers and their
	// lifecycle.
	Billing *billing.Service
	// Dunning takes open invoices past their due date through the
	// collection schedule: overdue, reminders, write-off. Scheduler runs it.
	Dunning *billing.Dunning
	// Payments keeps the money on those invoices: the payments and
	// refunds the provider reports or the tenant records, and each
	// invoice's ledger of them.
	Payments *billing.Ledger
	// Support keeps the tenants' tickets.
	Support *support.Service
	// Webhooks records and applies the payment provider's events.
	Webhooks *webhook.Service
	// Scheduler runs the periodic work of every domain — contract changes
	// due, the collection schedule, expired Idempotency-Keys — at the time
	// it is given (Tick) or on a timer (Run). Run it on every replica:
	// each item is claimed by a database constraint, so it happens once.
	// Add a job of your own with Scheduler.Add.
	Scheduler *Scheduler
	// Desk is the platform agents' view of support across tenants.
	Desk *support.Desk
	// Settlement lets operators settle the payment events that matched
	// no invoice.
	Settlement *webhook.Settlement
	// Operators issues and authenticates the operator keys, the platform
	// staff's credentials for the operator API.
	Operators *operator.Keys
	// SignInLinks issues and redeems the portal's one-time sign-in links
	// (`server login-link`).
	SignInLinks *portal.Links
	// Events is the audit trail: one event for every change the services
	// make, written in the change's transaction; tenants read their own,
	// operators everyone's.
	Events *event.Log
	// Outbound delivers the tenants' events to the webhook endpoints they
	// register (/api/webhook-endpoints): it is subscribed to the Recorder
	// every service records with, so each event's deliveries are written
	// and enqueued on Deliveries in the event's transaction. Without
	// WithSecretKey, creating an endpoint answers 501.
	Outbound *outbound.Service
	// Deliveries is the durable queue of outbound webhook deliveries, in
	// the database (River's tables, which Migrate creates). Deliveries are
	// enqueued on the transaction of the event that causes them; Start it
	// on every replica that should deliver, Stop it before closing the
	// database. Tune it with WithDeliveries.
	Deliveries *riverqueue.Queue
	// InvoicePDF draws the invoices' PDFs that HTTPConfig serves (GET
	// /api/v1/collections/invoices/{id}/pdf, GET /api/invoices/{id}/pdf).
	// New sets one issuing platform invoices in the name WithPlatformName
	// gives; replace it, or the Config's InvoicePDF, to draw them your way.
	InvoicePDF *invoicepdf.Renderer
	// Hosted issues and resolves the hosted invoice pages' tokens
	// (/pay/{token}); nil without WithSecretKey, which derives them.
	Hosted *billing.Hosted
	// Mail emails the customers their invoices (Mail.Send, POST
	// …/invoices/{id}/send), the collection schedule's reminders and
	// receipts of payment, through the queue of Deliveries; nil without
	// WithMail, when sending answers 409 mail_not_configured and the
	// reminders stay the tenant's notifications.
	Mail *mail.Service
	// EventRetention is how long events are kept: the Scheduler deletes
	// older ones (JobEventsPrune). 0 keeps them forever. New sets
	// DefaultEventRetention; change it before the Scheduler runs.
	EventRetention time.Duration

	db          *bun.DB
	idempotency *idempotencystore.Store
	// tracer is WithTracerProvider's, nil without it: the API then skips
	// its tracing middleware rather than run it on a provider that records
	// nothing.
	tracer trace.TracerProvider
}

// New builds every service on db, with the plans of cat. Apply Migrate to
// db first (App.Ready reports whether it was).
func New(db *bun.DB, cat *catalog.Catalog, opts ...Option) (*App, error) {
	if db == nil || cat == nil {
		return nil, errors.New("tenantkit: New needs a database and a catalog")
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	tx := NewTransactor(db)
	events := eventstore.New(db, eventstore.WithSubscribers(outboundstore.EndpointsExist))
	rec := event.NewRecorder(events)
	tenants := tenancystore.New(db)
	ten := tenancy.New(tenants.Stores(), tx, cat, tenancy.WithEvents(rec))
	invoices := billingstore.New(db)
	tickets, inbox := supportstore.New(db), webhookstore.New(db)
	bil := billing.NewService(invoices, ten.Entitlements, tx, billing.WithEvents(rec), billing.WithCustomers(invoices),
		billing.WithPaymentTerms(ten.Settings))
	pay := billing.NewLedger(bil, invoices)
	dunning := billing.NewDunning(bil, invoices, ten.Notifications)
	desk := support.NewService(tickets, ten.Entitlements, ten.Notifications, tx, support.WithEvents(rec))
	// A test tenant's clock runs its collections and its SLA checks too,
	// at each stop.
	contracts := contract.NewService(tenants.ContractStores(), ten.Entitlements, ten.Notifications, tx, cat,
		contract.WithEvents(rec), contract.WithClockSteps(dunning.RunFor, desk.CheckSLAFor))
	a := &App{
		Catalog:        cat,
		Tenancy:        ten,
		Contracts:      contracts,
		Billing:        bil,
		Payments:       pay,
		Dunning:        dunning,
		Support:        desk,
		Webhooks:       webhook.NewService(inbox, pay, ten.Notifications, tx, webhook.WithEvents(rec), webhook.WithPlatformInvoices(contracts)),
		Scheduler:      NewScheduler(),
		Operators:      operator.NewKeys(tenants, operator.WithEvents(rec, tx)),
		SignInLinks:    portal.NewLinks(portalstore.New(db), ten.Directory, portal.WithLinkEvents(rec, tx)),
		Events:         event.NewLog(events),
		EventRetention: DefaultEventRetention,
		InvoicePDF:     invoicepdf.New(invoicepdf.WithPlatformName(o.platformName)),
		db:             db,
		idempotency:    idempotencystore.New(db),
		tracer:         o.tracer,
	}
	qopts := o.deliveries
	if o.mail != nil {
		qopts.Jobs = append(qopts.Jobs, mailqueue.Jobs(mailDeliverer{app: a}, o.mail.queue))
	}
	q, err := riverqueue.New(db, deliveryAttempter{app: a, tracer: o.tracerProvider().Tracer(tracerName)}, qopts)
	if err != nil {
		return nil, fmt.Errorf("tenantkit: %w", err)
	}
	a.Deliveries = q
	ob, err := newOutbound(db, tx, rec, ten.Notifications, q, o)
	if err != nil {
		return nil, err
	}
	a.Outbound = ob
	if o.secretKey != nil {
		if a.Hosted, err = billing.NewHosted(invoices, bil, o.secretKey); err != nil {
			return nil, fmt.Errorf("tenantkit: %w", err)
		}
	}
	if o.mail != nil {
		if a.Mail, err = newMail(db, tx, rec, a, q, o.mail); err != nil {
			return nil, err
		}
	}
	a.Desk = support.NewDesk(a.Support, tickets)
	a.Settlement = webhook.NewSettlement(a.Webhooks, inbox)
	a.schedule()
	return a, nil
}

// newOutbound builds the outbound webhooks' service on q and subscribes
// it to rec.
func newOutbound(db *bun.DB, tx Transactor, rec *event.Recorder, notes outbound.Notifier, q outbound.Queue, o options) (*outbound.Service, error) {
	guard, err := outbound.NewGuard(o.webhookAllow...)
	if err != nil {
		return nil, fmt.Errorf("tenantkit: %w", err)
	}
	opts := []outbound.Option{outbound.WithGuard(guard), outbound.WithEvents(rec), outbound.WithNotifier(notes)}
	if o.secretKey != nil {
		sealer, err := outbound.NewSealer(o.secretKey)
		if err != nil {
			return nil, fmt.Errorf("tenantkit: %w", err)
		}
		opts = append(opts, outbound.WithSealer(sealer))
	}
	opts = append(opts, o.outbound...)
	st := outboundstore.New(db)
	svc := outbound.New(st, st, tx, q, opts...)
	rec.Subscribe(svc)
	return svc, nil
}

// newMail builds the customers' emails on q's River client and subscribes
// them to the events that send reminders and receipts.
func newMail(db *bun.DB, tx Transactor, rec *event.Recorder, a *App, q *riverqueue.Queue, o *mailOptions) (*mail.Service, error) {
	c := mail.Config{Store: mailstore.New(db), Queue: mailqueue.New(q, o.queue), Tx: tx, Sender: o.sender,
		From: o.from, Invoices: a.Billing, Tenants: a.Tenancy.Directory, Settings: a.Tenancy.Settings,
		Events: rec, PublicURL: o.publicURL}
	if a.Hosted != nil {
		c.Links = a.Hosted
	}
	if a.InvoicePDF != nil {
		c.PDF = a.InvoicePDF
	}
	svc, err := mail.New(c)
	if err != nil {
		return nil, fmt.Errorf("tenantkit: %w", err)
	}
	rec.SubscribeTypes(svc, mail.Types()...)
	return svc, nil
}

// mailDeliverer sends the queue's messages with the App's Mail, built
// after the queue.
type mailDeliverer struct{ app *App }

func (d mailDeliverer) Deliver(ctx context.Context, tenantID, msgID string) error {
	return d.app.Mail.Deliver(ctx, tenantID, msgID)
}

func (d mailDeliverer) Fail(ctx context.Context, tenantID, msgID string, cause error) error {
	return d.app.Mail.Fail(ctx, tenantID, msgID, cause)
}

// HTTPConfig returns an httpapi.Config serving a's services: every
// endpoint group, the operator API (operatorapi) among them,
// Idempotency-Key on the database, and a readiness check (Ready). The host
// adds what is its own before httpapi.New: an Authenticator or JWT
// settings, a WebhookVerifier for the payment webhook, a rate limiter, a
// logger, limits.
func (a *App) HTTPConfig() httpapi.Config {
	cfg := httpapi.Config{
		Services: httpapi.Services{
			Directory:     a.Tenancy.Directory,
			Keys:          a.Tenancy.Keys,
			OperatorKeys:  a.Operators,
			Sessions:      a.Tenancy.Sessions,
			Entitlements:  a.Tenancy.Entitlements,
			Modules:       a.Tenancy.Modules,
			Notifications: a.Tenancy.Notifications,
			Catalog:       a.Catalog,
			Contracts:     a.Contracts,
			Billing:       a.Billing,
			Customers:     a.Billing,
			Payments:      a.Payments,
			Support:       a.Support,
			Events:        a.Events,
			Outbound:      a.Outbound,
			Webhooks:      a.Webhooks,
			Idempotency:   a.idempotency,
			Settings:      a.Tenancy.Settings,
			Ready:         a.Ready,
		},
		InvoicePDF: a.invoicePDF(),
		Endpoints:  operatorapi.Endpoints(a.operatorServices()),
		Tracer:     a.tracer,
	}
	if a.Hosted != nil { // a nil *billing.Hosted would be a non-nil interface
		cfg.Services.Hosted = a.Hosted
	}
	if a.Mail != nil {
		cfg.Services.Mail = a.Mail
	}
	return cfg
}

// PortalConfig returns a portal.Config serving a's services: the pages'
// services, the catalog, the hosted links, the PDFs and the email
// (those three only when a has them). The host adds what is its own
// before portal.New: the session secret and settings, the API's
// CSRF, PublicURL and a logger.
func (a *App) PortalConfig() portal.Config {
	cfg := portal.Config{
		Directory: a.Tenancy.Directory, Entitlements: a.Tenancy.Entitlements, Modules: a.Tenancy.Modules,
		Notifications: a.Tenancy.Notifications, Invoices: a.Billing, Customers: a.Billing, Payments: a.Payments,
		Tickets: a.Support, Contracts: a.Contracts, Events: a.Events, Webhooks: a.Outbound,
		Catalog: a.Catalog, Sessions: a.Tenancy.Sessions, Links: a.SignInLinks,
	}
	// A nil pointer would be a non-nil interface: leave them out instead.
	if a.Hosted != nil {
		cfg.Hosted = a.Hosted
	}
	if a.Mail != nil {
		cfg.Mail = a.Mail
	}
	if a.InvoicePDF != nil {
		cfg.PDF = a.InvoicePDF
	}
	return cfg
}

// invoicePDF is the renderer HTTPConfig serves: none (the PDF endpoints
// answer 501) when InvoicePDF was set to nil, rather than a nil pointer
// the API would call.
func (a *App) invoicePDF() httpapi.InvoicePDF {
	if a.InvoicePDF == nil {
		return nil
	}
	return a.InvoicePDF
}

// operatorServices are the services of the operator API that HTTPConfig
// mounts.
func (a *App) operatorServices() operatorapi.Services {
	return operatorapi.Services{
		Directory: a.Tenancy.Directory,
		Index:     a.Tenancy.Index,
		Members:   a.Tenancy.Members,
		APIKeys:   a.Tenancy.Keys,
		Limits:    a.Tenancy.Entitlements,
		Terms:     a.Contracts,
		Requests:  a.Contracts,
		Billing:   a.Contracts,
		Tickets:   a.Desk,
		Payments:  a.Settlement,
		Sessions:  a.Tenancy.Sessions,
		Events:    a.Events,
	}
}

// Ready reports whether a can take traffic: the database answers and every
// migration of Schema and of River's job tables is applied. Its errors are safe to show to anyone;
// GET /api/health/ready answers 503 with them.
func (a *App) Ready(ctx context.Context) error {
	if err := a.db.PingContext(ctx); err != nil {
		return errors.New("database unreachable")
	}
	n, err := database.Pending(ctx, a.db, Schema()...)
	if err != nil {
		return errors.New("migration status unknown")
	}
	river, err := riverqueue.Pending(ctx, a.db)
	if err != nil {
		return errors.New("migration status unknown")
	}
	n += river
	if n > 0 {
		return fmt.Errorf("%d migrations pending", n)
	}
	return nil
}

// DefaultEventRetention is how long an App keeps events unless told
// otherwise: 90 days.
const DefaultEventRetention = 90 * 24 * time.Hour

// PurgeIdempotencyKeys deletes the Idempotency-Keys older than
// httpapi.IdempotencyTTL, which can no longer be replayed, and returns how
// many it deleted. The Scheduler does it at every tick (JobIdempotencyPurge).
func (a *App) PurgeIdempotencyKeys(ctx context.Context) (int64, error) {
	return a.idempotency.Purge(ctx, time.Now().Add(-httpapi.IdempotencyTTL))
}

// Schema lists the embedded migrations of everything tenantkit stores, in
// the order they apply: idempotency keys, tenancy, billing, support,
// webhook events, the portal's sign-in links, the audit trail's events,
// the outbound webhooks, the customers' emails. Each holds the folders "postgres" and "sqlite".
func Schema() []fs.FS {
	return []fs.FS{idempotencystore.Migrations(), tenancystore.Migrations(), billingstore.Migrations(),
		supportstore.Migrations(), webhookstore.Migrations(), portalstore.Migrations(), eventstore.Migrations(),
		outboundstore.Migrations(), mailstore.Migrations()}
}

// Migrate applies every pending migration of Schema to db, Postgres or
// SQLite, then River's (the delivery queue's tables), and returns how many
// it applied. Replicas may call it at the same time: they queue on one lock
// and each schema is applied once. Tenantkit's migrations are recorded in
// the table tenantkit_migrations, River's in river_migration. A new SQLite
// database (no tables at all) is created from a snapshot of the migrated
// schema, in one transaction, and every migration recorded as applied.
func Migrate(ctx context.Context, db *bun.DB) (int, error) {
	return database.MigrateWith(ctx, db, sqliteSnapshot, Schema(), riverqueue.Migrate)
}
