package operatorapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/webhook"
)

// TestPaymentEventPayload: the provider's body is answered compacted
// (httpapi.WriteJSON writes a RawMessage as it is), or as a string when it
// is not JSON.
func TestPaymentEventPayload(t *testing.T) {
	tests := []struct {
		name, sent, want string
	}{
		{"Compact", `{"type":"payment.succeeded","data":{"amount":1}}`, `{"type":"payment.succeeded","data":{"amount":1}}`},
		{"Spaced", "{ \"type\" : \"payment.succeeded\",\n  \"data\": {\"amount\": 1, \"note\": \"a  b <c>\"} }\n", `{"type":"payment.succeeded","data":{"amount":1,"note":"a  b <c>"}}`},
		{"NotJSON", `type=payment.succeeded`, `"type=payment.succeeded"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			httpapi.WriteJSON(rec, http.StatusOK, newPaymentEvent(webhook.Record{Payload: []byte(tt.sent)}))
			// payload is the answer's last member.
			_, payload, ok := strings.Cut(rec.Body.String(), `"payload":`)
			if got := strings.TrimSuffix(payload, "}\n"); !ok || got != tt.want {
				t.Fatalf("answer %s, want the payload %s", rec.Body, tt.want)
			}
		})
	}
}
