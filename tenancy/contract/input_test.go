package contract_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

func TestCanTransitionRequest(t *testing.T) {
	allowed := map[[2]contract.RequestStatus]bool{
		{contract.RequestPending, contract.RequestApproved}:  true,
		{contract.RequestPending, contract.RequestRejected}:  true,
		{contract.RequestPending, contract.RequestCancelled}: true,
		{contract.RequestApproved, contract.RequestApplied}:  true,
		{contract.RequestApproved, contract.RequestRejected}: true,
	}
	for _, from := range contract.RequestStatuses() {
		for _, to := range contract.RequestStatuses() {
			t.Run(string(from)+"To"+string(to), func(t *testing.T) {
				want := allowed[[2]contract.RequestStatus{from, to}]
				if got := contract.CanTransitionRequest(from, to); got != want {
					t.Fatalf("CanTransitionRequest(%s, %s): got %v, want %v", from, to, got, want)
				}
			})
		}
	}
}

// TestInputRules checks the rules of the inputs, which refuse a request,
// a preview, a decision or a filter before the tenant's contract, or any
// store, is read: the fields, codes and messages, in the order found. A
// case without want reaches the tenancy (errNoTenancy) or finds no request.
func TestInputRules(t *testing.T) {
	svc := contract.NewService(contract.Stores{}, failingTenancy{}, failingTenancy{}, direct{}, catalog.Default(), contract.WithClock(now))
	ctx := context.Background()
	submit := func(in contract.SubmitInput) func() error {
		return func() error { _, err := svc.Submit(ctx, tenantA, "usr_x", in); return err }
	}
	seats := func(in contract.SubmitInput) contract.SubmitInput {
		in.Type, in.Seats, in.Effective = "change_seats", intPtr(4), "next_period"
		return in
	}
	preview := func(in contract.PreviewInput) func() error {
		return func() error { _, err := svc.Preview(ctx, tenantA, in); return err }
	}
	reject := func(reason string) func() error {
		return func() error { _, err := svc.Reject(ctx, "ccr_x", reason); return err }
	}
	change := func(ch contract.Change) func() error {
		return func() error { _, err := svc.Change(ctx, tenantA, ch); return err }
	}
	list := func(f contract.Filter) func() error {
		return func() error { _, _, err := svc.Requests(ctx, tenantA, f); return err }
	}
	listAll := func(f contract.AllFilter) func() error {
		return func() error { _, _, err := svc.AllRequests(ctx, f); return err }
	}
	tests := []struct {
		name string
		call func() error
		want []string // "field code: message"
	}{
		{"SubmitEmpty", submit(contract.SubmitInput{}), []string{"type required: is required", "effective required: is required"}},
		{"SubmitUnknownEnums", submit(contract.SubmitInput{Type: "upgrade", Effective: "soon"}), []string{
			"type invalid: must be one of: change_plan, add_module, remove_module, change_seats",
			"effective invalid: must be one of: next_period, immediately"}},
		{"SubmitPlanRequired", submit(contract.SubmitInput{Type: "change_plan", Effective: "next_period"}),
			[]string{"plan_id required: is required for type change_plan"}},
		{"SubmitModuleRequired", submit(contract.SubmitInput{Type: "add_module", Effective: "next_period"}),
			[]string{"module_id required: is required for type add_module"}},
		{"SubmitSeatsRequired", submit(contract.SubmitInput{Type: "change_seats", Effective: "immediately"}),
			[]string{"seats required: is required for type change_seats"}},
		{"SubmitOtherTargetsRefused", submit(contract.SubmitInput{Type: "remove_module", ModuleID: str("support.sla"), PlanID: str(""),
			Seats: intPtr(0), Effective: "next_period"}), []string{
			"plan_id invalid: must be omitted for type remove_module", "seats invalid: must be omitted for type remove_module"}},
		{"SubmitEmptyPlan", submit(contract.SubmitInput{Type: "change_plan", PlanID: str(""), Effective: "next_period"}),
			[]string{"plan_id required: is required"}},
		{"SubmitPlanTooLong", submit(contract.SubmitInput{Type: "change_plan", PlanID: str(strings.Repeat("p", 101)), Effective: "next_period"}),
			[]string{"plan_id too_long: must have at most 100 characters"}},
		{"SubmitModuleNotOneLine", submit(contract.SubmitInput{Type: "add_module", ModuleID: str("support.sla\n"), Effective: "next_period"}),
			[]string{"module_id control_character: must be a single line without control characters"}},
		{"SubmitSeatsZero", submit(contract.SubmitInput{Type: "change_seats", Seats: intPtr(0), Effective: "next_period"}),
			[]string{"seats out_of_range: must be between 1 and 100000"}},
		{"SubmitSeatsMax", submit(contract.SubmitInput{Type: "change_seats", Seats: intPtr(contract.MaxSeats), Effective: "next_period"}), nil},
		{"SubmitSeatsOverMax", submit(contract.SubmitInput{Type: "change_seats", Seats: intPtr(contract.MaxSeats + 1), Effective: "next_period"}),
			[]string{"seats out_of_range: must be between 1 and 100000"}},
		{"SubmitNoteLongest", submit(seats(contract.SubmitInput{Note: " " + strings.Repeat("é", contract.MaxRequestNoteLen) + " "})), nil},
		{"SubmitNoteTooLong", submit(seats(contract.SubmitInput{Note: strings.Repeat("n", contract.MaxRequestNoteLen+1)})),
			[]string{"note too_long: must have at most 1000 characters"}},
		{"SubmitNoteLines", submit(seats(contract.SubmitInput{Note: "more people\r\n\tsoon"})), nil},
		{"SubmitNoteNul", submit(seats(contract.SubmitInput{Note: "a\x00b"})), []string{"note nul_byte: must not contain NUL (U+0000)"}},
		{"SubmitNoteNotUTF8", submit(seats(contract.SubmitInput{Note: "a\xffb"})), []string{"note invalid_utf8: must be valid UTF-8"}},

		{"PreviewNone", preview(contract.PreviewInput{}), nil},
		{"PreviewEmptyPlan", preview(contract.PreviewInput{PlanID: str("")}), []string{"plan_id required: is required"}},
		{"PreviewSeats", preview(contract.PreviewInput{Seats: intPtr(0)}), []string{"seats out_of_range: must be between 1 and 100000"}},
		{"PreviewSeatsMax", preview(contract.PreviewInput{Seats: intPtr(contract.MaxSeats)}), nil},
		{"PreviewNoModules", preview(contract.PreviewInput{Modules: []string{}}), nil},
		{"PreviewFiftyModules", preview(contract.PreviewInput{Modules: slices.Repeat([]string{"support.sla"}, 50)}), nil},
		{"PreviewTooManyModules", preview(contract.PreviewInput{Modules: slices.Repeat([]string{"support.sla"}, 51)}),
			[]string{"modules too_many: must have at most 50 items"}},
		{"PreviewModuleItems", preview(contract.PreviewInput{Modules: []string{"support.sla", "", "support.csat\x00"}}),
			[]string{"modules[1] required: is required", "modules[2] nul_byte: must not contain NUL (U+0000)"}},
		{"PreviewEmptyEffective", preview(contract.PreviewInput{Effective: str("")}),
			[]string{"effective invalid: must be one of: next_period, immediately"}},
		{"PreviewEffective", preview(contract.PreviewInput{Effective: str("immediately")}), nil},

		{"DecisionReasonTrimmed", reject(" " + strings.Repeat("r", contract.MaxReasonLen) + "\n"), nil},
		{"DecisionReasonTooLong", reject(strings.Repeat("r", contract.MaxReasonLen+1)),
			[]string{"reason too_long: must have at most 1000 characters"}},
		{"DecisionReasonBell", reject("no\a"),
			[]string{"reason control_character: must not contain control characters other than tab and line breaks"}},

		{"ChangeSeatsZero", change(contract.Change{Seats: intPtr(0)}), []string{"seats out_of_range: must be between 1 and 100000"}},
		{"ChangePlanTooLong", change(contract.Change{PlanID: strings.Repeat("p", 65), Seats: intPtr(contract.MaxSeats + 1)}), []string{
			"plan_id too_long: must have at most 64 characters", "seats out_of_range: must be between 1 and 100000"}},

		{"FilterStatus", list(contract.Filter{Status: "open", Before: "ccr_x"}), []string{
			"status invalid: must be one of: pending, approved, applied, rejected, cancelled",
			"cursor invalid: is not a contract request position"}},
		{"AllFilter", listAll(contract.AllFilter{Filter: contract.Filter{Status: "done"}, TenantID: "acme"}), []string{
			"status invalid: must be one of: pending, approved, applied, rejected, cancelled",
			"tenant_id invalid: must be a tenant id: ten_ and 26 lower-case letters and digits"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if tc.want == nil {
				if !errors.Is(err, errNoTenancy) && !errors.Is(err, contract.ErrRequestNotFound) {
					t.Fatalf("got %v, want the input to pass its rules", err)
				}
				return
			}
			var ie *tenancy.InvalidError
			if !errors.As(err, &ie) || !errors.Is(err, tenancy.ErrInvalid) {
				t.Fatalf("got error %v, want an *InvalidError", err)
			}
			var got []string
			for _, fe := range ie.Errors() {
				got = append(got, fe.Field+" "+fe.Code+": "+fe.Message)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("errors:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestNewService_NilTransactor: a contract service without a Transactor
// could change terms without recording the decision, so building one is
// refused.
func TestNewService_NilTransactor(t *testing.T) {
	defer func() {
		msg, _ := recover().(string)
		if !strings.Contains(msg, "Transactor") || !strings.Contains(msg, "commit as one") {
			t.Fatalf("NewService(nil tx): recovered %q, want a panic naming the Transactor and what would not commit as one", msg)
		}
	}()
	contract.NewService(contract.Stores{}, failingTenancy{}, failingTenancy{}, nil, catalog.Default())
}
