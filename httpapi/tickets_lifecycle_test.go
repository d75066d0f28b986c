package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// tickets is a client of the tickets endpoints for one key and tenant.
type tickets struct {
	e      *env
	key    string
	header map[string]string
}

func (c tickets) with(extra map[string]string) map[string]string {
	h := map[string]string{}
	for k, v := range c.header {
		h[k] = v
	}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

func (c tickets) do(t testing.TB, method, path, body string, extra map[string]string) response {
	t.Helper()
	return c.e.do(t, request{method: method, path: path, bearer: c.key, body: body, header: c.with(extra)})
}

// create opens a ticket and returns its JSON.
func (c tickets) create(t testing.TB, body string) map[string]any {
	t.Helper()
	r := c.do(t, "POST", "/api/tickets", body, nil)
	if r.status != http.StatusCreated {
		t.Fatalf("create ticket: %d %s", r.status, r.body)
	}
	return r.json(t)
}

func (c tickets) get(t testing.TB, id string) response {
	t.Helper()
	return c.do(t, "GET", "/api/tickets/"+id, "", nil)
}

func (c tickets) patch(t testing.TB, id, body string) response {
	t.Helper()
	return c.do(t, "PATCH", "/api/tickets/"+id, body, nil)
}

// mustPatch changes a ticket and returns its JSON.
func (c tickets) mustPatch(t testing.TB, id, body string) map[string]any {
	t.Helper()
	r := c.patch(t, id, body)
	if r.status != http.StatusOK {
		t.Fatalf("PATCH %s %s: %d %s", id, body, r.status, r.body)
	}
	return r.json(t)
}

func (c tickets) comment(t testing.TB, id, body string, extra map[string]string) response {
	t.Helper()
	return c.do(t, "POST", "/api/tickets/"+id+"/comments", body, extra)
}

func (c tickets) comments(t testing.TB, id, query string) response {
	t.Helper()
	return c.do(t, "GET", "/api/tickets/"+id+"/comments"+query, "", nil)
}

// wantUnchanged fails unless GET of the ticket answers exactly before.
func (c tickets) wantUnchanged(t testing.TB, id string, before []byte) {
	t.Helper()
	if got := c.get(t, id); string(got.body) != string(before) {
		t.Fatalf("ticket changed:\n got %s\nwant %s", got.body, before)
	}
}

// wantConflictStatus checks a 409 conflict that names the ticket's status.
func wantConflictStatus(t *testing.T, r response, status string) {
	t.Helper()
	wantProblem(t, r, http.StatusConflict, "conflict")
	if got := r.json(t)["current_status"]; got != status {
		t.Fatalf("current_status = %v, want %q; body %s", got, status, r.body)
	}
}

// replica is the App of another server on e's database: the platform
// side (agent replies) and the scheduler (CheckSLA) use it.
func replica(t *testing.T, e *env) *tenantkit.App {
	t.Helper()
	app, err := tenantkit.New(e.db, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	return app
}

func TestTicketUpdate(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := tickets{e: e, key: e.keyAll, header: map[string]string{"X-Tenant-ID": e.acme.ID}}
		tk := acme.create(t, `{"subject":"Export fails","description":"500","priority":"high","tags":["export"]}`)
		id := tk["id"].(string)
		created, _ := time.Parse(time.RFC3339Nano, tk["created_at"].(string))
		due := func(tk map[string]any, field string) time.Duration {
			t.Helper()
			at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(tk[field]))
			if err != nil {
				t.Fatalf("%s = %v: %v", field, tk[field], err)
			}
			return at.Sub(created)
		}
		// acme's plan includes support.sla: targets by priority.
		if due(tk, "first_response_due_at") != 4*time.Hour || due(tk, "resolution_due_at") != 24*time.Hour ||
			tk["sla_breached"] != false || tk["first_responded_at"] != nil || tk["satisfaction"] != nil {
			t.Fatalf("new high ticket = %v, want targets 4h/24h, not breached", tk)
		}

		t.Run("Fields", func(t *testing.T) {
			got := acme.mustPatch(t, id, `{"priority":"urgent","tags":["Billing Issue","billing issue","export"]}`)
			if got["priority"] != "urgent" || fmt.Sprint(got["tags"]) != "[billing-issue export]" ||
				due(got, "first_response_due_at") != time.Hour || due(got, "resolution_due_at") != 8*time.Hour {
				t.Fatalf("PATCH priority and tags = %v", got)
			}
			if got["updated_at"] == tk["updated_at"] {
				t.Errorf("updated_at unchanged by a change")
			}
			again := acme.patch(t, id, `{"priority":"urgent","tags":["billing-issue","export"],"status":null}`)
			if again.status != 200 || again.json(t)["updated_at"] != got["updated_at"] {
				t.Errorf("PATCH with what the ticket has: %d, updated_at %v; want 200, unchanged", again.status, again.json(t)["updated_at"])
			}
			if r := acme.patch(t, id, `{}`); r.status != 200 {
				t.Errorf("empty PATCH: %d %s", r.status, r.body)
			}
		})
		t.Run("Transitions", func(t *testing.T) {
			steps := []struct {
				to     string
				status int
				now    string // the ticket's status after the step
			}{
				{"pending", 200, "pending"},
				{"on_hold", 200, "on_hold"},
				{"solved", 200, "solved"},
				{"pending", 409, "solved"}, // solved → open or closed only
				{"on_hold", 409, "solved"},
				{"open", 200, "open"}, // reopen
				{"closed", 200, "closed"},
				{"open", 409, "closed"}, // final
				{"solved", 409, "closed"},
				{"closed", 200, "closed"}, // no-op
			}
			tk := acme.create(t, `{"subject":"s","description":"d"}`)
			id := tk["id"].(string)
			for _, st := range steps {
				before := acme.get(t, id).body
				r := acme.patch(t, id, fmt.Sprintf(`{"status":%q}`, st.to))
				if st.status == http.StatusConflict {
					wantConflictStatus(t, r, st.now)
					acme.wantUnchanged(t, id, before)
					continue
				}
				if r.status != st.status || r.json(t)["status"] != st.now {
					t.Fatalf("PATCH status %s: %d %s; want %d, status %s", st.to, r.status, r.body, st.status, st.now)
				}
			}
			// A closed ticket takes no other change either.
			before := acme.get(t, id).body
			wantConflictStatus(t, acme.patch(t, id, `{"priority":"low"}`), "closed")
			wantConflictStatus(t, acme.patch(t, id, `{"tags":["late"]}`), "closed")
			acme.wantUnchanged(t, id, before)
		})
		t.Run("BadInput", func(t *testing.T) {
			before := acme.get(t, id).body
			tests := []struct {
				name, body string
				status     int
				fields     []string
			}{
				{"UnknownStatus", `{"status":"archived","priority":"low"}`, 422, []string{"status"}},
				{"UnknownPriority", `{"priority":"whenever"}`, 422, []string{"priority"}},
				{"BadTags", `{"tags":["ok","no/slash",""]}`, 422, []string{"tags[1]", "tags[2]"}},
				{"TooManyTags", `{"tags":["a","b","c","d","e","f","g","h","i","j","k"]}`, 422, []string{"tags"}},
				{"UnknownField", `{"subject":"renamed"}`, 400, []string{"subject"}},
				{"WrongType", `{"priority":3}`, 400, []string{"priority"}},
				{"NotJSON", `status=open`, 400, nil},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					r := acme.patch(t, id, tt.body)
					code := "validation_failed"
					if tt.status == 400 {
						code = "invalid_request"
					}
					wantProblem(t, r, tt.status, code)
					if got := errorFields(t, r); tt.fields != nil && !slices.Equal(got, tt.fields) {
						t.Errorf("error fields = %v, want %v", got, tt.fields)
					}
					acme.wantUnchanged(t, id, before)
				})
			}
		})
		t.Run("Access", func(t *testing.T) {
			before := acme.get(t, id).body
			globex := tickets{e: e, key: e.keyAll, header: map[string]string{"X-Tenant-ID": e.globex.ID}}
			wantProblem(t, globex.patch(t, id, `{"priority":"low"}`), 404, "not_found")
			wantProblem(t, acme.patch(t, "tkt_nope", `{"priority":"low"}`), 404, "not_found")
			readOnly := tickets{e: e, key: e.keyNone, header: acme.header}
			wantProblem(t, readOnly.patch(t, id, `{"priority":"low"}`), 403, "insufficient_scope")
			acme.wantUnchanged(t, id, before)
			// globex's plan has no support.sla: no targets.
			g := globex.create(t, `{"subject":"s","description":"d","priority":"urgent"}`)
			for _, f := range []string{"first_response_due_at", "resolution_due_at", "sla_breached", "first_responded_at", "satisfaction"} {
				if g[f] != nil {
					t.Errorf("ticket without support.sla: %s = %v, want null", f, g[f])
				}
			}
			g = globex.mustPatch(t, g["id"].(string), `{"priority":"low"}`)
			if g["first_response_due_at"] != nil || g["sla_breached"] != nil {
				t.Errorf("priority change gave a ticket without support.sla targets: %v", g)
			}
		})
	})
}

