// Package event is tenantkit's audit trail: one immutable Event for every
// state change, written by the service that makes the change, on the
// transaction that makes it (the Store joins the transaction the context
// carries), so that a change that rolls back leaves no event and one that
// commits always has its event.
//
// Services record with a Recorder, which takes who acted (tenancy.Actor)
// and the request id from the context; tenants read their own events and
// operators everyone's through a Log. Package tenancy/event/bunstore
// stores them on Postgres or SQLite; tenancy/event/eventtest is the
// conformance suite of a Store.
package event

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The types of the events tenantkit records.
const (
	InvoiceCreated         = "invoice.created"
	InvoiceUpdated         = "invoice.updated"
	InvoiceDeleted         = "invoice.deleted"
	InvoiceFinalized       = "invoice.finalized"
	InvoiceVoided          = "invoice.voided"
	InvoiceUncollectible   = "invoice.marked_uncollectible"
	InvoicePaid            = "invoice.paid"
	InvoicePaymentRecorded = "invoice.payment_recorded"
	InvoiceRefunded        = "invoice.refunded"
	InvoicePaymentFailed   = "invoice.payment_failed"
	InvoiceOverdue         = "invoice.overdue"
	InvoiceReminderSent    = "invoice.reminder_sent"
	// A tenant's customers on record (cus_…).
	CustomerCreated          = "customer.created"
	CustomerUpdated          = "customer.updated"
	CustomerArchived         = "customer.archived"
	TicketCreated            = "ticket.created"
	TicketUpdated            = "ticket.updated"
	TicketCommented          = "ticket.commented"
	TicketRated              = "ticket.rated"
	TicketSLABreached        = "ticket.sla_breached"
	ContractRequestSubmitted = "contract_request.submitted"
	ContractRequestCancelled = "contract_request.cancelled"
	ContractRequestApproved  = "contract_request.approved"
	ContractRequestRejected  = "contract_request.rejected"
	ContractRequestApplied   = "contract_request.applied"
	// The platform's invoices to its tenants (pin_…): generated at a
	// period end, paid, voided, past their due date.
	PlatformInvoiceCreated  = "platform_invoice.created"
	PlatformInvoicePaid     = "platform_invoice.paid"
	PlatformInvoiceVoided   = "platform_invoice.voided"
	PlatformInvoiceOverdue  = "platform_invoice.overdue"
	ModuleToggled           = "module.toggled"
	APIKeyCreated           = "api_key.created"
	APIKeyRevoked           = "api_key.revoked"
	TenantCreated           = "tenant.created"
	TenantPlanChanged       = "tenant.plan_changed"
	UserCreated             = "user.created"
	EntitlementLimitSet     = "entitlement.limit_set"
	EntitlementLimitCleared = "entitlement.limit_cleared"
	EntitlementThreshold    = "entitlement.threshold"
	NotificationRead        = "notification.read"
	NotificationReadAll     = "notification.read_all"
	MemberAdded             = "member.added"
	MemberRoleChanged       = "member.role_changed"
	MemberRemoved           = "member.removed"
	PaymentEventApplied     = "payment_event.applied"
	PaymentEventDismissed   = "payment_event.dismissed"
	OperatorKeyCreated      = "operator_key.created"
	OperatorKeyRevoked      = "operator_key.revoked"
	LoginLinkCreated        = "login_link.created"
	SessionCreated          = "session.created"
)

// The kinds of actor an event names.
const (
	ActorUser     = "user"
	ActorOperator = "operator"
	ActorSystem   = "system"
	ActorCLI      = "cli"
)

// Actor is who made the change an event records.
type Actor struct {
	// Type is "user", "operator", "system" (a scheduler, the payment
	// provider) or "cli" (the admin command line).
	Type string `json:"type"`
	// ID is the user's, the operator key's or the CLI user's id; empty for
	// the system.
	ID string `json:"id,omitempty"`
	// CredentialID is the API key ("key_…") or operator key ("opk_…") the
	// actor presented; empty for other credentials, whose ids are secrets.
	CredentialID string `json:"credential_id,omitempty"`
	// AuthMethod is how the actor authenticated: "api_key", "jwt",
	// "session", "operator_key", "cli".
	AuthMethod string `json:"auth_method,omitempty"`
	// ClientIP is the address the request came from.
	ClientIP string `json:"client_ip,omitempty"`
}

// Resource names the thing an event is about.
type Resource struct {
	// Type is the resource's kind: "invoice", "ticket", "contract_request",
	// "module", "api_key", "tenant", "user", "entitlement" (ID: the
	// feature), "member" (ID: the user), "payment_event", "notification",
	// "operator_key", "login_link" (ID: the user it signs in), "session"
	// (ID: the user signed in).
	Type string `json:"type"`
	// ID is its id (a module's key for a module).
	ID string `json:"id"`
}

