package outbound

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/field"
	"github.com/tenantkit/tenantkit/tenancy"
)

// The headers of a delivery (Standard Webhooks).
const (
	// HeaderID is the delivery's id, the same on every attempt: the
	// receiver's key to drop duplicates.
	HeaderID = "webhook-id"
	// HeaderTimestamp is the attempt's time in Unix seconds, signed.
	HeaderTimestamp = "webhook-timestamp"
	// HeaderSignature is "v1,<base64 HMAC-SHA256 of id.timestamp.body>",
	// and a second one, space-separated, while a rotated-out secret still
	// signs.
	HeaderSignature = "webhook-signature"
)

// Attempt makes the next attempt of the delivery deliveryID now, whatever
// is scheduled: a host's own worker, when the Service has no Queue, calls
// it. It POSTs the payload to the endpoint, signed, and records the
// attempt. The Outcome says whether the delivery needs no more attempts
// (it succeeded, failed for good, or is no longer pending: gone, already
// finished, or its endpoint disabled) or when the next is due, RetryAt;
// with a Queue, that next attempt is enqueued already. An error is a fault
// of the service (the database), not of the receiver: try again later.
//
// A 2xx answer succeeds; anything else (a 3xx too: redirects are not
// followed), a timeout (DefaultTimeout, or WithTimeout's) or a refused
// connection fails.
// A failed attempt schedules the next by the schedule (WithSchedule), or
// at once when the delivery was retried while the attempt ran, and the
// delivery fails after the last. An endpoint whose attempts have all
// failed for DisableAfter is disabled, its pending deliveries fail, and
// its tenant is notified.
func (s *Service) Attempt(ctx context.Context, deliveryID string) (Outcome, error) {
	return s.AttemptNumber(ctx, deliveryID, 0)
}

// AttemptNumber makes attempt number of the delivery, as a Queue's job
// asks, and does as Attempt does; number 0 is the next one, whichever. A
// number that is no longer the delivery's next (the attempt was made, by
// a job left over from before a rescue, say) is Done without a request:
// with the Queue's one job per attempt number, that keeps a delivery from
// being attempted twice at once.
func (s *Service) AttemptNumber(ctx context.Context, deliveryID string, number int) (Outcome, error) {
	job, err := s.deliveries.Job(ctx, deliveryID)
	if errors.Is(err, tenancy.ErrNotFound) {
		return Outcome{Done: true}, nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("outbound: attempt %s: %w", deliveryID, err)
	}
	if job.Delivery.Status != DeliveryPending || (number != 0 && number != job.Attempts+1) {
		return Outcome{Done: true}, nil
	}
	if !job.Endpoint.Enabled {
		if _, err := s.deliveries.FailPending(ctx, job.Endpoint.ID, s.nowUTC()); err != nil {
			return Outcome{}, fmt.Errorf("outbound: attempt %s: %w", deliveryID, err)
		}
		return Outcome{Done: true}, nil
	}
	sig, err := s.sign(job)
	if err != nil {
		return Outcome{}, fmt.Errorf("outbound: attempt %s: %w", deliveryID, err)
	}
	at := s.nowUTC()
	a := s.post(ctx, job, sig)
	a.Number, a.AttemptedAt = job.Attempts+1, at
	return s.settle(ctx, job, a)
}

// sign returns the webhook-timestamp and webhook-signature of job, now.
func (s *Service) sign(job Job) (signed, error) {
	if s.sealer == nil {
		return signed{}, ErrNotConfigured
	}
	now := s.now()
	sealed := []string{job.Endpoint.Secret}
	if p := job.Endpoint.PreviousSecretExpiresAt; job.Endpoint.PreviousSecret != "" && p != nil && now.Before(*p) {
		sealed = append(sealed, job.Endpoint.PreviousSecret)
	}
	out := signed{timestamp: now}
	for _, sl := range sealed {
		secret, err := s.sealer.open(job.Endpoint.ID, sl)
		if err != nil {
			return signed{}, err
		}
		key, err := secretKey(secret)
		if err != nil {
			return signed{}, err
		}
		wh, err := standardwebhooks.NewWebhookRaw(key)
		if err != nil {
			return signed{}, fmt.Errorf("outbound: signer: %w", err)
		}
		v, err := wh.Sign(job.Delivery.ID, now, job.Payload)
		if err != nil {
			return signed{}, fmt.Errorf("outbound: sign: %w", err)
		}
		out.signatures = append(out.signatures, v)
	}
	return out, nil
}

// signed is an attempt's signing time and signatures.
type signed struct {
	timestamp  time.Time
	signatures []string
}

