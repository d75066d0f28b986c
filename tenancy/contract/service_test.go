package contract_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// TestSubmitContractRequestChecks checks requests against the catalog and
// a starter tenant's contract (3 seats, 3 members, SLA bought).
func TestSubmitContractRequestChecks(t *testing.T) {
	eachContractEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		tn, owner := e.mustTenantWithMembers(t, catalog.PlanStarter, 3)
		if _, err := e.svc.Change(ctx, tn.ID, contract.Change{AddModules: []string{catalog.ModuleSLA}}); err != nil {
			t.Fatal(err)
		}
		next := func(typ string) contract.SubmitInput {
			return contract.SubmitInput{Type: typ, Effective: "next_period"}
		}
		withPlan := func(p string) contract.SubmitInput {
			in := next("change_plan")
			in.PlanID = &p
			return in
		}
		withModule := func(typ, m string) contract.SubmitInput { in := next(typ); in.ModuleID = &m; return in }
		withSeats := func(n int) contract.SubmitInput { in := next("change_seats"); in.Seats = &n; return in }
		tests := []struct {
			name      string
			in        contract.SubmitInput
			wantField string // "" for success
		}{
			{"ErrUnknownPlan", withPlan("gold"), "plan_id"},
			{"ErrSamePlan", withPlan(catalog.PlanStarter), "plan_id"},
			{"ErrPlanTooSmallForMembers", withPlan(catalog.PlanFree), "plan_id"},
			{"ErrSeatsBelowMembers", withSeats(2), "seats"},
			{"ErrSameSeats", withSeats(3), "seats"},
			{"ErrUnknownModule", withModule("add_module", "support.chat"), "module_id"},
			{"ErrModuleNotOffered", withModule("add_module", catalog.ModuleCSAT), "module_id"},
			{"ErrModuleIncluded", withModule("add_module", catalog.ModuleTickets), "module_id"},
			{"ErrModuleAlreadyBought", withModule("add_module", catalog.ModuleSLA), "module_id"},
			{"ErrRemoveNotContracted", withModule("remove_module", catalog.ModuleReminders), "module_id"},
			{"ErrRemoveIncluded", withModule("remove_module", catalog.ModuleInvoices), "module_id"},
			{"ChangePlan", withPlan(catalog.PlanGrowth), ""},
			{"AddModule", withModule("add_module", catalog.ModuleReminders), ""},
			{"RemoveModule", withModule("remove_module", catalog.ModuleSLA), ""},
			{"ChangeSeats", withSeats(5), ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				req, err := e.svc.Submit(ctx, tn.ID, owner.ID, tc.in)
				if tc.wantField != "" {
					fields := fieldErrors(t, err)
					if got := slices.Sorted(maps.Keys(fields)); !slices.Equal(got, []string{tc.wantField}) {
						t.Fatalf("invalid fields: got %v (%v), want [%s]", got, fields, tc.wantField)
					}
					return
				}
				if err != nil {
					t.Fatalf("SubmitContractRequest: %v", err)
				}
				if req.Status != contract.RequestPending || req.SubmittedBy != owner.ID || req.Type != contract.ChangeType(tc.in.Type) ||
					!strings.HasPrefix(req.ID, "ccr_") || !req.CreatedAt.Equal(now()) || req.DecidedAt != nil {
					t.Fatalf("submitted request: got %+v", req)
				}
				got, err := e.svc.Request(ctx, tn.ID, req.ID)
				if err != nil || jsonString(got) != jsonString(req) {
					t.Fatalf("ContractRequest: got %s, %v; want %s", jsonString(got), err, jsonString(req))
				}
			})
		}
		t.Run("ErrConflictSecondPendingOfType", func(t *testing.T) {
			_, err := e.svc.Submit(ctx, tn.ID, owner.ID, withPlan(catalog.PlanEnterprise))
			if !errors.Is(err, tenancy.ErrConflict) {
				t.Fatalf("second pending change_plan: got %v, want ErrConflict", err)
			}
		})
		t.Run("NothingChangedYet", func(t *testing.T) {
			c := e.mustContract(t, tn.ID)
			if c.PlanID != catalog.PlanStarter || c.Seats != 3 || !slices.Equal(c.AddOns, []string{catalog.ModuleSLA}) {
				t.Fatalf("contract after submissions: got %+v, want starter, 3 seats, [sla]", c)
			}
		})
	})
}