func TestTicketComments(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := tickets{e: e, key: e.keyAll, header: map[string]string{"X-Tenant-ID": e.acme.ID}}
		id := acme.create(t, `{"subject":"Export fails","description":"500"}`)["id"].(string)
		acme.mustPatch(t, id, `{"status":"pending"}`)

		r := acme.comment(t, id, `{"body":"Here is the log:\n\tline 1"}`, nil)
		if r.status != http.StatusCreated {
			t.Fatalf("comment: %d %s", r.status, r.body)
		}
		c := r.json(t)
		author := c["author"].(map[string]any)
		if !strings.HasPrefix(c["id"].(string), "cmt_") || c["ticket_id"] != id || c["body"] != "Here is the log:\n\tline 1" ||
			author["type"] != "requester" || author["id"] != e.alice.ID || author["name"] != "Alice" {
			t.Fatalf("comment = %v", c)
		}
		if tk := acme.get(t, id).json(t); tk["status"] != "open" || tk["updated_at"] != c["created_at"] {
			t.Errorf("after the requester's comment: status %v, updated_at %v; want open, %v", tk["status"], tk["updated_at"], c["created_at"])
		}

		t.Run("AgentReply", func(t *testing.T) {
			ops := replica(t, e)
			reply, err := ops.Support.AgentReply(context.Background(), e.acme.ID, id, "agent-7", "Looking into it.")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ops.Support.AgentReply(context.Background(), e.acme.ID, id, "agent-8", "Still on it."); err != nil {
				t.Fatal(err)
			}
			tk := acme.get(t, id).json(t)
			if tk["first_responded_at"] != reply.CreatedAt.Format(time.RFC3339Nano) {
				t.Errorf("first_responded_at = %v, want the first reply's %v", tk["first_responded_at"], reply.CreatedAt)
			}
			page := acme.comments(t, id, "").json(t)
			data := page["data"].([]any)
			if len(data) != 3 {
				t.Fatalf("thread holds %d comments, want 3", len(data))
			}
			a := data[1].(map[string]any)["author"].(map[string]any)
			if a["type"] != "agent" || a["id"] != "agent-7" || a["name"] != nil {
				t.Errorf("agent's author = %v, want type agent, id agent-7, no name", a)
			}
		})
		t.Run("Pages", func(t *testing.T) {
			id := acme.create(t, `{"subject":"chatty","description":"d"}`)["id"].(string)
			var want []string
			for i := range 5 {
				want = append(want, acme.comment(t, id, fmt.Sprintf(`{"body":"c%d"}`, i), nil).json(t)["id"].(string))
			}
			var (
				got   []string
				sizes []int
			)
			query := "?limit=2"
			for {
				page := acme.comments(t, id, query).json(t)
				data := page["data"].([]any)
				sizes = append(sizes, len(data))
				for _, d := range data {
					got = append(got, d.(map[string]any)["id"].(string))
				}
				if page["has_more"] != true {
					break
				}
				query = "?limit=2&cursor=" + page["next_cursor"].(string)
			}
			if !slices.Equal(got, want) || fmt.Sprint(sizes) != "[2 2 1]" {
				t.Fatalf("pages %v holding %v, want [2 2 1] holding %v (oldest first)", sizes, got, want)
			}
			wantProblem(t, acme.comments(t, id, "?cursor=garbage!"), 400, "invalid_request")
			wantProblem(t, acme.comments(t, id, "?status=open"), 400, "invalid_request")
		})
		t.Run("BadInput", func(t *testing.T) {
			id := acme.create(t, `{"subject":"quiet","description":"d"}`)["id"].(string)
			before := acme.get(t, id).body
			longest := strings.Repeat("é", support.MaxCommentLen)
			tests := []struct {
				name, body string
				status     int
				code       string
			}{
				{"OverLimit", `{"body":"` + longest + `x"}`, 422, "too_long"},
				{"Empty", `{"body":""}`, 422, "required"},
				{"Blank", `{"body":" \n "}`, 422, "required"},
				{"Missing", `{}`, 422, "required"},
				{"Nul", `{"body":"a\u0000b"}`, 422, "nul_byte"},
				{"UnknownField", `{"body":"x","author":"me"}`, 400, "unknown_field"},
				{"WrongType", `{"body":5}`, 400, "invalid_type"},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					r := acme.comment(t, id, tt.body, nil)
					code := "validation_failed"
					if tt.status == 400 {
						code = "invalid_request"
					}
					wantProblem(t, r, tt.status, code)
					errs, _ := r.json(t)["errors"].([]any)
					if len(errs) != 1 || errs[0].(map[string]any)["code"] != tt.code {
						t.Errorf("errors = %v, want one %s", errs, tt.code)
					}
				})
			}
			if n := len(acme.comments(t, id, "").json(t)["data"].([]any)); n != 0 {
				t.Errorf("refused comments stored %d", n)
			}
			acme.wantUnchanged(t, id, before)
			if r := acme.comment(t, id, `{"body":"`+longest+`"}`, nil); r.status != http.StatusCreated {
				t.Errorf("comment of exactly %d characters: %d", support.MaxCommentLen, r.status)
			}
		})
		t.Run("SolvedAndClosed", func(t *testing.T) {
			id := acme.create(t, `{"subject":"done","description":"d"}`)["id"].(string)
			acme.mustPatch(t, id, `{"status":"solved"}`)
			if r := acme.comment(t, id, `{"body":"Not fixed after all"}`, nil); r.status != 201 {
				t.Fatalf("comment on a solved ticket: %d %s", r.status, r.body)
			}
			if got := acme.get(t, id).json(t)["status"]; got != "open" {
				t.Errorf("a comment on a solved ticket left it %v, want open (reopened)", got)
			}
			acme.mustPatch(t, id, `{"status":"closed"}`)
			before := acme.get(t, id).body
			wantConflictStatus(t, acme.comment(t, id, `{"body":"Hello?"}`, nil), "closed")
			acme.wantUnchanged(t, id, before)
			if n := len(acme.comments(t, id, "").json(t)["data"].([]any)); n != 1 {
				t.Errorf("thread of the closed ticket holds %d comments, want 1", n)
			}
		})
		t.Run("Idempotent", func(t *testing.T) {
			id := acme.create(t, `{"subject":"retry","description":"d"}`)["id"].(string)
			key := map[string]string{"Idempotency-Key": "cmt-1"}
			first := acme.comment(t, id, `{"body":"once"}`, key)
			again := acme.comment(t, id, `{"body":"once"}`, key)
			if first.status != 201 || again.status != 201 || again.header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(first.body) {
				t.Fatalf("replay: %d, %d replayed=%q", first.status, again.status, again.header.Get("Idempotent-Replayed"))
			}
			wantProblem(t, acme.comment(t, id, `{"body":"twice"}`, key), 422, "idempotency_key_reused")
			if n := len(acme.comments(t, id, "").json(t)["data"].([]any)); n != 1 {
				t.Errorf("thread holds %d comments, want 1", n)
			}
		})
		t.Run("Access", func(t *testing.T) {
			globex := tickets{e: e, key: e.keyAll, header: map[string]string{"X-Tenant-ID": e.globex.ID}}
			wantProblem(t, globex.comments(t, id, ""), 404, "not_found")
			wantProblem(t, globex.comment(t, id, `{"body":"sneaky"}`, nil), 404, "not_found")
			wantProblem(t, acme.comments(t, "tkt_nope", ""), 404, "not_found")
			wantProblem(t, acme.comment(t, "inv_01jd3k5q8r9s0t1v2w3x4y5z6a", `{"body":"x"}`, nil), 404, "not_found")
			readOnly := tickets{e: e, key: e.keyNone, header: acme.header}
			wantProblem(t, readOnly.comment(t, id, `{"body":"x"}`, nil), 403, "insufficient_scope")
			if r := readOnly.comments(t, id, ""); r.status != 200 {
				t.Errorf("tickets:read lists comments: %d", r.status)
			}
			noTickets := tickets{e: e, key: e.keyBob, header: acme.header}
			wantProblem(t, noTickets.comments(t, id, ""), 403, "insufficient_scope")
			if n := len(acme.comments(t, id, "").json(t)["data"].([]any)); n != 3 {
				t.Errorf("acme's thread holds %d comments after others' attempts, want 3", n)
			}
		})
	})
}

