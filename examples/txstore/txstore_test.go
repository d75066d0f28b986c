package txstore_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit"
	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/examples/txstore"
	"github.com/tenantkit/tenantkit/httpapi"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/support"
	"github.com/tenantkit/tenantkit/tenancy"
)

// env is tenantkit wired as a host would wire it with the custom store,
// on a fresh database, with one tenant.
type env struct {
	app    *tenantkit.App
	store  *txstore.Store
	tx     tenantkit.Transactor
	tenant string
}

// eachEnv runs fn on SQLite and on Postgres.
func eachEnv(t *testing.T, fn func(t *testing.T, e *env)) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		if err := txstore.Migrate(ctx, db); err != nil {
			t.Fatal(err)
		}
		app, err := tenantkit.New(db, catalog.Default())
		if err != nil {
			t.Fatal(err)
		}
		e := &env{app: app, store: txstore.New(db), tx: tenantkit.NewTransactor(db)}
		app.Support = support.NewService(e.store, app.Tenancy.Entitlements, app.Tenancy.Notifications, e.tx)
		tn, err := app.Tenancy.Directory.CreateTenant(ctx, tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanGrowth})
		if err != nil {
			t.Fatal(err)
		}
		e.tenant = tn.ID
		fn(t, e)
	}, tenantkit.Schema()...)
}

// state is what a create commits: the tenant's tickets, the allowance
// spent this month, and the host's row for a subject.
type state struct {
	tickets int
	usage   int64
	subject string // the ticket id in the host's table, "" when absent
}

func (e *env) mustState(t *testing.T, subject string) state {
	t.Helper()
	ctx := context.Background()
	list, _, err := e.app.Support.List(ctx, e.tenant, support.ListFilter{Limit: 100})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	ent, err := e.app.Tenancy.Entitlements.Get(ctx, e.tenant, catalog.FeatureTickets)
	if err != nil {
		t.Fatalf("entitlement: %v", err)
	}
	id, err := e.store.TicketWithSubject(ctx, e.tenant, subject)
	if err != nil && !errors.Is(err, support.ErrNotFound) {
		t.Fatalf("subject: %v", err)
	}
	return state{tickets: len(list), usage: ent.Usage, subject: id}
}

// TestCreateTicketJoinsTheTransaction creates tickets through the service.
// When the store fails after writing (the ticket is in, the host's row
// cannot be), the ticket, its number and the allowance it spent roll back;
// when the caller's own transaction rolls back after a create, the host's
// row goes with the rest; otherwise all of it commits.
func TestCreateTicketJoinsTheTransaction(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		requester := support.Requester{ID: "usr_host_1", Email: "ann@host.example", Name: "Ann"}
		errAbort := errors.New("the caller gives up")
		tests := []struct {
			name    string
			subject string
			// inCallerTx runs the create in a transaction of the caller
			// that then fails with errAbort.
			inCallerTx bool
			wantErr    error
			wantNumber int64 // of the ticket created
			want       state // after the create; subject: the created ticket's, or firstTicket
		}{
			{"OK", "VPN down", false, nil, 1, state{tickets: 1, usage: 1}},
			{"ErrDuplicateSubject", "vpn DOWN", false, txstore.ErrDuplicateSubject, 0, state{tickets: 1, usage: 1, subject: firstTicket}},
			{"CallerRollsBack", "Disk full", true, errAbort, 0, state{tickets: 1, usage: 1}},
			// The numbers the failed creates took were given back.
			{"OKAfterRollbacks", "Printer jammed", false, nil, 2, state{tickets: 2, usage: 2}},
		}
		var first string
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var tk support.Ticket
				create := func(ctx context.Context) (err error) {
					tk, err = e.app.Support.Create(ctx, e.tenant, requester, support.CreateTicketInput{Subject: tt.subject, Description: "Help."})
					return err
				}
				var err error
				if tt.inCallerTx {
					err = e.tx.InTx(ctx, func(ctx context.Context) error {
						if err := create(ctx); err != nil {
							t.Fatalf("Create in the caller's transaction: %v", err)
						}
						return errAbort
					})
				} else {
					err = create(ctx)
				}
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Create(%q) = %v, want %v", tt.subject, err, tt.wantErr)
				}
				want := tt.want
				switch {
				case want.subject == firstTicket:
					want.subject = first
				case err == nil:
					want.subject = tk.ID
				}
				if err == nil && tk.Number != tt.wantNumber {
					t.Errorf("number = %d, want %d", tk.Number, tt.wantNumber)
				}
				if first == "" {
					first = tk.ID
				}
				if got := e.mustState(t, tt.subject); got != want {
					t.Errorf("after Create(%q): %+v, want %+v", tt.subject, got, want)
				}
			})
		}
	})
}

// firstTicket stands in a test's want for the id of the first ticket.
const firstTicket = "(the first ticket)"

// TestCreateTicketOverHTTP sends the creates through the API with an
// Idempotency-Key, whose transaction the whole request runs in: the
// duplicate is a 409 and leaves nothing behind.
func TestCreateTicketOverHTTP(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		ten := e.app.Tenancy
		if _, err := ten.Directory.CreateUser(ctx, tenancy.CreateUserInput{Email: "ann@host.example", Name: "Ann"}); err != nil {
			t.Fatal(err)
		}
		if _, err := ten.Members.Add(ctx, "acme", "ann@host.example", tenancy.RoleOwner); err != nil {
			t.Fatal(err)
		}
		_, key, err := ten.Keys.Create(ctx, tenancy.CreateAPIKeyInput{UserEmail: "ann@host.example", Tenant: "acme",
			Scopes: []tenancy.Scope{tenancy.ScopeTicketsRead, tenancy.ScopeTicketsWrite}})
		if err != nil {
			t.Fatal(err)
		}
		cfg := e.app.HTTPConfig()
		cfg.Logger = zerolog.Nop()
		api, err := httpapi.New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(api.Handler())
		defer srv.Close()

		tests := []struct {
			name, idempotencyKey, subject string
			wantStatus                    int
			want                          state
		}{
			{"Created", `"k1"`, "VPN down", http.StatusCreated, state{tickets: 1, usage: 1}},
			{"DuplicateSubject", `"k2"`, "Vpn Down", http.StatusConflict, state{tickets: 1, usage: 1}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				req, _ := http.NewRequest("POST", srv.URL+"/api/tickets",
					strings.NewReader(`{"subject":"`+tt.subject+`","description":"Help."}`))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", tt.idempotencyKey)
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != tt.wantStatus {
					t.Fatalf("POST /api/tickets %q: %d, want %d", tt.subject, resp.StatusCode, tt.wantStatus)
				}
				got := e.mustState(t, tt.subject)
				got.subject = "" // its id is the first ticket's in both cases
				if got != tt.want {
					t.Errorf("after POST %q: %+v, want %+v", tt.subject, got, tt.want)
				}
			})
		}
	})
}

// TestPublicPackagesOnly: the example is written as a host outside the
// module would write it, naming none of tenantkit's internal packages
// (which the compiler lets only tenantkit's own code import).
func TestPublicPackagesOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, "github.com/tenantkit/tenantkit/examples/txstore").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := strings.Fields(string(out))
	if !slices.Contains(imports, "github.com/tenantkit/tenantkit") {
		t.Fatalf("imports %v: go list did not list the example's imports", imports)
	}
	for _, pkg := range imports {
		if strings.HasPrefix(pkg, "github.com/tenantkit/tenantkit/") && strings.Contains(pkg, "/internal/") {
			t.Errorf("the example imports %s", pkg)
		}
	}
}
