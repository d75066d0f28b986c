package tenancytest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// newRequest returns a pending request of tenantID of type typ, with its
// target field set, created minutes after base.
func newRequest(tenantID string, typ contract.ChangeType, minutes int) contract.Request {
	r := contract.Request{
		ID: id.New(id.Contract), TenantID: tenantID, Type: typ, Effective: contract.EffectiveNextPeriod,
		Note: "please", Status: contract.RequestPending, SubmittedBy: "usr_01jd0000000000000000000000",
		CreatedAt: base().Add(time.Duration(minutes) * time.Minute),
	}
	switch typ {
	case contract.ChangePlan:
		plan := "growth"
		r.PlanID = &plan
	case contract.AddModule, contract.RemoveModule:
		module := "support.sla"
		r.ModuleID = &module
	default:
		seats := 12
		r.Seats = &seats
	}
	return r
}

func mustCreateRequest(tb testing.TB, s Backend, r contract.Request) contract.Request {
	tb.Helper()
	if err := s.Contracts.CreateRequest(context.Background(), r); err != nil {
		tb.Fatalf("CreateRequest(%s %s): %v", r.TenantID, r.Type, err)
	}
	return r
}

// sameRequest fails unless got equals want in JSON (times as instants) and
// tenant.
func sameRequest(tb testing.TB, got, want contract.Request) {
	tb.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) || got.TenantID != want.TenantID {
		tb.Fatalf("contract request differs:\n got %s (%s)\nwant %s (%s)", g, got.TenantID, w, want.TenantID)
	}
}

func requestIDs(rs []contract.Request) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func testRequestRoundTrip(t *testing.T, s Backend) {
	ctx := context.Background()
	for _, typ := range []contract.ChangeType{contract.ChangePlan, contract.AddModule, contract.RemoveModule, contract.ChangeSeats} {
		t.Run(string(typ), func(t *testing.T) {
			want := mustCreateRequest(t, s, newRequest(TenantA, typ, 0))
			got, err := s.Contracts.Request(ctx, TenantA, want.ID)
			if err != nil {
				t.Fatalf("Request: %v", err)
			}
			sameRequest(t, got, want)
			got, err = s.Contracts.RequestForUpdate(ctx, TenantA, want.ID)
			if err != nil {
				t.Fatalf("RequestForUpdate: %v", err)
			}
			sameRequest(t, got, want)
			owner, err := s.Contracts.RequestTenant(ctx, want.ID)
			if err != nil || owner != TenantA {
				t.Fatalf("RequestTenant: got %q, %v; want %q", owner, err, TenantA)
			}
		})
	}
}

func testOnePendingPerType(t *testing.T, s Backend) {
	ctx := context.Background()
	first := mustCreateRequest(t, s, newRequest(TenantA, contract.ChangePlan, 0))
	steps := []struct {
		name string
		req  contract.Request
		want error
	}{
		{"ErrConflictSecondPending", newRequest(TenantA, contract.ChangePlan, 1), tenancy.ErrConflict},
		{"ErrConflictSameID", func() contract.Request {
			r := newRequest(TenantA, contract.ChangeSeats, 1)
			r.ID = first.ID
			return r
		}(), tenancy.ErrConflict},
		{"OtherType", newRequest(TenantA, contract.ChangeSeats, 2), nil},
		{"OtherTenant", newRequest(TenantB, contract.ChangePlan, 3), nil},
		{"ErrNotFoundTenant", newRequest("ten_01jd0000000000000000000009", contract.ChangePlan, 4), tenancy.ErrNotFound},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := s.Contracts.CreateRequest(ctx, st.req); !errors.Is(err, st.want) || (st.want == nil && err != nil) {
				t.Fatalf("CreateRequest: got %v, want %v", err, st.want)
			}
		})
	}
	t.Run("AfterDecision", func(t *testing.T) {
		decided := first
		decided.Status = contract.RequestRejected
		if err := s.Contracts.UpdateRequest(ctx, decided, contract.RequestPending); err != nil {
			t.Fatalf("UpdateRequest: %v", err)
		}
		mustCreateRequest(t, s, newRequest(TenantA, contract.ChangePlan, 5))
	})
}

