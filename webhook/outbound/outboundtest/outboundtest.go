// Package outboundtest is the conformance suite of outbound's stores
// (EndpointStore and DeliveryStore): every implementation runs Run against
// a real backend, so that the Service can rely on what the interfaces
// document (tenant isolation, the attempt claim, transactions).
package outboundtest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// Backend is one implementation of outbound's stores with the
// transactions it must join.
type Backend struct {
	Endpoints  outbound.EndpointStore
	Deliveries outbound.DeliveryStore
	// InTx runs fn in a transaction carried by the context fn receives.
	InTx func(ctx context.Context, fn func(ctx context.Context) error) error
}

// Run checks an implementation of outbound's stores. newBackend is called
// once per case and must return stores without endpoints.
func Run(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, b Backend)
	}{
		{"EndpointRoundTrip", testEndpointRoundTrip},
		{"Isolation", testIsolation},
		{"CountEndpoints", testCountEndpoints},
		{"EndpointPages", testEndpointPages},
		{"Attempts", testAttempts},
		{"Retry", testRetry},
		{"RetryDuringAttempt", testRetryDuringAttempt},
		{"Health", testHealth},
		{"DeleteRemovesDeliveries", testDelete},
		{"JoinsTransaction", testJoinsTx},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newBackend(t)) })
	}
}

const (
	tenantA = "ten_00000000000000000000000001"
	tenantB = "ten_00000000000000000000000002"
)

var base = time.Date(2026, 11, 26, 9, 30, 0, 123456000, time.UTC)

func newEndpoint(tenantID string, types ...string) outbound.StoredEndpoint {
	if types == nil {
		types = []string{}
	}
	return outbound.StoredEndpoint{
		Endpoint: outbound.Endpoint{ID: id.New(id.WebhookEndpoint), TenantID: tenantID, URL: "https://hooks.example.com/in",
			Description: "orders", EventTypes: types, Enabled: true, CreatedAt: base, UpdatedAt: base},
		Secret: "sealed-secret",
	}
}

func mustCreateEndpoint(t *testing.T, b Backend, e outbound.StoredEndpoint) outbound.StoredEndpoint {
	t.Helper()
	if err := b.Endpoints.CreateEndpoint(context.Background(), e); err != nil {
		t.Fatalf("CreateEndpoint: %v", err)
	}
	return e
}

func newDelivery(tenantID, endpointID string) outbound.NewDelivery {
	next := base
	return outbound.NewDelivery{
		Delivery: outbound.Delivery{ID: id.New(id.WebhookDelivery), EndpointID: endpointID, EventID: id.New(id.Event),
			EventType: "invoice.paid", Status: outbound.DeliveryPending, NextAttemptAt: &next, CreatedAt: base, UpdatedAt: base},
		TenantID: tenantID, Payload: []byte(`{"type":"invoice.paid","timestamp":"2026-11-26T09:30:00Z","data":{}}`),
	}
}

func mustCreateDeliveries(t *testing.T, b Backend, ds ...outbound.NewDelivery) {
	t.Helper()
	if err := b.Deliveries.CreateDeliveries(context.Background(), ds); err != nil {
		t.Fatalf("CreateDeliveries: %v", err)
	}
}

