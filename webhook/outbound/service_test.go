package outbound_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/event"
	eventstore "github.com/tenantkit/tenantkit/event/bunstore"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	tenancystore "github.com/tenantkit/tenantkit/tenancy/bunstore"
	"github.com/tenantkit/tenantkit/webhook/outbound"
	"github.com/tenantkit/tenantkit/webhook/outbound/bunstore"
)

const (
	tenantA = "ten_00000000000000000000000001"
	tenantB = "ten_00000000000000000000000002"
)

// queue is a Queue in memory: it keeps the attempts it is given, in
// order, without River's one job per attempt.
type queue struct {
	mu       sync.Mutex
	attempts []outbound.Scheduled
}

func (q *queue) Enqueue(_ context.Context, as ...outbound.Scheduled) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.attempts = append(q.attempts, as...)
	return nil
}

// takeAttempts returns the attempts enqueued since the last take.
func (q *queue) takeAttempts() []outbound.Scheduled {
	q.mu.Lock()
	defer q.mu.Unlock()
	as := q.attempts
	q.attempts = nil
	return as
}

// take returns the deliveries of the attempts enqueued since the last
// take, each once, in order.
func (q *queue) take() []string {
	var ids []string
	for _, a := range q.takeAttempts() {
		if !slices.Contains(ids, a.DeliveryID) {
			ids = append(ids, a.DeliveryID)
		}
	}
	return ids
}

// clock is an adjustable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// notes records notifications.
type notes struct {
	mu   sync.Mutex
	sent []tenancy.NewNotification
}

func (n *notes) Notify(_ context.Context, tenantID string, nn tenancy.NewNotification) (tenancy.Notification, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sent = append(n.sent, nn)
	return tenancy.Notification{TenantID: tenantID, Type: nn.Type}, nil
}

// receiver is an HTTP receiver on 127.0.0.1 answering with the statuses
// of a script (the last one repeating) and keeping every request.
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	got      []*http.Request
	bodies   [][]byte
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	rc := &receiver{statuses: statuses}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		n := len(rc.got)
		rc.got, rc.bodies = append(rc.got, r), append(rc.bodies, body)
		status := rc.statuses[min(n, len(rc.statuses)-1)]
		rc.mu.Unlock()
		w.WriteHeader(status)
		fmt.Fprintf(w, "answer %d: %s", n+1, strings.Repeat("x", 2000))
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) requests() ([]*http.Request, [][]byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]*http.Request(nil), rc.got...), append([][]byte(nil), rc.bodies...)
}

// fixture is a Service on a real database with an event recorder
// subscribed to it, as tenantkit.New wires them.
type fixture struct {
	svc   *outbound.Service
	rec   *event.Recorder
	log   *event.Log
	queue *queue
	clock *clock
	notes *notes
	tx    database.Transactor
	db    *bun.DB
}

func newFixture(t *testing.T, db *bun.DB, opts ...outbound.Option) *fixture {
	t.Helper()
	sealer, err := outbound.NewSealer([]byte(strings.Repeat("k", outbound.KeyBytes)))
	if err != nil {
		t.Fatalf("NewSealer: %v", err)
	}
	guard, err := outbound.NewGuard("127.0.0.1")
	if err != nil {
		t.Fatalf("NewGuard: %v", err)
	}
	f := &fixture{queue: &queue{}, clock: &clock{t: time.Now().UTC()}, notes: &notes{}, tx: database.NewTransactor(db), db: db}
	events := eventstore.New(db)
	f.rec, f.log = event.NewRecorder(events), event.NewLog(events)
	base := []outbound.Option{outbound.WithSealer(sealer), outbound.WithGuard(guard), outbound.WithEvents(f.rec),
		outbound.WithNotifier(f.notes), outbound.WithClock(f.clock.now),
		outbound.WithSchedule(time.Millisecond, 2*time.Millisecond, 4*time.Millisecond), outbound.WithoutJitter()}
	st := bunstore.New(db)
	f.svc = outbound.New(st, st, f.tx, f.queue, append(base, opts...)...)
	f.rec.Subscribe(f.svc)
	return f
}

