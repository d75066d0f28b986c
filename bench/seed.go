package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/oklog/ulid/v2"

	"github.com/tenantkit/tenantkit/tenancy"
)

// seedSize is how much data the bench creates.
type seedSize struct {
	Tenants           int // including the big one
	InvoicesPerTenant int // of every tenant but the big one
	BigInvoices       int // of the big tenant
	TicketsPerTenant  int
	UsersPerTenant    int
	Notifications     int // per tenant
	BigKeys           int // API keys of the big tenant, so that deep-page load stays under the per-key rate limit
	DeepDepth         int // cursor depth of the deep-page measurement
	// Drafts is the pool of unnumbered drafts the finalize endpoint
	// consumes, one per request (set from the run's length: draftPool).
	Drafts int
}

// fullSize is the realistic data set; quickSize a smoke-test one.
var (
	fullSize = seedSize{Tenants: 1000, InvoicesPerTenant: 100, BigInvoices: 120_000, TicketsPerTenant: 20,
		UsersPerTenant: 3, Notifications: 5, BigKeys: 16, DeepDepth: 100_000}
	quickSize = seedSize{Tenants: 50, InvoicesPerTenant: 20, BigInvoices: 3_000, TicketsPerTenant: 5,
		UsersPerTenant: 3, Notifications: 2, BigKeys: 4, DeepDepth: 2_500}
)

// benchTenant is a seeded tenant and the API key the load uses for it.
type benchTenant struct {
	ID, Slug, OwnerEmail string
	Key                  string // tk_… pinned to the tenant, every scope, owner role
}

// invoiceRef is a seeded invoice the load acts on (an open one a payment
// can be applied to, a draft to finalize), with its tenant's key.
type invoiceRef struct{ ID, Currency, Key string }

// ticketRef is a seeded open or pending ticket the load comments on, with
// its tenant's key.
type ticketRef struct{ ID, Key string }

// fixture is what the seed made that the load needs.
type fixture struct {
	Tenants      []benchTenant // every tenant but the big one
	Big          benchTenant
	BigKeys      []string // keys of the big tenant (the first made by the CLI)
	DeepCursor   string   // ?cursor= after DeepDepth invoices of the big tenant
	DeepDepth    int
	OpenInvoices []invoiceRef
	Tickets      []ticketRef
	// Drafts are unnumbered drafts, each finalized once (nextDraft).
	Drafts    []invoiceRef
	draftNext atomic.Int64
	// WebhookSecret is the servers' payment webhook secret; RunID makes
	// webhook event ids unique per bench run.
	WebhookSecret, RunID string
	// picks, when set, makes the endpoints' choices of tenant, invoice and
	// ticket (pick) a fixed sequence, so that the fairness check sends
	// both servers the same requests (see fairness.go).
	picks   *mrand.Rand
	picksMu sync.Mutex
	// meter finds the servers' Postgres backends for CPU accounting.
	meter *meter
	Rows  map[string]int // rows seeded per table
}

// allScopes is how tenancy stores a key's scopes: sorted, space separated.
var allScopes = func() string {
	s := make([]string, 0, 4)
	for _, sc := range tenancy.Scopes() {
		s = append(s, string(sc))
	}
	return strings.Join(s, " ")
}()

// createDatabase creates a fresh database next to adminURL's and returns
// its URL and a function that drops it.
func createDatabase(ctx context.Context, adminURL string) (string, func(), error) {
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("--database-url: %w", err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "tk_bench_" + hex.EncodeToString(b)
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", nil, fmt.Errorf("connect to %s: %w", u.Redacted(), err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			fmt.Printf("warning: could not drop database %s: %v\n", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Printf("warning: could not drop database %s: %v\n", name, err)
		}
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}

// newSecret makes an API key secret the way tenancy does: tk_ + 256 bits.
func newSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return tenancy.KeyPrefix + base64.RawURLEncoding.EncodeToString(b)
}

// idGen makes tenantkit-style ids (prefix + lower-case ULID) at given times.
type idGen struct{ entropy *mrand.ChaCha8 }

func (g idGen) at(prefix string, t time.Time) string {
	return prefix + "_" + strings.ToLower(ulid.MustNew(ulid.Timestamp(t), g.entropy).String())
}

// seedLine is a stored invoice line (billing's line_items JSON).
type seedLine struct {
	Description string `json:"description"`
	Quantity    int64  `json:"quantity"`
	UnitAmount  int64  `json:"unit_amount"`
	TaxRateBps  int    `json:"tax_rate_bps"`
	Amount      int64  `json:"amount"`
}

