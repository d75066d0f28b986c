package contract_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// TestApplyDueAt: a scheduler's time decides, not the service's clock:
// an approved next-period request is applied by the first ApplyDueAt at
// or after its effective time, at that time, once.
func TestApplyDueAt(t *testing.T) {
	eachContractEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		tn, owner := e.mustTenantWithMembers(t, catalog.PlanGrowth, 1)
		req := e.mustSubmit(t, tn.ID, owner.ID, contract.SubmitInput{Type: "change_seats", Seats: intPtr(15), Effective: "next_period"})
		if _, err := e.svc.Approve(ctx, req.ID, ""); err != nil {
			t.Fatal(err)
		}
		dec := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) // the clock stays at 21 Nov throughout
		tests := []struct {
			name    string
			at      time.Time
			applied bool
		}{
			{"BeforeTheBoundary", dec.Add(-time.Microsecond), false},
			{"LateAfterTheBoundary", dec.Add(36 * time.Hour), true},
			{"Again", dec.Add(48 * time.Hour), false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				done, err := e.svc.ApplyDueAt(ctx, tt.at)
				if err != nil {
					t.Fatal(err)
				}
				if !tt.applied {
					if len(done) != 0 {
						t.Fatalf("applied %s, want nothing", jsonString(done))
					}
					return
				}
				if len(done) != 1 || done[0].ID != req.ID || done[0].Status != contract.RequestApplied || !done[0].AppliedAt.Equal(tt.at) {
					t.Fatalf("got %s, want %s applied at %v", jsonString(done), req.ID, tt.at)
				}
				if l := e.mustLimit(t, tn.ID, catalog.FeatureSeats); l != 15 {
					t.Errorf("seats limit %d, want 15", l)
				}
			})
		}
	})
}