func each(t *testing.T, fn func(t *testing.T, db *bun.DB)) {
	dbtest.Each(t, fn, tenancystore.Migrations(), bunstore.Migrations(), eventstore.Migrations())
}

func (f *fixture) mustCreate(t *testing.T, tenantID, url string, types ...string) (outbound.Endpoint, string) {
	t.Helper()
	e, secret, err := f.svc.CreateEndpoint(context.Background(), tenantID, outbound.CreateEndpointInput{URL: url, EventTypes: types})
	if err != nil {
		t.Fatalf("CreateEndpoint: %v", err)
	}
	f.queue.take() // the created event's own delivery, if any
	return e, secret
}

// record records an event as a service does, in a transaction.
func (f *fixture) record(t *testing.T, tenantID, typ string) {
	t.Helper()
	err := f.tx.InTx(context.Background(), func(ctx context.Context) error {
		return f.rec.Record(ctx, tenantID, typ, "invoice", "inv_1", map[string]any{"id": "inv_1", "total": 1999})
	})
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
}

// drive makes every enqueued attempt, and the ones they enqueue, as a
// worker would (ignoring their times: the schedule is milliseconds), and
// returns the outcomes per delivery.
func (f *fixture) drive(t *testing.T) map[string][]outbound.Outcome {
	t.Helper()
	out := map[string][]outbound.Outcome{}
	for range 100 {
		as := f.queue.takeAttempts()
		if len(as) == 0 {
			return out
		}
		for _, a := range as {
			o, err := f.svc.AttemptNumber(context.Background(), a.DeliveryID, a.Number)
			if err != nil {
				t.Fatalf("AttemptNumber %s %d: %v", a.DeliveryID, a.Number, err)
			}
			out[a.DeliveryID] = append(out[a.DeliveryID], o)
		}
	}
	t.Fatal("the queue never ran dry")
	return nil
}

// handHMAC is the Standard Webhooks signature computed by hand.
func handHMAC(t *testing.T, secret, msgID, ts string, body []byte) string {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatalf("decode secret: %v", err)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msgID + "." + ts + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// verifies reports whether the request's signatures include secret's,
// checked by the Standard Webhooks library and by hand. The timestamp is
// not checked against the real clock: the tests move theirs.
func verifies(t *testing.T, secret string, r *http.Request, body []byte) bool {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatalf("NewWebhook: %v", err)
	}
	lib := wh.VerifyIgnoringTimestamp(body, r.Header) == nil
	want := handHMAC(t, secret, r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), body)
	hand := false
	for _, sig := range strings.Fields(r.Header.Get("webhook-signature")) {
		hand = hand || hmac.Equal([]byte(sig), []byte(want))
	}
	if lib != hand {
		t.Fatalf("the library says %v, the hand-computed HMAC %v", lib, hand)
	}
	return lib
}