func testEndpointRoundTrip(t *testing.T, b Backend) {
	ctx := context.Background()
	e := mustCreateEndpoint(t, b, newEndpoint(tenantA, "invoice.paid", "ticket.created"))
	got, err := b.Endpoints.Endpoint(ctx, tenantA, e.ID)
	if err != nil {
		t.Fatalf("Endpoint: %v", err)
	}
	if got.ID != e.ID || got.TenantID != tenantA || got.URL != e.URL || got.Description != e.Description ||
		!slices.Equal(got.EventTypes, e.EventTypes) || !got.Enabled || got.Secret != e.Secret || got.PreviousSecret != "" ||
		!got.CreatedAt.Equal(base) || got.FailingSince != nil || got.SecretRotatedAt != nil {
		t.Fatalf("Endpoint = %+v, want %+v", got, e)
	}
	later := base.Add(time.Hour)
	expires := later.Add(24 * time.Hour)
	got.URL, got.EventTypes, got.Enabled, got.DisabledReason = "https://other.example.com/", []string{}, false, "tenant"
	got.PreviousSecret, got.Secret, got.SecretRotatedAt, got.PreviousSecretExpiresAt, got.UpdatedAt = got.Secret, "new", &later, &expires, later
	if err := b.Endpoints.UpdateEndpoint(ctx, got); err != nil {
		t.Fatalf("UpdateEndpoint: %v", err)
	}
	again, err := b.Endpoints.Endpoint(ctx, tenantA, e.ID)
	if err != nil {
		t.Fatalf("Endpoint: %v", err)
	}
	if again.URL != got.URL || len(again.EventTypes) != 0 || again.Enabled || again.DisabledReason != "tenant" ||
		again.Secret != "new" || again.PreviousSecret != e.Secret || again.SecretRotatedAt == nil ||
		!again.SecretRotatedAt.Equal(later) || !again.PreviousSecretExpiresAt.Equal(expires) || !again.UpdatedAt.Equal(later) {
		t.Fatalf("after update = %+v, want %+v", again, got)
	}
	if eps, err := b.Endpoints.EnabledEndpoints(ctx, tenantA); err != nil || len(eps) != 0 {
		t.Fatalf("EnabledEndpoints = %v, %v; want none (disabled)", eps, err)
	}
}

