package httpapi

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/apidoc"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/webhook"
	"github.com/tenantkit/tenantkit/webhook/outbound"
)

// requestBodies names, by operationId, the Go type each handler decodes
// its request body into (the operator API's are in package operatorapi).
var requestBodies = map[string]any{
	"createInvoice":            billing.CreateInvoiceInput{},
	"updateInvoice":            patchOf{billing.CreateInvoiceInput{}, []string{"currency", "status", "customer_id"}},
	"createCustomer":           billing.CreateCustomerInput{},
	"updateCustomer":           patchOf{billing.CreateCustomerInput{}, nil},
	"recordInvoicePayment":     billing.RecordPaymentInput{},
	"selectTenant":             selectTenantRequest{},
	"toggleModule":             toggleRequest{},
	"markAllNotificationsRead": tenancy.ReadAll{},
	"createTicket":             support.CreateTicketInput{},
	"updateTicket":             support.UpdateTicketInput{},
	"createTicketComment":      support.CommentInput{},
	"rateTicket":               support.RatingInput{},
	"submitContractRequest":    contract.SubmitInput{},
	"previewInvoice":           contract.PreviewInput{},
	"receivePaymentEvent":      webhook.Envelope{},
	"createWebhookEndpoint":    outbound.CreateEndpointInput{},
	"updateWebhookEndpoint":    outbound.UpdateEndpointInput{},
	"updateTenantSettings":     patchOf{tenancy.SettingsValues{}, nil},
	"finalizeInvoice":          finalizeBody{},
}

// patchOf stands for a JSON merge patch whose members follow the tags of
// the resource's create body (billing.Service.Update checks a patch as a
// CreateInvoiceInput); fixed are the members a patch cannot change.
type patchOf struct {
	create any
	fixed  []string
}

// TestContractAgreesWithValidateTags: the document states every rule the
// validate tags of a request body's type state, and no other
// (internal/apidoc), for every operation with a request body outside the
// operator API.
func TestContractAgreesWithValidateTags(t *testing.T) {
	doc, err := apidoc.Load(OpenAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, b := range apidoc.RequestBodies(doc) {
		if slices.Contains(b.Tags, "Operator") {
			continue
		}
		seen[b.OperationID] = true
		t.Run(b.OperationID, func(t *testing.T) {
			v, ok := requestBodies[b.OperationID]
			if !ok {
				t.Fatalf("%s has a request body: add the Go type its handler decodes it into to requestBodies", b.OperationID)
			}
			var msgs []string
			if p, ok := v.(patchOf); ok {
				msgs = apidoc.ComparePatch(b.Schema, reflect.TypeOf(p.create), p.fixed...)
			} else {
				msgs = apidoc.Compare(b.Schema, reflect.TypeOf(v))
			}
			if len(msgs) > 0 {
				t.Errorf("the document and the tags of %T disagree:\n%s", v, strings.Join(msgs, "\n"))
			}
		})
	}
	for id := range requestBodies {
		if !seen[id] {
			t.Errorf("requestBodies names %s, which is no operation with a request body", id)
		}
	}
}