func TestDispatchDeliversSigned(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db)
		rc := newReceiver(t, http.StatusOK)
		ep, secret := f.mustCreate(t, tenantA, rc.URL+"/hook", event.InvoicePaid)
		tickets, _ := f.mustCreate(t, tenantA, rc.URL+"/tickets", event.TicketCreated)
		other, _ := f.mustCreate(t, tenantB, rc.URL+"/b", event.InvoicePaid)
		f.record(t, tenantA, event.InvoicePaid)
		f.record(t, "", event.TenantCreated) // the platform's own: delivered nowhere
		outcomes := f.drive(t)
		if len(outcomes) != 1 {
			t.Fatalf("%d deliveries attempted, want 1 (the invoice endpoint's)", len(outcomes))
		}
		reqs, bodies := rc.requests()
		if len(reqs) != 1 || reqs[0].URL.Path != "/hook" {
			t.Fatalf("receiver got %d requests (%v), want 1 at /hook", len(reqs), reqs)
		}
		r, body := reqs[0], bodies[0]
		if !verifies(t, secret, r, body) {
			t.Fatalf("signature %q does not verify with the endpoint's secret", r.Header.Get("webhook-signature"))
		}
		if wh, _ := standardwebhooks.NewWebhook(secret); wh.Verify(body, r.Header) != nil {
			t.Fatalf("the library refuses the delivery's timestamp %s", r.Header.Get("webhook-timestamp"))
		}
		_, wrong := f.mustCreate(t, tenantA, rc.URL+"/x")
		if verifies(t, wrong, r, body) {
			t.Fatalf("signature verifies with another endpoint's secret")
		}
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type = %q", got)
		}
		if got := r.Header.Get("User-Agent"); got != "tenantkit" {
			t.Errorf("User-Agent = %q", got)
		}
		var p struct {
			Type      string      `json:"type"`
			Timestamp time.Time   `json:"timestamp"`
			Data      event.Event `json:"data"`
		}
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("payload %s: %v", body, err)
		}
		if p.Type != event.InvoicePaid || p.Data.Type != event.InvoicePaid || p.Data.TenantID != tenantA ||
			!strings.Contains(string(p.Data.Data), `"total":1999`) || p.Timestamp.IsZero() {
			t.Fatalf("payload = %s", body)
		}
		ds, _, err := f.svc.Deliveries(context.Background(), tenantA, ep.ID, 0, "")
		if err != nil || len(ds) != 1 {
			t.Fatalf("Deliveries = %v, %v", ds, err)
		}
		d := ds[0]
		if d.ID != r.Header.Get("webhook-id") || d.EventID != p.Data.ID || d.Status != outbound.DeliverySucceeded ||
			len(d.Attempts) != 1 || d.Attempts[0].HTTPStatus != 200 || d.NextAttemptAt != nil {
			t.Fatalf("delivery = %+v", d)
		}
		if len(d.Attempts[0].Response) > outbound.MaxResponseBytes || !strings.HasPrefix(d.Attempts[0].Response, "answer 1") {
			t.Fatalf("response kept = %d bytes %q…", len(d.Attempts[0].Response), d.Attempts[0].Response[:min(20, len(d.Attempts[0].Response))])
		}
		for _, e := range []outbound.Endpoint{tickets, other} {
			if ds, _, _ := f.svc.Deliveries(context.Background(), e.TenantID, e.ID, 0, ""); len(ds) != 0 {
				t.Errorf("endpoint %s got %d deliveries, want none", e.URL, len(ds))
			}
		}
	})
}

func TestDispatchRollsBackWithTheChange(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db)
		rc := newReceiver(t, http.StatusOK)
		ep, _ := f.mustCreate(t, tenantA, rc.URL, event.InvoicePaid)
		boom := errors.New("the change failed")
		err := f.tx.InTx(context.Background(), func(ctx context.Context) error {
			if err := f.rec.Record(ctx, tenantA, event.InvoicePaid, "invoice", "inv_1", nil); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx = %v", err)
		}
		if ds, _, _ := f.svc.Deliveries(context.Background(), tenantA, ep.ID, 0, ""); len(ds) != 0 {
			t.Fatalf("%d deliveries of a rolled-back change", len(ds))
		}
	})
}

func TestRetriesUntilSuccess(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db)
		rc := newReceiver(t, 500, 500, 500, 200)
		ep, _ := f.mustCreate(t, tenantA, rc.URL, event.InvoicePaid)
		f.record(t, tenantA, event.InvoicePaid)
		outcomes := f.drive(t)
		ds, _, err := f.svc.Deliveries(context.Background(), tenantA, ep.ID, 0, "")
		if err != nil || len(ds) != 1 {
			t.Fatalf("Deliveries = %v, %v; want exactly one", ds, err)
		}
		d := ds[0]
		if d.Status != outbound.DeliverySucceeded || len(d.Attempts) != 4 {
			t.Fatalf("delivery %s with %d attempts, want succeeded with 4", d.Status, len(d.Attempts))
		}
		for i, want := range []int{500, 500, 500, 200} {
			a := d.Attempts[i]
			if a.Number != i+1 || a.HTTPStatus != want || (a.Status == outbound.DeliverySucceeded) != (want == 200) {
				t.Errorf("attempt %d = %+v, want HTTP %d", i+1, a, want)
			}
		}
		os := outcomes[d.ID]
		if len(os) != 4 || !os[3].Done || os[0].Done || os[0].RetryAt.IsZero() {
			t.Fatalf("outcomes = %+v, want three retries then done", os)
		}
		if step := os[1].RetryAt.Sub(f.clock.now().Truncate(time.Microsecond)); step != 2*time.Millisecond {
			t.Errorf("second retry %v after the attempt, want 2ms (the schedule)", step)
		}
		reqs, _ := rc.requests()
		for _, r := range reqs[1:] {
			if r.Header.Get("webhook-id") != reqs[0].Header.Get("webhook-id") {
				t.Fatalf("webhook-id changed between attempts")
			}
		}
		if got, _ := f.svc.Endpoint(context.Background(), tenantA, ep.ID); got.FailingSince != nil {
			t.Errorf("failing_since = %v after a success, want nil", got.FailingSince)
		}
	})
}