func TestSubmitContractRequestConcurrent(t *testing.T) {
	eachContractEnv(t, func(t *testing.T, e *env) {
		tn, owner := e.mustTenantWithMembers(t, catalog.PlanStarter, 1)
		const workers = 12
		var (
			wg        sync.WaitGroup
			mu        sync.Mutex
			created   int
			conflicts int
			others    []error
		)
		for range workers {
			wg.Go(func() {
				_, err := e.svc.Submit(context.Background(), tn.ID, owner.ID,
					contract.SubmitInput{Type: "change_seats", Seats: intPtr(9), Effective: "immediately"})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					created++
				case errors.Is(err, tenancy.ErrConflict):
					conflicts++
				default:
					others = append(others, err)
				}
			})
		}
		wg.Wait()
		if len(others) > 0 || created != 1 || conflicts != workers-1 {
			t.Fatalf("concurrent submissions: %d created, %d conflicts, other errors %v; want 1, %d, none", created, conflicts, others, workers-1)
		}
	})
}

// TestContractWorkflow walks requests through their lifecycle on one
// tenant and checks what each decision does to the contract, the
// entitlements and the notifications.
func TestContractWorkflow(t *testing.T) {
	eachContractEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		tn, owner := e.mustTenantWithMembers(t, catalog.PlanStarter, 2)

		upgrade := e.mustSubmit(t, tn.ID, owner.ID, contract.SubmitInput{
			Type: "change_plan", PlanID: str(catalog.PlanGrowth), Effective: "immediately", Note: "we grew"})
		t.Run("ApproveImmediatelyApplies", func(t *testing.T) {
			e.clock.Set(now().Add(time.Hour))
			got, err := e.svc.Approve(ctx, upgrade.ID, "welcome to growth")
			if err != nil {
				t.Fatalf("ApproveContractRequest: %v", err)
			}
			at := now().Add(time.Hour)
			if got.Status != contract.RequestApplied || got.Reason != "welcome to growth" ||
				!got.DecidedAt.Equal(at) || !got.AppliedAt.Equal(at) || !got.EffectiveAt.Equal(at) {
				t.Fatalf("approved request: got %s", jsonString(got))
			}
			if l := e.mustLimit(t, tn.ID, catalog.FeatureInvoices); l != 1000 {
				t.Fatalf("invoice limit after the upgrade: got %d, want growth's 1000", l)
			}
			if c := e.mustContract(t, tn.ID); c.PlanID != catalog.PlanGrowth || c.Seats != 10 {
				t.Fatalf("contract after the upgrade: got %+v, want growth with 10 seats", c)
			}
			notes := e.contractNotes(t, tn.ID)
			if len(notes) != 1 || notes[0].Data["status"] != "applied" || notes[0].Data["contract_request_id"] != upgrade.ID {
				t.Fatalf("notifications: got %s, want one applied", jsonString(notes))
			}
		})

		t.Run("IllegalTransitions", func(t *testing.T) {
			for name, call := range map[string]func() error{
				"ApproveAgain": func() error { _, err := e.svc.Approve(ctx, upgrade.ID, ""); return err },
				"Reject":       func() error { _, err := e.svc.Reject(ctx, upgrade.ID, ""); return err },
				"Cancel": func() error {
					_, err := e.svc.Cancel(ctx, member(tn.ID, owner.ID, tenancy.RoleMember), upgrade.ID)
					return err
				},
			} {
				err := call()
				var te *contract.RequestTransitionError
				if !errors.Is(err, tenancy.ErrConflict) || !errors.As(err, &te) || te.Status != contract.RequestApplied {
					t.Errorf("%s of an applied request: got %v, want a RequestTransitionError (applied)", name, err)
				} else if want := "contract request is applied, cannot " + te.Action; te.Detail() != want {
					t.Errorf("%s: Detail() = %q, want %q", name, te.Detail(), want)
				}
			}
			if notes := e.contractNotes(t, tn.ID); len(notes) != 1 {
				t.Fatalf("refused transitions notified: got %d notifications, want 1", len(notes))
			}
		})

		t.Run("RejectChangesNothing", func(t *testing.T) {
			before := e.mustContract(t, tn.ID)
			req := e.mustSubmit(t, tn.ID, owner.ID, contract.SubmitInput{
				Type: "add_module", ModuleID: str(catalog.ModuleDunning), Effective: "immediately"})
			got, err := e.svc.Reject(ctx, req.ID, "  not this quarter  ")
			if err != nil {
				t.Fatalf("RejectContractRequest: %v", err)
			}
			if got.Status != contract.RequestRejected || got.Reason != "not this quarter" || got.AppliedAt != nil || got.DecidedAt == nil {
				t.Fatalf("rejected request: got %s", jsonString(got))
			}
			if after := e.mustContract(t, tn.ID); jsonString(after) != jsonString(before) {
				t.Fatalf("contract after a rejection: got %+v, want %+v", after, before)
			}
			notes := e.contractNotes(t, tn.ID)
			if len(notes) != 2 || notes[0].Data["status"] != "rejected" || notes[0].Data["reason"] != "not this quarter" {
				t.Fatalf("notifications: got %s, want a rejection with its reason first", jsonString(notes))
			}
		})

		t.Run("NextPeriodWaitsForApplyDue", func(t *testing.T) {
			req := e.mustSubmit(t, tn.ID, owner.ID, contract.SubmitInput{
				Type: "change_seats", Seats: intPtr(15), Effective: "next_period"})
			got, err := e.svc.Approve(ctx, req.ID, "")
			if err != nil {
				t.Fatalf("ApproveContractRequest: %v", err)
			}
			dec := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			if got.Status != contract.RequestApproved || !got.EffectiveAt.Equal(dec) || got.AppliedAt != nil {
				t.Fatalf("approved next_period request: got %s, want approved effective %v", jsonString(got), dec)
			}
			// Before the boundary nothing is due.
			e.clock.Set(dec.Add(-time.Second))
			if done, err := e.svc.ApplyDue(ctx); err != nil || len(done) != 0 {
				t.Fatalf("ApplyDue before the boundary: got %d, %v; want none", len(done), err)
			}
			if l := e.mustLimit(t, tn.ID, catalog.FeatureSeats); l != 10 {
				t.Fatalf("seats limit before the boundary: got %d, want 10", l)
			}
			e.clock.Set(dec)
			done, err := e.svc.ApplyDue(ctx)
			if err != nil || len(done) != 1 || done[0].ID != req.ID || done[0].Status != contract.RequestApplied || !done[0].AppliedAt.Equal(dec) {
				t.Fatalf("ApplyDue at the boundary: got %s, %v; want %s applied", jsonString(done), err, req.ID)
			}
			if l := e.mustLimit(t, tn.ID, catalog.FeatureSeats); l != 15 {
				t.Fatalf("seats limit after ApplyDue: got %d, want 15", l)
			}
			if done, err := e.svc.ApplyDue(ctx); err != nil || len(done) != 0 {
				t.Fatalf("ApplyDue again: got %d, %v; want none", len(done), err)
			}
			if notes := e.contractNotes(t, tn.ID); len(notes) != 4 || notes[0].Data["status"] != "applied" || notes[1].Data["status"] != "approved" {
				t.Fatalf("notifications: got %s, want applied then approved", jsonString(notes))
			}
		})

		t.Run("Cancel", func(t *testing.T) {
			req := e.mustSubmit(t, tn.ID, owner.ID, contract.SubmitInput{
				Type: "change_plan", PlanID: str(catalog.PlanEnterprise), Effective: "next_period"})
			got, err := e.svc.Cancel(ctx, member(tn.ID, owner.ID, tenancy.RoleMember), req.ID)
			if err != nil || got.Status != contract.RequestCancelled {
				t.Fatalf("CancelContractRequest: got %s, %v", jsonString(got), err)
			}
			if _, err := e.svc.Approve(ctx, req.ID, ""); !errors.Is(err, tenancy.ErrConflict) {
				t.Fatalf("approve a cancelled request: got %v, want ErrConflict", err)
			}
			// The slot for a pending change_plan is free again.
			e.mustSubmit(t, tn.ID, owner.ID, contract.SubmitInput{
				Type: "change_plan", PlanID: str(catalog.PlanEnterprise), Effective: "next_period"})
		})

		t.Run("ListAndFilter", func(t *testing.T) {
			all, more, err := e.svc.Requests(ctx, tn.ID, contract.Filter{})
			if err != nil || more || len(all) != 5 || all[4].ID != upgrade.ID {
				t.Fatalf("ContractRequests: got %d (more=%v), %v; want 5, oldest %s last", len(all), more, err, upgrade.ID)
			}
			applied, _, err := e.svc.Requests(ctx, tn.ID, contract.Filter{Status: "applied"})
			if err != nil || len(applied) != 2 {
				t.Fatalf("applied requests: got %d, %v; want 2", len(applied), err)
			}
			_, _, err = e.svc.Requests(ctx, tn.ID, contract.Filter{Status: "done", Before: "inv_x"})
			if fields := fieldErrors(t, err); len(fields) != 2 || fields["status"] == "" || fields["cursor"] == "" {
				t.Fatalf("bad filter: got fields %v, want status and cursor", fields)
			}
		})
	})
}

