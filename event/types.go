package event

import (
	"slices"

	"github.com/tenantkit/tenantkit/field"
)

// init makes event_type a rule of validate tags: one of Types (a
// webhook endpoint's event_types are `dive,event_type`).
func init() { field.RegisterEnum("event_type", types, "event type") }

// The types of the events of outbound webhook endpoints (package
// outbound). Their data is the endpoint as the API shows it: never its
// secret.
const (
	WebhookEndpointCreated       = "webhook_endpoint.created"
	WebhookEndpointUpdated       = "webhook_endpoint.updated"
	WebhookEndpointDeleted       = "webhook_endpoint.deleted"
	WebhookEndpointSecretRotated = "webhook_endpoint.secret_rotated"
	// WebhookEndpointDisabled: deliveries failed for too long and the
	// endpoint was switched off.
	WebhookEndpointDisabled = "webhook_endpoint.disabled"
)

// The types of the emails to a tenant's customers (package mail). Their
// data is the message (mail.Message): its kind, recipient, status and
// attempts, never its body.
const (
	// InvoiceSent: the invoice's email was accepted by the mail server.
	InvoiceSent = "invoice.sent"
	// EmailFailed: an email (invoice, reminder or receipt) was given up
	// after its last attempt.
	EmailFailed = "email.failed"
)

// Types returns every event type tenantkit records, sorted: the values a
// webhook endpoint's event_types filter accepts. A new type constant
// belongs in this list too (TestTypesListsEveryConstant checks it).
func Types() []string { return slices.Clone(types) }

// types is Types' list, sorted once.
var types = func() []string {
	ts := []string{
		InvoiceCreated, InvoiceUpdated, InvoiceDeleted, InvoiceFinalized, InvoiceVoided,
		InvoiceUncollectible, InvoicePaid, InvoicePaymentRecorded, InvoiceRefunded,
		CustomerCreated, CustomerUpdated, CustomerArchived,
		TicketCreated, TicketUpdated, TicketCommented,
		ContractRequestSubmitted, ContractRequestCancelled, ContractRequestApproved,
		ContractRequestRejected, ContractRequestApplied,
		PlatformInvoiceCreated, PlatformInvoicePaid, PlatformInvoiceVoided, PlatformInvoiceOverdue,
		ModuleToggled, APIKeyCreated, APIKeyRevoked, TenantCreated, TenantPlanChanged, UserCreated,
		EntitlementLimitSet, EntitlementLimitCleared, MemberAdded, MemberRoleChanged, MemberRemoved,
		PaymentEventApplied, PaymentEventDismissed,
		InvoicePaymentFailed, InvoiceOverdue, InvoiceReminderSent, TicketRated, TicketSLABreached,
		EntitlementThreshold, NotificationRead, NotificationReadAll, OperatorKeyCreated, OperatorKeyRevoked,
		LoginLinkCreated, SessionCreated,
		WebhookEndpointCreated, WebhookEndpointUpdated, WebhookEndpointDeleted,
		WebhookEndpointSecretRotated, WebhookEndpointDisabled,
		InvoiceSent, EmailFailed,
	}
	slices.Sort(ts)
	return ts
}()

// IsType reports whether typ is one of Types.
func IsType(typ string) bool {
	_, found := slices.BinarySearch(types, typ)
	return found
}
