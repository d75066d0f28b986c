package support_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/examples/memstore"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// fakeEntitlements stands in for tenancy in the unit tests: one switch for
// every module, one per module on top, and one allowance, with tenancy's
// errors.
type fakeEntitlements struct {
	mu       sync.Mutex
	disabled bool              // every module off
	off      map[string]bool   // these modules off
	offFor   map[string]string // tenant → a module off for it only
	limit    int64             // < 0: unlimited
	used     int64
}

func (f *fakeEntitlements) RequireModule(_ context.Context, tenantID, module string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.disabled || f.off[module] || f.offFor[tenantID] == module {
		return fmt.Errorf("fake: module %s: %w", module, &tenancy.ModuleDisabledError{Module: module})
	}
	return nil
}

// setModule switches one module on or off.
func (f *fakeEntitlements) setModule(module string, on bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.off == nil {
		f.off = map[string]bool{}
	}
	f.off[module] = !on
}

// fakeNotifier records the notifications of the unit tests.
type fakeNotifier struct {
	mu   sync.Mutex
	sent []tenancy.NewNotification
	keys map[string]bool
}

func (f *fakeNotifier) Notify(_ context.Context, tenantID string, n tenancy.NewNotification) (tenancy.Notification, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.keys == nil {
		f.keys = map[string]bool{}
	}
	if n.Key != "" && f.keys[tenantID+" "+n.Key] {
		return tenancy.Notification{}, fmt.Errorf("fake: key %s: %w", n.Key, tenancy.ErrConflict)
	}
	f.keys[tenantID+" "+n.Key] = true
	f.sent = append(f.sent, n)
	return tenancy.Notification{TenantID: tenantID, Type: n.Type, Title: n.Title, Body: n.Body, Data: n.Data}, nil
}

// notifications returns what was sent so far.
func (f *fakeNotifier) notifications() []tenancy.NewNotification {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]tenancy.NewNotification(nil), f.sent...)
}

func (f *fakeEntitlements) Allowance(ctx context.Context, tenantID, module, feature string) (tenancy.Allowance, error) {
	if err := f.RequireModule(ctx, tenantID, module); err != nil {
		return tenancy.Allowance{}, err
	}
	return tenancy.Allowance{TenantID: tenantID, Feature: feature, Limit: f.limit}, nil
}

func (f *fakeEntitlements) Use(_ context.Context, a tenancy.Allowance, n int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.limit >= 0 && f.used+n > f.limit {
		return fmt.Errorf("fake: consume %s: %w", a.Feature, tenancy.ErrLimitExceeded)
	}
	f.used += n
	return nil
}

// clock is a settable time source for WithClock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// unit is a Service on an in-memory store, with its fakes.
type unit struct {
	svc   *support.Service
	store *memstore.Store
	ent   *fakeEntitlements
	notes *fakeNotifier
	clock *clock
}

const unitTenant = "ten_unit"

// newUnit returns a Service with the tickets module on, no limit, and a
// clock at a fixed time (with nanoseconds, which the service drops).
func newUnit(tb testing.TB) *unit {
	tb.Helper()
	u := &unit{
		store: memstore.New(),
		ent:   &fakeEntitlements{limit: -1},
		notes: &fakeNotifier{},
		clock: &clock{now: time.Date(2026, 11, 21, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))},
	}
	u.svc = support.NewService(u.store, u.ent, u.notes, u.store, support.WithClock(u.clock.Now))
	return u
}

// requester is who opens the tickets of the tests.
func requester() support.Requester {
	return support.Requester{ID: "usr_01jd0000000000000000000000", Email: "ana@example.com", Name: "Ana Lima"}
}

// validInput is a CreateTicketInput that passes validation.
func validInput() support.CreateTicketInput {
	return support.CreateTicketInput{
		Subject:     "Export fails",
		Description: "The CSV export answers 500 since Monday.",
		Priority:    "high",
		Tags:        []string{"export"},
	}
}

// mustCreate opens a ticket through the service.
func mustCreate(tb testing.TB, svc *support.Service, tenantID string, in support.CreateTicketInput) support.Ticket {
	tb.Helper()
	t, err := svc.Create(context.Background(), tenantID, requester(), in)
	if err != nil {
		tb.Fatalf("Create(%s): %v", tenantID, err)
	}
	return t
}

// mustTransition moves a ticket through the service.
func mustTransition(tb testing.TB, svc *support.Service, tenantID, ticketID string, to support.Status) support.Ticket {
	tb.Helper()
	t, err := svc.Transition(context.Background(), tenantID, ticketID, to)
	if err != nil {
		tb.Fatalf("Transition(%s → %s): %v", ticketID, to, err)
	}
	return t
}

// fieldErrors returns the field errors of err, failing unless it is an
// *support.InvalidError that matches support.ErrInvalid.
func fieldErrors(tb testing.TB, err error) map[string]string {
	tb.Helper()
	var ie *support.InvalidError
	if !errors.As(err, &ie) {
		tb.Fatalf("error = %v, want a *support.InvalidError", err)
	}
	if !errors.Is(err, support.ErrInvalid) {
		tb.Fatalf("error %v does not match support.ErrInvalid", err)
	}
	return ie.FieldErrors()
}

// ptr returns a pointer to a copy of s.
func ptr(s string) *string { return &s }

// repeat returns s n times.
func repeat(s string, n int) string { return strings.Repeat(s, n) }