var (
	lineNames  = []string{"Consulting hours", "Annual support plan", "Hosting (monthly)", "Onboarding workshop", "Custom integration", "License seats"}
	currencies = []string{"USD", "USD", "USD", "USD", "USD", "USD", "USD", "USD", "EUR", "GBP"}
	statuses   = []string{"open", "open", "open", "open", "open", "paid", "paid", "paid", "draft", "void", "uncollectible"}
)

// seed fills the migrated database at dbURL with size's data by COPY and
// returns the fixture the load needs. The big tenant's first key is not
// made here: the caller creates it through the real CLI.
func seed(ctx context.Context, dbURL string, size seedSize) (*fixture, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)

	rng := mrand.New(mrand.NewPCG(20261121, 1))
	ids := idGen{entropy: mrand.NewChaCha8([32]byte{1, 2, 3})}
	now := time.Now().UTC().Truncate(time.Microsecond)
	yearAgo := now.AddDate(-1, 0, 0)
	period := now.Format("2006-01")
	fx := &fixture{DeepDepth: size.DeepDepth, Rows: map[string]int{}}

	type tenantSeed struct {
		benchTenant
		plan  string
		users []string // user ids; [0] is the owner
	}
	tenants := make([]tenantSeed, size.Tenants)
	for i := range tenants {
		t := &tenants[i]
		created := yearAgo.Add(time.Duration(i) * time.Minute)
		t.ID = ids.at("ten", created)
		t.Slug = fmt.Sprintf("bench-%04d", i)
		switch d := i % 10; {
		case i == 0:
			t.Slug, t.plan = "bench-big", "enterprise"
		case d < 3:
			t.plan = "starter"
		case d < 8:
			t.plan = "growth"
		default:
			t.plan = "enterprise"
		}
		for u := 0; u < size.UsersPerTenant; u++ {
			t.users = append(t.users, ids.at("usr", created.Add(time.Duration(u)*time.Second)))
		}
		t.OwnerEmail = fmt.Sprintf("owner@%s.bench.test", t.Slug)
		t.Key = newSecret()
	}
	seats := map[string]int{"free": 2, "starter": 3, "growth": 10, "enterprise": 50}
	roles := []string{"owner", "billing", "support", "admin", "member"}

	copyRows := func(table string, cols []string, n int, row func(i int) []any) error {
		i := 0
		_, err := conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() ([]any, error) {
			if i >= n {
				return nil, nil
			}
			r := row(i)
			i++
			return r, nil
		}))
		if err != nil {
			return fmt.Errorf("seed %s: %w", table, err)
		}
		fx.Rows[table] += n
		return nil
	}

	if err := copyRows("tenants", []string{"id", "slug", "name", "plan_id", "seats", "created_at"}, len(tenants),
		func(i int) []any {
			t := tenants[i]
			return []any{t.ID, t.Slug, fmt.Sprintf("Bench Tenant %d", i), t.plan, seats[t.plan], yearAgo}
		}); err != nil {
		return nil, err
	}
	nu := size.UsersPerTenant
	if err := copyRows("users", []string{"id", "email", "name", "created_at"}, len(tenants)*nu, func(i int) []any {
		t, u := tenants[i/nu], i%nu
		email := fmt.Sprintf("%s@%s.bench.test", roles[u%len(roles)], t.Slug)
		if u >= len(roles) {
			email = fmt.Sprintf("user%d@%s.bench.test", u, t.Slug)
		}
		return []any{t.users[u], email, fmt.Sprintf("User %d of %s", u, t.Slug), yearAgo}
	}); err != nil {
		return nil, err
	}
	if err := copyRows("memberships", []string{"tenant_id", "user_id", "role", "created_at"}, len(tenants)*nu, func(i int) []any {
		t, u := tenants[i/nu], i%nu
		return []any{t.ID, t.users[u], roles[u%len(roles)], yearAgo}
	}); err != nil {
		return nil, err
	}

	// One key per tenant for its owner, pinned, every scope; the big
	// tenant gets BigKeys-1 more (and one from the CLI).
	type keySeed struct{ tenant, user, secret string }
	var keys []keySeed
	for _, t := range tenants {
		keys = append(keys, keySeed{t.ID, t.users[0], t.Key})
	}
	for k := 1; k < size.BigKeys; k++ {
		s := newSecret()
		keys = append(keys, keySeed{tenants[0].ID, tenants[0].users[0], s})
		fx.BigKeys = append(fx.BigKeys, s)
	}
	if err := copyRows("api_keys", []string{"id", "user_id", "name", "scopes", "tenant_id", "prefix", "secret_hash", "created_at"},
		len(keys), func(i int) []any {
			k := keys[i]
			return []any{ids.at("key", yearAgo.Add(time.Duration(i)*time.Second)), k.user, "bench", allScopes, k.tenant,
				k.secret[:len(tenancy.KeyPrefix)+6], tenancy.HashSecret(k.secret), yearAgo}
		}); err != nil {
		return nil, err
	}

	// Starter and growth tenants have negotiated limits far above the
	// load, so that creates never hit them but still take the finite-limit
	// path (UPDATE … WHERE used + 1 <= limit); enterprise is unlimited.
	var limited []string
	for _, t := range tenants {
		if t.plan == "starter" || t.plan == "growth" {
			limited = append(limited, t.ID)
		}
	}
	features := []string{"collections.invoices", "support.tickets"}
	if err := copyRows("limit_overrides", []string{"tenant_id", "feature", "lim"}, 2*len(limited), func(i int) []any {
		return []any{limited[i/2], features[i%2], int64(10_000_000)}
	}); err != nil {
		return nil, err
	}
	type toggle struct {
		tenant, module string
		on             bool
	}
	var toggles []toggle
	for i, t := range tenants {
		switch {
		case t.plan == "growth" && i%2 == 0:
			toggles = append(toggles, toggle{t.ID, "support.csat", true})
		case t.plan == "starter" && i%2 == 1:
			toggles = append(toggles, toggle{t.ID, "collections.reminders", true})
		case t.plan == "enterprise" && i%3 == 0:
			toggles = append(toggles, toggle{t.ID, "support.sla", false})
		}
	}
	if err := copyRows("module_toggles", []string{"tenant_id", "module", "enabled", "updated_at"}, len(toggles), func(i int) []any {
		return []any{toggles[i].tenant, toggles[i].module, toggles[i].on, yearAgo}
	}); err != nil {
		return nil, err
	}
	// Contracted add-ons (tenancy's contract_add_ons, when the schema has
	// it): dunning for a quarter of growth tenants, SLA for a third of
	// starter ones.
	var hasAddOns bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('contract_add_ons') IS NOT NULL").Scan(&hasAddOns); err != nil {
		return nil, err
	}
	if hasAddOns {
		type addOn struct{ tenant, module string }
		var addOns []addOn
		for i, t := range tenants {
			switch {
			case t.plan == "growth" && i%4 == 0:
				addOns = append(addOns, addOn{t.ID, "collections.dunning"})
			case t.plan == "starter" && i%3 == 0:
				addOns = append(addOns, addOn{t.ID, "support.sla"})
			}
		}
		if err := copyRows("contract_add_ons", []string{"tenant_id", "module", "added_at"}, len(addOns), func(i int) []any {
			return []any{addOns[i].tenant, addOns[i].module, yearAgo}
		}); err != nil {
			return nil, err
		}
	}
	if err := copyRows("usage_counters", []string{"tenant_id", "feature", "period", "used"}, 2*len(tenants), func(i int) []any {
		return []any{tenants[i/2].ID, features[i%2], period, int64(rng.IntN(50 * (2 - i%2)))}
	}); err != nil {
		return nil, err
	}

	// Invoices: BigInvoices for the big tenant, InvoicesPerTenant for each
	// other, created over the past year in id order.
	invoicesOf := func(i int) int {
		if i == 0 {
			return size.BigInvoices
		}
		return size.InvoicesPerTenant
	}
	ti, n := 0, 0 // tenant and invoice index within it
	total := 0
	for i := range tenants {
		total += invoicesOf(i)
	}
	span := now.Sub(yearAgo) - time.Hour
	bigIDs := make([]string, 0, size.BigInvoices)
	err = copyRows("invoices", []string{"tenant_id", "id", "number", "status", "customer_name", "customer_email", "currency",
		"line_items", "subtotal", "tax", "total", "amount_paid", "amount_due", "received", "refunded", "due_date", "memo",
		"metadata", "created_at", "finalized_at", "paid_at"}, total, func(int) []any {
		for n >= invoicesOf(ti) {
			ti, n = ti+1, 0
		}
		t := tenants[ti]
		count := invoicesOf(ti)
		created := yearAgo.Add(span / time.Duration(count) * time.Duration(n)).Add(time.Duration(rng.IntN(1000)) * time.Millisecond)
		id := ids.at("inv", created)
		n++
		lines := make([]seedLine, 1+rng.IntN(3))
		var sub, tax int64
		for l := range lines {
			q, unit, bps := int64(1+rng.IntN(20)), int64(500+rng.IntN(200_000)), []int{0, 825, 1900, 2000}[rng.IntN(4)]
			amt := q * unit
			lines[l] = seedLine{Description: lineNames[rng.IntN(len(lineNames))], Quantity: q, UnitAmount: unit, TaxRateBps: bps, Amount: amt}
			sub += amt
			tax += (amt*int64(bps) + 5000) / 10000
		}
		lineJSON, _ := json.Marshal(lines)
		invTotal := sub + tax
		status := statuses[rng.IntN(len(statuses))]
		cur := currencies[rng.IntN(len(currencies))]
		var paid, due int64
		var finalized, paidAt any
		switch status {
		case "draft":
			due = invTotal
		case "open":
			due, finalized = invTotal, created.Add(time.Minute)
		case "paid":
			paid, finalized, paidAt = invTotal, created.Add(time.Minute), created.Add(72*time.Hour)
		case "void":
			finalized = created.Add(time.Minute)
		case "uncollectible":
			due, finalized = invTotal, created.Add(time.Minute)
		}
		dueDate := created.AddDate(0, 0, 30).Format("2006-01-02")
		if ti == 0 {
			bigIDs = append(bigIDs, id)
		} else if status == "open" && invTotal > 1000 {
			fx.OpenInvoices = append(fx.OpenInvoices, invoiceRef{ID: id, Currency: cur, Key: t.Key})
			// Due in the future: past due, tenantkit's dunning would make
			// it uncollectible during the run, and the payments the bench
			// records on it would then be refused (409).
			dueDate = now.AddDate(0, 0, 30).Format("2006-01-02")
		}
		return []any{t.ID, id, fmt.Sprintf("INV-%06d", n), status, fmt.Sprintf("Customer %d", rng.IntN(500)),
			fmt.Sprintf("billing%d@customer%d.example", rng.IntN(3), rng.IntN(500)), cur, string(lineJSON),
			sub, tax, invTotal, paid, due, paid, int64(0), dueDate,
			"Thank you for your business.", `{"po":"PO-` + fmt.Sprint(rng.IntN(99999)) + `"}`, created, finalized, paidAt}
	})
	if err != nil {
		return nil, err
	}
	// The finalize endpoint's pool: unnumbered drafts of the tenants but
	// the big one, made in the last hour, as drafts are since they are
	// numbered when finalized.
	if size.Drafts > 0 {
		others := tenants[1:]
		draftLines, _ := json.Marshal([]seedLine{{Description: "Consulting hours", Quantity: 3, UnitAmount: 15000, TaxRateBps: 825, Amount: 45000}})
		if err := copyRows("invoices", []string{"tenant_id", "id", "number", "status", "customer_name", "customer_email", "currency",
			"line_items", "subtotal", "tax", "total", "amount_paid", "amount_due", "received", "refunded", "due_date", "memo",
			"metadata", "created_at", "finalized_at", "paid_at"}, size.Drafts, func(i int) []any {
			t := others[i%len(others)]
			created := now.Add(-time.Hour).Add(time.Duration(i) * time.Millisecond / 100)
			id := ids.at("inv", created)
			fx.Drafts = append(fx.Drafts, invoiceRef{ID: id, Currency: "USD", Key: t.Key})
			return []any{t.ID, id, nil, "draft", "Customer draft", "ap@customer.example", "USD", string(draftLines),
				int64(45000), int64(3713), int64(48713), int64(0), int64(48713), int64(0), int64(0), nil,
				"Thank you for your business.", `{"po":"PO-1"}`, created, nil, nil}
		}); err != nil {
			return nil, err
		}
	}
	// Every finalized invoice has been shown once already, so it has its
	// hosted page's token (only its hash is kept; these are placeholders,
	// unique per invoice): neither server issues one in a read, which would
	// depend on which of them read the invoice first.
	if _, err := conn.Exec(ctx, `INSERT INTO invoice_hosted_tokens (tenant_id, invoice_id, version, token_hash)
		SELECT tenant_id, id, 1, md5(id) FROM invoices WHERE status <> 'draft'`); err != nil {
		return nil, fmt.Errorf("seed hosted tokens: %w", err)
	}
	if err := copyRows("invoice_sequences", []string{"tenant_id", "last_number"}, len(tenants), func(i int) []any {
		return []any{tenants[i].ID, int64(invoicesOf(i))}
	}); err != nil {
		return nil, err
	}

	nt := size.TicketsPerTenant
	ticketStatus := []string{"open", "pending", "on_hold", "solved", "closed"}
	priorities := []string{"low", "normal", "normal", "high", "urgent"}
	if err := copyRows("tickets", []string{"tenant_id", "id", "number", "subject", "description", "status", "priority",
		"requester_id", "requester_email", "requester_name", "assignee_id", "tags", "created_at", "updated_at"},
		len(tenants)*nt, func(i int) []any {
			t, k := tenants[i/nt], i%nt
			created := yearAgo.Add(span / time.Duration(nt) * time.Duration(k))
			id, status := ids.at("tkt", created), ticketStatus[rng.IntN(5)]
			if status == "open" || status == "pending" {
				fx.Tickets = append(fx.Tickets, ticketRef{ID: id, Key: t.Key})
			}
			return []any{t.ID, id, int64(k + 1), "Cannot export invoices to CSV",
				"Steps:\n1. Open invoices\n2. Click export\nNothing happens.", status, priorities[rng.IntN(5)],
				t.users[0], t.OwnerEmail, "User 0 of " + t.Slug, nil, `["billing","export"]`, created, created}
		}); err != nil {
		return nil, err
	}
	if err := copyRows("ticket_sequences", []string{"tenant_id", "last_number"}, len(tenants), func(i int) []any {
		return []any{tenants[i].ID, int64(nt)}
	}); err != nil {
		return nil, err
	}
	nn := size.Notifications
	if err := copyRows("notifications", []string{"tenant_id", "id", "type", "title", "body", "data", "dedupe_key", "created_at", "read_at"},
		len(tenants)*nn, func(i int) []any {
			t, k := tenants[i/nn], i%nn
			created := yearAgo.Add(span / time.Duration(nn) * time.Duration(k))
			return []any{t.ID, ids.at("ntf", created), "payment.succeeded", "Payment received",
				"A payment of 19.99 USD was applied.", `{"amount":1999,"currency":"USD"}`, nil, created, nil}
		}); err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		return nil, fmt.Errorf("vacuum analyze: %w", err)
	}

	fx.Big = tenants[0].benchTenant
	for _, t := range tenants[1:] {
		fx.Tenants = append(fx.Tenants, t.benchTenant)
	}
	// bigIDs are oldest first; the cursor at depth d is the id of the d-th
	// newest invoice, after which the page starts.
	if d := size.DeepDepth; d > 0 && d < len(bigIDs) {
		fx.DeepCursor = encodeCursor(bigIDs[len(bigIDs)-d])
	}
	return fx, nil
}

