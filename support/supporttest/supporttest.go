// Package supporttest is the conformance suite of support.Store: every
// implementation (the Bun store on Postgres and SQLite, an in-memory store,
// a host's own) must pass Run. The suite works through the Store interface
// only, and scopes everything it does to tenants it makes for itself, so
// it can run on a store that already holds data.
package supporttest

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/support"
)

// Harness tells Run how to get what it tests.
type Harness struct {
	// NewStore returns the store one subtest runs on. It may return the
	// same store every time: subtests make their own tenants.
	NewStore func(t *testing.T) support.Store
	// NewTenant returns the id of a new tenant that s accepts tickets for,
	// for stores that check tenants (the Bun store has a foreign key to
	// tenancy's tenants). Nil makes up a fresh tenant id, which is all a
	// store without a tenants table needs.
	NewTenant func(t *testing.T, s support.Store) string
}

// Run runs the conformance suite, one subtest per behaviour of the Store
// contract, including the isolation of tenants.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.NewStore == nil {
		t.Fatal("supporttest: Harness.NewStore is nil")
	}
	cases := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"NextNumber", testNextNumber},
		{"NextNumberConcurrent", testNextNumberConcurrent},
		{"CreateAndGet", testCreateAndGet},
		{"CreateWithoutTagsOrAssignee", testCreateBare},
		{"CreateDuplicate", testCreateDuplicate},
		{"GetMissing", testGetMissing},
		{"ListEmpty", testListEmpty},
		{"ListPages", testListPages},
		{"ListExactPage", testListExactPage},
		{"ListFilters", testListFilters},
		{"Update", testUpdate},
		{"UpdateKeepsImmutableFields", testUpdateImmutable},
		{"UpdateError", testUpdateError},
		{"UpdateMissing", testUpdateMissing},
		{"UpdateConcurrent", testUpdateConcurrent},
		{"LifecycleFields", testLifecycleFields},
		{"UpdateLifecycleFields", testUpdateLifecycleFields},
		{"CommentsCreateAndList", testComments},
		{"CommentsPages", testCommentsPages},
		{"CommentMissingTicket", testCommentMissingTicket},
		{"CommentDuplicate", testCommentDuplicate},
		{"SLAOverdue", testSLAOverdue},
		{"SLAOverduePages", testSLAOverduePages},
		{"BreachSLA", testBreachSLA},
		{"BreachSLAConcurrent", testBreachSLAConcurrent},
		{"Isolation", testIsolation},
		{"IsolationComments", testIsolationComments},
		{"IsolationSLA", testIsolationSLA},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.fn(t, &env{store: h.NewStore(t), newTenant: h.NewTenant})
		})
	}
}

// env is one subtest's store and its way of making tenants.
type env struct {
	store     support.Store
	newTenant func(t *testing.T, s support.Store) string
}

// tenant returns a new tenant id for the store.
func (e *env) tenant(t *testing.T) string {
	t.Helper()
	if e.newTenant == nil {
		return id.New(id.Tenant)
	}
	return e.newTenant(t, e.store)
}

// baseTime is when the suite's tickets are created; microseconds are the
// finest precision a Store must keep (Postgres keeps no more).
func baseTime() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 123456000, time.UTC) }

// newTicket returns a complete, valid ticket with the given number, made
// later than the ones before it (a fresh id sorts after every older one).
func newTicket(number int64) support.Ticket {
	at := baseTime().Add(time.Duration(number) * time.Second)
	return support.Ticket{
		ID:          id.New(id.Ticket),
		Number:      number,
		Subject:     fmt.Sprintf("Ticket %d: the export fails", number),
		Description: "Steps:\n1. open reports\n2. export → 500 «ünïcode»",
		Status:      support.StatusOpen,
		Priority:    support.PriorityNormal,
		Requester:   support.Requester{ID: "usr_requester", Email: "ana@example.com", Name: "Ana Lima"},
		Tags:        []string{"billing", "export"},
		CreatedAt:   at,
		UpdatedAt:   at,
	}
}

// mustCreate stores t for the tenant, taking its number from NextNumber.
func mustCreate(tb testing.TB, s support.Store, tenantID string, t support.Ticket) support.Ticket {
	tb.Helper()
	ctx := context.Background()
	n, err := s.NextNumber(ctx, tenantID)
	if err != nil {
		tb.Fatalf("NextNumber(%s): %v", tenantID, err)
	}
	t.Number = n
	if err := s.CreateTicket(ctx, tenantID, t); err != nil {
		tb.Fatalf("CreateTicket(%s, #%d): %v", tenantID, n, err)
	}
	return t
}

// mustGet returns the tenant's ticket with id.
func mustGet(tb testing.TB, s support.Store, tenantID, ticketID string) support.Ticket {
	tb.Helper()
	got, err := s.Ticket(context.Background(), tenantID, ticketID)
	if err != nil {
		tb.Fatalf("Ticket(%s, %s): %v", tenantID, ticketID, err)
	}
	return got
}

// checkTicket fails unless got equals want field by field, times by instant
// and in UTC, Tags non-nil.
func checkTicket(tb testing.TB, what string, got, want support.Ticket) {
	tb.Helper()
	if got.Tags == nil {
		tb.Errorf("%s: Tags = nil, want a non-nil slice", what)
	}
	for _, ts := range []struct {
		name      string
		got, want time.Time
	}{{"CreatedAt", got.CreatedAt, want.CreatedAt}, {"UpdatedAt", got.UpdatedAt, want.UpdatedAt}} {
		if !ts.got.Equal(ts.want) {
			tb.Errorf("%s: %s = %v, want %v", what, ts.name, ts.got, ts.want)
		}
		if ts.got.Location() != time.UTC {
			tb.Errorf("%s: %s in %v, want UTC", what, ts.name, ts.got.Location())
		}
	}
	got.CreatedAt, got.UpdatedAt = want.CreatedAt, want.UpdatedAt
	for _, ts := range []struct {
		name      string
		got, want **time.Time
	}{
		{"FirstResponseDueAt", &got.FirstResponseDueAt, &want.FirstResponseDueAt},
		{"ResolutionDueAt", &got.ResolutionDueAt, &want.ResolutionDueAt},
		{"FirstRespondedAt", &got.FirstRespondedAt, &want.FirstRespondedAt},
	} {
		checkTimePtr(tb, what+": "+ts.name, *ts.got, *ts.want)
		*ts.got = *ts.want
	}
	if got.Satisfaction != nil && want.Satisfaction != nil {
		checkTimePtr(tb, what+": Satisfaction.RatedAt", &got.Satisfaction.RatedAt, &want.Satisfaction.RatedAt)
		sat := *got.Satisfaction
		sat.RatedAt = want.Satisfaction.RatedAt
		got.Satisfaction = &sat
	}
	if len(got.Tags) == 0 && len(want.Tags) == 0 {
		got.Tags, want.Tags = nil, nil
	}
	if !reflect.DeepEqual(got, want) {
		tb.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// checkTimePtr fails unless got and want are both nil, or both set to the
// same instant with got in UTC.
func checkTimePtr(tb testing.TB, what string, got, want *time.Time) {
	tb.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		tb.Errorf("%s = %v, want %v", what, got, want)
	case !got.Equal(*want):
		tb.Errorf("%s = %v, want %v", what, *got, *want)
	case got.Location() != time.UTC:
		tb.Errorf("%s in %v, want UTC", what, got.Location())
	}
}

// ids returns the ids of ts, in order.
func ids(ts []support.Ticket) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

// strPtr returns a pointer to a copy of s.
func strPtr(s string) *string { return &s }
