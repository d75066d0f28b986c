package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/extra/bunotel"
	"go.opentelemetry.io/contrib/exporters/autoexport"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// tracingWanted reports whether the standard OpenTelemetry environment
// asks for traces: OTEL_TRACES_EXPORTER names an exporter other than
// none, or an OTLP endpoint is set; OTEL_SDK_DISABLED=true turns it off.
// Without either, serve traces nothing.
func tracingWanted(getenv func(string) string) bool {
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	if e := getenv("OTEL_TRACES_EXPORTER"); e != "" {
		return e != "none"
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// startTracing makes the tracer provider the environment asks for
// (autoexport reads OTEL_TRACES_EXPORTER=console|otlp and the OTLP
// settings; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the
// process) and adds bunotel's query hook to db: a span per statement,
// its text without values. It returns nil when tracing is not wanted.
func startTracing(ctx context.Context, db *bun.DB) (*sdktrace.TracerProvider, error) {
	if !tracingWanted(os.Getenv) {
		return nil, nil
	}
	exp, err := autoexport.NewSpanExporter(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.Merge(resource.Default(),
		resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceVersion(version)))
	if err != nil && !errors.Is(err, resource.ErrSchemaURLConflict) {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	if os.Getenv("OTEL_SERVICE_NAME") == "" && !strings.Contains(os.Getenv("OTEL_RESOURCE_ATTRIBUTES"), "service.name=") {
		res, _ = resource.Merge(res, resource.NewSchemaless(semconv.ServiceName("tenantkit")))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	db.AddQueryHook(bunotel.NewQueryHook(bunotel.WithTracerProvider(tp),
		bunotel.WithMeterProvider(metricnoop.NewMeterProvider())))
	return tp, nil
}
