package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/user"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
	"github.com/tenantkit/tenantkit/tenancy/contract"
	"github.com/tenantkit/tenantkit/tenancy/operator"
)

// manageCommands are the admin commands that list what exists, change
// members, limits and plans, and run operator keys: the operator API's
// operations, on the same services.
var manageCommands = []string{
	"tenant list", "tenant change", "user list", "user end-sessions", "member list", "member role", "member remove",
	"apikey list", "limit clear", "operator-key create", "operator-key list", "operator-key revoke",
}

// cliActor is who the admin CLI acts as, for the services' audit trail:
// an operator, named by the local account running the command.
func cliActor() tenancy.Actor {
	id := "cli"
	if u, err := user.Current(); err == nil && u.Username != "" {
		id = "cli:" + u.Username
	}
	return tenancy.Actor{Kind: tenancy.ActorOperator, ID: id, Method: "cli"}
}

// page is what a list command prints with --json: one page, as the API
// answers lists, with next_cursor to pass as --cursor for the next.
type page[T any] struct {
	Data       []T     `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor *string `json:"next_cursor"`
}

func newPage[T any](items []T, more bool, id func(T) string) page[T] {
	if items == nil {
		items = []T{}
	}
	p := page[T]{Data: items, HasMore: more}
	if more && len(items) > 0 {
		next := id(items[len(items)-1])
		p.NextCursor = &next
	}
	return p
}

// table formats rows for people, one line each, in aligned columns, with
// how to go on when there is more.
func table(rows [][]string, next *string) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(r, "\t"))
	}
	_ = w.Flush()
	if len(rows) == 0 {
		b.WriteString("none\n")
	}
	if next != nil {
		fmt.Fprintf(&b, "more: continue with --cursor %s\n", *next)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// runManage runs one of manageCommands; name is "group sub".
func runManage(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	var (
		cfg                                        config
		query, tenant, userRef, role, plan, cursor string
		feature, keyName, scopes                   string
		limit, seats                               int
	)
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	commonFlags(fs, &cfg)
	paged := func() {
		fs.IntVar(&limit, "limit", 50, "how many to list, 1-100")
		fs.StringVar(&cursor, "cursor", "", "continue after this id (next_cursor of the previous page)")
	}
	wantArgs := 0
	switch name {
	case "tenant list":
		fs.StringVar(&query, "query", "", "keep tenants whose slug or name contains this")
		paged()
	case "user list":
		fs.StringVar(&query, "query", "", "keep users whose email or name contains this")
		paged()
	case "tenant change":
		fs.StringVar(&tenant, "tenant", "", "tenant id or slug")
		fs.StringVar(&plan, "plan", "", "move to this catalog plan now")
		fs.IntVar(&seats, "seats", 0, "the new number of seats")
	case "member list":
		fs.StringVar(&tenant, "tenant", "", "tenant id or slug")
		paged()
	case "user end-sessions":
		fs.StringVar(&userRef, "user", "", "the user's email or user id")
	case "member role", "member remove":
		fs.StringVar(&tenant, "tenant", "", "tenant id or slug")
		fs.StringVar(&userRef, "user", "", "the member's email or user id")
		if name == "member role" {
			fs.StringVar(&role, "role", "", "owner, admin, billing, support or member")
		}
	case "apikey list":
		fs.StringVar(&tenant, "tenant", "", "list only the keys pinned to this tenant (id or slug)")
		paged()
	case "limit clear":
		fs.StringVar(&tenant, "tenant", "", "tenant id or slug")
		fs.StringVar(&feature, "feature", "", strings.Join(catalog.Features(), ", "))
	case "operator-key create":
		fs.StringVar(&keyName, "name", "", "whose or what the key is (required)")
		fs.StringVar(&scopes, "scopes", "", "comma-separated: operator:read, operator:write")
	case "operator-key list":
		paged()
	case "operator-key revoke":
		wantArgs = 1
	}
	positional, err := parse(name, fs, args, stdout)
	if err != nil {
		return err
	}
	switch {
	case len(positional) > wantArgs:
		return usageError(name, "unexpected argument %q", positional[wantArgs])
	case len(positional) < wantArgs:
		return usageError(name, "missing KEY_ID")
	case limit < 0 || limit > 100 || (limit == 0 && fs.Lookup("limit") != nil):
		return &cliError{Code: codeInvalid, Message: "invalid input: limit: must be between 1 and 100",
			Fields: map[string]string{"limit": "must be between 1 and 100"}}
	case name == "tenant change" && plan == "" && seats == 0:
		return usageError(name, "tenant change needs --plan or --seats")
	case name == "user end-sessions" && userRef == "":
		return usageError(name, "--user is required")
	}
	a, err := openApp(ctx, cfg, stderr, true)
	if err != nil {
		return err
	}
	defer a.close()
	ctx = tenancy.WithActor(ctx, cliActor())
	svc := a.tenancy
	out := func(v any, human string) error { return output(stdout, cfg.JSON, v, human) }

	switch name {
	case "tenant list":
		ts, more, err := svc.Index.Tenants(ctx, tenancy.SearchFilter{Query: query, Limit: limit, Before: cursor})
		if err != nil {
			return renameField(err, "q", "query")
		}
		p := newPage(ts, more, func(t tenancy.Tenant) string { return t.ID })
		rows := make([][]string, len(ts))
		for i, t := range ts {
			rows[i] = []string{t.ID, t.Slug, t.Name, t.PlanID, fmt.Sprintf("%d seats", t.Seats)}
		}
		return out(p, table(rows, p.NextCursor))
	case "user list":
		us, more, err := svc.Index.Users(ctx, tenancy.SearchFilter{Query: query, Limit: limit, Before: cursor})
		if err != nil {
			return renameField(err, "q", "query")
		}
		p := newPage(us, more, func(u tenancy.User) string { return u.ID })
		rows := make([][]string, len(us))
		for i, u := range us {
			rows[i] = []string{u.ID, u.Email, u.Name}
		}
		return out(p, table(rows, p.NextCursor))
	case "tenant change":
		t, err := a.findTenant(ctx, tenant)
		if err != nil {
			return err
		}
		ch := contract.Change{PlanID: plan}
		if seats != 0 {
			ch.Seats = &seats
		}
		terms, err := a.contracts.Change(ctx, t.ID, ch)
		if err != nil {
			return withValidPlans(renameField(err, "plan_id", "plan"), a)
		}
		return out(map[string]any{"tenant_id": t.ID, "plan_id": terms.PlanID, "seats": terms.Seats, "add_ons": terms.AddOns},
			fmt.Sprintf("%s is on plan %s with %d seats", t.Slug, terms.PlanID, terms.Seats))
	case "user end-sessions":
		n, err := svc.Sessions.EndAll(ctx, userRef)
		if err != nil {
			return err
		}
		return out(map[string]any{"user": userRef, "ended": n}, fmt.Sprintf("ended %d sessions of %s", n, userRef))
	case "member list":
		ms, more, err := svc.Members.List(ctx, tenant, tenancy.MemberFilter{Limit: limit, Before: cursor})
		if err != nil {
			return about(err, "tenant %q", tenant)
		}
		p := newPage(ms, more, func(m tenancy.Member) string { return m.UserID })
		rows := make([][]string, len(ms))
		for i, m := range ms {
			rows[i] = []string{m.UserID, m.Email, string(m.Role)}
		}
		return out(p, table(rows, p.NextCursor))
	case "member role":
		if err := a.findTenantAndUser(ctx, tenant, userRef); err != nil {
			return err
		}
		m, err := svc.Members.SetRole(ctx, tenant, userRef, tenancy.Role(role))
		if err != nil {
			return about(err, "member %s of %s", userRef, tenant)
		}
		return out(m, fmt.Sprintf("%s is %s of %s", m.Email, m.Role, tenant))
	case "member remove":
		if err := a.findTenantAndUser(ctx, tenant, userRef); err != nil {
			return err
		}
		if err := svc.Members.Remove(ctx, tenant, userRef); err != nil {
			return about(err, "member %s of %s", userRef, tenant)
		}
		return out(map[string]any{"tenant": tenant, "user": userRef, "removed": true}, fmt.Sprintf("removed %s from %s", userRef, tenant))
	case "apikey list":
		ks, more, err := svc.Index.APIKeys(ctx, tenant, tenancy.KeyFilter{Limit: limit, Before: cursor})
		if err != nil {
			return about(err, "tenant %q", tenant)
		}
		p := newPage(ks, more, func(k tenancy.APIKey) string { return k.ID })
		rows := make([][]string, len(ks))
		for i, k := range ks {
			rows[i] = []string{k.ID, k.Prefix + "…", k.UserID, orDash(k.TenantID), scopeList(k.Scopes), revokedAt(k.RevokedAt), k.Name}
		}
		return out(p, table(rows, p.NextCursor))
	case "limit clear":
		if err := svc.Entitlements.ClearLimit(ctx, tenant, feature); err != nil {
			return about(err, "tenant %q", tenant)
		}
		t, err := svc.Directory.FindTenant(ctx, tenant)
		if err != nil {
			return err
		}
		return out(map[string]any{"tenant_id": t.ID, "feature": feature, "cleared": true},
			fmt.Sprintf("%s of %s follows its plan again", feature, t.Slug))
	case "operator-key create":
		var sc []tenancy.Scope
		for _, s := range list(scopes) {
			sc = append(sc, tenancy.Scope(s))
		}
		k, secret, err := a.kit.Operators.Create(ctx, operator.CreateInput{Name: keyName, Scopes: sc})
		if err != nil {
			return err
		}
		return out(operatorKeyJSON{ID: k.ID, Key: secret, Scopes: k.Scopes},
			fmt.Sprintf("created operator key %s (%s) — store it now, it is not shown again:\n%s", k.ID, k.Name, secret))
	case "operator-key list":
		ks, more, err := a.kit.Operators.List(ctx, operator.Filter{Limit: limit, Before: cursor})
		if err != nil {
			return err
		}
		p := newPage(ks, more, func(k operator.Key) string { return k.ID })
		rows := make([][]string, len(ks))
		for i, k := range ks {
			rows[i] = []string{k.ID, k.Prefix + "…", scopeList(k.Scopes), revokedAt(k.RevokedAt), k.Name}
		}
		return out(p, table(rows, p.NextCursor))
	case "operator-key revoke":
		k, err := a.kit.Operators.Revoke(ctx, positional[0])
		if err != nil {
			return about(err, "operator key %q", positional[0])
		}
		return out(map[string]any{"id": k.ID, "revoked": true, "revoked_at": k.RevokedAt}, "revoked "+k.ID)
	}
	return unknownCommand(strings.Fields(name)[0], strings.Fields(name)[1])
}

// operatorKeyJSON is what `operator-key create --json` prints.
type operatorKeyJSON struct {
	ID     string          `json:"id"`
	Key    string          `json:"key"`
	Scopes []tenancy.Scope `json:"scopes"`
}

// isManageCommand reports whether name is one of manageCommands.
func isManageCommand(name string) bool { return slices.Contains(manageCommands, name) }

// renameField renames one field of a validation error, for the flag it
// came from.
func renameField(err error, from, to string) error {
	ce := classify(err)
	msg, ok := ce.Fields[from]
	if !ok {
		return err
	}
	fields := map[string]string{to: msg}
	for k, v := range ce.Fields {
		if k != from {
			fields[k] = v
		}
	}
	return &cliError{Code: codeInvalid, Message: fieldsMessage(fields), Fields: fields}
}

func scopeList(scopes []tenancy.Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, ",")
}

func revokedAt(t *time.Time) string {
	if t == nil {
		return "active"
	}
	return "revoked " + t.UTC().Format(time.RFC3339)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