func TestScheduleSpentFailsAndRetry(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db)
		rc := newReceiver(t, http.StatusFound) // a redirect is a failure
		ep, _ := f.mustCreate(t, tenantA, rc.URL, event.InvoicePaid)
		d, err := f.svc.SendTest(context.Background(), tenantA, ep.ID)
		if err != nil || d.EventType != outbound.TestEventType {
			t.Fatalf("SendTest = %+v, %v", d, err)
		}
		f.drive(t)
		got, err := f.svc.Retry(context.Background(), tenantA, "", d.ID)
		if err != nil {
			t.Fatalf("Retry of a failed delivery: %v", err)
		}
		if got.Status != outbound.DeliveryPending || len(got.Attempts) != 4 {
			t.Fatalf("retried = %s with %d attempts, want pending after 4 (1 + the schedule's 3)", got.Status, len(got.Attempts))
		}
		// Pending now: a second retry is taken too, and the queue's one job
		// per attempt number keeps it from making two attempts.
		if again, err := f.svc.Retry(context.Background(), tenantA, ep.ID, d.ID); err != nil || again.Status != outbound.DeliveryPending {
			t.Fatalf("Retry of a pending delivery = %+v, %v; want it pending", again, err)
		}
		rc.mu.Lock()
		rc.statuses = []int{200}
		rc.mu.Unlock()
		f.drive(t)
		ds, _, _ := f.svc.Deliveries(context.Background(), tenantA, ep.ID, 0, "")
		if len(ds) != 1 || ds[0].Status != outbound.DeliverySucceeded || len(ds[0].Attempts) != 5 {
			t.Fatalf("after the retry: %d deliveries, the first %s with %d attempts", len(ds), ds[0].Status, len(ds[0].Attempts))
		}
		if reqs, _ := rc.requests(); len(reqs) != 5 {
			t.Fatalf("receiver got %d requests, want 5 (two retries, one attempt)", len(reqs))
		}
		_, err = f.svc.Retry(context.Background(), tenantA, ep.ID, d.ID)
		var se *outbound.StatusError
		if !errors.As(err, &se) || se.CurrentStatus() != outbound.DeliverySucceeded || !errors.Is(err, tenancy.ErrConflict) {
			t.Fatalf("Retry of a succeeded delivery = %v, want a conflict with status succeeded", err)
		}
		if as := f.queue.takeAttempts(); len(as) != 0 {
			t.Fatalf("a refused retry enqueued %+v", as)
		}
	})
}

func TestRotationSignsWithBothDuringOverlap(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db)
		rc := newReceiver(t, http.StatusOK)
		ep, old := f.mustCreate(t, tenantA, rc.URL, event.InvoicePaid)
		rotated, secret, err := f.svc.RotateSecret(context.Background(), tenantA, ep.ID)
		if err != nil || secret == old || !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("RotateSecret = %q, %v", secret, err)
		}
		f.queue.take()
		if rotated.PreviousSecretExpiresAt == nil || rotated.PreviousSecretExpiresAt.Sub(f.clock.now().Truncate(time.Microsecond)) != outbound.SecretOverlap {
			t.Fatalf("previous secret expires at %v, want now + %v", rotated.PreviousSecretExpiresAt, outbound.SecretOverlap)
		}
		send := func() (*http.Request, []byte) {
			t.Helper()
			if _, err := f.svc.SendTest(context.Background(), tenantA, ep.ID); err != nil {
				t.Fatalf("SendTest: %v", err)
			}
			f.drive(t)
			reqs, bodies := rc.requests()
			return reqs[len(reqs)-1], bodies[len(bodies)-1]
		}
		r, body := send()
		if n := len(strings.Fields(r.Header.Get("webhook-signature"))); n != 2 {
			t.Fatalf("%d signatures during the overlap, want 2", n)
		}
		if !verifies(t, old, r, body) || !verifies(t, secret, r, body) {
			t.Fatalf("both secrets must verify during the overlap")
		}
		f.clock.add(outbound.SecretOverlap + time.Second)
		r, body = send()
		if n := len(strings.Fields(r.Header.Get("webhook-signature"))); n != 1 {
			t.Fatalf("%d signatures after the overlap, want 1", n)
		}
		if verifies(t, old, r, body) || !verifies(t, secret, r, body) {
			t.Fatalf("after the overlap only the new secret may verify")
		}
	})
}

