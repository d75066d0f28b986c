package main

import "testing"

func TestTracingWanted(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"Unset", nil, false},
		{"Console", map[string]string{"OTEL_TRACES_EXPORTER": "console"}, true},
		{"OTLP", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{"None", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, false},
		{"Endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true},
		{"TracesEndpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, true},
		{"Disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "console"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tracingWanted(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("tracingWanted(%v) = %v, want %v", tt.env, got, tt.want)
			}
		})
	}
}
