package outbound

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tenantkit/tenantkit/tenancy"
)

// ErrNotFound is an endpoint or delivery that does not exist or belongs
// to another tenant. It matches tenancy.ErrNotFound.
var ErrNotFound = fmt.Errorf("outbound: %w", tenancy.ErrNotFound)

// ErrConflict is a change the resource's state refuses (an attempt that
// lost a race, a retry of a pending delivery). It matches
// tenancy.ErrConflict.
var ErrConflict = fmt.Errorf("outbound: %w", tenancy.ErrConflict)

// ErrNotConfigured is creating or rotating a secret on a Service without
// a secret key (WithSealer): secrets are only kept encrypted.
var ErrNotConfigured = errors.New("outbound webhooks are not configured on this server: no secret key")

// StatusError refuses a change because of the status a delivery or
// endpoint has now. It matches ErrConflict (and tenancy.ErrConflict).
type StatusError struct {
	// Status is the current status: "pending" for a delivery, "disabled"
	// for an endpoint.
	Status string
	// Reason says what was refused, for people.
	Reason string
}

func (e *StatusError) Error() string { return "outbound: " + e.Reason }

// Detail is the sentence the HTTP API shows.
func (e *StatusError) Detail() string { return e.Reason }

// CurrentStatus is the status the resource has now.
func (e *StatusError) CurrentStatus() string { return e.Status }

// Is makes errors.Is(err, ErrConflict) and tenancy.ErrConflict true.
func (e *StatusError) Is(target error) bool {
	return target == ErrConflict || target == tenancy.ErrConflict
}

// Transactor runs fn in a transaction carried by the context fn receives
// (tenantkit.NewTransactor).
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Events records the audit trail's events on the transaction ctx carries.
// *event.Recorder implements it.
type Events interface {
	Record(ctx context.Context, tenantID, typ, resourceType, resourceID string, data any) error
}

// Notifier tells a tenant that something happened to its account.
// *tenancy.Notifications implements it.
type Notifier interface {
	Notify(ctx context.Context, tenantID string, n tenancy.NewNotification) (tenancy.Notification, error)
}

// Defaults of a Service.
const (
	// DefaultTimeout bounds the HTTP request of one attempt: connection,
	// request, answer (WithTimeout changes it). The queue bounds the whole
	// attempt, recording included, by its own job timeout
	// (riverqueue.DefaultJobTimeout, 15 s), which must stay above it.
	DefaultTimeout = 10 * time.Second
	// DefaultDisableAfter is how long an endpoint may fail every attempt
	// before it is disabled.
	DefaultDisableAfter = 3 * 24 * time.Hour
	// SecretOverlap is how long a rotated-out secret keeps signing, beside
	// the new one, so that receivers can switch without dropping
	// deliveries.
	SecretOverlap = 24 * time.Hour
	// MaxResponseBytes is how much of a receiver's answer an attempt
	// keeps.
	MaxResponseBytes = 1024
)

// NotificationEndpointDisabled is the notification a tenant gets when one
// of its endpoints is disabled for failing.
const NotificationEndpointDisabled = "webhook_endpoint.disabled"

// Service manages a tenant's webhook endpoints and deliveries, fans the
// events of the audit trail out to them (Dispatch) and makes the attempts
// the queue asks for (Attempt). Every method taking a tenantID acts for
// that tenant only: another tenant's endpoint or delivery is ErrNotFound.
type Service struct {
	endpoints    EndpointStore
	deliveries   DeliveryStore
	tx           Transactor
	queue        Queue
	sealer       *Sealer
	guard        *Guard
	client       *http.Client
	events       Events
	notes        Notifier
	schedule     []time.Duration
	jitter       func(time.Duration) time.Duration
	timeout      time.Duration
	disableAfter time.Duration
	now          func() time.Time
}

// Option configures a Service.
type Option func(*Service)

// WithSealer keeps endpoint secrets encrypted with s. Without one, the
// Service cannot create endpoints or rotate secrets (ErrNotConfigured),
// nor sign for the endpoints a previous configuration created.
func WithSealer(s *Sealer) Option { return func(svc *Service) { svc.sealer = s } }

// WithGuard checks endpoint URLs and delivery connections with g; the
// default is NewGuard() with no allow list: public https URLs only.
func WithGuard(g *Guard) Option { return func(s *Service) { s.guard = g } }