func TestIsolation(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db)
		rc := newReceiver(t, http.StatusOK)
		ep, _ := f.mustCreate(t, tenantA, rc.URL)
		d, err := f.svc.SendTest(context.Background(), tenantA, ep.ID)
		if err != nil {
			t.Fatalf("SendTest: %v", err)
		}
		f.drive(t)
		ctx := context.Background()
		enabled := false
		_, err1 := f.svc.Endpoint(ctx, tenantB, ep.ID)
		_, err2 := f.svc.UpdateEndpoint(ctx, tenantB, ep.ID, outbound.UpdateEndpointInput{Enabled: &enabled})
		err3 := f.svc.DeleteEndpoint(ctx, tenantB, ep.ID)
		_, _, err4 := f.svc.RotateSecret(ctx, tenantB, ep.ID)
		_, err5 := f.svc.SendTest(ctx, tenantB, ep.ID)
		_, _, err6 := f.svc.Deliveries(ctx, tenantB, ep.ID, 0, "")
		_, err7 := f.svc.Retry(ctx, tenantB, "", d.ID)
		for i, err := range []error{err1, err2, err3, err4, err5, err6, err7} {
			if !errors.Is(err, outbound.ErrNotFound) {
				t.Errorf("call %d as another tenant = %v, want ErrNotFound", i+1, err)
			}
		}
		if got, err := f.svc.Endpoint(ctx, tenantA, ep.ID); err != nil || !got.Enabled {
			t.Fatalf("the owner's endpoint after another tenant's calls: %+v, %v", got, err)
		}
	})
}

func TestSecretNeverShown(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		ep, secret := f.mustCreate(t, tenantA, "http://127.0.0.1:1/")
		_, rotated, err := f.svc.RotateSecret(ctx, tenantA, ep.ID)
		if err != nil {
			t.Fatalf("RotateSecret: %v", err)
		}
		desc := "renamed"
		if _, err := f.svc.UpdateEndpoint(ctx, tenantA, ep.ID, outbound.UpdateEndpointInput{Description: &desc}); err != nil {
			t.Fatalf("UpdateEndpoint: %v", err)
		}
		got, _ := f.svc.Endpoint(ctx, tenantA, ep.ID)
		list, _, _ := f.svc.Endpoints(ctx, tenantA, 0, "")
		events, _, _ := f.log.List(ctx, tenantA, event.Filter{})
		if len(events) != 3 {
			t.Fatalf("%d events, want created, secret_rotated, updated", len(events))
		}
		var stored []string
		if err := database.AcrossTenants(db.NewSelect()).Table("webhook_endpoints").Column("secret").Scan(ctx, &stored); err != nil {
			t.Fatalf("read stored secrets: %v", err)
		}
		shown, _ := json.Marshal([]any{got, list, events, stored})
		for _, s := range []string{secret, rotated, strings.TrimPrefix(secret, "whsec_"), strings.TrimPrefix(rotated, "whsec_")} {
			if strings.Contains(string(shown), s) {
				t.Fatalf("a secret shows in the endpoint, the list, the events or the stored row: %s", shown)
			}
		}
	})
}