// post sends the delivery and describes what came back.
func (s *Service) post(ctx context.Context, job Job, sig signed) Attempt {
	// start is taken before the deadline is set, so that an attempt cut off
	// by the timeout reports at least the timeout as its latency.
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, job.Endpoint.URL, bytes.NewReader(job.Payload))
	if err != nil {
		return Attempt{Status: DeliveryFailed, Response: "invalid URL"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "tenantkit")
	req.Header.Set(HeaderID, job.Delivery.ID)
	req.Header.Set(HeaderTimestamp, fmt.Sprint(sig.timestamp.Unix()))
	req.Header.Set(HeaderSignature, strings.Join(sig.signatures, " "))
	resp, err := s.client.Do(req)
	if err != nil {
		return Attempt{Status: DeliveryFailed, LatencyMS: time.Since(start).Milliseconds(), Response: describe(err, s.timeout)}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
	a := Attempt{Status: DeliveryFailed, HTTPStatus: resp.StatusCode,
		LatencyMS: time.Since(start).Milliseconds(), Response: printable(body)}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		a.Status = DeliverySucceeded
	}
	return a
}

// describe says why no answer came, without the URL (the endpoint's own);
// timeout is the attempt's.
func describe(err error, timeout time.Duration) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return "blocked: " + err.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("timed out after %s", timeout)
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("timed out after %s", timeout)
	}
	return field.Truncate(err.Error(), MaxResponseBytes)
}

// printable is a response's start as text every store keeps: valid UTF-8
// without NUL.
func printable(b []byte) string {
	return strings.ReplaceAll(strings.ToValidUTF8(string(b), "\uFFFD"), "\x00", "\uFFFD")
}

// settle records attempt a of job and what follows from it: the
// delivery's new status and next attempt, enqueued, the endpoint's
// health.
func (s *Service) settle(ctx context.Context, job Job, a Attempt) (Outcome, error) {
	rec := AttemptRecord{TenantID: job.TenantID, DeliveryID: job.Delivery.ID, Attempt: a, Status: a.Status, Retries: job.Retries}
	if a.Status == DeliveryFailed {
		if d, ok := s.nextDelay(a.Number - job.RoundStart); ok {
			next := a.AttemptedAt.Add(d)
			rec.Status, rec.NextAttemptAt = DeliveryPending, &next
		}
	}
	out := Outcome{Done: true}
	record := s.tx.InTx
	if a.Status == DeliverySucceeded && job.Endpoint.FailingSince == nil {
		// Only the attempt to write: the store may do it without a
		// transaction of ours (bunstore, on Postgres, in one statement).
		record = func(ctx context.Context, fn func(context.Context) error) error { return fn(ctx) }
	}
	err := record(ctx, func(ctx context.Context) error {
		next, err := s.deliveries.RecordAttempt(ctx, rec)
		if err != nil {
			return err
		}
		if a.Status == DeliverySucceeded {
			if job.Endpoint.FailingSince != nil {
				return s.endpoints.MarkHealthy(ctx, job.Endpoint.ID)
			}
			return nil
		}
		since, err := s.endpoints.MarkFailing(ctx, job.Endpoint.ID, a.AttemptedAt)
		if err != nil {
			return err
		}
		if a.AttemptedAt.Sub(since) >= s.disableAfter {
			return s.disable(ctx, job, since, a.AttemptedAt)
		}
		if next == nil {
			return nil
		}
		out = Outcome{RetryAt: *next}
		return s.enqueue(ctx, Scheduled{DeliveryID: job.Delivery.ID, Number: a.Number + 1, At: *next})
	})
	if errors.Is(err, ErrConflict) {
		// Another attempt of the delivery recorded first: it decides.
		return Outcome{Done: true}, nil
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("outbound: attempt %s: %w", job.Delivery.ID, err)
	}
	return out, nil
}

// disable switches off an endpoint that has failed since since, fails
// its pending deliveries, notifies its tenant and records
// webhook_endpoint.disabled.
func (s *Service) disable(ctx context.Context, job Job, since, now time.Time) error {
	done, err := s.endpoints.DisableEndpoint(ctx, job.Endpoint.ID, DisabledFailing, now)
	if err != nil || !done {
		return err
	}
	if _, err := s.deliveries.FailPending(ctx, job.Endpoint.ID, now); err != nil {
		return err
	}
	e := job.Endpoint.Endpoint
	e.Enabled, e.DisabledReason, e.FailingSince, e.UpdatedAt = false, DisabledFailing, &since, now
	if s.notes != nil {
		_, err := s.notes.Notify(ctx, job.TenantID, tenancy.NewNotification{
			Type:  NotificationEndpointDisabled,
			Title: "Webhook endpoint disabled",
			Body: fmt.Sprintf("Every delivery to %s has failed since %s, so the endpoint was disabled and its pending deliveries failed. "+
				"Fix the receiver, enable the endpoint again, and retry the deliveries you need.",
				field.Truncate(e.URL, 200), since.Format(time.RFC3339)),
			Data: map[string]any{"endpoint_id": e.ID, "failing_since": since.Format(time.RFC3339)},
			Key:  "webhook_endpoint.disabled:" + e.ID + ":" + since.Format(time.RFC3339Nano),
		})
		if err != nil && !errors.Is(err, tenancy.ErrConflict) {
			return err
		}
	}
	return s.record(ctx, event.WebhookEndpointDisabled, e)
}