// csatTenant makes a tenant on the enterprise plan (support.csat
// included) where alice is owner, bob and carol members; it returns the
// tenant's id and keys of bob and carol with every scope.
func csatTenant(t *testing.T, e *env) (tenantID, bobKey, carolKey string) {
	t.Helper()
	ctx := context.Background()
	ten, err := e.svc.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "initech", Name: "Initech", PlanID: catalog.PlanEnterprise})
	check(t, err)
	_, err = e.svc.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: "carol@initech.test", Name: "Carol"})
	check(t, err)
	for email, role := range map[string]tenancy.Role{"alice@acme.test": tenancy.RoleOwner, "bob@acme.test": tenancy.RoleMember, "carol@initech.test": tenancy.RoleMember} {
		_, err = e.svc.Members.Add(ctx, "initech", email, role)
		check(t, err)
	}
	return ten.ID, e.newKey("bob@acme.test", "", tenancy.Scopes()...), e.newKey("carol@initech.test", "", tenancy.Scopes()...)
}

func TestTicketSatisfaction(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tenantID, bobKey, carolKey := csatTenant(t, e)
		h := map[string]string{"X-Tenant-ID": tenantID}
		owner := tickets{e: e, key: e.keyAll, header: h}
		bob := tickets{e: e, key: bobKey, header: h}
		carol := tickets{e: e, key: carolKey, header: h}
		rate := func(c tickets, id, body string) response {
			t.Helper()
			return c.do(t, "POST", "/api/tickets/"+id+"/satisfaction", body, nil)
		}
		id := bob.create(t, `{"subject":"Slow reports","description":"d"}`)["id"].(string)

		before := owner.get(t, id).body
		wantConflictStatus(t, rate(bob, id, `{"score":5}`), "open")
		owner.mustPatch(t, id, `{"status":"solved"}`)
		before = owner.get(t, id).body
		tests := []struct {
			name   string
			c      tickets
			body   string
			status int
			code   string
		}{
			{"ScoreZero", bob, `{"score":0}`, 422, "validation_failed"},
			{"ScoreSix", bob, `{"score":6}`, 422, "validation_failed"},
			{"ScoreMissing", bob, `{"comment":"meh"}`, 422, "validation_failed"},
			{"ScoreFraction", bob, `{"score":4.5}`, 400, "invalid_request"},
			{"CommentTooLong", bob, `{"score":4,"comment":"` + strings.Repeat("x", support.MaxRatingCommentLen+1) + `"}`, 422, "validation_failed"},
			{"UnknownField", bob, `{"score":4,"stars":4}`, 400, "invalid_request"},
			{"NotRequester", carol, `{"score":1}`, 403, "forbidden"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantProblem(t, rate(tt.c, id, tt.body), tt.status, tt.code)
				owner.wantUnchanged(t, id, before)
			})
		}
		r := rate(bob, id, `{"score":4,"comment":"Good, if slow."}`)
		if r.status != http.StatusCreated {
			t.Fatalf("rate: %d %s", r.status, r.body)
		}
		sat := r.json(t)
		if sat["score"] != float64(4) || sat["comment"] != "Good, if slow." || sat["rated_by"] != bob.e.bob.ID {
			t.Fatalf("rating = %v", sat)
		}
		if got := owner.get(t, id).json(t)["satisfaction"]; fmt.Sprint(got) != fmt.Sprint(sat) {
			t.Errorf("ticket's satisfaction = %v, want %v", got, sat)
		}
		before = owner.get(t, id).body
		wantConflictStatus(t, rate(owner, id, `{"score":5}`), "solved")
		owner.wantUnchanged(t, id, before)

		t.Run("OwnerRatesAnyTicket", func(t *testing.T) {
			id := carol.create(t, `{"subject":"s","description":"d"}`)["id"].(string)
			owner.mustPatch(t, id, `{"status":"solved"}`)
			r := rate(owner, id, `{"score":2}`)
			if r.status != 201 || r.json(t)["comment"] != nil || r.json(t)["rated_by"] != e.alice.ID {
				t.Fatalf("owner rating carol's ticket: %d %s", r.status, r.body)
			}
		})
		t.Run("ModuleOff", func(t *testing.T) {
			acme := tickets{e: e, key: e.keyAll, header: map[string]string{"X-Tenant-ID": e.acme.ID}}
			id := acme.create(t, `{"subject":"s","description":"d"}`)["id"].(string)
			acme.mustPatch(t, id, `{"status":"solved"}`)
			wantProblem(t, rate(acme, id, `{"score":5}`), 403, "module_disabled") // growth sells support.csat as an add-on
		})
		t.Run("OtherTenant", func(t *testing.T) {
			acme := tickets{e: e, key: e.keyAll, header: map[string]string{"X-Tenant-ID": e.acme.ID}}
			other := acme.create(t, `{"subject":"s","description":"d"}`)["id"].(string)
			acme.mustPatch(t, other, `{"status":"solved"}`)
			before := acme.get(t, other).body
			wantProblem(t, rate(owner, other, `{"score":5}`), 404, "not_found")
			wantProblem(t, rate(owner, "tkt_nope", `{"score":5}`), 404, "not_found")
			acme.wantUnchanged(t, other, before)
		})
	})
}