func TestDisableAfterFailingTooLong(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db, outbound.WithDisableAfter(time.Hour), outbound.WithSchedule(time.Minute, time.Minute))
		rc := newReceiver(t, http.StatusServiceUnavailable)
		ep, _ := f.mustCreate(t, tenantA, rc.URL, event.InvoicePaid)
		ctx := context.Background()
		f.record(t, tenantA, event.InvoicePaid)
		f.record(t, tenantA, event.InvoicePaid)
		ids := f.queue.take()
		o, err := f.svc.Attempt(ctx, ids[0])
		if err != nil || o.Done {
			t.Fatalf("first attempt = %+v, %v; want a retry", o, err)
		}
		start := f.clock.now()
		if got, _ := f.svc.Endpoint(ctx, tenantA, ep.ID); got.FailingSince == nil || !got.FailingSince.Equal(start.Truncate(time.Microsecond)) {
			t.Fatalf("failing_since = %v, want %v", got.FailingSince, start)
		}
		f.clock.add(time.Hour + time.Second)
		o, err = f.svc.Attempt(ctx, ids[0])
		if err != nil || !o.Done {
			t.Fatalf("attempt after DisableAfter = %+v, %v; want done", o, err)
		}
		got, _ := f.svc.Endpoint(ctx, tenantA, ep.ID)
		if got.Enabled || got.DisabledReason != outbound.DisabledFailing {
			t.Fatalf("endpoint = %+v, want disabled for failing", got)
		}
		ds, _, _ := f.svc.Deliveries(ctx, tenantA, ep.ID, 0, "")
		for _, d := range ds {
			if d.Status != outbound.DeliveryFailed {
				t.Errorf("delivery %s is %s, want failed", d.ID, d.Status)
			}
		}
		if o, err := f.svc.Attempt(ctx, ids[1]); err != nil || !o.Done {
			t.Fatalf("attempt of another delivery of the disabled endpoint = %+v, %v", o, err)
		}
		if reqs, _ := rc.requests(); len(reqs) != 2 {
			t.Fatalf("receiver got %d requests, want 2 (nothing after the disable)", len(reqs))
		}
		if len(f.notes.sent) != 1 || f.notes.sent[0].Type != outbound.NotificationEndpointDisabled ||
			f.notes.sent[0].Data["endpoint_id"] != ep.ID {
			t.Fatalf("notifications = %+v", f.notes.sent)
		}
		es, _, _ := f.log.List(ctx, tenantA, event.Filter{Type: event.WebhookEndpointDisabled})
		if len(es) != 1 || es[0].Resource.ID != ep.ID {
			t.Fatalf("disabled events = %+v", es)
		}
		if _, err := f.svc.Retry(ctx, tenantA, ep.ID, ids[1]); !errors.Is(err, outbound.ErrConflict) {
			t.Fatalf("Retry on a disabled endpoint = %v, want a conflict", err)
		}
		on := true
		if got, err := f.svc.UpdateEndpoint(ctx, tenantA, ep.ID, outbound.UpdateEndpointInput{Enabled: &on}); err != nil ||
			!got.Enabled || got.DisabledReason != "" || got.FailingSince != nil {
			t.Fatalf("enable again = %+v, %v", got, err)
		}
	})
}

