package contract_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
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

// TestSubmitContractRequestInput checks the shape of requests, which is
// refused before the tenant's contract is even read.
func TestSubmitContractRequestInput(t *testing.T) {
	svc := contract.NewService(nil, failingTenancy{}, failingTenancy{}, direct{}, catalog.Default(), contract.WithClock(now))
	tests := []struct {
		name       string
		in         contract.SubmitInput
		wantFields []string
	}{
		{"Empty", contract.SubmitInput{}, []string{"effective", "type"}},
		{"UnknownType", contract.SubmitInput{Type: "upgrade", Effective: "immediately"}, []string{"type"}},
		{"UnknownEffective", contract.SubmitInput{Type: "change_plan", PlanID: str("growth"), Effective: "soon"}, []string{"effective"}},
		{"PlanRequired", contract.SubmitInput{Type: "change_plan", Effective: "next_period"}, []string{"plan_id"}},
		{"ModuleRequired", contract.SubmitInput{Type: "add_module", Effective: "next_period"}, []string{"module_id"}},
		{"SeatsRequired", contract.SubmitInput{Type: "change_seats", Effective: "next_period"}, []string{"seats"}},
		{"OtherTargetsRefused", contract.SubmitInput{Type: "remove_module", ModuleID: str("support.sla"), PlanID: str("growth"),
			Seats: intPtr(3), Effective: "next_period"}, []string{"plan_id", "seats"}},
		{"EmptyPlan", contract.SubmitInput{Type: "change_plan", PlanID: str(""), Effective: "next_period"}, []string{"plan_id"}},
		{"SeatsOutOfRange", contract.SubmitInput{Type: "change_seats", Seats: intPtr(0), Effective: "next_period"}, []string{"seats"}},
		{"NoteTooLong", contract.SubmitInput{Type: "change_seats", Seats: intPtr(4), Effective: "next_period",
			Note: strings.Repeat("n", contract.MaxRequestNoteLen+1)}, []string{"note"}},
		{"NoteControlCharacters", contract.SubmitInput{Type: "change_seats", Seats: intPtr(4), Effective: "next_period",
			Note: "a\x00b"}, []string{"note"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.Submit(context.Background(), tenantA, "usr_x", tc.in)
			fields := fieldErrors(t, err)
			if got := slices.Sorted(maps.Keys(fields)); !slices.Equal(got, tc.wantFields) {
				t.Fatalf("invalid fields: got %v (%v), want %v", got, fields, tc.wantFields)
			}
		})
	}
	t.Run("ValidReachesTheContract", func(t *testing.T) {
		in := contract.SubmitInput{Type: "change_seats", Seats: intPtr(4), Effective: "next_period", Note: "  more people  "}
		if _, err := svc.Submit(context.Background(), tenantA, "usr_x", in); !errors.Is(err, errNoTenancy) {
			t.Fatalf("SubmitContractRequest: got %v, want the tenancy's error", err)
		}
	})
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
	contract.NewService(nil, failingTenancy{}, failingTenancy{}, nil, catalog.Default())
}
