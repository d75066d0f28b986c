package tenancy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/id"
)

// Notification is a message to a tenant about something that happened to
// its account: a payment, a limit nearly reached, a contract decision, a
// module switched. Notifications are created by the domain that caused
// them, in the same transaction, and listed by GET /api/tenant/notifications.
type Notification struct {
	ID       string `json:"id"`
	TenantID string `json:"-"`
	// Type is one of the Notification* constants, or another dotted name
	// ("<resource>.<event>") that a host application defines.
	Type  string `json:"type"`
	Title string `json:"title"`
	Body  string `json:"body"`
	// Data holds the machine-readable details (ids, amounts, thresholds).
	// Notifications and its stores return numbers as json.Number, so that
	// amounts keep every digit.
	Data      map[string]any `json:"data"`
	CreatedAt time.Time      `json:"created_at"`
	// ReadAt is when the tenant (any of its members) first marked it
	// read; nil while unread. Read state is the tenant's, shared by its
	// members.
	ReadAt *time.Time `json:"read_at"`
}

// Notification types created by tenantkit's domains.
const (
	NotificationPaymentSucceeded       = "payment.succeeded"
	NotificationPaymentFailed          = "payment.failed"
	NotificationPaymentRefunded        = "payment.refunded"
	NotificationEntitlementThreshold   = "entitlement.threshold"
	NotificationContractRequestUpdated = "contract_request.updated"
	NotificationModuleToggled          = "module.toggled"
	// The platform's invoice to the tenant was generated, or is past its
	// due date.
	NotificationPlatformInvoiceCreated = "platform_invoice.created"
	NotificationPlatformInvoiceOverdue = "platform_invoice.overdue"
)

// Bounds of a notification, so that no caller can grow a tenant's list
// without limit. Characters are Unicode code points. The tags of
// NewNotification state the same numbers.
const (
	// MaxNotificationTitle is the longest title, in characters.
	MaxNotificationTitle = 200
	// MaxNotificationBody is the longest body, in characters.
	MaxNotificationBody = 2000
	// MaxNotificationData is the most bytes Data may take encoded as JSON.
	MaxNotificationData = 8 << 10
)

const (
	defaultListLimit = 20  // notifications per page when unset
	maxListLimit     = 100 // notifications per page at most
)

