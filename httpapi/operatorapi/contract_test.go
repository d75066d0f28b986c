package operatorapi

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/apidoc"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/webhook"
)

// requestBodies names, by operationId, the Go type each operator handler
// decodes its request body into: the service's input type where the body
// is it, else the handler's type, which embeds the service's.
var requestBodies = map[string]any{
	"operatorCreateTenant":            tenancy.CreateTenantInput{},
	"operatorChangeTenant":            contract.Change{},
	"operatorSetLimit":                setLimitRequest{},
	"operatorCreateUser":              tenancy.CreateUserInput{},
	"operatorAddMember":               addMemberRequest{},
	"operatorSetMemberRole":           tenancy.RoleInput{},
	"operatorCreateAPIKey":            createAPIKeyRequest{},
	"operatorRejectContractRequest":   contract.DecisionInput{},
	"operatorMarkPlatformInvoicePaid": contract.MarkPaidInput{},
	"operatorAdvanceTenantClock":      contract.ClockInput{},
	"operatorChangeTicket":            changeTicketRequest{},
	"operatorReplyTicket":             support.CommentInput{},
	"operatorApplyPaymentEvent":       webhook.ApplyInput{},
	"operatorDismissPaymentEvent":     webhook.DismissInput{},
}

// TestContractAgreesWithValidateTags: the document states every rule the
// validate tags of an operator request body's type state, and no other
// (internal/apidoc), for every Operator operation with a request body.
func TestContractAgreesWithValidateTags(t *testing.T) {
	doc, err := apidoc.Load(httpapi.OpenAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, b := range apidoc.RequestBodies(doc) {
		if !slices.Contains(b.Tags, "Operator") {
			continue
		}
		seen[b.OperationID] = true
		t.Run(b.OperationID, func(t *testing.T) {
			v, ok := requestBodies[b.OperationID]
			if !ok {
				t.Fatalf("%s has a request body: add the Go type its handler decodes it into to requestBodies", b.OperationID)
			}
			if msgs := apidoc.Compare(b.Schema, reflect.TypeOf(v)); len(msgs) > 0 {
				t.Errorf("the document and the tags of %T disagree:\n%s", v, strings.Join(msgs, "\n"))
			}
		})
	}
	for id := range requestBodies {
		if !seen[id] {
			t.Errorf("requestBodies names %s, which is no Operator operation with a request body", id)
		}
	}
}