// encodeCursor spells a list cursor the way tenantkit does (base64url of
// "v1:" + the id of the last item seen). Cursors are opaque to clients;
// the bench makes one only to jump to a depth that paging would take
// minutes to reach, and checks the spelling against a cursor the server
// returned (checkCursorFormat) before using it.
func encodeCursor(id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("v1:" + id))
}

// pick returns a number in [0, n): random, or the next of the fixed
// sequence when one is set (repeatPicks).
func (fx *fixture) pick(n int) int {
	fx.picksMu.Lock()
	defer fx.picksMu.Unlock()
	if fx.picks != nil {
		return fx.picks.IntN(n)
	}
	return mrand.IntN(n)
}

// repeatPicks restarts the fixed sequence of picks.
func (fx *fixture) repeatPicks() {
	fx.picksMu.Lock()
	defer fx.picksMu.Unlock()
	fx.picks = mrand.New(mrand.NewPCG(1, 2))
}

// randomPicks ends the fixed sequence of picks.
func (fx *fixture) randomPicks() {
	fx.picksMu.Lock()
	defer fx.picksMu.Unlock()
	fx.picks = nil
}

// nextDraft returns a draft of the pool that no request has finalized yet;
// once the pool is used up it returns the last one again (whose finalize
// then answers 409 and counts as a failure: make the pool bigger).
func (fx *fixture) nextDraft() invoiceRef {
	i := fx.draftNext.Add(1) - 1
	return fx.Drafts[min(int(i), len(fx.Drafts)-1)]
}

// draftPoolRate bounds the finalize requests per second either server
// could answer on the bench machine, to size the pool of drafts.
const draftPoolRate = 5000

// draftPool is how many drafts the run may finalize: every run of the
// finalize endpoint (warm-up, full-speed rounds, the run at 64 in flight,
// fixed-rate run) of both
// servers at draftPoolRate, with the probes and round-trip counts; 0 when
// the endpoint is not selected.
func draftPool(cfg config) int {
	if cfg.Only != "" && !slices.Contains(strings.Split(cfg.Only, ","), finalizeEndpoint) {
		return 0
	}
	perServer := time.Second/2 + time.Duration(cfg.Rounds)*cfg.Duration + max(cfg.Duration/2, time.Second) + halfDuration(cfg)
	return int(2*perServer.Seconds()*draftPoolRate) + 1000
}