func testCountEndpoints(t *testing.T, b Backend) {
	ctx := context.Background()
	for range 3 {
		mustCreateEndpoint(t, b, newEndpoint(tenantA))
	}
	mustCreateEndpoint(t, b, newEndpoint(tenantB))
	err := b.InTx(ctx, func(ctx context.Context) error {
		for tenant, want := range map[string]int{tenantA: 3, tenantB: 1, "ten_00000000000000000000000009": 0} {
			if n, err := b.Endpoints.CountEndpoints(ctx, tenant); err != nil || n != want {
				t.Errorf("CountEndpoints(%s) = %d, %v; want %d", tenant, n, err, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testIsolation(t *testing.T, b Backend) {
	ctx := context.Background()
	a := mustCreateEndpoint(t, b, newEndpoint(tenantA))
	other := mustCreateEndpoint(t, b, newEndpoint(tenantB))
	d := newDelivery(tenantA, a.ID)
	mustCreateDeliveries(t, b, d)
	notFound := func(name string, err error) {
		t.Helper()
		if !errors.Is(err, outbound.ErrNotFound) {
			t.Errorf("%s of another tenant = %v, want ErrNotFound", name, err)
		}
	}
	_, err := b.Endpoints.Endpoint(ctx, tenantB, a.ID)
	notFound("Endpoint", err)
	notFound("UpdateEndpoint", b.Endpoints.UpdateEndpoint(ctx, outbound.StoredEndpoint{Endpoint: outbound.Endpoint{ID: a.ID, TenantID: tenantB}}))
	notFound("DeleteEndpoint", b.Endpoints.DeleteEndpoint(ctx, tenantB, a.ID))
	_, err = b.Deliveries.Delivery(ctx, tenantB, d.ID)
	notFound("Delivery", err)
	_, err = b.Deliveries.RetryDelivery(ctx, tenantB, d.ID, base)
	notFound("RetryDelivery", err)
	if ds, _, err := b.Deliveries.Deliveries(ctx, tenantB, a.ID, outbound.Page{Limit: 10}); err != nil || len(ds) != 0 {
		t.Errorf("Deliveries of another tenant = %v, %v; want none", ds, err)
	}
	if es, _, err := b.Endpoints.Endpoints(ctx, tenantB, outbound.Page{Limit: 10}); err != nil || len(es) != 1 || es[0].ID != other.ID {
		t.Errorf("Endpoints(B) = %v, %v; want only B's", es, err)
	}
	if eps, err := b.Endpoints.EnabledEndpoints(ctx, tenantA); err != nil || len(eps) != 1 || eps[0].ID != a.ID {
		t.Errorf("EnabledEndpoints(A) = %v, %v; want only A's", eps, err)
	}
	if _, err := b.Endpoints.Endpoint(ctx, tenantA, a.ID); err != nil {
		t.Errorf("A's endpoint after B's attempts: %v", err)
	}
}

func testEndpointPages(t *testing.T, b Backend) {
	ctx := context.Background()
	var want []string
	for range 5 {
		want = append(want, mustCreateEndpoint(t, b, newEndpoint(tenantA)).ID)
	}
	slices.Reverse(want)
	var got []string
	before := ""
	for {
		page, more, err := b.Endpoints.Endpoints(ctx, tenantA, outbound.Page{Before: before, Limit: 2})
		if err != nil {
			t.Fatalf("Endpoints: %v", err)
		}
		for _, e := range page {
			got = append(got, e.ID)
		}
		if !more {
			break
		}
		before = page[len(page)-1].ID
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pages = %v, want %v", got, want)
	}
}

func testAttempts(t *testing.T, b Backend) {
	ctx := context.Background()
	e := mustCreateEndpoint(t, b, newEndpoint(tenantA))
	d := newDelivery(tenantA, e.ID)
	mustCreateDeliveries(t, b, d)
	job, err := b.Deliveries.Job(ctx, d.ID)
	if err != nil {
		t.Fatalf("Job: %v", err)
	}
	if job.TenantID != tenantA || job.Attempts != 0 || string(job.Payload) != string(d.Payload) ||
		job.Endpoint.ID != e.ID || job.Endpoint.Secret != e.Secret || job.Delivery.Status != outbound.DeliveryPending {
		t.Fatalf("Job = %+v", job)
	}
	next := base.Add(time.Minute)
	first := outbound.AttemptRecord{TenantID: tenantA, DeliveryID: d.ID, Status: outbound.DeliveryPending, NextAttemptAt: &next,
		Attempt: outbound.Attempt{Number: 1, Status: outbound.DeliveryFailed, HTTPStatus: 500, LatencyMS: 12, Response: "oops", AttemptedAt: base}}
	if got, err := b.Deliveries.RecordAttempt(ctx, first); err != nil || got == nil || !got.Equal(next) {
		t.Fatalf("RecordAttempt 1 = %v, %v; want next attempt at %v", got, err, next)
	}
	if _, err := b.Deliveries.RecordAttempt(ctx, first); !errors.Is(err, outbound.ErrConflict) {
		t.Fatalf("RecordAttempt 1 again = %v, want ErrConflict", err)
	}
	second := outbound.AttemptRecord{TenantID: tenantA, DeliveryID: d.ID, Status: outbound.DeliverySucceeded,
		Attempt: outbound.Attempt{Number: 2, Status: outbound.DeliverySucceeded, HTTPStatus: 204, LatencyMS: 7, Response: "ok", AttemptedAt: next}}
	if got, err := b.Deliveries.RecordAttempt(ctx, second); err != nil || got != nil {
		t.Fatalf("RecordAttempt 2 = %v, %v; want no next attempt", got, err)
	}
	third := second
	third.Attempt.Number = 3
	if _, err := b.Deliveries.RecordAttempt(ctx, third); !errors.Is(err, outbound.ErrConflict) {
		t.Fatalf("RecordAttempt on a succeeded delivery = %v, want ErrConflict", err)
	}
	got, err := b.Deliveries.Delivery(ctx, tenantA, d.ID)
	if err != nil {
		t.Fatalf("Delivery: %v", err)
	}
	if got.Status != outbound.DeliverySucceeded || got.NextAttemptAt != nil || len(got.Attempts) != 2 ||
		got.Attempts[0] != first.Attempt || got.Attempts[1] != second.Attempt {
		t.Fatalf("Delivery = %+v", got)
	}
	ds, more, err := b.Deliveries.Deliveries(ctx, tenantA, e.ID, outbound.Page{Limit: 10})
	if err != nil || more || len(ds) != 1 || len(ds[0].Attempts) != 2 {
		t.Fatalf("Deliveries = %+v, %v, %v", ds, more, err)
	}
	if _, err := b.Deliveries.Job(ctx, id.New(id.WebhookDelivery)); !errors.Is(err, outbound.ErrNotFound) {
		t.Fatalf("Job(missing) = %v, want ErrNotFound", err)
	}
}

// testRetry: a failed delivery and a pending one are retried (due at
// once, a new round, one more retry); a succeeded one is ErrConflict.
func testRetry(t *testing.T, b Backend) {
	ctx := context.Background()
	e := mustCreateEndpoint(t, b, newEndpoint(tenantA))
	d := newDelivery(tenantA, e.ID)
	mustCreateDeliveries(t, b, d)
	failed := outbound.AttemptRecord{TenantID: tenantA, DeliveryID: d.ID, Status: outbound.DeliveryFailed,
		Attempt: outbound.Attempt{Number: 1, Status: outbound.DeliveryFailed, Response: "refused", AttemptedAt: base}}
	if _, err := b.Deliveries.RecordAttempt(ctx, failed); err != nil {
		t.Fatalf("RecordAttempt: %v", err)
	}
	at := base.Add(time.Hour)
	if n, err := b.Deliveries.RetryDelivery(ctx, tenantA, d.ID, at); err != nil || n != 1 {
		t.Fatalf("RetryDelivery(failed) = %d, %v; want 1 attempt", n, err)
	}
	mustJob(t, b, d.ID, 1, 1, 1, at)

	// Pending, next attempt in a day: a retry brings it to now.
	later := base.Add(24 * time.Hour)
	pending := outbound.AttemptRecord{TenantID: tenantA, DeliveryID: d.ID, Status: outbound.DeliveryPending, NextAttemptAt: &later, Retries: 1,
		Attempt: outbound.Attempt{Number: 2, Status: outbound.DeliveryFailed, Response: "500", AttemptedAt: at}}
	if _, err := b.Deliveries.RecordAttempt(ctx, pending); err != nil {
		t.Fatalf("RecordAttempt: %v", err)
	}
	now := at.Add(time.Minute)
	if n, err := b.Deliveries.RetryDelivery(ctx, tenantA, d.ID, now); err != nil || n != 2 {
		t.Fatalf("RetryDelivery(pending) = %d, %v; want 2 attempts", n, err)
	}
	mustJob(t, b, d.ID, 2, 2, 2, now)

	ok := outbound.AttemptRecord{TenantID: tenantA, DeliveryID: d.ID, Status: outbound.DeliverySucceeded, Retries: 2,
		Attempt: outbound.Attempt{Number: 3, Status: outbound.DeliverySucceeded, HTTPStatus: 200, AttemptedAt: now}}
	if _, err := b.Deliveries.RecordAttempt(ctx, ok); err != nil {
		t.Fatalf("RecordAttempt: %v", err)
	}
	if _, err := b.Deliveries.RetryDelivery(ctx, tenantA, d.ID, now); !errors.Is(err, outbound.ErrConflict) {
		t.Fatalf("RetryDelivery(succeeded) = %v, want ErrConflict", err)
	}
	if got, err := b.Deliveries.Delivery(ctx, tenantA, d.ID); err != nil || got.Status != outbound.DeliverySucceeded || len(got.Attempts) != 3 {
		t.Fatalf("after a refused retry: %+v, %v; want succeeded, 3 attempts", got, err)
	}
}

// testRetryDuringAttempt: an attempt that began before a retry and failed
// keeps the delivery due when the retry made it due, in a round starting
// after it; one that succeeded succeeds the delivery.
func testRetryDuringAttempt(t *testing.T, b Backend) {
	ctx := context.Background()
	e := mustCreateEndpoint(t, b, newEndpoint(tenantA))
	for _, tc := range []struct {
		name    string
		attempt outbound.AttemptRecord
	}{
		{"FailedWithMoreToCome", outbound.AttemptRecord{Status: outbound.DeliveryPending,
			Attempt: outbound.Attempt{Number: 1, Status: outbound.DeliveryFailed, HTTPStatus: 503}}},
		{"FailedForGood", outbound.AttemptRecord{Status: outbound.DeliveryFailed,
			Attempt: outbound.Attempt{Number: 1, Status: outbound.DeliveryFailed, HTTPStatus: 503}}},
		{"Succeeded", outbound.AttemptRecord{Status: outbound.DeliverySucceeded,
			Attempt: outbound.Attempt{Number: 1, Status: outbound.DeliverySucceeded, HTTPStatus: 200}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDelivery(tenantA, e.ID)
			mustCreateDeliveries(t, b, d)
			job, err := b.Deliveries.Job(ctx, d.ID) // the attempt begins
			if err != nil {
				t.Fatalf("Job: %v", err)
			}
			retried := base.Add(time.Second)
			if _, err := b.Deliveries.RetryDelivery(ctx, tenantA, d.ID, retried); err != nil {
				t.Fatalf("RetryDelivery: %v", err)
			}
			later := base.Add(time.Hour)
			r := tc.attempt
			r.TenantID, r.DeliveryID, r.Retries, r.Attempt.AttemptedAt = tenantA, d.ID, job.Retries, base.Add(2*time.Second)
			if r.Status == outbound.DeliveryPending {
				r.NextAttemptAt = &later
			}
			next, err := b.Deliveries.RecordAttempt(ctx, r)
			if err != nil {
				t.Fatalf("RecordAttempt: %v", err)
			}
			if r.Attempt.Status == outbound.DeliverySucceeded {
				if next != nil {
					t.Fatalf("RecordAttempt = %v, want no next attempt", next)
				}
				if got, _ := b.Deliveries.Delivery(ctx, tenantA, d.ID); got.Status != outbound.DeliverySucceeded {
					t.Fatalf("status = %s, want succeeded", got.Status)
				}
				return
			}
			if next == nil || !next.Equal(retried) {
				t.Fatalf("RecordAttempt = %v, want the retry's %v", next, retried)
			}
			mustJob(t, b, d.ID, 1, 1, 1, retried)
			if _, err := b.Deliveries.RecordAttempt(ctx, r); !errors.Is(err, outbound.ErrConflict) {
				t.Fatalf("RecordAttempt again = %v, want ErrConflict", err)
			}
		})
	}
}

// mustJob checks the delivery is pending, due at due, with attempts,
// roundStart and retries as given.
func mustJob(t *testing.T, b Backend, deliveryID string, attempts, roundStart, retries int, due time.Time) {
	t.Helper()
	job, err := b.Deliveries.Job(context.Background(), deliveryID)
	if err != nil {
		t.Fatalf("Job: %v", err)
	}
	if job.Delivery.Status != outbound.DeliveryPending || job.Attempts != attempts || job.RoundStart != roundStart ||
		job.Retries != retries || job.Delivery.NextAttemptAt == nil || !job.Delivery.NextAttemptAt.Equal(due) {
		t.Fatalf("Job = status %s, %d attempts, round start %d, %d retries, due %v; want pending, %d, %d, %d, due %v",
			job.Delivery.Status, job.Attempts, job.RoundStart, job.Retries, job.Delivery.NextAttemptAt,
			attempts, roundStart, retries, due)
	}
}

func testHealth(t *testing.T, b Backend) {
	ctx := context.Background()
	e := mustCreateEndpoint(t, b, newEndpoint(tenantA))
	d1, d2 := newDelivery(tenantA, e.ID), newDelivery(tenantA, e.ID)
	mustCreateDeliveries(t, b, d1, d2)
	since, err := b.Endpoints.MarkFailing(ctx, e.ID, base)
	if err != nil || !since.Equal(base) {
		t.Fatalf("MarkFailing = %v, %v; want %v", since, err, base)
	}
	if since, err = b.Endpoints.MarkFailing(ctx, e.ID, base.Add(time.Hour)); err != nil || !since.Equal(base) {
		t.Fatalf("MarkFailing again = %v, %v; want the first %v", since, err, base)
	}
	if err := b.Endpoints.MarkHealthy(ctx, e.ID); err != nil {
		t.Fatalf("MarkHealthy: %v", err)
	}
	if got, _ := b.Endpoints.Endpoint(ctx, tenantA, e.ID); got.FailingSince != nil {
		t.Fatalf("failing_since after MarkHealthy = %v", got.FailingSince)
	}
	if done, err := b.Endpoints.DisableEndpoint(ctx, e.ID, outbound.DisabledFailing, base); err != nil || !done {
		t.Fatalf("DisableEndpoint = %v, %v", done, err)
	}
	if done, err := b.Endpoints.DisableEndpoint(ctx, e.ID, outbound.DisabledFailing, base); err != nil || done {
		t.Fatalf("DisableEndpoint again = %v, %v; want false", done, err)
	}
	if n, err := b.Deliveries.FailPending(ctx, e.ID, base); err != nil || n != 2 {
		t.Fatalf("FailPending = %d, %v; want 2", n, err)
	}
	got, err := b.Deliveries.Delivery(ctx, tenantA, d1.ID)
	if err != nil || got.Status != outbound.DeliveryFailed || got.NextAttemptAt != nil {
		t.Fatalf("delivery after FailPending = %+v, %v", got, err)
	}
	ep, _ := b.Endpoints.Endpoint(ctx, tenantA, e.ID)
	if ep.Enabled || ep.DisabledReason != outbound.DisabledFailing {
		t.Fatalf("endpoint after DisableEndpoint = %+v", ep)
	}
}

func testDelete(t *testing.T, b Backend) {
	ctx := context.Background()
	e := mustCreateEndpoint(t, b, newEndpoint(tenantA))
	d := newDelivery(tenantA, e.ID)
	mustCreateDeliveries(t, b, d)
	rec := outbound.AttemptRecord{TenantID: tenantA, DeliveryID: d.ID, Status: outbound.DeliveryFailed,
		Attempt: outbound.Attempt{Number: 1, Status: outbound.DeliveryFailed, AttemptedAt: base}}
	if _, err := b.Deliveries.RecordAttempt(ctx, rec); err != nil {
		t.Fatalf("RecordAttempt: %v", err)
	}
	if err := b.Endpoints.DeleteEndpoint(ctx, tenantA, e.ID); err != nil {
		t.Fatalf("DeleteEndpoint: %v", err)
	}
	if _, err := b.Deliveries.Job(ctx, d.ID); !errors.Is(err, outbound.ErrNotFound) {
		t.Fatalf("Job after delete = %v, want ErrNotFound", err)
	}
	if err := b.Endpoints.DeleteEndpoint(ctx, tenantA, e.ID); !errors.Is(err, outbound.ErrNotFound) {
		t.Fatalf("DeleteEndpoint again = %v, want ErrNotFound", err)
	}
}

func testJoinsTx(t *testing.T, b Backend) {
	ctx := context.Background()
	e := mustCreateEndpoint(t, b, newEndpoint(tenantA))
	d := newDelivery(tenantA, e.ID)
	rollback := errors.New("rollback")
	err := b.InTx(ctx, func(ctx context.Context) error {
		if err := b.Deliveries.CreateDeliveries(ctx, []outbound.NewDelivery{d}); err != nil {
			return err
		}
		if _, err := b.Deliveries.Delivery(ctx, tenantA, d.ID); err != nil {
			t.Errorf("Delivery inside the transaction: %v", err)
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatalf("InTx = %v", err)
	}
	if _, err := b.Deliveries.Delivery(ctx, tenantA, d.ID); !errors.Is(err, outbound.ErrNotFound) {
		t.Fatalf("Delivery after rollback = %v, want ErrNotFound", err)
	}
}
