package client_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	tenantclient "github.com/tenantkit/tenantkit/httpapi/client"
	"github.com/tenantkit/tenantkit/httpapi/operatorapi/client"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

// The tests here drive tenantkit's operator API through the generated
// client: the API as the reference server wires it (tenantkit.New,
// App.HTTPConfig, httpapi.New) on a real port, on SQLite and on Postgres,
// with an operator key.

// mustServe serves app's API on a real port until the test ends and
// returns the server's URL and an operator key that may read and write.
func mustServe(t *testing.T, app *tenantkit.App) (url, key string) {
	t.Helper()
	ctx := context.Background()
	_, key, err := app.Operators.Create(ctx, operator.CreateInput{Name: "ops", Scopes: operator.Scopes()})
	check(t, err)
	return dbtest.Serve(t, app), key
}

// bearer returns a request editor that sends key, or no credential when
// key is "".
func bearer(key string) func(context.Context, *http.Request) error {
	return func(_ context.Context, req *http.Request) error {
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		return nil
	}
}

// mustClient returns an operator API client of the API at url that sends
// key.
func mustClient(t *testing.T, url, key string) *client.ClientWithResponses {
	t.Helper()
	c, err := client.NewClientWithResponses(url, client.WithRequestEditorFn(bearer(key)))
	check(t, err)
	return c
}

// mustCreateTenant creates the tenant slug on plan and returns it.
func mustCreateTenant(t *testing.T, c *client.ClientWithResponses, slug, plan string) client.Tenant {
	t.Helper()
	res, err := c.OperatorCreateTenantWithResponse(t.Context(), nil, client.CreateTenantInput{Slug: slug, Name: strings.ToUpper(slug[:1]) + slug[1:], PlanID: plan})
	check(t, err)
	if res.JSON201 == nil {
		t.Fatalf("create tenant %s: %s %s", slug, res.Status(), res.Body)
	}
	if loc := res.HTTPResponse.Header.Get("Location"); loc != "/api/operator/tenants/"+res.JSON201.ID {
		t.Errorf("create tenant %s: Location %q", slug, loc)
	}
	return *res.JSON201
}