func TestContractRequestIsolation(t *testing.T) {
	eachContractEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		a, ownerA := e.mustTenantWithMembers(t, catalog.PlanStarter, 1)
		b, ownerB := e.mustTenantWithMembers(t, catalog.PlanStarter, 1)
		reqB := e.mustSubmit(t, b.ID, ownerB.ID, contract.SubmitInput{
			Type: "change_plan", PlanID: str(catalog.PlanGrowth), Effective: "immediately"})

		if _, err := e.svc.Request(ctx, a.ID, reqB.ID); !errors.Is(err, contract.ErrRequestNotFound) || !errors.Is(err, tenancy.ErrNotFound) {
			t.Errorf("A reads B's request: got %v, want ErrContractRequestNotFound", err)
		}
		for _, role := range []tenancy.Role{tenancy.RoleOwner, tenancy.RoleBilling} {
			if _, err := e.svc.Cancel(ctx, member(a.ID, ownerA.ID, role), reqB.ID); !errors.Is(err, contract.ErrRequestNotFound) {
				t.Errorf("A's %s cancels B's request: got %v, want ErrRequestNotFound", role, err)
			}
			// Not even B's submitter, acting in A.
			if _, err := e.svc.Cancel(ctx, member(a.ID, ownerB.ID, role), reqB.ID); !errors.Is(err, contract.ErrRequestNotFound) {
				t.Errorf("B's submitter, as A's %s, cancels B's request: got %v, want ErrRequestNotFound", role, err)
			}
		}
		if got, err := e.svc.Request(ctx, b.ID, reqB.ID); err != nil || got.Status != contract.RequestPending {
			t.Errorf("B's request after A's attempts: got %s, %v; want pending", jsonString(got), err)
		}
		if page, _, err := e.svc.Requests(ctx, a.ID, contract.Filter{}); err != nil || len(page) != 0 {
			t.Errorf("A lists: got %d, %v; want none", len(page), err)
		}
		// B's pending change_plan does not block A's.
		e.mustSubmit(t, a.ID, ownerA.ID, contract.SubmitInput{
			Type: "change_plan", PlanID: str(catalog.PlanGrowth), Effective: "immediately"})
		// The operator's approval finds B's tenant and changes B only.
		if _, err := e.svc.Approve(ctx, reqB.ID, ""); err != nil {
			t.Fatal(err)
		}
		if ca, cb := e.mustContract(t, a.ID), e.mustContract(t, b.ID); ca.PlanID != catalog.PlanStarter || cb.PlanID != catalog.PlanGrowth {
			t.Fatalf("plans after approving B's request: A %s, B %s; want starter, growth", ca.PlanID, cb.PlanID)
		}
		if notes := e.contractNotes(t, a.ID); len(notes) != 0 {
			t.Fatalf("A was notified of B's request: %s", jsonString(notes))
		}
		for _, ref := range []string{"ccr_01jd0000000000000000000000", "garbage"} {
			if _, err := e.svc.Approve(ctx, ref, ""); !errors.Is(err, contract.ErrRequestNotFound) {
				t.Errorf("approve %q: got %v, want ErrContractRequestNotFound", ref, err)
			}
		}
	})
}

