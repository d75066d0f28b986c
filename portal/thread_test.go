package portal_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy/contract"
)

// openTicket opens a ticket in tenantID as the user with email.
func (e *env) openTicket(t *testing.T, tenantID, email, subject string) support.Ticket {
	t.Helper()
	ctx := context.Background()
	u, err := e.app.Tenancy.Directory.UserByEmail(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := e.app.Support.Create(ctx, tenantID, support.Requester{ID: u.ID, Email: u.Email, Name: u.Name},
		support.CreateTicketInput{Subject: subject, Description: "Details."})
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestPortalTicketThread(t *testing.T) {
	dbtest.EachApp(t, func(t *testing.T, db *bun.DB, app *tenantkit.App) {
		e := newEnv(t, db, app)
		ctx := context.Background()
		own := e.openTicket(t, e.acme.ID, "alice@acme.test", "Export fails")
		other := e.openTicket(t, e.globx.ID, "carol@globex.test", "Globex secret")

		t.Run("CommentAppearsInThread", func(t *testing.T) {
			c := e.signIn(t, "alice@acme.test")
			body := c.post("/portal/tickets/"+own.ID+"/comments",
				url.Values{"csrf_token": {c.csrf()}, "body": {"It stops at row 1000.\nEvery time."}}, http.StatusOK)
			for _, want := range []string{"Your comment is added.", `class="comment comment-requester"`,
				"(requester)", "It stops at row 1000.\nEvery time.", `<h2 id="thread-h">Conversation</h2>`} {
				if !strings.Contains(body, want) {
					t.Errorf("ticket page lacks %q:\n%s", want, body)
				}
			}
			if _, err := app.Support.AgentReply(ctx, e.acme.ID, own.ID, "agent-7", "Fixed in 2.3."); err != nil {
				t.Fatal(err)
			}
			body = c.get("/portal/tickets/"+own.ID, http.StatusOK)
			first, reply := strings.Index(body, "It stops at row 1000."), strings.Index(body, "Fixed in 2.3.")
			if first < 0 || reply < first || !strings.Contains(body, "(agent)") {
				t.Errorf("thread is not the comment then the agent's reply:\n%s", body)
			}
		})

		t.Run("CommentRefused", func(t *testing.T) {
			c := e.signIn(t, "alice@acme.test")
			carol := e.signIn(t, "carol@globex.test").csrf()
			for _, tc := range []struct {
				name   string
				form   url.Values
				status int
				want   []string
			}{
				{"no token", url.Values{"body": {"hi"}}, http.StatusForbidden, []string{"missing CSRF token"}},
				{"another session's token", url.Values{"body": {"hi"}, "csrf_token": {carol}}, http.StatusForbidden, []string{"CSRF"}},
				{"empty", url.Values{"body": {"  "}, "csrf_token": {c.csrf()}}, http.StatusUnprocessableEntity,
					[]string{`aria-describedby="err-body"`, `<p class="field-error" id="err-body">Comment is required</p>`}},
				{"too long", url.Values{"body": {strings.Repeat("x", support.MaxCommentLen+1)}, "csrf_token": {c.csrf()}},
					http.StatusUnprocessableEntity, []string{`aria-invalid="true" aria-describedby="err-body"`,
						`<p class="field-error" id="err-body">Comment must have at most 10000 characters`, strings.Repeat("x", support.MaxCommentLen+1) + "</textarea>"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					before, _, err := app.Support.Comments(ctx, e.acme.ID, own.ID, support.CommentFilter{})
					if err != nil {
						t.Fatal(err)
					}
					body := c.post("/portal/tickets/"+own.ID+"/comments", tc.form, tc.status)
					for _, want := range tc.want {
						if !strings.Contains(body, want) {
							t.Errorf("page lacks %q:\n%.3000s", want, body)
						}
					}
					after, _, _ := app.Support.Comments(ctx, e.acme.ID, own.ID, support.CommentFilter{})
					if len(after) != len(before) {
						t.Errorf("refused comment stored: %d comments, had %d", len(after), len(before))
					}
				})
			}
		})

		t.Run("OtherTenantsTicketIsNotFound", func(t *testing.T) {
			c := e.signIn(t, "alice@acme.test")
			c.get("/portal/tickets/"+other.ID, http.StatusNotFound)
			// Not ids at all: upper case, one character too many, a bare prefix.
			for _, path := range []string{"nonsense", strings.ToUpper(own.ID), own.ID + "0", "tkt_"} {
				c.get("/portal/tickets/"+path, http.StatusNotFound)
			}
			for _, tc := range []struct {
				action string
				form   url.Values
			}{
				{"comments", url.Values{"body": {"peek"}}},
				{"status", url.Values{"status": {"closed"}}},
				{"satisfaction", url.Values{"score": {"1"}}},
			} {
				tc.form.Set("csrf_token", c.csrf())
				body := c.post("/portal/tickets/"+other.ID+"/"+tc.action, tc.form, http.StatusNotFound)
				if strings.Contains(body, "Globex secret") {
					t.Errorf("%s: 404 page shows the other tenant's ticket", tc.action)
				}
			}
			got, err := app.Support.Get(ctx, e.globx.ID, other.ID)
			if err != nil || got.Status != support.StatusOpen {
				t.Fatalf("other tenant's ticket changed: %v %v", got.Status, err)
			}
			if cs, _, _ := app.Support.Comments(ctx, e.globx.ID, other.ID, support.CommentFilter{}); len(cs) != 0 {
				t.Fatalf("other tenant's ticket got %d comments", len(cs))
			}
		})

		t.Run("StatusButtonsFollowTheTable", func(t *testing.T) {
			c := e.signIn(t, "alice@acme.test")
			tk := e.openTicket(t, e.acme.ID, "alice@acme.test", "Moves")
			path := "/portal/tickets/" + tk.ID
			for _, st := range []struct {
				post   string // status to post; "" only looks
				code   int
				status string
				shown  []string
				hidden []string
			}{
				{"", http.StatusOK, "open", []string{`id="move-solved"`, `id="move-closed"`}, []string{`id="move-open"`}},
				{"solved", http.StatusOK, "solved", []string{`id="move-open"`, `id="move-closed"`}, []string{`id="move-solved"`}},
				{"pending", http.StatusConflict, "solved", []string{`id="form-error"`}, nil},
				{"bogus", http.StatusUnprocessableEntity, "solved", []string{`id="form-error"`}, nil},
				{"open", http.StatusOK, "open", []string{`id="move-solved"`}, []string{`id="move-open"`}},
				{"closed", http.StatusOK, "closed", []string{"This ticket is closed"}, []string{`id="move-`, `id="add-comment"`}},
				{"open", http.StatusConflict, "closed", []string{`id="form-error"`}, nil},
			} {
				var body string
				if st.post == "" {
					body = c.get(path, st.code)
				} else {
					body = c.post(path+"/status", url.Values{"csrf_token": {c.csrf()}, "status": {st.post}}, st.code)
				}
				if !strings.Contains(body, `id="ticket-status">`+st.status+`<`) {
					t.Errorf("after %q: status is not %s:\n%.2000s", st.post, st.status, body)
				}
				for _, want := range st.shown {
					if !strings.Contains(body, want) {
						t.Errorf("after %q: page lacks %q", st.post, want)
					}
				}
				for _, not := range st.hidden {
					if strings.Contains(body, not) {
						t.Errorf("after %q: page shows %q", st.post, not)
					}
				}
			}
		})

		t.Run("Rating", func(t *testing.T) {
			alice, dave := e.signIn(t, "alice@acme.test"), e.signIn(t, "dave@acme.test")
			solved := e.openTicket(t, e.acme.ID, "alice@acme.test", "Solved")
			open := e.openTicket(t, e.acme.ID, "alice@acme.test", "Still open")
			s := string(support.StatusSolved)
			if _, err := app.Support.Update(ctx, e.acme.ID, solved.ID, support.UpdateTicketInput{Status: &s}); err != nil {
				t.Fatal(err)
			}
			rate := func(c *client, id string, form url.Values, code int) string {
				t.Helper()
				form.Set("csrf_token", c.csrf())
				return c.post("/portal/tickets/"+id+"/satisfaction", form, code)
			}
			// Module support.csat is an add-on of acme's plan, off until switched on.
			if body := alice.get("/portal/tickets/"+solved.ID, http.StatusOK); strings.Contains(body, `id="rate"`) {
				t.Error("rating form shown without module support.csat")
			}
			rate(alice, solved.ID, url.Values{"score": {"5"}}, http.StatusForbidden)
			if _, err := app.Contracts.Change(ctx, e.acme.ID, contract.Change{AddModules: []string{catalog.ModuleCSAT}}); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				name string
				c    *client
				id   string
				form url.Values
				code int
				want []string
			}{
				{"not the requester nor an admin", dave, solved.ID, url.Values{"score": {"5"}}, http.StatusForbidden, nil},
				{"not solved", alice, open.ID, url.Values{"score": {"5"}}, http.StatusConflict, []string{`id="form-error"`}},
				{"score out of range", alice, solved.ID, url.Values{"score": {"9"}}, http.StatusUnprocessableEntity,
					[]string{`aria-describedby="err-score"`, `<p class="field-error" id="err-score">Score must be`, `<legend>`}},
				{"no token", alice, solved.ID, url.Values{"score": {"4"}, "csrf_token": {""}}, http.StatusForbidden, nil},
				{"rated", alice, solved.ID, url.Values{"score": {"4"}, "comment": {"Quick answer."}}, http.StatusOK,
					[]string{`<p id="rating">Rated <strong>4 of 5</strong>`, "Quick answer.", "Thank you"}},
				{"rated twice", alice, solved.ID, url.Values{"score": {"1"}}, http.StatusConflict, []string{`Rated <strong>4 of 5</strong>`}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					var body string
					if tc.name == "no token" {
						body = tc.c.post("/portal/tickets/"+tc.id+"/satisfaction", tc.form, tc.code)
					} else {
						body = rate(tc.c, tc.id, tc.form, tc.code)
					}
					for _, want := range tc.want {
						if !strings.Contains(body, want) {
							t.Errorf("page lacks %q:\n%.4000s", want, body)
						}
					}
				})
			}
			for _, tc := range []struct {
				c    *client
				id   string
				form bool
			}{{dave, solved.ID, false}, {alice, open.ID, false}, {alice, solved.ID, false}} {
				if body := tc.c.get("/portal/tickets/"+tc.id, http.StatusOK); strings.Contains(body, `id="rate"`) != tc.form {
					t.Errorf("%s: rating form shown %v, want %v", tc.id, !tc.form, tc.form)
				}
			}
			fresh := e.openTicket(t, e.acme.ID, "dave@acme.test", "Dave's")
			if _, err := app.Support.Update(ctx, e.acme.ID, fresh.ID, support.UpdateTicketInput{Status: &s}); err != nil {
				t.Fatal(err)
			}
			for _, c := range []*client{alice, dave} { // the owner and the requester may rate it
				body := c.get("/portal/tickets/"+fresh.ID, http.StatusOK)
				for _, want := range []string{`id="rate"`, "<legend>Your satisfaction with the answer</legend>", `type="radio" id="score-5" name="score" value="5"`} {
					if !strings.Contains(body, want) {
						t.Errorf("rating form lacks %q", want)
					}
				}
			}
		})
	})
}