// notificationTypeRE is a type's form; its length is the tag's.
var notificationTypeRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$`)

// NewNotification is what Notifications.Notify needs. Its tags are the
// rules of each value; the type's form and the size of Data are checked by
// Notify.
type NewNotification struct {
	// Type is dotted and lower case, "<resource>.<event>".
	Type string `json:"type" validate:"required,max=64"`
	// Title is one line, MaxNotificationTitle characters at most.
	Title string `json:"title" validate:"required,max=200,line"`
	// Body may run over lines, MaxNotificationBody characters at most.
	Body string `json:"body" validate:"max=2000,text"`
	// Data is at most MaxNotificationData bytes encoded as JSON.
	Data map[string]any `json:"data"`
	// Key, when set, names the event the notification reports (a webhook
	// event id, "entitlement.threshold:support.tickets:2026-11:80"): a
	// tenant gets at most one notification per key, and Notify answers
	// ErrConflict for the second. Keys are not shown to the tenant.
	Key string `json:"key" validate:"max=200,line"`
}

// NotificationFilter selects a page of a tenant's notifications.
type NotificationFilter struct {
	// UnreadOnly keeps only notifications not yet read.
	UnreadOnly bool
	// Limit is the page size: 20 when 0, clamped to 1..100.
	Limit int
	// Before, when set, is the id of the last notification of the previous
	// page: only older ones are returned.
	Before string
}

// NotificationStore is the persistence Notifications needs.
// Implementations must be safe for concurrent use, join the transaction
// carried by ctx when there is one (a notification commits with its
// cause), and translate driver errors into the sentinels named below.
// tenancytest.RunNotifications checks all of it.
type NotificationStore interface {
	// CreateNotification stores n. key, when not empty, names the event n
	// reports and is unique per tenant: ErrConflict when the key (or n.ID)
	// is taken, with nothing stored and the caller's transaction still
	// usable. ErrNotFound when the tenant does not exist.
	CreateNotification(ctx context.Context, n Notification, key string) error
	// Notifications lists the tenant's notifications newest first (by id),
	// only unread ones when f.UnreadOnly, only those with an id below
	// f.Before when set, at most f.Limit (which the caller has clamped to
	// 1..100); hasMore reports whether more rows follow. No error but a
	// storage fault.
	Notifications(ctx context.Context, tenantID string, f NotificationFilter) (ns []Notification, hasMore bool, err error)
	// MarkNotificationRead sets the notification's read time to at unless
	// it is already read (the first time is kept), and returns it.
	// ErrNotFound when the tenant has no notification with that id.
	MarkNotificationRead(ctx context.Context, tenantID, id string, at time.Time) (Notification, error)
	// MarkNotificationsRead sets the read time of every unread
	// notification of the tenant to at — when upTo is set, only of those
	// whose id is upTo or below (older) — and returns how many it marked.
	// Notifications already read keep their first read time. No error
	// but a storage fault.
	MarkNotificationsRead(ctx context.Context, tenantID, upTo string, at time.Time) (int64, error)
	// UnreadNotifications counts the tenant's unread notifications. No
	// error but a storage fault.
	UnreadNotifications(ctx context.Context, tenantID string) (int64, error)
}

// Notifications keeps each tenant's inbox: the domains notify, the tenant
// lists and reads. The inbox belongs to the tenant, not to its members:
// a notification is read once for the whole tenant (ReadAt), whichever
// member marked it, and every member sees it read from then on.
type Notifications struct {
	store  NotificationStore
	now    func() time.Time
	events Events
	tx     Transactor // set by New; nil: a read and its event are not atomic
}

// NewNotifications returns Notifications on store.
func NewNotifications(store NotificationStore, opts ...Option) *Notifications {
	o := newOptions(opts)
	return &Notifications{store: store, now: o.now, events: o.events}
}

// Notify creates a notification for the tenant. It runs on the transaction
// carried by ctx, so a domain that calls it inside its own transaction
// gets a notification if and only if its change commits.
// InvalidError (ErrInvalid) for a value its rules refuse (NewNotification); ErrConflict when n.Key was used before; ErrNotFound when
// the tenant does not exist.
func (s *Notifications) Notify(ctx context.Context, tenantID string, n NewNotification) (Notification, error) {
	data, err := checkNotification(n)
	if err != nil {
		return Notification{}, fmt.Errorf("tenancy: notify %s: %w", tenantID, err)
	}
	out := Notification{
		ID: id.New(id.Notification), TenantID: tenantID,
		Type: n.Type, Title: n.Title, Body: n.Body, Data: data,
		CreatedAt: Now(ctx, s.now).UTC().Truncate(time.Microsecond),
	}
	if err := s.store.CreateNotification(ctx, out, n.Key); err != nil {
		return Notification{}, fmt.Errorf("tenancy: notify %s of %s: %w", tenantID, n.Type, err)
	}
	return out, nil
}

// checkNotification validates n and returns its data as a Store returns
// it, so that Notify's result reads exactly like a later listing.
func checkNotification(n NewNotification) (map[string]any, error) {
	f := field.Errors{}
	f.Merge(field.Check(n))
	if !notificationTypeRE.MatchString(n.Type) {
		f.Addf("type", field.Invalid, "must be a dotted lower-case name, e.g. %q", NotificationModuleToggled)
	}
	var data map[string]any
	encoded, err := encodeData(n.Data)
	switch {
	case err != nil:
		f.Add("data", field.Invalid, "must be encodable as JSON")
	case len(encoded) > MaxNotificationData:
		f.Addf("data", field.Invalid, "must encode to at most %d bytes of JSON", MaxNotificationData)
	default:
		if data, err = decodeData(encoded); err != nil {
			f.Add("data", field.Invalid, "must be a JSON object")
		}
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	return data, nil
}

// encodeData is how Data is stored: a JSON object, "{}" when empty.
func encodeData(data map[string]any) ([]byte, error) {
	if data == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(data)
}

// decodeData decodes stored notification data, keeping numbers as
// json.Number so that large integers keep every digit.
func decodeData(b []byte) (map[string]any, error) {
	var data map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&data); err != nil {
		return nil, err
	}
	if data == nil {
		data = map[string]any{}
	}
	return data, nil
}

// List lists a page of the tenant's notifications, newest first, and
// whether older ones follow. InvalidError (field "cursor", as the
// other lists name it) when Before is not a notification id.
func (s *Notifications) List(ctx context.Context, tenantID string, f NotificationFilter) ([]Notification, bool, error) {
	if f.Before != "" && !id.Valid(id.Notification, f.Before) {
		return nil, false, fmt.Errorf("tenancy: notifications of %s: %w", tenantID, invalid("cursor", "must be a notification id"))
	}
	f.Limit = clampLimit(f.Limit)
	ns, more, err := s.store.Notifications(ctx, tenantID, f)
	if err != nil {
		return nil, false, fmt.Errorf("tenancy: notifications of %s: %w", tenantID, err)
	}
	return ns, more, nil
}

// MarkRead marks one of the tenant's notifications read and
// returns it; marking it again keeps the first read time. The first read
// records notification.read. ErrNotFound when the tenant has no such
// notification.
func (s *Notifications) MarkRead(ctx context.Context, tenantID, notificationID string) (Notification, error) {
	if !id.Valid(id.Notification, notificationID) {
		return Notification{}, fmt.Errorf("tenancy: notification %q: %w", notificationID, ErrNotFound)
	}
	at := Now(ctx, s.now).UTC().Truncate(time.Microsecond)
	var n Notification
	err := inTx(ctx, s.tx, func(ctx context.Context) error {
		var err error
		if n, err = s.store.MarkNotificationRead(ctx, tenantID, notificationID, at); err != nil {
			return err
		}
		if n.ReadAt == nil || !n.ReadAt.Equal(at) {
			return nil // read before: nothing changed
		}
		return record(ctx, s.events, tenantID, eventNoteRead, "notification", n.ID, n)
	})
	if err != nil {
		return Notification{}, fmt.Errorf("tenancy: mark notification %s read: %w", notificationID, err)
	}
	return n, nil
}

// readAll is the data of a notification.read_all event.
type readAll struct {
	TenantID string    `json:"tenant_id"`
	Marked   int64     `json:"marked"`
	UpTo     string    `json:"up_to,omitempty"`
	ReadAt   time.Time `json:"read_at"`
}

// ReadAll is what marking every notification read takes: the body of
// POST /api/tenant/notifications/read-all, which may be empty.
type ReadAll struct {
	// UpTo, when set, limits the marking to this notification and older
	// ones, so that what arrived after the client looked stays unread.
	UpTo string `json:"up_to" validate:"omitempty,id=ntf"`
}

// MarkAllRead marks the tenant's unread notifications read and returns
// how many it marked; those read before keep their first read time. When
// upTo is set, only upTo and the notifications older than it are marked
// (ids sort by creation time), so that a client marks what it has shown
// and not what arrived since. upTo is a position: it need not be one of
// the tenant's notifications. Marking at least one records one
// notification.read_all event about the tenant. InvalidError (field
// "up_to") when upTo is not a notification id.
func (s *Notifications) MarkAllRead(ctx context.Context, tenantID, upTo string) (int64, error) {
	if err := field.Check(ReadAll{UpTo: upTo}); err != nil {
		return 0, fmt.Errorf("tenancy: mark notifications of %s read: %w", tenantID, err)
	}
	at := Now(ctx, s.now).UTC().Truncate(time.Microsecond)
	var n int64
	err := inTx(ctx, s.tx, func(ctx context.Context) error {
		var err error
		if n, err = s.store.MarkNotificationsRead(ctx, tenantID, upTo, at); err != nil || n == 0 {
			return err
		}
		return record(ctx, s.events, tenantID, eventNotesReadAll, "tenant", tenantID,
			readAll{TenantID: tenantID, Marked: n, UpTo: upTo, ReadAt: at})
	})
	if err != nil {
		return 0, fmt.Errorf("tenancy: mark notifications of %s read: %w", tenantID, err)
	}
	return n, nil
}

// UnreadCount returns how many of the tenant's notifications are unread.
func (s *Notifications) UnreadCount(ctx context.Context, tenantID string) (int64, error) {
	n, err := s.store.UnreadNotifications(ctx, tenantID)
	if err != nil {
		return 0, fmt.Errorf("tenancy: count unread notifications of %s: %w", tenantID, err)
	}
	return n, nil
}

// clampLimit applies the list conventions: 20 when unset, else 1..100.
func clampLimit(limit int) int {
	if limit == 0 {
		return defaultListLimit
	}
	return min(max(limit, 1), maxListLimit)
}
