package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/tenantkit/tenantkit/tenancy"
)

// notify gives the tenant n notifications and returns their ids, oldest
// first.
func notify(t *testing.T, e *env, tenantID string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		note, err := e.svc.Notifications.Notify(context.Background(), tenantID,
			tenancy.NewNotification{Type: "report.ready", Title: fmt.Sprintf("Report %d", i), Body: "b"})
		check(t, err)
		ids = append(ids, note.ID)
	}
	return ids
}

// inbox reads the first page of the caller's notifications in tenant and
// returns the answer and each listed notification's read_at by id.
func inbox(t *testing.T, e *env, bearer, tenantID string) (map[string]any, map[string]any) {
	t.Helper()
	r := e.do(t, request{method: "GET", path: "/api/tenant/notifications?limit=100", bearer: bearer,
		header: map[string]string{"X-Tenant-ID": tenantID}})
	if r.status != http.StatusOK {
		t.Fatalf("list notifications: %d %s", r.status, r.body)
	}
	page := r.json(t)
	readAt := map[string]any{}
	for _, n := range page["data"].([]any) {
		n := n.(map[string]any)
		readAt[n["id"].(string)] = n["read_at"]
	}
	return page, readAt
}

// TestNotificationRead marks notifications read one by one over HTTP:
// idempotently, for the whole tenant, never another tenant's.
func TestNotificationRead(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		ours := notify(t, e, e.acme.ID, 3)
		theirs := notify(t, e, e.globex.ID, 1)[0]
		read := func(t *testing.T, bearer, id string) response {
			t.Helper()
			return e.do(t, request{method: "POST", path: "/api/tenant/notifications/" + id + "/read", bearer: bearer, header: acme})
		}

		first := read(t, e.keyAll, ours[0])
		if first.status != http.StatusOK {
			t.Fatalf("read: %d %s", first.status, first.body)
		}
		got := first.json(t)
		if got["id"] != ours[0] || got["read_at"] == nil || got["title"] != "Report 0" {
			t.Fatalf("read notification: %s", first.body)
		}

		t.Run("AgainKeepsFirstReadAt", func(t *testing.T) {
			again := read(t, e.keyAll, ours[0])
			if again.status != http.StatusOK || again.json(t)["read_at"] != got["read_at"] {
				t.Fatalf("read again: %d %s, want read_at %v", again.status, again.body, got["read_at"])
			}
		})
		t.Run("SharedByTheTenantsMembers", func(t *testing.T) {
			// bob (billing, a key without any notification scope) sees
			// what alice read as read.
			page, readAt := inbox(t, e, e.keyBob, e.acme.ID)
			if readAt[ours[0]] != got["read_at"] || readAt[ours[1]] != nil || page["unread_count"] != 2.0 {
				t.Fatalf("bob's inbox: %v, unread_count %v; want %s read at %v and 2 unread", readAt, page["unread_count"], ours[0], got["read_at"])
			}
			if r := read(t, e.keyBob, ours[1]); r.status != http.StatusOK {
				t.Fatalf("bob reads: %d %s", r.status, r.body)
			}
			if page, _ := inbox(t, e, e.keyAll, e.acme.ID); page["unread_count"] != 1.0 {
				t.Fatalf("alice's unread_count after bob read one: %v, want 1", page["unread_count"])
			}
		})
		t.Run("NotFound", func(t *testing.T) {
			for name, id := range map[string]string{
				"OtherTenants": theirs,
				"Unknown":      "ntf_01jd0000000000000000000000",
				"Malformed":    "ntf_nope",
				"UpperCase":    "NTF_01JD0000000000000000000000",
				"OtherType":    "ccr_01jd0000000000000000000000",
			} {
				t.Run(name, func(t *testing.T) {
					wantProblem(t, read(t, e.keyAll, id), http.StatusNotFound, "not_found")
				})
			}
			// globex's notification is still unread for globex.
			if page, readAt := inbox(t, e, e.keyAll, e.globex.ID); readAt[theirs] != nil || page["unread_count"] != 1.0 {
				t.Fatalf("globex's inbox: %v, unread_count %v", readAt, page["unread_count"])
			}
		})
	})
}

