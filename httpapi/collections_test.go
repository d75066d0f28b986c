package httpapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
)

// TestInvoiceCollections: an invoice past its due date shows overdue:
// true; once the scheduler ran, the tenant has the overdue notification
// and the reminders (growth: collections.reminders), and with
// collections.dunning (enterprise) the invoice is uncollectible with
// reason dunning. Every exchange is checked against the OpenAPI document.
func TestInvoiceCollections(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		_, err := e.svc.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "initech", Name: "Initech", PlanID: catalog.PlanEnterprise})
		check(t, err)
		_, err = e.svc.Members.Add(ctx, "initech", "alice@acme.test", tenancy.RoleOwner)
		check(t, err)
		scopes := []tenancy.Scope{tenancy.ScopeCollectionsRead, tenancy.ScopeCollectionsWrite}
		tests := []struct {
			name        string
			key         string
			wantStatus  string
			wantReason  any // nil: absent
			wantOverdue bool
			wantTypes   map[string]int
		}{
			{"Reminders", e.newKey("alice@acme.test", "acme", scopes...), "open", nil, true,
				map[string]int{"invoice.overdue": 1, "invoice.reminder": 3}},
			{"Dunning", e.newKey("alice@acme.test", "initech", scopes...), "uncollectible", "dunning", false,
				map[string]int{"invoice.overdue": 1, "invoice.reminder": 3, "invoice.uncollectible": 1}},
		}
		app, err := tenantkit.New(e.db, catalog.Default())
		check(t, err)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				body := `{"customer":{"name":"Ada","email":"ada@example.com"},"currency":"USD",` +
					`"line_items":[{"description":"Plan","quantity":1,"unit_amount":1999}],"due_date":"2020-01-31"}`
				r := e.do(t, request{method: "POST", path: "/api/v1/collections/invoices", bearer: tt.key, body: body})
				if r.status != http.StatusCreated {
					t.Fatalf("create: %d %s", r.status, r.body)
				}
				created := r.json(t)
				if created["overdue"] != true {
					t.Errorf("created past its due date: overdue %v, want true", created["overdue"])
				}
				if err := app.Scheduler.Tick(ctx, time.Now()); err != nil {
					t.Fatal(err)
				}
				got := e.do(t, request{method: "GET", path: "/api/v1/collections/invoices/" + created["id"].(string), bearer: tt.key}).json(t)
				if got["status"] != tt.wantStatus || got["uncollectible_reason"] != tt.wantReason || got["overdue"] != tt.wantOverdue {
					t.Errorf("after the schedule: status %v, uncollectible_reason %v, overdue %v; want %v, %v, %v",
						got["status"], got["uncollectible_reason"], got["overdue"], tt.wantStatus, tt.wantReason, tt.wantOverdue)
				}
				list := e.do(t, request{method: "GET", path: "/api/tenant/notifications?limit=100", bearer: tt.key}).json(t)
				types := map[string]int{}
				for _, n := range list["data"].([]any) {
					note := n.(map[string]any)
					if data, _ := note["data"].(map[string]any); data["invoice_id"] == created["id"] {
						types[note["type"].(string)]++
					}
				}
				for typ, want := range tt.wantTypes {
					if types[typ] != want {
						t.Errorf("%d %s notifications, want %d (all: %v)", types[typ], typ, want, types)
					}
				}
				if len(types) != len(tt.wantTypes) {
					t.Errorf("notification types %v, want %v", types, tt.wantTypes)
				}
			})
		}
	})
}