// Event is one recorded state change. Events are never changed; they are
// deleted only when older than the retention.
type Event struct {
	// ID is "evt_…", made at CreatedAt (id.At): ids sort by creation, and
	// a Store may prune by id.
	ID string `json:"id"`
	// Type is what happened, e.g. "invoice.paid".
	Type string `json:"type"`
	// TenantID is the tenant the change belongs to; empty for a change of
	// the platform's own.
	TenantID string `json:"tenant_id,omitempty"`
	// Actor is who made the change.
	Actor Actor `json:"actor"`
	// RequestID is the X-Request-ID of the HTTP request that made it;
	// empty outside a request.
	RequestID string `json:"request_id,omitempty"`
	// Resource is what changed.
	Resource Resource `json:"resource"`
	// Data is the resource after the change, as the API shows it: never a
	// secret.
	Data json.RawMessage `json:"data"`
	// CreatedAt is when the change was made.
	CreatedAt time.Time `json:"created_at"`
}

// ErrNotFound is returned for an event that does not exist or that the
// caller may not see. It matches tenancy.ErrNotFound.
var ErrNotFound = fmt.Errorf("event: %w", tenancy.ErrNotFound)

// Filter selects a page of events, newest first.
type Filter struct {
	// TenantID keeps one tenant's events (operators only: a tenant's list
	// is always its own).
	TenantID string
	// Type keeps events of this type.
	Type string
	// ResourceID keeps events about this resource.
	ResourceID string
	// CreatedAfter and CreatedBefore bound created_at (exclusive); zero is
	// unbounded.
	CreatedAfter, CreatedBefore time.Time
	// Before is the cursor: only ids before it.
	Before string
	// Limit is the page size: 20 when 0, clamped to 1..100.
	Limit int
}

// Store keeps events. Every method joins the transaction ctx carries.
type Store interface {
	// CreateEvent inserts e. With ask, it also reports whether e's tenant
	// may have a subscriber that takes it (a webhook endpoint): a Store
	// that can tell in the statement that inserts e says false when none
	// can, and the Recorder then tells no Subscriber of e; one that cannot
	// tell says true. Without ask (the Recorder has no subscribers) it
	// only inserts, and subscribed means nothing.
	CreateEvent(ctx context.Context, e Event, ask bool) (subscribed bool, err error)
	// Event returns the event id; of tenantID only, unless tenantID is
	// "" (the operators' view). ErrNotFound when there is none.
	Event(ctx context.Context, tenantID, id string) (Event, error)
	// Events returns a page of events matching f, newest first, at most
	// f.Limit (clamped by the caller), and whether more follow. f.TenantID
	// "" spans every tenant.
	Events(ctx context.Context, f Filter) ([]Event, bool, error)
	// PruneEvents deletes the events created before before (those whose
	// id sorts below id.Floor(id.Event, before): a Store may read the
	// creation time off the id, and keep events of before's millisecond
	// until the next prune), and returns how many.
	PruneEvents(ctx context.Context, before time.Time) (int64, error)
}

// Recorder writes the events of state changes: services call Record inside
// the transaction of the change.
type Recorder struct {
	store Store
	now   func() time.Time
	// subs are told of every event Record writes (Subscribe); typed of
	// the events of their types (SubscribeTypes).
	subs  []Subscriber
	typed map[string][]Subscriber
}

// Subscriber is told of every event a Recorder writes whose Store does not
// report it unsubscribed (Store.CreateEvent), on the context (and so the
// transaction) of the change: what it writes commits or rolls back with
// the event. package outbound subscribes to fan events out to the
// tenants' webhook endpoints. Dispatch runs on the path of every change:
// it must be cheap when it has nothing to do. An error fails the Record,
// and so the change.
type Subscriber interface {
	Dispatch(ctx context.Context, e Event) error
}

// Subscribe makes s hear of every event r writes from now on. Subscribe
// while wiring, before r records concurrently: it is not synchronised.
func (r *Recorder) Subscribe(s Subscriber) {
	if s == nil {
		panic("event: Subscribe needs a Subscriber")
	}
	r.subs = append(r.subs, s)
}

// SubscribeTypes makes s hear of every event of the given types r writes
// from now on, whatever the Store reports of the event's tenant: package
// mail queues a customer's reminder or receipt on them. Subscribe while
// wiring, as Subscribe.
func (r *Recorder) SubscribeTypes(s Subscriber, types ...string) {
	if s == nil {
		panic("event: SubscribeTypes needs a Subscriber")
	}
	if r.typed == nil {
		r.typed = map[string][]Subscriber{}
	}
	for _, t := range types {
		r.typed[t] = append(r.typed[t], s)
	}
}

// NewRecorder returns a Recorder writing to store.
func NewRecorder(store Store) *Recorder {
	if store == nil {
		panic("event: NewRecorder needs a Store")
	}
	return &Recorder{store: store, now: time.Now}
}