// TestNotificationReadAll marks all of a tenant's notifications read over
// HTTP, optionally up to one, and checks unread_count and the other
// tenant.
func TestNotificationReadAll(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		n := notify(t, e, e.acme.ID, 4) // n[0] oldest … n[3] newest
		notify(t, e, e.globex.ID, 2)
		readAll := func(t *testing.T, body string) response {
			t.Helper()
			return e.do(t, request{method: "POST", path: "/api/tenant/notifications/read-all", bearer: e.keyAll, header: acme, body: body})
		}
		if page, _ := inbox(t, e, e.keyAll, e.acme.ID); page["unread_count"] != 4.0 || page["has_more"] != false {
			t.Fatalf("inbox before: unread_count %v", page["unread_count"])
		}
		if r := e.do(t, request{method: "POST", path: "/api/tenant/notifications/" + n[0] + "/read", bearer: e.keyAll, header: acme}); r.status != 200 {
			t.Fatalf("read n[0]: %d %s", r.status, r.body)
		}

		// Each step runs on what the steps before it left.
		steps := []struct {
			name        string
			body        string
			wantUpdated float64
			wantUnread  float64
			wantRead    []string
		}{
			{"UpTo", fmt.Sprintf(`{"up_to":%q}`, n[2]), 2, 1, n[:3]}, // n[0] was read already
			{"UpToAgain", fmt.Sprintf(`{"up_to":%q}`, n[2]), 0, 1, n[:3]},
			{"EmptyObjectIsAll", `{}`, 1, 0, n},
			{"NoBodyAgain", "", 0, 0, n},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				r := readAll(t, st.body)
				if r.status != http.StatusOK || r.json(t)["updated"] != st.wantUpdated {
					t.Fatalf("read-all %s: %d %s, want updated %v", st.body, r.status, r.body, st.wantUpdated)
				}
				page, readAt := inbox(t, e, e.keyAll, e.acme.ID)
				if page["unread_count"] != st.wantUnread {
					t.Fatalf("unread_count: %v, want %v", page["unread_count"], st.wantUnread)
				}
				for _, id := range st.wantRead {
					if readAt[id] == nil {
						t.Fatalf("%s unread after read-all, want read: %v", id, readAt)
					}
				}
			})
		}
		t.Run("FirstReadAtKept", func(t *testing.T) {
			r := e.do(t, request{method: "POST", path: "/api/tenant/notifications/" + n[0] + "/read", bearer: e.keyAll, header: acme})
			_, readAt := inbox(t, e, e.keyAll, e.acme.ID)
			if r.json(t)["read_at"] != readAt[n[0]] {
				t.Fatalf("n[0] read_at changed: %v", readAt)
			}
		})
		t.Run("OtherTenantUntouched", func(t *testing.T) {
			if page, _ := inbox(t, e, e.keyAll, e.globex.ID); page["unread_count"] != 2.0 {
				t.Fatalf("globex unread_count: %v, want 2", page["unread_count"])
			}
		})
		t.Run("BadInput", func(t *testing.T) {
			tests := []struct {
				name, body string
				status     int
				code       string
				fields     []string
			}{
				{"UpToNotAnID", `{"up_to":"latest"}`, 422, "validation_failed", []string{"up_to"}},
				{"UpToOtherType", `{"up_to":"ccr_01jd0000000000000000000000"}`, 422, "validation_failed", []string{"up_to"}},
				{"UpToNotString", `{"up_to":7}`, 400, "invalid_request", []string{"up_to"}},
				{"UnknownField", `{"before":"ntf_01jd0000000000000000000000"}`, 400, "invalid_request", []string{"before"}},
				{"NotJSON", `up_to`, 400, "invalid_request", nil},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					r := readAll(t, tc.body)
					wantProblem(t, r, tc.status, tc.code)
					if got := errorFields(t, r); fmt.Sprint(got) != fmt.Sprint(tc.fields) {
						t.Fatalf("fields %v, want %v", got, tc.fields)
					}
				})
			}
			wantProblem(t, e.do(t, request{method: "POST", path: "/api/tenant/notifications/read-all", bearer: e.keyAll,
				header: map[string]string{"X-Tenant-ID": e.acme.ID, "Content-Type": "text/plain"}, body: `{}`}),
				http.StatusUnsupportedMediaType, "unsupported_media_type")
		})
	})
}

// TestNotificationUnreadCountFollowsNewNotifications: a notification
// that arrives after read-all is unread and counted.
func TestNotificationUnreadCountFollowsNewNotifications(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		notify(t, e, e.acme.ID, 2)
		if r := e.do(t, request{method: "POST", path: "/api/tenant/notifications/read-all", bearer: e.keyAll, header: acme}); r.status != 200 {
			t.Fatalf("read-all: %d %s", r.status, r.body)
		}
		later := notify(t, e, e.acme.ID, 1)[0]
		page, readAt := inbox(t, e, e.keyAll, e.acme.ID)
		if page["unread_count"] != 1.0 || readAt[later] != nil {
			t.Fatalf("after a new notification: unread_count %v, %v", page["unread_count"], readAt)
		}
		unread := e.do(t, request{method: "GET", path: "/api/tenant/notifications?unread=true&limit=1", bearer: e.keyAll, header: acme}).json(t)
		if data := unread["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != later || unread["unread_count"] != 1.0 {
			t.Fatalf("unread page: %v", unread)
		}
	})
}

// TestNotificationsReadByEveryRole: every role may mark read (the
// permission is notifications:read, which every role holds), with a key
// of any scope (notifications need none).
func TestNotificationsReadByEveryRole(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for _, role := range tenancy.Roles() {
			t.Run(string(role), func(t *testing.T) {
				email := "reader-" + string(role) + "@acme.test"
				_, err := e.svc.Directory.CreateUser(context.Background(), tenancy.CreateUserInput{Email: email, Name: "Reader"})
				check(t, err)
				_, err = e.svc.Members.Add(context.Background(), "acme", email, role)
				check(t, err)
				key := e.newKey(email, "acme", tenancy.ScopeTicketsRead) // no collections scope
				id := notify(t, e, e.acme.ID, 1)[0]
				if r := e.do(t, request{method: "POST", path: "/api/tenant/notifications/" + id + "/read", bearer: key}); r.status != http.StatusOK {
					t.Fatalf("%s reads: %d %s", role, r.status, r.body)
				}
				if r := e.do(t, request{method: "POST", path: "/api/tenant/notifications/read-all", bearer: key}); r.status != http.StatusOK {
					t.Fatalf("%s reads all: %d %s", role, r.status, r.body)
				}
			})
		}
	})
}