// testOnePendingConcurrent races submissions of the same type: exactly one
// may be stored.
func testOnePendingConcurrent(t *testing.T, s Backend) {
	const workers = 16
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		created  int
		unwanted []error
	)
	for i := range workers {
		wg.Go(func() {
			err := s.Contracts.CreateRequest(context.Background(), newRequest(TenantA, contract.AddModule, i))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				created++
			case !errors.Is(err, tenancy.ErrConflict):
				unwanted = append(unwanted, err)
			}
		})
	}
	wg.Wait()
	if len(unwanted) > 0 {
		t.Fatalf("CreateRequest failed other than ErrConflict: %v", unwanted)
	}
	if created != 1 {
		t.Fatalf("pending add_module requests stored: got %d, want 1", created)
	}
}

// testDecideConcurrent races decisions on one pending request (a
// tenant's cancellation, an operator's approval), each made as the
// contract service makes it: in a transaction of its own, lock the
// request, check it is pending, update it from pending. Exactly one may
// decide; the others find it decided (or lose UpdateRequest's guard), and
// the stored request is the winner's.
func testDecideConcurrent(t *testing.T, s Backend) {
	req := mustCreateRequest(t, s, newRequest(TenantA, contract.ChangePlan, 0))
	decided := base().Add(time.Hour)
	const workers = 8
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		winners  []contract.RequestStatus
		unwanted []error
	)
	for i := range workers {
		status := contract.RequestCancelled
		if i%2 == 0 {
			status = contract.RequestApproved
		}
		wg.Go(func() {
			err := s.Tx.InTx(context.Background(), func(ctx context.Context) error {
				cur, err := s.Contracts.RequestForUpdate(ctx, TenantA, req.ID)
				if err != nil {
					return err
				}
				if cur.Status != contract.RequestPending {
					return tenancy.ErrConflict
				}
				cur.Status, cur.DecidedAt = status, &decided
				return s.Contracts.UpdateRequest(ctx, cur, contract.RequestPending)
			})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				winners = append(winners, status)
			case !errors.Is(err, tenancy.ErrConflict):
				unwanted = append(unwanted, err)
			}
		})
	}
	wg.Wait()
	if len(unwanted) > 0 || len(winners) != 1 {
		t.Fatalf("concurrent decisions: %d decided (%v), unexpected errors %v; want exactly one, and conflicts", len(winners), winners, unwanted)
	}
	got, err := s.Contracts.Request(context.Background(), TenantA, req.ID)
	if err != nil || got.Status != winners[0] || got.DecidedAt == nil || !got.DecidedAt.Equal(decided) {
		t.Fatalf("request after the race: %+v, %v; want the winner's %s", got, err, winners[0])
	}
}

func testRequestNotFound(t *testing.T, s Backend) {
	ctx := context.Background()
	missing := newRequest(TenantA, contract.ChangePlan, 0)
	if _, err := s.Contracts.Request(ctx, TenantA, missing.ID); !errors.Is(err, tenancy.ErrNotFound) {
		t.Errorf("Request: got %v, want ErrNotFound", err)
	}
	if _, err := s.Contracts.RequestForUpdate(ctx, TenantA, missing.ID); !errors.Is(err, tenancy.ErrNotFound) {
		t.Errorf("RequestForUpdate: got %v, want ErrNotFound", err)
	}
	if _, err := s.Contracts.RequestTenant(ctx, missing.ID); !errors.Is(err, tenancy.ErrNotFound) {
		t.Errorf("RequestTenant: got %v, want ErrNotFound", err)
	}
	if err := s.Contracts.UpdateRequest(ctx, missing, contract.RequestPending); !errors.Is(err, tenancy.ErrNotFound) {
		t.Errorf("UpdateRequest: got %v, want ErrNotFound", err)
	}
}

