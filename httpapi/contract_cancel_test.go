package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// memberKey adds a new user with role to acme and returns a key of it.
func memberKey(t *testing.T, e *env, name string, role tenancy.Role) string {
	t.Helper()
	email := name + "@acme.test"
	_, err := e.svc.Directory.CreateUser(context.Background(), tenancy.CreateUserInput{Email: email, Name: name})
	check(t, err)
	_, err = e.svc.Members.Add(context.Background(), "acme", email, role)
	check(t, err)
	return e.newKey(email, "acme", tenancy.ScopeTicketsRead)
}

// submitSeats submits a pending change_seats request at acme as bob.
func submitSeats(t *testing.T, e *env, seats string) string {
	t.Helper()
	r := e.do(t, request{method: "POST", path: "/api/contract-requests", bearer: e.keyBob,
		body: `{"type":"change_seats","seats":` + seats + `,"effective":"next_period"}`})
	if r.status != http.StatusCreated {
		t.Fatalf("submit: %d %s", r.status, r.body)
	}
	return r.json(t)["id"].(string)
}

func cancelRequest(t *testing.T, e *env, bearer, id string) response {
	t.Helper()
	return e.do(t, request{method: "POST", path: "/api/contract-requests/" + id + "/cancel", bearer: bearer,
		header: map[string]string{"X-Tenant-ID": e.acme.ID}})
}

// requestStatus reads a request's status at acme.
func requestStatus(t *testing.T, e *env, id string) string {
	t.Helper()
	r := e.do(t, request{method: "GET", path: "/api/contract-requests/" + id, bearer: e.keyBob})
	if r.status != http.StatusOK {
		t.Fatalf("get %s: %d %s", id, r.status, r.body)
	}
	return r.json(t)["status"].(string)
}

// notesAbout counts acme's contract_request.updated notifications about
// the request id, by status.
func notesAbout(t *testing.T, e *env, id string) map[string]int {
	t.Helper()
	ns, _, err := e.svc.Notifications.List(context.Background(), e.acme.ID, tenancy.NotificationFilter{Limit: 100})
	check(t, err)
	out := map[string]int{}
	for _, n := range ns {
		if n.Type == tenancy.NotificationContractRequestUpdated && n.Data["contract_request_id"] == id {
			out[n.Data["status"].(string)]++
		}
	}
	return out
}

