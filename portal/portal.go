// Package portal is tenantkit's tenant portal: a mountable http.Handler
// serving server-rendered HTML pages (html/template, no JavaScript needed)
// on the same services and rules as the API. People sign in with a
// one-time link (Links) that sets the tenantkit_session cookie; every form
// posts application/x-www-form-urlencoded with the CSRF token in the field
// csrf_token; roles and scopes hide what a member may not do, and the
// handlers refuse it anyway.
//
// Mount it under its BasePath:
//
//	h, err := portal.New(ctx, portal.Config{…})
//	mux.Handle("/portal/", h)
package portal

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/invoicepdf"
	"github.com/tenantkit/tenantkit/mail"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// The services the pages call, each declared as the methods they use (or
// httpapi's interface, where the pages use what the API uses). The
// domain services implement them (tenantkit.New wires them).
var (
	_ Invoices              = (*billing.Service)(nil)
	_ Customers             = (*billing.Service)(nil)
	_ Payments              = (*billing.Ledger)(nil)
	_ HostedLinks           = (*billing.Hosted)(nil)
	_ Mailer                = (*mail.Service)(nil)
	_ InvoicePDF            = (*invoicepdf.Renderer)(nil)
	_ Tickets               = (*support.Service)(nil)
	_ Contracts             = (*contract.Service)(nil)
	_ httpapi.Notifications = (*tenancy.Notifications)(nil)
	_ Events                = (*event.Log)(nil)
	_ Webhooks              = (*outbound.Service)(nil)
	_ Sessions              = (*tenancy.Sessions)(nil)
)

// Directory finds users and tenants and remembers a session's active
// tenant. *tenancy.Directory implements it.
type Directory interface {
	User(ctx context.Context, userID string) (tenancy.User, error)
	UserByEmail(ctx context.Context, email string) (tenancy.User, error)
	Tenant(ctx context.Context, tenantID string) (tenancy.Tenant, error)
	Memberships(ctx context.Context, userID string) ([]tenancy.TenantMembership, error)
	SelectTenant(ctx context.Context, cred tenancy.Credential, tenantID string) (tenancy.Membership, error)
	ResolveTenant(ctx context.Context, cred tenancy.Credential, requested string) (tenancy.Membership, error)
}

// Entitlements shows limits, usage and modules, and checks a module is on.
// *tenancy.Entitlements implements it.
type Entitlements interface {
	ListWithModules(ctx context.Context, tenantID string) ([]tenancy.Entitlement, []tenancy.ModuleState, error)
	RequireModule(ctx context.Context, tenantID, module string) error
}

// Invoices keeps a tenant's invoices. *billing.Service implements it;
// every method acts for the tenant it is given only.
type Invoices interface {
	List(ctx context.Context, tenantID string, f billing.ListFilter) ([]billing.Invoice, bool, error)
	Create(ctx context.Context, tenantID string, in billing.CreateInvoiceInput) (billing.Invoice, error)
	Get(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)
	Finalize(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)
	Void(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)
	// MarkUncollectible writes an open invoice off as a bad debt.
	MarkUncollectible(ctx context.Context, tenantID, invoiceID string) (billing.Invoice, error)
	// Delete deletes a draft (billing.ErrNotFound for another tenant's).
	Delete(ctx context.Context, tenantID, invoiceID string) error
}

// Customers reads the customers a tenant keeps on record.
// *billing.Service implements it; another tenant's customer is
// billing.ErrCustomerNotFound.
type Customers interface {
	ListCustomers(ctx context.Context, tenantID string, f billing.CustomerFilter) ([]billing.CustomerRecord, bool, error)
	CustomerByID(ctx context.Context, tenantID, customerID string) (billing.CustomerRecord, error)
}

// Payments records the payments a tenant received out of band, in the
// invoice's ledger. *billing.Ledger implements it.
type Payments interface {
	Record(ctx context.Context, tenantID, invoiceID string, in billing.RecordPaymentInput) (billing.Payment, billing.Invoice, error)
	// Payments lists the invoice's ledger (payments and refunds), newest
	// first.
	Payments(ctx context.Context, tenantID, invoiceID string, f billing.PaymentFilter) ([]billing.Payment, bool, error)
}