func testUpdateRequest(t *testing.T, s Backend) {
	ctx := context.Background()
	req := mustCreateRequest(t, s, newRequest(TenantA, contract.ChangeSeats, 0))
	decided, effective, applied := base().Add(time.Hour), base().Add(48*time.Hour), base().Add(49*time.Hour)

	steps := []struct {
		name string
		edit func(r *contract.Request)
		from contract.RequestStatus
		want error
	}{
		{"Approve", func(r *contract.Request) {
			r.Status, r.DecidedAt, r.EffectiveAt, r.Reason = contract.RequestApproved, &decided, &effective, "fine"
		}, contract.RequestPending, nil},
		{"ErrConflictStaleStatus", func(r *contract.Request) { r.Status = contract.RequestRejected }, contract.RequestPending, tenancy.ErrConflict},
		{"Apply", func(r *contract.Request) { r.Status, r.AppliedAt = contract.RequestApplied, &applied }, contract.RequestApproved, nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			before, err := s.Contracts.Request(ctx, TenantA, req.ID)
			if err != nil {
				t.Fatal(err)
			}
			next := before
			st.edit(&next)
			err = s.Contracts.UpdateRequest(ctx, next, st.from)
			if !errors.Is(err, st.want) || (st.want == nil && err != nil) {
				t.Fatalf("UpdateRequest: got %v, want %v", err, st.want)
			}
			want := next
			if st.want != nil {
				want = before
			}
			got, err := s.Contracts.Request(ctx, TenantA, req.ID)
			if err != nil {
				t.Fatal(err)
			}
			sameRequest(t, got, want)
		})
	}
}

func testListRequests(t *testing.T, s Backend) {
	ctx := context.Background()
	var all []contract.Request // newest first
	for i, typ := range []contract.ChangeType{contract.ChangePlan, contract.AddModule, contract.RemoveModule, contract.ChangeSeats, contract.ChangePlan} {
		r := newRequest(TenantA, typ, i)
		if i == 0 { // leave room for the second change_plan
			r.Status = contract.RequestCancelled
		}
		all = slices.Insert(all, 0, mustCreateRequest(t, s, r))
	}
	mustCreateRequest(t, s, newRequest(TenantB, contract.AddModule, 9))
	tests := []struct {
		name     string
		filter   contract.Filter
		want     []contract.Request
		wantMore bool
	}{
		{"All", contract.Filter{Limit: 10}, all, false},
		{"FirstPage", contract.Filter{Limit: 2}, all[:2], true},
		{"NextPage", contract.Filter{Limit: 2, Before: all[1].ID}, all[2:4], true},
		{"LastPage", contract.Filter{Limit: 2, Before: all[3].ID}, all[4:], false},
		{"Status", contract.Filter{Limit: 10, Status: "cancelled"}, all[4:], false},
		{"StatusNone", contract.Filter{Limit: 10, Status: "applied"}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, more, err := s.Contracts.ListRequests(ctx, TenantA, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(requestIDs(got), requestIDs(tc.want)) || more != tc.wantMore {
				t.Fatalf("ListRequests(%+v): got %v more=%v, want %v more=%v",
					tc.filter, requestIDs(got), more, requestIDs(tc.want), tc.wantMore)
			}
		})
	}
}

// testAllRequests checks the operators' list across tenants: every
// tenant's requests in one order, or one tenant's when asked.
func testAllRequests(t *testing.T, s Backend) {
	ctx := context.Background()
	var all, onlyB []contract.Request // newest first
	for i, tenantID := range []string{TenantA, TenantB, TenantA, TenantB} {
		typ := []contract.ChangeType{contract.ChangePlan, contract.ChangePlan, contract.AddModule, contract.AddModule}[i]
		r := mustCreateRequest(t, s, newRequest(tenantID, typ, i))
		all = slices.Insert(all, 0, r)
		if tenantID == TenantB {
			onlyB = slices.Insert(onlyB, 0, r)
		}
	}
	tests := []struct {
		name     string
		filter   contract.AllFilter
		want     []contract.Request
		wantMore bool
	}{
		{"EveryTenant", contract.AllFilter{Filter: contract.Filter{Limit: 10}}, all, false},
		{"FirstPage", contract.AllFilter{Filter: contract.Filter{Limit: 3}}, all[:3], true},
		{"NextPage", contract.AllFilter{Filter: contract.Filter{Limit: 3, Before: all[2].ID}}, all[3:], false},
		{"OneTenant", contract.AllFilter{Filter: contract.Filter{Limit: 10}, TenantID: TenantB}, onlyB, false},
		{"StatusNone", contract.AllFilter{Filter: contract.Filter{Limit: 10, Status: "applied"}}, nil, false},
		{"Status", contract.AllFilter{Filter: contract.Filter{Limit: 10, Status: "pending"}}, all, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, more, err := s.Contracts.AllRequests(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(requestIDs(got), requestIDs(tc.want)) || more != tc.wantMore {
				t.Fatalf("AllRequests(%+v): got %v more=%v, want %v more=%v",
					tc.filter, requestIDs(got), more, requestIDs(tc.want), tc.wantMore)
			}
		})
	}
}

