package billing_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/billing"
)

func TestCanTransitionRequest(t *testing.T) {
	allowed := map[[2]billing.RequestStatus]bool{
		{billing.RequestPending, billing.RequestApproved}:  true,
		{billing.RequestPending, billing.RequestRejected}:  true,
		{billing.RequestPending, billing.RequestCancelled}: true,
		{billing.RequestApproved, billing.RequestApplied}:  true,
		{billing.RequestApproved, billing.RequestRejected}: true,
	}
	for _, from := range billing.RequestStatuses() {
		for _, to := range billing.RequestStatuses() {
			t.Run(string(from)+"To"+string(to), func(t *testing.T) {
				want := allowed[[2]billing.RequestStatus{from, to}]
				if got := billing.CanTransitionRequest(from, to); got != want {
					t.Fatalf("CanTransitionRequest(%s, %s): got %v, want %v", from, to, got, want)
				}
			})
		}
	}
}

// TestSubmitContractRequestInput checks the shape of requests, which is
// refused before the tenant's contract is even read.
func TestSubmitContractRequestInput(t *testing.T) {
	svc := billing.NewService(newMemStore(), &fakeEntitlements{limit: -1}, noTx{},
		billing.WithClock(now), billing.WithContracts(nil, failingTenancy{}))
	tests := []struct {
		name       string
		in         billing.SubmitContractRequestInput
		wantFields []string
	}{
		{"Empty", billing.SubmitContractRequestInput{}, []string{"effective", "type"}},
		{"UnknownType", billing.SubmitContractRequestInput{Type: "upgrade", Effective: "immediately"}, []string{"type"}},
		{"UnknownEffective", billing.SubmitContractRequestInput{Type: "change_plan", PlanID: str("growth"), Effective: "soon"}, []string{"effective"}},
		{"PlanRequired", billing.SubmitContractRequestInput{Type: "change_plan", Effective: "next_period"}, []string{"plan_id"}},
		{"ModuleRequired", billing.SubmitContractRequestInput{Type: "add_module", Effective: "next_period"}, []string{"module_id"}},
		{"SeatsRequired", billing.SubmitContractRequestInput{Type: "change_seats", Effective: "next_period"}, []string{"seats"}},
		{"OtherTargetsRefused", billing.SubmitContractRequestInput{Type: "remove_module", ModuleID: str("support.sla"), PlanID: str("growth"),
			Seats: intPtr(3), Effective: "next_period"}, []string{"plan_id", "seats"}},
		{"EmptyPlan", billing.SubmitContractRequestInput{Type: "change_plan", PlanID: str(""), Effective: "next_period"}, []string{"plan_id"}},
		{"SeatsOutOfRange", billing.SubmitContractRequestInput{Type: "change_seats", Seats: intPtr(0), Effective: "next_period"}, []string{"seats"}},
		{"NoteTooLong", billing.SubmitContractRequestInput{Type: "change_seats", Seats: intPtr(4), Effective: "next_period",
			Note: strings.Repeat("n", billing.MaxRequestNoteLen+1)}, []string{"note"}},
		{"NoteControlCharacters", billing.SubmitContractRequestInput{Type: "change_seats", Seats: intPtr(4), Effective: "next_period",
			Note: "a\x00b"}, []string{"note"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.SubmitContractRequest(context.Background(), tenantA, "usr_x", tc.in)
			fields := fieldErrors(t, err)
			if got := slices.Sorted(maps.Keys(fields)); !slices.Equal(got, tc.wantFields) {
				t.Fatalf("invalid fields: got %v (%v), want %v", got, fields, tc.wantFields)
			}
		})
	}
	t.Run("ValidReachesTheContract", func(t *testing.T) {
		in := billing.SubmitContractRequestInput{Type: "change_seats", Seats: intPtr(4), Effective: "next_period", Note: "  more people  "}
		if _, err := svc.SubmitContractRequest(context.Background(), tenantA, "usr_x", in); !errors.Is(err, errNoTenancy) {
			t.Fatalf("SubmitContractRequest: got %v, want the tenancy's error", err)
		}
	})
}

func TestContractsDisabled(t *testing.T) {
	svc, _, _ := newMemService(t)
	ctx := context.Background()
	const ccr = "ccr_01jd0000000000000000000000"
	calls := map[string]func() error{
		"Submit": func() error {
			_, err := svc.SubmitContractRequest(ctx, tenantA, "usr_x", billing.SubmitContractRequestInput{})
			return err
		},
		"List": func() error {
			_, _, err := svc.ContractRequests(ctx, tenantA, billing.ContractRequestFilter{})
			return err
		},
		"Get":     func() error { _, err := svc.ContractRequest(ctx, tenantA, ccr); return err },
		"Approve": func() error { _, err := svc.ApproveContractRequest(ctx, ccr, ""); return err },
		"Reject":  func() error { _, err := svc.RejectContractRequest(ctx, ccr, ""); return err },
		"Cancel":  func() error { _, err := svc.CancelContractRequest(ctx, tenantA, ccr); return err },
		"ApplyDue": func() error {
			_, err := svc.ApplyDue(ctx)
			return err
		},
		"Preview": func() error { _, err := svc.Preview(ctx, tenantA, billing.PreviewInput{}); return err },
	}
	for _, name := range slices.Sorted(maps.Keys(calls)) {
		t.Run(name, func(t *testing.T) {
			if err := calls[name](); !errors.Is(err, billing.ErrContractsDisabled) {
				t.Fatalf("%s without WithContracts: got %v, want ErrContractsDisabled", name, err)
			}
		})
	}
}