// HostedLinks gives each finalized invoice the token of its hosted page,
// {PublicURL}/pay/{token}. *billing.Hosted implements it.
type HostedLinks interface {
	Tokens(ctx context.Context, tenantID string, invs ...billing.Invoice) (map[string]string, error)
}

// Mailer emails an invoice to its customer and lists the emails sent
// about it. *mail.Service implements it.
type Mailer interface {
	// Send queues the invoice to its customer: a *billing.TransitionError
	// for a draft or a void invoice, mail.ErrNoRecipient when the
	// customer has no address.
	Send(ctx context.Context, tenantID, invoiceID string) (mail.Message, error)
	Messages(ctx context.Context, tenantID, invoiceID string) ([]mail.Message, error)
}

// InvoicePDF draws invoices as PDF documents. *invoicepdf.Renderer
// implements it.
type InvoicePDF interface {
	Collections(inv billing.Invoice, issuer, hostedURL string) ([]byte, error)
	Platform(inv contract.Invoice, tenantName string) ([]byte, error)
}

// Tickets keeps a tenant's tickets. *support.Service implements it.
type Tickets interface {
	List(ctx context.Context, tenantID string, f support.ListFilter) ([]support.Ticket, bool, error)
	Create(ctx context.Context, tenantID string, requester support.Requester, in support.CreateTicketInput) (support.Ticket, error)
	Get(ctx context.Context, tenantID, ticketID string) (support.Ticket, error)
	Update(ctx context.Context, tenantID, ticketID string, in support.UpdateTicketInput) (support.Ticket, error)
	Comments(ctx context.Context, tenantID, ticketID string, f support.CommentFilter) ([]support.Comment, bool, error)
	AddComment(ctx context.Context, tenantID, ticketID string, by support.Requester, in support.CommentInput) (support.Comment, error)
	Rate(ctx context.Context, tenantID, ticketID string, by support.Rater, in support.RatingInput) (support.Satisfaction, error)
}

// Contracts takes contract change requests and previews their invoice.
// *contract.Service implements it.
type Contracts interface {
	Submit(ctx context.Context, tenantID, userID string, in contract.SubmitInput) (contract.Request, error)
	Requests(ctx context.Context, tenantID string, f contract.Filter) ([]contract.Request, bool, error)
	Cancel(ctx context.Context, by tenancy.Membership, requestID string) (contract.Request, error)
	Preview(ctx context.Context, tenantID string, in contract.PreviewInput) (contract.Preview, error)
	// Current is the tenant's contract: plan, seats, add-ons, period.
	Current(ctx context.Context, tenantID string) (contract.Terms, error)
	// Invoices lists the platform's invoices to the tenant, newest first.
	Invoices(ctx context.Context, tenantID string, f contract.InvoiceFilter) ([]contract.Invoice, bool, error)
	// Invoice is one of them (contract.ErrInvoiceNotFound for another
	// tenant's).
	Invoice(ctx context.Context, tenantID, invoiceID string) (contract.Invoice, error)
}

// Events reads a tenant's audit trail. *event.Log implements it.
type Events interface {
	List(ctx context.Context, tenantID string, f event.Filter) ([]event.Event, bool, error)
	Get(ctx context.Context, tenantID, eventID string) (event.Event, error)
}

// Webhooks manages a tenant's outbound webhook endpoints and their
// deliveries. *outbound.Service implements it; every method acts for the
// tenant it is given only (another tenant's endpoint is ErrNotFound).
type Webhooks interface {
	httpapi.WebhookEndpoints
	// Configured reports whether the server has the secret key without
	// which endpoints cannot be created (outbound.ErrNotConfigured).
	Configured() bool
}

// Sessions starts, checks and ends the sessions the session cookie names
// (its "sid"), so that signing out ends one for good.
// *tenancy.Sessions implements it.
type Sessions interface {
	// Start begins a session of the user lasting ttl.
	Start(ctx context.Context, userID string, ttl time.Duration) (tenancy.Session, error)
	// Check: an error matching tenancy.ErrUnauthenticated when the
	// session ended, expired or is another user's.
	httpapi.Sessions
	// End ends the session; ending an ended one is no error.
	End(ctx context.Context, sessionID string) error
}