// TestTicketSatisfactionConcurrent races two ratings of one solved ticket,
// on several tickets: one is 201, the other 409, and the ticket keeps the
// winner's.
func TestTicketSatisfactionConcurrent(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		tenantID, bobKey, _ := csatTenant(t, e)
		h := map[string]string{"X-Tenant-ID": tenantID}
		owner := tickets{e: e, key: e.keyAll, header: h}
		bob := tickets{e: e, key: bobKey, header: h}
		for round := range 5 {
			id := bob.create(t, `{"subject":"s","description":"d"}`)["id"].(string)
			owner.mustPatch(t, id, `{"status":"solved"}`)
			raters := []tickets{bob, owner}
			results := make([]response, len(raters))
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i, c := range raters {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					results[i] = c.do(t, "POST", "/api/tickets/"+id+"/satisfaction", fmt.Sprintf(`{"score":%d}`, i+1), nil)
				}()
			}
			close(start)
			wg.Wait()
			var won []map[string]any
			for _, r := range results {
				switch r.status {
				case http.StatusCreated:
					won = append(won, r.json(t))
				case http.StatusConflict:
					wantConflictStatus(t, r, "solved")
				default:
					t.Fatalf("round %d: rating = %d %s, want 201 or 409", round, r.status, r.body)
				}
			}
			if len(won) != 1 {
				t.Fatalf("round %d: %d ratings won, want exactly 1", round, len(won))
			}
			if got := owner.get(t, id).json(t)["satisfaction"]; fmt.Sprint(got) != fmt.Sprint(won[0]) {
				t.Fatalf("round %d: ticket keeps %v, want the winner's %v", round, got, won[0])
			}
		}
	})
}

