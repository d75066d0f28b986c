package billingtest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/billing"
	"github.com/tenantkit/tenantkit/internal/id"
)

// RunContracts checks a ContractStore implementation. newStore must return
// a new, empty store on every call, in which TenantA and TenantB exist.
func RunContracts(t *testing.T, newStore func(t *testing.T) billing.ContractStore) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s billing.ContractStore)
	}{
		{"CreateAndGet", testRequestRoundTrip},
		{"OnePendingPerType", testOnePendingPerType},
		{"OnePendingPerTypeConcurrent", testOnePendingConcurrent},
		{"RequestNotFound", testRequestNotFound},
		{"UpdateGuardedByStatus", testUpdateRequest},
		{"ListRequests", testListRequests},
		{"DueRequests", testDueRequests},
		{"RequestIsolation", testRequestIsolation},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newStore(t)) })
	}
}

// newRequest returns a pending request of tenantID of type typ, with its
// target field set, created minutes after base.
func newRequest(tenantID string, typ billing.ChangeType, minutes int) billing.ContractRequest {
	r := billing.ContractRequest{
		ID: id.New(id.Contract), TenantID: tenantID, Type: typ, Effective: billing.EffectiveNextPeriod,
		Note: "please", Status: billing.RequestPending, SubmittedBy: "usr_01jd0000000000000000000000",
		CreatedAt: base().Add(time.Duration(minutes) * time.Minute),
	}
	switch typ {
	case billing.ChangePlan:
		plan := "growth"
		r.PlanID = &plan
	case billing.AddModule, billing.RemoveModule:
		module := "support.sla"
		r.ModuleID = &module
	default:
		seats := 12
		r.Seats = &seats
	}
	return r
}

func mustCreateRequest(tb testing.TB, s billing.ContractStore, r billing.ContractRequest) billing.ContractRequest {
	tb.Helper()
	if err := s.CreateContractRequest(context.Background(), r); err != nil {
		tb.Fatalf("CreateContractRequest(%s %s): %v", r.TenantID, r.Type, err)
	}
	return r
}

// sameRequest fails unless got equals want in JSON (times as instants) and
// tenant.
func sameRequest(tb testing.TB, got, want billing.ContractRequest) {
	tb.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) || got.TenantID != want.TenantID {
		tb.Fatalf("contract request differs:\n got %s (%s)\nwant %s (%s)", g, got.TenantID, w, want.TenantID)
	}
}

func requestIDs(rs []billing.ContractRequest) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func testRequestRoundTrip(t *testing.T, s billing.ContractStore) {
	ctx := context.Background()
	for _, typ := range []billing.ChangeType{billing.ChangePlan, billing.AddModule, billing.RemoveModule, billing.ChangeSeats} {
		t.Run(string(typ), func(t *testing.T) {
			want := mustCreateRequest(t, s, newRequest(TenantA, typ, 0))
			got, err := s.ContractRequest(ctx, TenantA, want.ID)
			if err != nil {
				t.Fatalf("ContractRequest: %v", err)
			}
			sameRequest(t, got, want)
			got, err = s.ContractRequestForUpdate(ctx, TenantA, want.ID)
			if err != nil {
				t.Fatalf("ContractRequestForUpdate: %v", err)
			}
			sameRequest(t, got, want)
			owner, err := s.ContractRequestTenant(ctx, want.ID)
			if err != nil || owner != TenantA {
				t.Fatalf("ContractRequestTenant: got %q, %v; want %q", owner, err, TenantA)
			}
		})
	}
}

func testOnePendingPerType(t *testing.T, s billing.ContractStore) {
	ctx := context.Background()
	first := mustCreateRequest(t, s, newRequest(TenantA, billing.ChangePlan, 0))
	steps := []struct {
		name string
		req  billing.ContractRequest
		want error
	}{
		{"ErrConflictSecondPending", newRequest(TenantA, billing.ChangePlan, 1), billing.ErrConflict},
		{"ErrConflictSameID", func() billing.ContractRequest {
			r := newRequest(TenantA, billing.ChangeSeats, 1)
			r.ID = first.ID
			return r
		}(), billing.ErrConflict},
		{"OtherType", newRequest(TenantA, billing.ChangeSeats, 2), nil},
		{"OtherTenant", newRequest(TenantB, billing.ChangePlan, 3), nil},
		{"ErrNotFoundTenant", newRequest("ten_01jd0000000000000000000009", billing.ChangePlan, 4), billing.ErrNotFound},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := s.CreateContractRequest(ctx, st.req); !errors.Is(err, st.want) || (st.want == nil && err != nil) {
				t.Fatalf("CreateContractRequest: got %v, want %v", err, st.want)
			}
		})
	}
	t.Run("AfterDecision", func(t *testing.T) {
		decided := first
		decided.Status = billing.RequestRejected
		if err := s.UpdateContractRequest(ctx, decided, billing.RequestPending); err != nil {
			t.Fatalf("UpdateContractRequest: %v", err)
		}
		mustCreateRequest(t, s, newRequest(TenantA, billing.ChangePlan, 5))
	})
}

