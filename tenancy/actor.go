package tenancy

import "context"

// ActorKind says what kind of caller an Actor is.
type ActorKind string

// The kinds of actor.
const (
	// ActorOperator is the platform's staff: an operator API key on the
	// operator API, or a person at the admin CLI.
	ActorOperator ActorKind = "operator"
	// ActorUser is a tenant's member (or robot) calling the tenant API.
	ActorUser ActorKind = "user"
	// ActorSystem is tenantkit itself: a scheduler, a payment provider's
	// event.
	ActorSystem ActorKind = "system"
)

// Actor is who asks for a change, as an audit trail records it: the
// services find it in the context of every call (ActorFrom), put there by
// the edge that authenticated the caller (the HTTP API, the CLI), so that
// no service signature has to carry it.
type Actor struct {
	// Kind is what the actor is.
	Kind ActorKind `json:"kind"`
	// ID names the actor: the operator key's id ("opk_…") or the user's
	// id ("usr_…"); "cli" for the admin CLI.
	ID string `json:"id"`
	// Credential is the credential the actor presented, as the rate limit
	// and the tenant selection key it ("operator:opk_…", "key:key_…",
	// "sid:…", "user:usr_…"); empty for the CLI.
	Credential string `json:"credential,omitempty"`
	// Method is how the actor authenticated: "operator_key", "api_key",
	// "jwt", "session", "cli", or a host's own method.
	Method string `json:"method"`
	// RequestID is the id of the HTTP request the change is made in, the
	// X-Request-ID its client saw; empty outside a request.
	RequestID string `json:"request_id,omitempty"`
	// ClientIP is the address the request came from, as the API's
	// trusted-proxy settings resolve it; empty outside a request.
	ClientIP string `json:"client_ip,omitempty"`
}

type actorKey struct{}

// WithActor returns ctx carrying a, for the services called with it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor ctx carries, if any.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}
