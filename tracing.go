package tenantkit

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// WithTracerProvider traces what the App does with tp (OpenTelemetry): a
// span per webhook delivery attempt, and, through App.HTTPConfig, a server
// span per API request. Tracing is off without it. For a span per SQL
// statement, add bunotel's query hook to the *bun.DB you pass to New:
// tenantkit runs every statement through it.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.tracer = tp }
}

// tracerProvider is the one WithTracerProvider set, or one that records
// nothing.
func (o options) tracerProvider() trace.TracerProvider {
	if o.tracer == nil {
		return noop.NewTracerProvider()
	}
	return o.tracer
}

// tracerName names tenantkit's instrumentation scope.
const tracerName = "github.com/tenantkit/tenantkit"

// deliveryAttempter makes the queue's attempts with the App's outbound
// service, looked up at each attempt: the queue and the service each need
// the other, so the queue is built first and the service after it. Each
// attempt is a span of its own, the parent of its statements.
type deliveryAttempter struct {
	app    *App
	tracer trace.Tracer
}

func (d deliveryAttempter) AttemptNumber(ctx context.Context, deliveryID string, number int) (outbound.Outcome, error) {
	ctx, span := d.tracer.Start(ctx, "outbound.delivery.attempt", trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.String("tenantkit.delivery_id", deliveryID), attribute.Int("tenantkit.attempt", number)))
	defer span.End()
	if d.app.Outbound == nil {
		return outbound.Outcome{}, errNoOutbound(deliveryID)
	}
	out, err := d.app.Outbound.AttemptNumber(ctx, deliveryID, number)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "attempt not made")
	}
	return out, err
}