// TestCancelContractRequestOverHTTP: a pending request is cancelled by
// its submitter or an owner or admin; another member is refused, a
// decided request is a conflict naming its status, another tenant's
// request is not found. A refused cancellation changes nothing.
func TestCancelContractRequestOverHTTP(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ops := operator(e)
		keyAdmin := memberKey(t, e, "erin", tenancy.RoleAdmin)
		keyBilling := memberKey(t, e, "carl", tenancy.RoleBilling) // may submit, did not
		keyMember := memberKey(t, e, "dora", tenancy.RoleMember)   // may not submit
		pending := func(t *testing.T) string { return submitSeats(t, e, "12") }
		approved := func(t *testing.T) string {
			id := pending(t)
			if _, err := ops.Approve(ctx, id, ""); err != nil {
				t.Fatal(err)
			}
			return id
		}
		cancelled := func(t *testing.T) string {
			id := pending(t)
			if r := cancelRequest(t, e, e.keyBob, id); r.status != http.StatusOK {
				t.Fatalf("cancel: %d %s", r.status, r.body)
			}
			return id
		}

		tests := []struct {
			name       string
			request    func(t *testing.T) string
			bearer     string
			wantStatus int
			wantCode   string
			wantDetail string
			final      string // the request's status afterwards
		}{
			{"BySubmitter", pending, e.keyBob, 200, "", "", "cancelled"},
			{"ByOwner", pending, e.keyAll, 200, "", "", "cancelled"},
			{"ByAdmin", pending, keyAdmin, 200, "", "", "cancelled"},
			{"ForbiddenBillingNotSubmitter", pending, keyBilling, 403, "forbidden", "only the member who submitted", "pending"},
			{"ForbiddenMember", pending, keyMember, 403, "forbidden", "", "pending"},
			{"ConflictApproved", approved, e.keyBob, 409, "conflict", "contract request is approved, cannot cancel", "approved"},
			{"ConflictApprovedOwner", approved, e.keyAll, 409, "conflict", "contract request is approved, cannot cancel", "approved"},
			{"ConflictCancelled", cancelled, e.keyBob, 409, "conflict", "contract request is cancelled, cannot cancel", "cancelled"},
			{"ForbiddenBeforeConflict", approved, keyBilling, 403, "forbidden", "", "approved"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				id := tc.request(t)
				// Free the pending change_seats slot for the next case.
				t.Cleanup(func() { _, _ = ops.Reject(ctx, id, "") })
				before := notesAbout(t, e, id)
				r := cancelRequest(t, e, tc.bearer, id)
				if tc.wantStatus == http.StatusOK {
					got := r.json(t)
					if r.status != 200 || got["id"] != id || got["status"] != "cancelled" || got["decided_at"] == nil || got["submitted_by"] != e.bob.ID {
						t.Fatalf("cancel: %d %s", r.status, r.body)
					}
					if n := notesAbout(t, e, id); n["cancelled"] != 1 {
						t.Fatalf("notifications about %s: %v, want one cancelled", id, n)
					}
				} else {
					wantProblem(t, r, tc.wantStatus, tc.wantCode)
					if detail, _ := r.json(t)["detail"].(string); !strings.Contains(detail, tc.wantDetail) {
						t.Fatalf("detail %q, want it to contain %q", detail, tc.wantDetail)
					}
					if n := notesAbout(t, e, id); len(n) != len(before) {
						t.Fatalf("a refused cancellation notified: %v, before %v", n, before)
					}
				}
				if got := requestStatus(t, e, id); got != tc.final {
					t.Fatalf("status afterwards: %s, want %s", got, tc.final)
				}
			})
		}

		t.Run("NotFound", func(t *testing.T) {
			theirs, err := ops.Submit(ctx, e.globex.ID, e.alice.ID, contract.SubmitInput{Type: "change_seats", Seats: ptrTo(4), Effective: "next_period"})
			check(t, err)
			for name, id := range map[string]string{
				"OtherTenants": theirs.ID,
				"Unknown":      "ccr_01jd0000000000000000000000",
				"Malformed":    "ccr_x",
				"OtherType":    "ntf_01jd0000000000000000000000",
			} {
				t.Run(name, func(t *testing.T) {
					// alice owns acme: as owner she could cancel any of acme's.
					wantProblem(t, cancelRequest(t, e, e.keyAll, id), http.StatusNotFound, "not_found")
				})
			}
			if got, err := ops.Request(ctx, e.globex.ID, theirs.ID); err != nil || got.Status != contract.RequestPending {
				t.Fatalf("globex's request: %+v, %v; want pending", got, err)
			}
		})
	})
}

// TestCancelRacesApprove races a tenant's cancellation against the
// operator's approval of the same request: exactly one wins, the loser
// gets a conflict, and the request and its notifications show the
// winner's outcome only. Run it with -race.
func TestCancelRacesApprove(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ops := operator(e)
		const rounds = 8
		cancels := 0
		defer func() { t.Logf("the cancellation won %d of %d rounds", cancels, rounds) }()
		for round := range rounds {
			id := submitSeats(t, e, "12")
			var (
				wg         sync.WaitGroup
				cancel     response
				approveErr error
			)
			start := make(chan struct{})
			wg.Go(func() {
				<-start
				cancel = cancelRequest(t, e, e.keyBob, id)
			})
			wg.Go(func() {
				<-start
				_, approveErr = ops.Approve(context.Background(), id, "")
			})
			close(start)
			wg.Wait()

			cancelWon := cancel.status == http.StatusOK
			switch {
			case cancelWon && approveErr == nil:
				t.Fatalf("round %d: both the cancellation and the approval succeeded", round)
			case !cancelWon && approveErr != nil:
				t.Fatalf("round %d: neither succeeded: cancel %d %s, approve %v", round, cancel.status, cancel.body, approveErr)
			case cancelWon && !errors.Is(approveErr, tenancy.ErrConflict):
				t.Fatalf("round %d: approval lost with %v, want a conflict", round, approveErr)
			case !cancelWon:
				wantProblem(t, cancel, http.StatusConflict, "conflict")
			}
			want := "cancelled"
			if cancelWon {
				cancels++
			} else {
				want = "approved"
			}
			if got := requestStatus(t, e, id); got != want {
				t.Fatalf("round %d: status %s, want the winner's %s", round, got, want)
			}
			if n := notesAbout(t, e, id); len(n) != 1 || n[want] != 1 {
				t.Fatalf("round %d: notifications about %s: %v, want one %s", round, id, n, want)
			}
		}
	})
}
