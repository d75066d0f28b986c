package httpapi

import (
	"context"
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// traced starts each request's server span with otelhttp, continuing a
// trace the caller propagated (W3C traceparent). The span is named by
// method until the route table names it (nameSpan). Without a
// TracerProvider requests are not traced.
func traced(tp trace.TracerProvider, next http.Handler) http.Handler {
	if tp == nil {
		return next
	}
	return otelhttp.NewHandler(next, "HTTP",
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(propagation.TraceContext{}),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }))
}

// nameSpan names the request's span by its route template, as the
// OpenTelemetry conventions ask ("GET /api/v1/collections/invoices/{id}").
func nameSpan(ctx context.Context, method, path string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetName(method + " " + path)
	span.SetAttributes(attribute.String("http.route", path))
}

// tagSpan notes on the request's span who asked and for which tenant:
// ids only, never a secret.
func tagSpan(ctx context.Context, f *logFields, requestID string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{attribute.String("tenantkit.request_id", requestID)}
	if f.tenantID != "" {
		attrs = append(attrs, attribute.String("tenantkit.tenant_id", f.tenantID))
	}
	if f.credentialID != "" {
		attrs = append(attrs, attribute.String("tenantkit.credential_id", f.credentialID))
	}
	span.SetAttributes(attrs...)
}

// traceID is the id of the trace ctx's span belongs to, "" when untraced.
func traceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}