// LinkConsumer redeems sign-in links; *Links implements it.
type LinkConsumer interface {
	Consume(ctx context.Context, token string) (LoginLink, error)
}

// Config is everything the portal needs. All services but Hosted, Mail
// and PDF, and Catalog, Links, Sessions, SessionSecret and CSRF are
// required. App.PortalConfig (package tenantkit) fills in the services.
type Config struct {
	// BasePath is where the host mounts the portal; default "/portal".
	BasePath string

	Directory     Directory
	Entitlements  Entitlements
	Modules       httpapi.Modules
	Notifications httpapi.Notifications
	Invoices      Invoices
	Customers     Customers
	Payments      Payments
	Tickets       Tickets
	Contracts     Contracts
	Events        Events
	Webhooks      Webhooks
	// Hosted, with PublicURL, shows each finalized invoice's hosted page
	// link; nil shows none.
	Hosted HostedLinks
	// PublicURL is the server's public base URL, where the hosted pages
	// are ({PublicURL}/pay/{token}).
	PublicURL string
	// Mail sends invoices to their customers; nil (no SMTP configured)
	// shows why the invoice page cannot.
	Mail Mailer
	// PDF draws the invoices' PDFs the pages link to; nil links none.
	PDF InvoicePDF
	// Catalog names plans and modules and says what each plan includes.
	Catalog *catalog.Catalog
	// Links redeems the one-time sign-in links (a *Links).
	Links LinkConsumer
	// Sessions keeps the sessions (a *tenancy.Sessions): each cookie is
	// accepted only while its session is live.
	Sessions Sessions

	// SessionSecret signs (HS256) and verifies the session JWT the portal
	// sets in the tenantkit_session cookie: at least 32 bytes, the same
	// on every replica. Give the API the same secret (httpapi.JWTConfig)
	// and it accepts the cookie too.
	SessionSecret []byte
	// SessionIssuer and SessionAudience, when set, are written to the
	// session JWT's iss and aud and required of it.
	SessionIssuer, SessionAudience string
	// SessionTTL is how long a session lasts; default 12 hours.
	SessionTTL time.Duration
	// CSRF signs the forms' tokens: the API's (httpapi.API.CSRF), so both
	// accept the same tokens.
	CSRF *httpapi.CSRF

	// Logger receives the errors behind 500 pages.
	Logger zerolog.Logger
}

// Handler serves the portal.
type Handler struct {
	cfg      Config
	auth     httpapi.Authenticator
	verifier *httpapi.JWTVerifier
	mux      *http.ServeMux
	views    *views
	now      func() time.Time
}

// DefaultSessionTTL is how long a session lasts when Config leaves it 0.
const DefaultSessionTTL = 12 * time.Hour

// New validates cfg and builds the portal.
func New(ctx context.Context, cfg Config) (*Handler, error) {
	if cfg.Directory == nil || cfg.Entitlements == nil || cfg.Modules == nil || cfg.Notifications == nil ||
		cfg.Invoices == nil || cfg.Customers == nil || cfg.Payments == nil || cfg.Tickets == nil || cfg.Contracts == nil || cfg.Events == nil || cfg.Webhooks == nil || cfg.Catalog == nil ||
		cfg.Links == nil || cfg.Sessions == nil || cfg.CSRF == nil {
		return nil, errors.New("portal: Config needs every service, the catalog, Links, Sessions and CSRF")
	}
	if cfg.BasePath == "" {
		cfg.BasePath = "/portal"
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	v, err := httpapi.NewJWTVerifier(ctx, httpapi.JWTConfig{Secret: cfg.SessionSecret,
		Issuer: cfg.SessionIssuer, Audience: cfg.SessionAudience})
	if err != nil {
		return nil, err
	}
	vs, err := newViews(cfg.BasePath)
	if err != nil {
		return nil, err
	}
	h := &Handler{cfg: cfg, verifier: v, views: vs, now: time.Now,
		auth: httpapi.SessionAuthenticator{Verifier: v, Directory: cfg.Directory, Sessions: cfg.Sessions}}
	h.mux = h.routes()
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "same-origin")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.mux.ServeHTTP(w, r)
}