// testOnePendingConcurrent races submissions of the same type: exactly one
// may be stored.
func testOnePendingConcurrent(t *testing.T, s billing.ContractStore) {
	const workers = 16
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		created  int
		unwanted []error
	)
	for i := range workers {
		wg.Go(func() {
			err := s.CreateContractRequest(context.Background(), newRequest(TenantA, billing.AddModule, i))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				created++
			case !errors.Is(err, billing.ErrConflict):
				unwanted = append(unwanted, err)
			}
		})
	}
	wg.Wait()
	if len(unwanted) > 0 {
		t.Fatalf("CreateContractRequest failed other than ErrConflict: %v", unwanted)
	}
	if created != 1 {
		t.Fatalf("pending add_module requests stored: got %d, want 1", created)
	}
}

func testRequestNotFound(t *testing.T, s billing.ContractStore) {
	ctx := context.Background()
	missing := newRequest(TenantA, billing.ChangePlan, 0)
	if _, err := s.ContractRequest(ctx, TenantA, missing.ID); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("ContractRequest: got %v, want ErrNotFound", err)
	}
	if _, err := s.ContractRequestForUpdate(ctx, TenantA, missing.ID); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("ContractRequestForUpdate: got %v, want ErrNotFound", err)
	}
	if _, err := s.ContractRequestTenant(ctx, missing.ID); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("ContractRequestTenant: got %v, want ErrNotFound", err)
	}
	if err := s.UpdateContractRequest(ctx, missing, billing.RequestPending); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("UpdateContractRequest: got %v, want ErrNotFound", err)
	}
}

func testUpdateRequest(t *testing.T, s billing.ContractStore) {
	ctx := context.Background()
	req := mustCreateRequest(t, s, newRequest(TenantA, billing.ChangeSeats, 0))
	decided, effective, applied := base().Add(time.Hour), base().Add(48*time.Hour), base().Add(49*time.Hour)

	steps := []struct {
		name string
		edit func(r *billing.ContractRequest)
		from billing.RequestStatus
		want error
	}{
		{"Approve", func(r *billing.ContractRequest) {
			r.Status, r.DecidedAt, r.EffectiveAt, r.Reason = billing.RequestApproved, &decided, &effective, "fine"
		}, billing.RequestPending, nil},
		{"ErrConflictStaleStatus", func(r *billing.ContractRequest) { r.Status = billing.RequestRejected }, billing.RequestPending, billing.ErrConflict},
		{"Apply", func(r *billing.ContractRequest) { r.Status, r.AppliedAt = billing.RequestApplied, &applied }, billing.RequestApproved, nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before, err := s.ContractRequest(ctx, TenantA, req.ID)
			if err != nil {
				t.Fatal(err)
			}
			next := before
			st.edit(&next)
			err = s.UpdateContractRequest(ctx, next, st.from)
			if !errors.Is(err, st.want) || (st.want == nil && err != nil) {
				t.Fatalf("UpdateContractRequest: got %v, want %v", err, st.want)
			}
			want := next
			if st.want != nil {
				want = before
			}
			got, err := s.ContractRequest(ctx, TenantA, req.ID)
			if err != nil {
				t.Fatal(err)
			}
			sameRequest(t, got, want)
		})
	}
}