// TestOperatorClient sets a tenant up as the platform's staff would —
// tenants, a user made a member, an API key for them — pages through the
// tenants, and finds the ticket the new key opened in the desk's list
// across tenants, all through the typed client.
func TestOperatorClient(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, _ *bun.DB, app *tenantkit.App) {
		url, key := mustServe(t, app)
		c, ctx := mustClient(t, url, key), t.Context()

		acme := mustCreateTenant(t, c, "acme", catalog.PlanGrowth)
		globex := mustCreateTenant(t, c, "globex", catalog.PlanStarter)
		initech := mustCreateTenant(t, c, "initech", catalog.PlanFree)
		if acme.PlanID != catalog.PlanGrowth || acme.Seats < 1 || !strings.HasPrefix(acme.ID, "ten_") {
			t.Fatalf("created tenant: %+v", acme)
		}
		got, err := c.OperatorGetTenantWithResponse(ctx, globex.ID, nil)
		check(t, err)
		if g := got.JSON200; g == nil || g.ID != globex.ID || g.Slug != "globex" || g.Name != "Globex" || g.PlanID != catalog.PlanStarter || g.Seats != globex.Seats {
			t.Fatalf("get tenant %s: %s %s", globex.ID, got.Status(), got.Body)
		}

		t.Run("ListTenants", func(t *testing.T) {
			// Newest first, two a page: the second page ends the list.
			limit := 2
			page1, err := c.OperatorListTenantsWithResponse(ctx, &client.OperatorListTenantsParams{Limit: &limit})
			check(t, err)
			if page1.JSON200 == nil || !page1.JSON200.HasMore || page1.JSON200.NextCursor == nil {
				t.Fatalf("list tenants, first page: %s %s", page1.Status(), page1.Body)
			}
			page2, err := c.OperatorListTenantsWithResponse(ctx, &client.OperatorListTenantsParams{Limit: &limit, Cursor: page1.JSON200.NextCursor})
			check(t, err)
			if page2.JSON200 == nil || page2.JSON200.HasMore || page2.JSON200.NextCursor != nil {
				t.Fatalf("list tenants, second page: %s %s", page2.Status(), page2.Body)
			}
			var ids []client.TenantID
			for _, ten := range append(page1.JSON200.Data, page2.JSON200.Data...) {
				ids = append(ids, ten.ID)
			}
			if want := []client.TenantID{initech.ID, globex.ID, acme.ID}; !slices.Equal(ids, want) {
				t.Fatalf("listed %v, want %v", ids, want)
			}
		})

		// Ann joins Acme as its owner and gets a key for its tickets.
		user, err := c.OperatorCreateUserWithResponse(ctx, nil, client.CreateUserInput{Email: "ann@acme.test", Name: "Ann"})
		check(t, err)
		if user.JSON201 == nil || user.JSON201.Email != "ann@acme.test" || !strings.HasPrefix(user.JSON201.ID, "usr_") {
			t.Fatalf("create user: %s %s", user.Status(), user.Body)
		}
		ann := *user.JSON201
		member, err := c.OperatorAddMemberWithResponse(ctx, acme.ID, nil, client.AddMemberInput{UserID: &ann.ID, Role: client.RoleOwner})
		check(t, err)
		if m := member.JSON201; m == nil || m.UserID != ann.ID || m.TenantID != acme.ID || m.Role != client.RoleOwner || m.Email != ann.Email {
			t.Fatalf("add member: %s %s", member.Status(), member.Body)
		}
		members, err := c.OperatorListMembersWithResponse(ctx, acme.ID, nil)
		check(t, err)
		if l := members.JSON200; l == nil || len(l.Data) != 1 || l.Data[0].UserID != ann.ID || l.HasMore {
			t.Fatalf("list members: %s %s", members.Status(), members.Body)
		}
		name := "helpdesk sync"
		apiKey, err := c.OperatorCreateAPIKeyWithResponse(ctx, acme.ID, nil, client.CreateAPIKeyInput{
			Email: &ann.Email, Name: &name, Scopes: []client.Scope{client.ScopeTicketsRead, client.ScopeTicketsWrite},
		})
		check(t, err)
		k := apiKey.JSON201
		if k == nil || k.UserID != ann.ID || k.TenantID == nil || *k.TenantID != acme.ID || k.Name != name ||
			!strings.HasPrefix(k.Key, k.Prefix) || k.RevokedAt != nil || len(k.Scopes) != 2 {
			t.Fatalf("create API key: %s %s", apiKey.Status(), apiKey.Body)
		}

		t.Run("ListTicketsAcrossTenants", func(t *testing.T) {
			tenant, err := tenantclient.NewClientWithResponses(url, tenantclient.WithRequestEditorFn(bearer(k.Key)))
			check(t, err)
			opened, err := tenant.CreateTicketWithResponse(ctx, nil, tenantclient.CreateTicketInput{Subject: "Printer on fire", Description: "It is on fire."})
			check(t, err)
			if opened.JSON201 == nil {
				t.Fatalf("open a ticket with the new key: %s %s", opened.Status(), opened.Body)
			}

			all, err := c.OperatorListTicketsWithResponse(ctx, nil)
			check(t, err)
			if l := all.JSON200; l == nil || len(l.Data) != 1 || l.HasMore {
				t.Fatalf("list tickets: %s %s", all.Status(), all.Body)
			}
			tk := all.JSON200.Data[0]
			if tk.ID != opened.JSON201.ID || tk.TenantID != acme.ID || tk.Subject != "Printer on fire" || tk.Requester.ID != ann.ID {
				t.Fatalf("listed ticket %+v, want %s of %s by %s", tk, opened.JSON201.ID, acme.ID, ann.ID)
			}
			none, err := c.OperatorListTicketsWithResponse(ctx, &client.OperatorListTicketsParams{TenantID: &globex.ID})
			check(t, err)
			if l := none.JSON200; l == nil || len(l.Data) != 0 {
				t.Fatalf("list globex's tickets: %s %s", none.Status(), none.Body)
			}
			requests, err := c.OperatorListContractRequestsWithResponse(ctx, &client.OperatorListContractRequestsParams{TenantID: &acme.ID})
			check(t, err)
			if l := requests.JSON200; l == nil || len(l.Data) != 0 || l.HasMore {
				t.Fatalf("list acme's contract requests: %s %s", requests.Status(), requests.Body)
			}
		})

		t.Run("TenantKeyRefused", func(t *testing.T) {
			res, err := mustClient(t, url, k.Key).OperatorListTenantsWithResponse(ctx, nil)
			check(t, err)
			mustProblem(t, res.Problem, res.Body, http.StatusForbidden, client.ProblemCodeInsufficientScope)
			if res.JSON200 != nil {
				t.Errorf("JSON200 = %v beside the problem", res.JSON200)
			}
		})
	})
}

