package contract

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/field"
)

// Bounds of SubmitInput and of a decision; the tags state the same numbers.
const (
	// MaxRequestNoteLen is the longest note of a request, in characters.
	MaxRequestNoteLen = 1000
	// MaxReasonLen is the longest reason of a decision, in characters.
	MaxReasonLen = 1000
)

// SubmitInput is the body of POST /api/contract-requests, decoded as is.
// Its tags are the rules of each value; Service.Submit checks them
// (validateSubmit), then which target the type needs, then the request
// against the catalog and the tenant's terms.
type SubmitInput struct {
	// Type is change_plan, add_module, remove_module or change_seats.
	Type string `json:"type" validate:"required,oneof=change_plan add_module remove_module change_seats"`
	// PlanID is required for change_plan and refused otherwise.
	PlanID *string `json:"plan_id,omitempty" validate:"omitempty,min=1,max=100,line"`
	// ModuleID is required for add_module and remove_module and refused
	// otherwise.
	ModuleID *string `json:"module_id,omitempty" validate:"omitempty,min=1,max=100,line"`
	// Seats is required for change_seats (1..MaxSeats) and
	// refused otherwise.
	Seats *int `json:"seats,omitempty" validate:"omitempty,min=1,max=100000"`
	// Effective is next_period or immediately.
	Effective string `json:"effective" validate:"required,oneof=next_period immediately"`
	// Note is free text for the operator, up to MaxRequestNoteLen
	// characters once trimmed.
	Note string `json:"note,omitempty" validate:"max=1000,text"`
}

// validateSubmit checks in and returns the request it asks for (without
// id, tenant, status or times). The target a type needs is checked first,
// so that a target sent for another type is told to go, whatever it holds.
func validateSubmit(in SubmitInput) (Request, error) {
	in.Note = strings.TrimSpace(in.Note)
	req := Request{Type: ChangeType(in.Type), Effective: Effective(in.Effective), Note: in.Note,
		PlanID: clone(in.PlanID), ModuleID: clone(in.ModuleID), Seats: clone(in.Seats)}
	f := field.Errors{}
	if req.Type.Valid() {
		wants := map[string]bool{
			"plan_id":   req.Type == ChangePlan,
			"module_id": req.Type == AddModule || req.Type == RemoveModule,
			"seats":     req.Type == ChangeSeats,
		}
		given := map[string]bool{"plan_id": in.PlanID != nil, "module_id": in.ModuleID != nil, "seats": in.Seats != nil}
		for _, name := range []string{"plan_id", "module_id", "seats"} {
			switch {
			case wants[name] && !given[name]:
				f.Addf(name, field.Required, "is required for type %s", req.Type)
			case !wants[name] && given[name]:
				f.Addf(name, field.Invalid, "must be omitted for type %s", req.Type)
			}
		}
	}
	f.Merge(field.Check(in))
	if err := f.Err(); err != nil {
		return Request{}, err
	}
	return req, nil
}

// checkRequest checks req against the tenant's current terms and the
// catalog: the plan or module must exist and be offered, the change must
// change something, and the result must keep the contract's rules
// (Terms.With) for a tenant with members members. Failures are a
// *tenancy.InvalidError on plan_id, module_id or seats.
func checkRequest(cat *catalog.Catalog, cur Terms, members int64, req Request) error {
	switch {
	case req.Type == ChangePlan && *req.PlanID == cur.PlanID:
		return invalid("plan_id", "your organisation is already on plan %q", cur.PlanID)
	case req.Type == ChangeSeats && *req.Seats == cur.Seats:
		return invalid("seats", "your contract already has %d seats", cur.Seats)
	}
	if _, err := cur.With(cat, changeOf(req), members); err != nil {
		return renameFields(err, map[string]string{"modules": "module_id"})
	}
	return nil
}

// changeOf is the change of terms a request asks for.
func changeOf(req Request) Change {
	var ch Change
	switch req.Type {
	case ChangePlan:
		ch.PlanID = *req.PlanID
	case AddModule:
		ch.AddModules = []string{*req.ModuleID}
	case RemoveModule:
		ch.RemoveModules = []string{*req.ModuleID}
	case ChangeSeats:
		ch.Seats = ptrTo(*req.Seats)
	}
	return ch
}

// renameFields renames the fields of a *field.InvalidError as rename says,
// so that callers meet the field names of their input (Terms.With says
// "modules" where a request has "module_id"). Other errors are returned as
// they are.
func renameFields(err error, rename map[string]string) error {
	var ie *field.InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	f := field.Errors{}
	for _, fe := range ie.Errors() {
		if to, ok := rename[fe.Field]; ok {
			fe.Field = to
		}
		f.Add(fe.Field, fe.Code, fe.Message)
	}
	return f.Err()
}

// invalid is the error of one broken rule on one field.
func invalid(path, format string, args ...any) *field.InvalidError {
	return field.NewInvalidError(path, field.Invalid, fmt.Sprintf(format, args...))
}

// describe says in words what a request asks for: "change the plan to
// Growth", "add the SLA add-on", "set the seats to 12".
func describe(cat *catalog.Catalog, req Request) string {
	switch req.Type {
	case ChangePlan:
		name := *req.PlanID
		if p, ok := cat.Plan(name); ok {
			name = p.Name
		}
		return fmt.Sprintf("change the plan to %s", name)
	case AddModule, RemoveModule:
		name := *req.ModuleID
		if m, ok := cat.Module(name); ok {
			name = m.Name
		}
		verb := "add"
		if req.Type == RemoveModule {
			verb = "remove"
		}
		return fmt.Sprintf("%s the %s add-on", verb, name)
	case ChangeSeats:
		return fmt.Sprintf("set the seats to %d", *req.Seats)
	}
	return strings.ReplaceAll(string(req.Type), "_", " ")
}

func ptrTo[T any](v T) *T { return &v }

// clone returns a copy of *p, or nil, so that a request shares nothing
// with its input.
func clone[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return ptrTo(*p)
}