// TestContractRequestNoLongerApplicable changes the tenant between the
// submission and the decision: an immediate approval refuses and leaves
// the request pending; a due request is rejected with the reason.
func TestContractRequestNoLongerApplicable(t *testing.T) {
	eachContractEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		tn, owner := e.mustTenantWithMembers(t, catalog.PlanStarter, 2)
		seats := e.mustSubmit(t, tn.ID, owner.ID, contract.SubmitInput{
			Type: "change_seats", Seats: intPtr(2), Effective: "immediately"})
		later := e.mustSubmit(t, tn.ID, owner.ID, contract.SubmitInput{
			Type: "change_plan", PlanID: str(catalog.PlanFree), Effective: "next_period"})
		if _, err := e.svc.Approve(ctx, later.ID, ""); err != nil {
			t.Fatal(err)
		}
		e.mustMember(t, tn.ID, tenancy.RoleMember) // 3 members now

		_, err := e.svc.Approve(ctx, seats.ID, "")
		if fields := fieldErrors(t, err); fields["seats"] == "" {
			t.Fatalf("approve seats below members: got fields %v, want seats", fields)
		}
		if got, _ := e.svc.Request(ctx, tn.ID, seats.ID); got.Status != contract.RequestPending {
			t.Fatalf("request after a refused approval: got %s, want pending", got.Status)
		}

		e.clock.Set(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
		done, err := e.svc.ApplyDue(ctx)
		if err != nil || len(done) != 1 || done[0].Status != contract.RequestRejected || !strings.Contains(done[0].Reason, "could not be applied") {
			t.Fatalf("ApplyDue: got %s, %v; want %s rejected with a reason", jsonString(done), err, later.ID)
		}
		if c := e.mustContract(t, tn.ID); c.PlanID != catalog.PlanStarter {
			t.Fatalf("plan after the rejected downgrade: got %s, want starter", c.PlanID)
		}
		notes := e.contractNotes(t, tn.ID)
		if len(notes) != 2 || notes[0].Data["status"] != "rejected" || notes[0].Data["reason"] == nil {
			t.Fatalf("notifications: got %s, want the rejection with its reason", jsonString(notes))
		}
	})
}