// TestOperatorProblems reads error responses of the operator API as the
// one Problem type.
func TestOperatorProblems(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, _ *bun.DB, app *tenantkit.App) {
		url, key := mustServe(t, app)
		c := mustClient(t, url, key)

		t.Run("NotFound", func(t *testing.T) {
			const id = "ten_01jd3k5q8r9s0t1v2w3x4y5z6a" // well formed, no such tenant
			res, err := c.OperatorGetTenantWithResponse(t.Context(), id, nil)
			check(t, err)
			p := mustProblem(t, res.Problem, res.Body, http.StatusNotFound, client.ProblemCodeNotFound)
			if p.Errors != nil {
				t.Errorf("errors = %v, want none", *p.Errors)
			}
			if res.JSON200 != nil {
				t.Errorf("JSON200 = %v beside the problem", res.JSON200)
			}
		})

		t.Run("ValidationFailed", func(t *testing.T) {
			res, err := c.OperatorCreateTenantWithResponse(t.Context(), nil, client.CreateTenantInput{Slug: "Not A Slug", Name: "", PlanID: "gold"})
			check(t, err)
			p := mustProblem(t, res.Problem, res.Body, http.StatusUnprocessableEntity, client.ProblemCodeValidationFailed)
			if p.Errors == nil {
				t.Fatal("no field errors")
			}
			var fields []string
			for _, fe := range *p.Errors {
				if fe.Code == "" || fe.Message == "" {
					t.Errorf("field error %+v without a code or message", fe)
				}
				fields = append(fields, fe.Field)
			}
			if got := strings.Join(fields, ","); got != "slug,name,plan_id" { // the order of the body
				t.Errorf("fields %s, want slug,name,plan_id", got)
			}
			if p.Error() != *p.Detail {
				t.Errorf("Error() = %q, want the detail %q", p.Error(), *p.Detail)
			}
		})

		t.Run("Unauthenticated", func(t *testing.T) {
			res, err := mustClient(t, url, "").OperatorListTenantsWithResponse(t.Context(), nil)
			check(t, err)
			mustProblem(t, res.Problem, res.Body, http.StatusUnauthorized, client.ProblemCodeUnauthenticated)
			if res.HTTPResponse.Header.Get("WWW-Authenticate") == "" {
				t.Error("a 401 without WWW-Authenticate")
			}
		})
	})
}

// mustProblem checks that a response was a problem of status and code, a
// whole one (type, title, request id), and returns it.
func mustProblem(t *testing.T, p *client.Problem, body []byte, status int, code client.ProblemCode) *client.Problem {
	t.Helper()
	if p == nil {
		t.Fatalf("no problem decoded; body %s", body)
	}
	if p.Status != status || p.Code != code {
		t.Fatalf("problem %d %s, want %d %s; body %s", p.Status, p.Code, status, code, body)
	}
	if !p.Code.Valid() || p.Type != "https://tenantkit.dev/problems/"+string(code) || p.Title != http.StatusText(status) ||
		p.RequestID == "" || p.Detail == nil || *p.Detail == "" {
		t.Errorf("incomplete problem: %s", body)
	}
	return p
}

func check(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}