func TestEndpointInput(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		str := func(s string) *string { return &s }
		types := func(ts ...string) *[]string { return &ts }
		tests := []struct {
			name        string
			in          outbound.CreateEndpointInput
			update      *outbound.UpdateEndpointInput // instead of in, when set
			field, code string
		}{
			{"URLRequired", outbound.CreateEndpointInput{}, nil, "url", field.Required},
			{"HTTPS", outbound.CreateEndpointInput{URL: "http://hooks.example.com/"}, nil, "url", field.Invalid},
			{"Private", outbound.CreateEndpointInput{URL: "https://10.0.0.1/"}, nil, "url", field.Invalid},
			{"URLTooLong", outbound.CreateEndpointInput{URL: "https://127.0.0.1/" + strings.Repeat("a", 2048)}, nil, "url", field.TooLong},
			{"URLWithTab", outbound.CreateEndpointInput{URL: "http://127.0.0.1/\t"}, nil, "url", field.Invalid},
			{"URLWithNul", outbound.CreateEndpointInput{URL: "http://127.0.0.1/\x00"}, nil, "url", field.NulByte},
			{"Description", outbound.CreateEndpointInput{URL: "http://127.0.0.1/", Description: strings.Repeat("d", 501)}, nil, "description", field.TooLong},
			{"DescriptionBell", outbound.CreateEndpointInput{URL: "http://127.0.0.1/", Description: "a\ab"}, nil, "description", field.ControlCharacter},
			{"UnknownType", outbound.CreateEndpointInput{URL: "http://127.0.0.1/", EventTypes: []string{"invoice.paid", "nope"}}, nil, "event_types[1]", field.Invalid},
			{"TooManyTypes", outbound.CreateEndpointInput{URL: "http://127.0.0.1/", EventTypes: make([]string, 51)}, nil, "event_types", field.TooMany},
			{"UpdateEmptyURL", outbound.CreateEndpointInput{}, &outbound.UpdateEndpointInput{URL: str("")}, "url", field.Required},
			{"UpdatePrivateURL", outbound.CreateEndpointInput{}, &outbound.UpdateEndpointInput{URL: str("https://10.0.0.1/")}, "url", field.Invalid},
			{"UpdateDescription", outbound.CreateEndpointInput{}, &outbound.UpdateEndpointInput{Description: str(strings.Repeat("é", 501))}, "description", field.TooLong},
			{"UpdateUnknownType", outbound.CreateEndpointInput{}, &outbound.UpdateEndpointInput{EventTypes: types("nope")}, "event_types[0]", field.Invalid},
			{"UpdateTooManyTypes", outbound.CreateEndpointInput{}, &outbound.UpdateEndpointInput{EventTypes: types(make([]string, 51)...)}, "event_types", field.TooMany},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var err error
				if tt.update != nil {
					_, err = f.svc.UpdateEndpoint(ctx, tenantA, id.New(id.WebhookEndpoint), *tt.update)
				} else {
					_, _, err = f.svc.CreateEndpoint(ctx, tenantA, tt.in)
				}
				var ie *field.InvalidError
				if !errors.As(err, &ie) || len(ie.Errors()) != 1 || ie.Errors()[0].Field != tt.field || ie.Errors()[0].Code != tt.code {
					t.Fatalf("= %v, want one error on %s (%s)", err, tt.field, tt.code)
				}
			})
		}
		// An empty description and an empty filter are no fault.
		if _, err := f.svc.UpdateEndpoint(ctx, tenantA, id.New(id.WebhookEndpoint),
			outbound.UpdateEndpointInput{Description: str(""), EventTypes: types()}); !errors.Is(err, outbound.ErrNotFound) {
			t.Fatalf("UpdateEndpoint of an unknown endpoint = %v, want ErrNotFound", err)
		}
		st := bunstore.New(db)
		unkeyed := outbound.New(st, st, f.tx, nil)
		if _, _, err := unkeyed.CreateEndpoint(ctx, tenantA, outbound.CreateEndpointInput{URL: "https://hooks.example.com/"}); !errors.Is(err, outbound.ErrNotConfigured) {
			t.Fatalf("CreateEndpoint without a key = %v, want ErrNotConfigured", err)
		}
	})
}

// TestMaxEndpointsUnderConcurrency: creates racing past the limit leave
// exactly MaxEndpoints endpoints; the others are refused with a conflict.
func TestMaxEndpointsUnderConcurrency(t *testing.T) {
	each(t, func(t *testing.T, db *bun.DB) {
		f := newFixture(t, db)
		rc := newReceiver(t, http.StatusOK)
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			created int
			refused int
		)
		for range outbound.MaxEndpoints + 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := f.svc.CreateEndpoint(context.Background(), tenantA, outbound.CreateEndpointInput{URL: rc.URL})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					created++
				case errors.Is(err, outbound.ErrConflict):
					refused++
				default:
					t.Errorf("CreateEndpoint: %v", err)
				}
			}()
		}
		wg.Wait()
		if created != outbound.MaxEndpoints || refused != 5 {
			t.Fatalf("created %d, refused %d; want %d and 5", created, refused, outbound.MaxEndpoints)
		}
		es, _, err := f.svc.Endpoints(context.Background(), tenantA, 100, "")
		if err != nil || len(es) != outbound.MaxEndpoints {
			t.Fatalf("Endpoints = %d, %v; want %d", len(es), err, outbound.MaxEndpoints)
		}
		// Another tenant is not affected.
		f.mustCreate(t, tenantB, rc.URL)
	})
}