// Record writes one event of type typ about the resource (resourceType,
// resourceID) of tenantID ("" for the platform's own), with data (the
// resource after the change, encoded as JSON) and the actor and request id
// ctx carries (the system when it carries none), then tells the
// subscribers (Subscribe, SubscribeTypes). Call it with the context of the change's
// transaction: the event, and what the subscribers write, commit or roll
// back with it.
func (r *Recorder) Record(ctx context.Context, tenantID, typ, resourceType, resourceID string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("event: record %s: %w", typ, err)
	}
	// A test tenant's events carry its clock, as everything else it
	// stamps (tenancy.WithTestClock).
	at := tenancy.Now(ctx, r.now).UTC().Truncate(time.Microsecond)
	e := Event{
		ID: id.At(id.Event, at), Type: typ, TenantID: tenantID,
		Resource:  Resource{Type: resourceType, ID: resourceID},
		Data:      raw,
		CreatedAt: at,
	}
	e.Actor, e.RequestID = actorOf(ctx)
	ask := len(r.subs) > 0
	subscribed, err := r.store.CreateEvent(ctx, e, ask)
	if err != nil {
		return fmt.Errorf("event: record %s: %w", typ, err)
	}
	for _, s := range r.typed[typ] {
		if err := s.Dispatch(ctx, e); err != nil {
			return fmt.Errorf("event: dispatch %s %s: %w", typ, e.ID, err)
		}
	}
	if !ask || !subscribed {
		return nil
	}
	for _, s := range r.subs {
		if err := s.Dispatch(ctx, e); err != nil {
			return fmt.Errorf("event: dispatch %s %s: %w", typ, e.ID, err)
		}
	}
	return nil
}

type requestIDKey struct{}

// WithRequestID returns ctx carrying the id of the request it serves, for
// the events of changes made without an authenticated actor (the payment
// provider's webhook). The HTTP API sets it on every request.
func WithRequestID(ctx context.Context, requestID string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, requestID)
}

// RequestIDFrom returns the request id WithRequestID put in ctx, or "".
func RequestIDFrom(ctx context.Context) string {
	reqID, _ := ctx.Value(requestIDKey{}).(string)
	return reqID
}

// actorOf turns the actor ctx carries into an event's actor and request id.
func actorOf(ctx context.Context) (Actor, string) {
	a, ok := tenancy.ActorFrom(ctx)
	if !ok {
		return Actor{Type: ActorSystem}, RequestIDFrom(ctx)
	}
	out := Actor{ID: a.ID, AuthMethod: a.Method, ClientIP: a.ClientIP}
	switch {
	case a.Method == "cli":
		out.Type = ActorCLI
	case a.Kind == tenancy.ActorOperator:
		out.Type = ActorOperator
	case a.Kind == tenancy.ActorUser:
		out.Type = ActorUser
	default:
		out.Type = ActorSystem
	}
	// Only key ids are shown: a session's or token's key is a secret.
	if kind, v, ok := strings.Cut(a.Credential, ":"); ok && (kind == "key" || kind == "operator") {
		out.CredentialID = v
	}
	return out, a.RequestID
}

// Log reads events: a tenant's own (List, Get) and, for operators, every
// tenant's (ListAll, GetAny); Prune applies the retention.
type Log struct {
	store Store
}

// NewLog returns the Log of store.
func NewLog(store Store) *Log { return &Log{store: store} }

const (
	defaultLimit = 20
	maxLimit     = 100
)

// List returns a page of tenantID's events matching f (f.TenantID is
// ignored), newest first, and whether more follow.
func (l *Log) List(ctx context.Context, tenantID string, f Filter) ([]Event, bool, error) {
	if tenantID == "" {
		return nil, false, ErrNotFound
	}
	f.TenantID = tenantID
	return l.ListAll(ctx, f)
}

// ListAll returns a page of events of every tenant (or f.TenantID's)
// matching f, newest first.
func (l *Log) ListAll(ctx context.Context, f Filter) ([]Event, bool, error) {
	switch {
	case f.Limit <= 0:
		f.Limit = defaultLimit
	case f.Limit > maxLimit:
		f.Limit = maxLimit
	}
	es, more, err := l.store.Events(ctx, f)
	if err != nil {
		return nil, false, fmt.Errorf("event: list: %w", err)
	}
	return es, more, nil
}

// Get returns tenantID's event eventID; ErrNotFound for another tenant's.
func (l *Log) Get(ctx context.Context, tenantID, eventID string) (Event, error) {
	if tenantID == "" {
		return Event{}, ErrNotFound
	}
	return l.get(ctx, tenantID, eventID)
}

// GetAny returns the event eventID of any tenant (the operators' view).
func (l *Log) GetAny(ctx context.Context, eventID string) (Event, error) {
	return l.get(ctx, "", eventID)
}

func (l *Log) get(ctx context.Context, tenantID, eventID string) (Event, error) {
	if !id.Valid(id.Event, eventID) {
		return Event{}, ErrNotFound
	}
	e, err := l.store.Event(ctx, tenantID, eventID)
	if err != nil {
		return Event{}, fmt.Errorf("event: get %s: %w", eventID, err)
	}
	return e, nil
}

// Prune deletes the events older than retention at now and returns how
// many; a retention of 0 or less keeps every event.
func (l *Log) Prune(ctx context.Context, now time.Time, retention time.Duration) (int64, error) {
	if retention <= 0 {
		return 0, nil
	}
	n, err := l.store.PruneEvents(ctx, now.Add(-retention))
	if err != nil {
		return 0, fmt.Errorf("event: prune: %w", err)
	}
	return n, nil
}