func testDueRequests(t *testing.T, s Backend) {
	ctx := context.Background()
	now := base().Add(24 * time.Hour)
	approve := func(tenantID string, typ contract.ChangeType, effectiveAt time.Time) contract.Request {
		t.Helper()
		r := mustCreateRequest(t, s, newRequest(tenantID, typ, 0))
		r.Status, r.DecidedAt, r.EffectiveAt = contract.RequestApproved, &r.CreatedAt, &effectiveAt
		if err := s.Contracts.UpdateRequest(ctx, r, contract.RequestPending); err != nil {
			t.Fatalf("approve: %v", err)
		}
		return r
	}
	dueB := approve(TenantB, contract.ChangePlan, now.Add(-time.Hour))
	dueA := approve(TenantA, contract.ChangeSeats, now)
	approve(TenantA, contract.ChangePlan, now.Add(time.Microsecond))    // not yet
	mustCreateRequest(t, s, newRequest(TenantA, contract.AddModule, 1)) // pending

	got, err := s.Contracts.DueRequests(ctx, "", now, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{dueB.ID, dueA.ID}; !slices.Equal(requestIDs(got), want) {
		t.Fatalf("DueRequests: got %v, want %v (earliest first, across tenants)", requestIDs(got), want)
	}
	if got[0].TenantID != TenantB || got[1].TenantID != TenantA {
		t.Fatalf("DueRequests tenants: got %s, %s; want %s, %s", got[0].TenantID, got[1].TenantID, TenantB, TenantA)
	}
	if got, err := s.Contracts.DueRequests(ctx, "", now, 1); err != nil || len(got) != 1 || got[0].ID != dueB.ID {
		t.Fatalf("DueRequests limit 1: got %v, %v; want [%s]", requestIDs(got), err, dueB.ID)
	}
}

// testRequestIsolation checks that tenant A can neither see nor change B's
// requests.
func testRequestIsolation(t *testing.T, s Backend) {
	ctx := context.Background()
	reqB := mustCreateRequest(t, s, newRequest(TenantB, contract.ChangePlan, 0))
	if _, err := s.Contracts.Request(ctx, TenantA, reqB.ID); !errors.Is(err, tenancy.ErrNotFound) {
		t.Errorf("A reads B's request: got %v, want ErrNotFound", err)
	}
	if _, err := s.Contracts.RequestForUpdate(ctx, TenantA, reqB.ID); !errors.Is(err, tenancy.ErrNotFound) {
		t.Errorf("A locks B's request: got %v, want ErrNotFound", err)
	}
	hijack := reqB
	hijack.TenantID, hijack.Status = TenantA, contract.RequestCancelled
	if err := s.Contracts.UpdateRequest(ctx, hijack, contract.RequestPending); !errors.Is(err, tenancy.ErrNotFound) {
		t.Errorf("A updates B's request: got %v, want ErrNotFound", err)
	}
	if page, _, err := s.Contracts.ListRequests(ctx, TenantA, contract.Filter{Limit: 100}); err != nil || len(page) != 0 {
		t.Errorf("A lists: got %v, %v; want none", requestIDs(page), err)
	}
	mustCreateRequest(t, s, newRequest(TenantA, contract.ChangePlan, 1)) // B's pending one is B's alone
	got, err := s.Contracts.Request(ctx, TenantB, reqB.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameRequest(t, got, reqB)
}
