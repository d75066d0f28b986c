package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestEntitlements(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		r := e.do(t, request{method: "GET", path: "/api/tenant/entitlements/limit", bearer: e.keyAll, header: acme})
		if r.status != 200 {
			t.Fatalf("limits: %d %s", r.status, r.body)
		}
		body := r.json(t)
		byFeature := map[string]map[string]any{}
		for _, d := range body["data"].([]any) {
			m := d.(map[string]any)
			byFeature[m["feature"].(string)] = m
		}
		inv := byFeature[catalog.FeatureInvoices]
		if inv == nil || inv["limit"] != 1000.0 || inv["usage"] != 0.0 || inv["remaining"] != 1000.0 || inv["period_start"] == nil || inv["period_end"] == nil {
			t.Fatalf("invoices entitlement = %v", inv)
		}
		if seats := byFeature[catalog.FeatureSeats]; seats["usage"] != 2.0 {
			t.Fatalf("seats = %v, want usage 2 (alice, bob)", seats)
		}
		if len(body["modules"].([]any)) == 0 {
			t.Fatalf("no modules in %v", body)
		}

		// Usage follows creation.
		e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme, body: `{"subject":"s","description":"d"}`})
		one := e.do(t, request{method: "GET", path: "/api/tenant/entitlements/limit?feature=support.tickets", bearer: e.keyAll, header: acme}).json(t)
		if one["usage"] != 1.0 || one["remaining"] != 199.0 {
			t.Fatalf("tickets after one create = %v", one)
		}
		wantProblem(t, e.do(t, request{method: "GET", path: "/api/tenant/entitlements/limit?feature=rockets", bearer: e.keyAll, header: acme}),
			http.StatusUnprocessableEntity, "validation_failed")
	})
}

func TestModuleToggle(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		toggle := func(key, body string) response {
			return e.do(t, request{method: "PATCH", path: "/api/tenant/entitlements/toggle", bearer: key, header: acme, body: body})
		}
		r := toggle(e.keyAll, `{"module":"support.tickets","enabled":false}`)
		if r.status != 200 || r.json(t)["enabled"] != false || r.json(t)["changed"] != true {
			t.Fatalf("toggle off: %d %s", r.status, r.body)
		}
		// The module's endpoints are now off.
		wantProblem(t, e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme, body: `{"subject":"s","description":"d"}`}),
			http.StatusForbidden, "module_disabled")
		// Same state again: 200, nothing changes, no new notification.
		if r := toggle(e.keyAll, `{"module":"support.tickets","enabled":false}`); r.status != 200 || r.json(t)["changed"] != false {
			t.Fatalf("idempotent toggle: %d %s", r.status, r.body)
		}
		notes := e.do(t, request{method: "GET", path: "/api/tenant/notifications", bearer: e.keyAll, header: acme}).json(t)
		toggled := 0
		for _, n := range notes["data"].([]any) {
			if n.(map[string]any)["type"] == tenancy.NotificationModuleToggled {
				toggled++
			}
		}
		if toggled != 1 {
			t.Fatalf("module.toggled notifications = %d, want 1: %v", toggled, notes)
		}
		if r := toggle(e.keyAll, `{"module":"support.tickets","enabled":true}`); r.status != 200 {
			t.Fatalf("toggle on: %d", r.status)
		}

		tests := []struct {
			name   string
			key    string
			body   string
			status int
			code   string
		}{
			{"BillingRoleForbidden", e.keyBob, `{"module":"support.tickets","enabled":false}`, 403, "forbidden"},
			{"NotToggleable", e.keyAll, `{"module":"collections.invoices","enabled":false}`, 422, "validation_failed"},
			{"UnknownModule", e.keyAll, `{"module":"rockets.launch","enabled":true}`, 422, "validation_failed"},
			{"MissingEnabled", e.keyAll, `{"module":"support.tickets"}`, 422, "validation_failed"},
			{"WrongType", e.keyAll, `{"module":"support.tickets","enabled":"yes"}`, 400, "invalid_request"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) { wantProblem(t, toggle(tt.key, tt.body), tt.status, tt.code) })
		}
	})
}

func TestNotifications(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		for i := 0; i < 25; i++ {
			_, err := e.svc.Notifications.Notify(ctx, e.acme.ID, tenancy.NewNotification{Type: "report.ready", Title: fmt.Sprintf("n%d", i), Body: "b"})
			check(t, err)
		}
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		page := e.do(t, request{method: "GET", path: "/api/tenant/notifications?limit=10", bearer: e.keyAll, header: acme}).json(t)
		data := page["data"].([]any)
		if len(data) != 10 || page["has_more"] != true || data[0].(map[string]any)["title"] != "n24" {
			t.Fatalf("first page: %d items, has_more %v, first %v", len(data), page["has_more"], data[0])
		}
		first := data[0].(map[string]any)["id"].(string)
		_, err := e.svc.Notifications.MarkRead(ctx, e.acme.ID, first)
		check(t, err)
		unread := e.do(t, request{method: "GET", path: "/api/tenant/notifications?unread=true&limit=100", bearer: e.keyAll, header: acme}).json(t)
		if n := len(unread["data"].([]any)); n != 24 {
			t.Fatalf("unread = %d, want 24", n)
		}
		next := e.do(t, request{method: "GET", path: "/api/tenant/notifications?limit=10&cursor=" + page["next_cursor"].(string), bearer: e.keyAll, header: acme}).json(t)
		if next["data"].([]any)[0].(map[string]any)["title"] != "n14" {
			t.Fatalf("second page starts with %v", next["data"].([]any)[0])
		}
		wantProblem(t, e.do(t, request{method: "GET", path: "/api/tenant/notifications?unread=maybe", bearer: e.keyAll, header: acme}), 400, "invalid_request")
		// globex has none of acme's notifications.
		g := e.do(t, request{method: "GET", path: "/api/tenant/notifications", bearer: e.keyAll, header: map[string]string{"X-Tenant-ID": e.globex.ID}}).json(t)
		if n := len(g["data"].([]any)); n != 0 {
			t.Fatalf("globex sees %d notifications", n)
		}
	})
}

func TestThresholdNotificationsOverHTTP(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		limit := int64(5)
		check(t, e.svc.Entitlements.SetLimit(context.Background(), "acme", catalog.FeatureTickets, &limit))
		acme := map[string]string{"X-Tenant-ID": e.acme.ID}
		for i := 0; i < 7; i++ {
			e.do(t, request{method: "POST", path: "/api/tickets", bearer: e.keyAll, header: acme, body: `{"subject":"s","description":"d"}`})
		}
		notes := e.do(t, request{method: "GET", path: "/api/tenant/notifications", bearer: e.keyAll, header: acme}).json(t)
		thresholds := 0
		for _, n := range notes["data"].([]any) {
			if n.(map[string]any)["type"] == tenancy.NotificationEntitlementThreshold {
				thresholds++
			}
		}
		if thresholds != 2 {
			t.Fatalf("threshold notifications = %d, want 2 (80%% and 100%%): %v", thresholds, notes)
		}
	})
}