// TestTicketSLA lets the scheduler's CheckSLA run on two replicas at once
// past the targets of acme's tickets: each is marked breached and
// notified once, over HTTP; globex's (no support.sla) are not.
func TestTicketSLA(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := tickets{e: e, key: e.keyAll, header: map[string]string{"X-Tenant-ID": e.acme.ID}}
		globex := tickets{e: e, key: e.keyAll, header: map[string]string{"X-Tenant-ID": e.globex.ID}}
		urgent := acme.create(t, `{"subject":"Down","description":"d","priority":"urgent"}`)["id"].(string) // 1h
		answered := acme.create(t, `{"subject":"Slow","description":"d","priority":"urgent"}`)["id"].(string)
		normal := acme.create(t, `{"subject":"Typo","description":"d"}`) // 8h
		g := globex.create(t, `{"subject":"Down","description":"d","priority":"urgent"}`)["id"].(string)
		replicas := []*tenantkit.App{replica(t, e), replica(t, e)}
		if _, err := replicas[0].Support.AgentReply(context.Background(), e.acme.ID, answered, "agent-1", "On it"); err != nil {
			t.Fatal(err)
		}
		created, _ := time.Parse(time.RFC3339Nano, normal["created_at"].(string))
		checkSLA := func(at time.Duration) int {
			t.Helper()
			counts := make([]int, len(replicas))
			errs := make([]error, len(replicas))
			var wg sync.WaitGroup
			for i, app := range replicas {
				wg.Add(1)
				go func() {
					defer wg.Done()
					counts[i], errs[i] = app.Support.CheckSLA(context.Background(), created.Add(at))
				}()
			}
			wg.Wait()
			for _, err := range errs {
				check(t, err)
			}
			return counts[0] + counts[1]
		}
		breached := func(c tickets, id string) any { return c.get(t, id).json(t)["sla_breached"] }
		notifications := func() []any {
			r := e.do(t, request{method: "GET", path: "/api/tenant/notifications?limit=100", bearer: e.keyAll, header: acme.header})
			var out []any
			for _, n := range r.json(t)["data"].([]any) {
				if n.(map[string]any)["type"] == support.NotificationSLABreached {
					out = append(out, n)
				}
			}
			return out
		}

		if n := checkSLA(30 * time.Minute); n != 0 || breached(acme, urgent) != false {
			t.Fatalf("before any due time: %d marked, urgent breached %v", n, breached(acme, urgent))
		}
		if n := checkSLA(2 * time.Hour); n != 1 || breached(acme, urgent) != true || breached(acme, answered) != false {
			t.Fatalf("past the urgent first response: %d marked; urgent %v, answered %v", n, breached(acme, urgent), breached(acme, answered))
		}
		notes := notifications()
		if len(notes) != 1 {
			t.Fatalf("%d sla notifications, want 1", len(notes))
		}
		data := notes[0].(map[string]any)["data"].(map[string]any)
		if data["ticket_id"] != urgent || data["target"] != support.BreachFirstResponse {
			t.Errorf("notification data = %v", data)
		}
		if n := checkSLA(9 * time.Hour); n != 2 || breached(acme, answered) != true || breached(acme, normal["id"].(string)) != true {
			t.Fatalf("past 8h: %d marked, want 2 (answered's resolution, normal's first response)", n)
		}
		if n := checkSLA(1000 * time.Hour); n != 0 || len(notifications()) != 3 {
			t.Fatalf("much later: %d marked, %d notifications; want 0, 3 (each ticket once)", n, len(notifications()))
		}
		if breached(globex, g) != nil {
			t.Errorf("globex's ticket (no support.sla) sla_breached = %v, want null", breached(globex, g))
		}
	})
}
