// Package support is the help desk between the platform and its tenants:
// tickets that a tenant's users open with the platform team, numbered per
// tenant, moved through a fixed set of statuses, prioritised, tagged and
// assigned, each with a thread of comments from the tenant's side and
// replies from the platform's agents. With module support.sla a ticket has
// service level targets by priority (Targets) that the platform's
// scheduler checks (Service.CheckSLA); with support.csat a solved ticket
// takes one satisfaction rating.
//
// The package is plain Go: Service holds the rules (validation, the status
// transition table, module gating and the monthly ticket allowance), Store
// is the persistence it needs, and support/bunstore implements Store on
// Postgres and SQLite. The HTTP edge lives in httpapi; supporttest holds the
// conformance suite every Store must pass.
package support

import (
	"encoding/json"
	"time"
)

// Ticket is a request for help that a tenant's user opened with the
// platform team.
type Ticket struct {
	// ID is "tkt_" + a ULID, so that ids sort by creation time.
	ID string `json:"id"`
	// Number counts the tenant's tickets from 1, for people to quote
	// ("ticket #42"); unique within the tenant. A creation that fails
	// gives its number back, so on a transactional store there are no gaps.
	Number      int64    `json:"number"`
	Subject     string   `json:"subject"`
	Description string   `json:"description"`
	Status      Status   `json:"status"`
	Priority    Priority `json:"priority"`
	// Requester is the user who opened the ticket, as they were then.
	Requester Requester `json:"requester"`
	// AssigneeID names the agent working on the ticket; nil when nobody is.
	// Agents are the host platform's people, so the id is the host's to
	// choose and is not checked against tenancy's users.
	AssigneeID *string `json:"assignee_id"`
	// Tags are normalised labels (see NormalizeTag), never nil.
	Tags      Tags      `json:"tags"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`

	// FirstResponseDueAt and ResolutionDueAt are the ticket's service
	// level targets, set at creation from its priority (see Targets) when
	// the tenant has module support.sla on, and moved when the priority
	// changes; nil on a ticket opened without the module.
	FirstResponseDueAt *time.Time `json:"first_response_due_at"`
	ResolutionDueAt    *time.Time `json:"resolution_due_at"`
	// FirstRespondedAt is when a platform agent first replied (see
	// Service.AgentReply), which stops the first-response clock; nil until
	// then. Once set it never changes.
	FirstRespondedAt *time.Time `json:"first_responded_at"`
	// SLABreached says whether a target passed unmet (see
	// Service.CheckSLA): false while none has, true once one did, for
	// good; nil on a ticket without targets.
	SLABreached *bool `json:"sla_breached"`
	// Satisfaction is the requester's rating of the answer (module
	// support.csat); nil until the ticket is rated, at most once.
	Satisfaction *Satisfaction `json:"satisfaction"`
}

// Tags are a ticket's labels. They are written as [] rather than null when
// there are none, so that clients can iterate without a check, whoever
// built the Ticket.
type Tags []string

// MarshalJSON implements json.Marshaler.
func (t Tags) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("[]"), nil
	}
	return json.Marshal([]string(t))
}

// Requester is who opened a ticket. It is a snapshot taken at creation:
// renaming the user later does not rewrite their old tickets, and support
// needs no access to tenancy's users to show them. Email and Name may be
// empty; ID is 1..MaxRefLen bytes without spaces or control characters.
type Requester struct {
	ID    string `json:"id"`
	Email string `json:"email" validate:"omitempty,max=254,line"`
	Name  string `json:"name" validate:"omitempty,max=200,line"`
}