// WithEvents records webhook_endpoint.* events of endpoint changes.
func WithEvents(e Events) Option { return func(s *Service) { s.events = e } }

// WithNotifier notifies tenants of endpoints disabled for failing.
func WithNotifier(n Notifier) Option { return func(s *Service) { s.notes = n } }

// WithSchedule replaces DefaultSchedule: the delays before each retry
// (the first attempt is at once); a delivery whose attempts all fail is
// failed. Tests use milliseconds.
func WithSchedule(delays ...time.Duration) Option {
	return func(s *Service) { s.schedule = append([]time.Duration(nil), delays...) }
}

// WithoutJitter makes the schedule's delays exact (tests).
func WithoutJitter() Option {
	return func(s *Service) { s.jitter = func(d time.Duration) time.Duration { return d } }
}

// WithTimeout replaces DefaultTimeout, the bound of an attempt's HTTP
// request; a receiver that has not answered by then fails the attempt
// ("timed out after …"), which is retried by the schedule. Tests shorten
// it. Keep it below the queue's job timeout (riverqueue.Options.JobTimeout),
// which cancels the whole attempt. A d of 0 or less keeps the default.
func WithTimeout(d time.Duration) Option {
	return func(s *Service) {
		if d > 0 {
			s.timeout = d
		}
	}
}

// WithDisableAfter replaces DefaultDisableAfter.
func WithDisableAfter(d time.Duration) Option { return func(s *Service) { s.disableAfter = d } }

// WithClock replaces time.Now (tests: rotation overlap, endpoint health).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithHTTPClient replaces the delivery client that the Guard builds (its
// dial check, no redirects, the attempt timeout). A client of one's own must
// keep those properties.
func WithHTTPClient(c *http.Client) Option { return func(s *Service) { s.client = c } }

// New returns the Service on its two stores (usually one implementation
// of both, as bunstore.Store is), running its transactions with tx.
//
// queue schedules the attempts of new deliveries (Dispatch, SendTest),
// of retries (Retry) and of the next attempt after a failed one, on the
// transaction that causes them. It may be nil: deliveries are then
// stored pending, due at once, and nothing attempts them until a Queue
// is configured and enqueues them, or a worker of the host's calls
// Attempt; Queued reports which it is.
func New(endpoints EndpointStore, deliveries DeliveryStore, tx Transactor, queue Queue, opts ...Option) *Service {
	if endpoints == nil || deliveries == nil || tx == nil {
		panic("outbound: New needs an EndpointStore, a DeliveryStore and a Transactor")
	}
	s := &Service{
		endpoints: endpoints, deliveries: deliveries, tx: tx, queue: queue,
		schedule:     DefaultSchedule(),
		jitter:       jitter,
		timeout:      DefaultTimeout,
		disableAfter: DefaultDisableAfter,
		now:          time.Now,
	}
	for _, o := range opts {
		o(s)
	}
	if s.guard == nil {
		s.guard, _ = NewGuard()
	}
	if s.client == nil {
		s.client = s.guard.Client(s.timeout)
	}
	return s
}

// Queued reports whether the Service schedules its deliveries on a Queue.
func (s *Service) Queued() bool { return s.queue != nil }

// Configured reports whether the Service has a secret key, without which
// endpoints cannot be created.
func (s *Service) Configured() bool { return s.sealer != nil }

// enqueue schedules attempts on the queue, if any, on ctx's transaction.
func (s *Service) enqueue(ctx context.Context, attempts ...Scheduled) error {
	if s.queue == nil || len(attempts) == 0 {
		return nil
	}
	if err := s.queue.Enqueue(ctx, attempts...); err != nil {
		return fmt.Errorf("outbound: enqueue: %w", err)
	}
	return nil
}

// record writes the event typ about endpoint e.
func (s *Service) record(ctx context.Context, typ string, e Endpoint) error {
	if s.events == nil {
		return nil
	}
	return s.events.Record(ctx, e.TenantID, typ, "webhook_endpoint", e.ID, e)
}

// nowUTC is the clock, in the precision the stores keep.
func (s *Service) nowUTC() time.Time { return s.now().UTC().Truncate(time.Microsecond) }