// TestPreviewOnDatabase previews through the service: the tenant's
// contract and usage are read, nothing is written.
func TestPreviewOnDatabase(t *testing.T) {
	eachContractEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		tn, _ := e.mustTenantWithMembers(t, catalog.PlanStarter, 3)
		if _, err := e.svc.Change(ctx, tn.ID, contract.Change{Seats: intPtr(4)}); err != nil {
			t.Fatal(err)
		}
		limit := int64(110)
		if err := e.ten.Entitlements.SetLimit(ctx, tn.ID, catalog.FeatureInvoices, &limit); err != nil {
			t.Fatal(err)
		}
		if err := e.ten.Entitlements.Consume(ctx, tn.ID, catalog.FeatureInvoices, 105); err != nil {
			t.Fatal(err)
		}
		got, err := e.svc.Preview(ctx, tn.ID, contract.PreviewInput{})
		if err != nil {
			t.Fatal(err)
		}
		// Starter: 2900 + one seat beyond 3 at 900 + 5 invoices over 100 at 20.
		if got.Total != 2900+900+100 || got.Currency != "USD" || len(got.Lines) != 3 {
			t.Fatalf("preview: got %s, want total 3900 in 3 lines", jsonString(got))
		}
		hypo, err := e.svc.Preview(ctx, tn.ID, contract.PreviewInput{PlanID: str(catalog.PlanGrowth)})
		if err != nil || hypo.Total != 9900 || !hypo.PeriodStart.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("growth next period: got %s, %v; want 9900 from 1 Dec", jsonString(hypo), err)
		}
		if c := e.mustContract(t, tn.ID); c.PlanID != catalog.PlanStarter || c.Seats != 4 {
			t.Fatalf("contract after previews: got %+v, want it unchanged", c)
		}
		if _, err := e.svc.Preview(ctx, tn.ID, contract.PreviewInput{Effective: new("later"), Modules: make([]string, 51)}); err == nil {
			t.Fatal("invalid preview input: want an error")
		} else if fields := fieldErrors(t, err); fields["effective"] == "" || fields["modules"] == "" {
			t.Fatalf("invalid preview input: got fields %v, want effective and modules", fields)
		}
	})
}

// member is a caller's membership in a tenant, as the HTTP edge hands it
// to Cancel.
func member(tenantID, userID string, role tenancy.Role) tenancy.Membership {
	return tenancy.Membership{TenantID: tenantID, UserID: userID, Role: role}
}