func testListRequests(t *testing.T, s billing.ContractStore) {
	ctx := context.Background()
	var all []billing.ContractRequest // newest first
	for i, typ := range []billing.ChangeType{billing.ChangePlan, billing.AddModule, billing.RemoveModule, billing.ChangeSeats, billing.ChangePlan} {
		r := newRequest(TenantA, typ, i)
		if i == 0 { // leave room for the second change_plan
			r.Status = billing.RequestCancelled
		}
		all = slices.Insert(all, 0, mustCreateRequest(t, s, r))
	}
	mustCreateRequest(t, s, newRequest(TenantB, billing.AddModule, 9))
	tests := []struct {
		name     string
		filter   billing.ContractRequestFilter
		want     []billing.ContractRequest
		wantMore bool
	}{
		{"All", billing.ContractRequestFilter{Limit: 10}, all, false},
		{"FirstPage", billing.ContractRequestFilter{Limit: 2}, all[:2], true},
		{"NextPage", billing.ContractRequestFilter{Limit: 2, Before: all[1].ID}, all[2:4], true},
		{"LastPage", billing.ContractRequestFilter{Limit: 2, Before: all[3].ID}, all[4:], false},
		{"Status", billing.ContractRequestFilter{Limit: 10, Status: "cancelled"}, all[4:], false},
		{"StatusNone", billing.ContractRequestFilter{Limit: 10, Status: "applied"}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, more, err := s.ListContractRequests(ctx, TenantA, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(requestIDs(got), requestIDs(tc.want)) || more != tc.wantMore {
				t.Fatalf("ListContractRequests(%+v): got %v more=%v, want %v more=%v",
					tc.filter, requestIDs(got), more, requestIDs(tc.want), tc.wantMore)
			}
		})
	}
}

func testDueRequests(t *testing.T, s billing.ContractStore) {
	ctx := context.Background()
	now := base().Add(24 * time.Hour)
	approve := func(tenantID string, typ billing.ChangeType, effectiveAt time.Time) billing.ContractRequest {
		t.Helper()
		r := mustCreateRequest(t, s, newRequest(tenantID, typ, 0))
		r.Status, r.DecidedAt, r.EffectiveAt = billing.RequestApproved, &r.CreatedAt, &effectiveAt
		if err := s.UpdateContractRequest(ctx, r, billing.RequestPending); err != nil {
			t.Fatalf("approve: %v", err)
		}
		return r
	}
	dueB := approve(TenantB, billing.ChangePlan, now.Add(-time.Hour))
	dueA := approve(TenantA, billing.ChangeSeats, now)
	approve(TenantA, billing.ChangePlan, now.Add(time.Microsecond))    // not yet
	mustCreateRequest(t, s, newRequest(TenantA, billing.AddModule, 1)) // pending

	got, err := s.DueContractRequests(ctx, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{dueB.ID, dueA.ID}; !slices.Equal(requestIDs(got), want) {
		t.Fatalf("DueContractRequests: got %v, want %v (earliest first, across tenants)", requestIDs(got), want)
	}
	if got[0].TenantID != TenantB || got[1].TenantID != TenantA {
		t.Fatalf("DueContractRequests tenants: got %s, %s; want %s, %s", got[0].TenantID, got[1].TenantID, TenantB, TenantA)
	}
	if got, err := s.DueContractRequests(ctx, now, 1); err != nil || len(got) != 1 || got[0].ID != dueB.ID {
		t.Fatalf("DueContractRequests limit 1: got %v, %v; want [%s]", requestIDs(got), err, dueB.ID)
	}
}

// testRequestIsolation checks that tenant A can neither see nor change B's
// requests.
func testRequestIsolation(t *testing.T, s billing.ContractStore) {
	ctx := context.Background()
	reqB := mustCreateRequest(t, s, newRequest(TenantB, billing.ChangePlan, 0))
	if _, err := s.ContractRequest(ctx, TenantA, reqB.ID); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("A reads B's request: got %v, want ErrNotFound", err)
	}
	if _, err := s.ContractRequestForUpdate(ctx, TenantA, reqB.ID); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("A locks B's request: got %v, want ErrNotFound", err)
	}
	hijack := reqB
	hijack.TenantID, hijack.Status = TenantA, billing.RequestCancelled
	if err := s.UpdateContractRequest(ctx, hijack, billing.RequestPending); !errors.Is(err, billing.ErrNotFound) {
		t.Errorf("A updates B's request: got %v, want ErrNotFound", err)
	}
	if page, _, err := s.ListContractRequests(ctx, TenantA, billing.ContractRequestFilter{Limit: 100}); err != nil || len(page) != 0 {
		t.Errorf("A lists: got %v, %v; want none", requestIDs(page), err)
	}
	mustCreateRequest(t, s, newRequest(TenantA, billing.ChangePlan, 1)) // B's pending one is B's alone
	got, err := s.ContractRequest(ctx, TenantB, reqB.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameRequest(t, got, reqB)
}