// TestCancelContractRequest checks who may cancel a request (its
// submitter, or an owner or admin) and when (while pending), and that a
// refused cancellation changes nothing.
func TestCancelContractRequest(t *testing.T) {
	eachContractEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		tn, submitter := e.mustTenantWithMembers(t, catalog.PlanStarter, 2)
		other := e.mustMember(t, tn.ID, tenancy.RoleBilling)
		outsider, _ := e.mustTenantWithMembers(t, catalog.PlanStarter, 1)
		pending := func(t *testing.T) contract.Request {
			t.Helper()
			return e.mustSubmit(t, tn.ID, submitter.ID, contract.SubmitInput{
				Type: "change_seats", Seats: intPtr(5), Effective: "next_period"})
		}
		approved := func(t *testing.T) contract.Request {
			t.Helper()
			req := pending(t)
			if _, err := e.svc.Approve(ctx, req.ID, ""); err != nil {
				t.Fatal(err)
			}
			return req
		}

		tests := []struct {
			name       string
			request    func(t *testing.T) contract.Request
			by         tenancy.Membership
			want       error // nil: cancelled
			wantStatus contract.RequestStatus
		}{
			{"BySubmitter", pending, member(tn.ID, submitter.ID, tenancy.RoleMember), nil, contract.RequestCancelled},
			{"ByOwner", pending, member(tn.ID, other.ID, tenancy.RoleOwner), nil, contract.RequestCancelled},
			{"ByAdmin", pending, member(tn.ID, other.ID, tenancy.RoleAdmin), nil, contract.RequestCancelled},
			{"ErrForbiddenBilling", pending, member(tn.ID, other.ID, tenancy.RoleBilling), tenancy.ErrForbidden, contract.RequestPending},
			{"ErrForbiddenMember", pending, member(tn.ID, other.ID, tenancy.RoleMember), contract.ErrCancelForbidden, contract.RequestPending},
			{"ErrForbiddenBeforeConflict", approved, member(tn.ID, other.ID, tenancy.RoleBilling), tenancy.ErrForbidden, contract.RequestApproved},
			{"ErrConflictApprovedSubmitter", approved, member(tn.ID, submitter.ID, tenancy.RoleMember), tenancy.ErrConflict, contract.RequestApproved},
			{"ErrConflictApprovedOwner", approved, member(tn.ID, other.ID, tenancy.RoleOwner), tenancy.ErrConflict, contract.RequestApproved},
			{"ErrNotFoundOtherTenant", pending, member(outsider.ID, submitter.ID, tenancy.RoleOwner), contract.ErrRequestNotFound, contract.RequestPending},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				req := tc.request(t)
				notes := len(e.contractNotes(t, tn.ID))
				got, err := e.svc.Cancel(ctx, tc.by, req.ID)
				wantErr(t, "Cancel", err, tc.want)
				if tc.want == nil && (got.Status != contract.RequestCancelled || got.DecidedAt == nil || !got.DecidedAt.Equal(now())) {
					t.Fatalf("cancelled request: got %s", jsonString(got))
				}
				var te *contract.RequestTransitionError
				if errors.Is(tc.want, tenancy.ErrConflict) && (!errors.As(err, &te) || te.Status != contract.RequestApproved || te.Action != "cancel") {
					t.Fatalf("Cancel of an approved request: got %v, want a RequestTransitionError (approved, cancel)", err)
				}
				stored, err := e.svc.Request(ctx, tn.ID, req.ID)
				if err != nil || stored.Status != tc.wantStatus {
					t.Fatalf("request after Cancel: got %s, %v; want %s", jsonString(stored), err, tc.wantStatus)
				}
				wantNotes := notes
				if tc.want == nil {
					wantNotes++
				}
				if got := e.contractNotes(t, tn.ID); len(got) != wantNotes || (tc.want == nil && got[0].Data["status"] != "cancelled") {
					t.Fatalf("notifications: got %s, want %d, the newest saying cancelled when cancelled", jsonString(got), wantNotes)
				}
				if tc.wantStatus != contract.RequestApproved {
					// Free the pending change_seats slot for the next case.
					if _, err := e.svc.Reject(ctx, req.ID, ""); err != nil && !errors.Is(err, tenancy.ErrConflict) {
						t.Fatal(err)
					}
				}
			})
		}
	})
}
