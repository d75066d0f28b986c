package tenancy_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/tenancy"
)

// errReached is what reachStore answers: the input passed its rules.
var errReached = errors.New("reached the store")

// reachStore answers errReached wherever an input that passed its rules
// goes first; the rest of its stores are nil and never reached.
type reachStore struct {
	tenancy.DirectoryStore
	tenancy.NotificationStore
	tenancy.IndexStore
}

func (reachStore) CreateTenant(context.Context, tenancy.Tenant) error { return errReached }
func (reachStore) CreateUser(context.Context, tenancy.User) error     { return errReached }
func (reachStore) UserByEmail(context.Context, string) (tenancy.User, error) {
	return tenancy.User{}, errReached
}
func (reachStore) CreateNotification(context.Context, tenancy.Notification, string) error {
	return errReached
}
func (reachStore) Tenants(context.Context, tenancy.SearchFilter) ([]tenancy.Tenant, bool, error) {
	return nil, false, errReached
}

// TestInputRules checks the rules of the inputs that the tags state and
// the services complete: the fields, codes and messages, in the order
// found. A case without want reaches the store.
func TestInputRules(t *testing.T) {
	ctx := context.Background()
	dir := tenancy.NewDirectory(reachStore{}, catalog.Default())
	keys := tenancy.NewKeys(nil, dir)
	notes := tenancy.NewNotifications(reachStore{})
	index := tenancy.NewIndex(reachStore{}, dir)
	tenant := func(in tenancy.CreateTenantInput) func() error {
		return func() error { _, err := dir.CreateTenant(ctx, in); return err }
	}
	acme := func(edit func(*tenancy.CreateTenantInput)) func() error {
		in := tenancy.CreateTenantInput{Slug: "acme", Name: "Acme", PlanID: catalog.PlanFree}
		edit(&in)
		return tenant(in)
	}
	user := func(email, name string) func() error {
		return func() error {
			_, err := dir.CreateUser(ctx, tenancy.CreateUserInput{Email: email, Name: name})
			return err
		}
	}
	key := func(name string, scopes ...tenancy.Scope) func() error {
		return func() error {
			_, _, err := keys.Create(ctx, tenancy.CreateAPIKeyInput{UserEmail: "ada@example.com", Scopes: scopes, Name: name})
			return err
		}
	}
	notify := func(edit func(*tenancy.NewNotification)) func() error {
		n := tenancy.NewNotification{Type: tenancy.NotificationModuleToggled, Title: "Module on", Body: "On."}
		edit(&n)
		return func() error { _, err := notes.Notify(ctx, "ten_x", n); return err }
	}
	search := func(q, before string) func() error {
		return func() error {
			_, _, err := index.Tenants(ctx, tenancy.SearchFilter{Query: q, Before: before})
			return err
		}
	}
	long := strings.Repeat("n", 201)
	tests := []struct {
		name string
		call func() error
		want []string // "field code: message"
	}{
		{"Tenant", acme(func(*tenancy.CreateTenantInput) {}), nil},
		{"TenantLongestSlugAndName", acme(func(in *tenancy.CreateTenantInput) {
			in.Slug, in.Name = strings.Repeat("a", 63), " "+strings.Repeat("é", 200)+" "
		}), nil},
		{"TenantEmpty", tenant(tenancy.CreateTenantInput{}), []string{
			"slug required: is required", "name required: is required", "plan_id required: is required"}},
		{"TenantBlankName", acme(func(in *tenancy.CreateTenantInput) { in.Name = " \t " }), []string{"name required: is required"}},
		{"TenantLong", acme(func(in *tenancy.CreateTenantInput) { in.Slug, in.Name = strings.Repeat("a", 64), long }), []string{
			"slug too_long: must have at most 63 characters", "name too_long: must have at most 200 characters"}},
		{"TenantNameTwoLines", acme(func(in *tenancy.CreateTenantInput) { in.Name = "Acme\nInc" }),
			[]string{"name control_character: must be a single line without control characters"}},
		{"TenantSlugForm", acme(func(in *tenancy.CreateTenantInput) { in.Slug = "Acme-" }),
			[]string{"slug invalid: must be lower-case letters, digits or inner hyphens"}},
		{"TenantUnknownPlan", acme(func(in *tenancy.CreateTenantInput) { in.PlanID = "gold" }), []string{`plan_id invalid: unknown plan "gold"`}},
		{"TenantPlanTooLong", acme(func(in *tenancy.CreateTenantInput) { in.PlanID = strings.Repeat("p", 65) }),
			[]string{"plan_id too_long: must have at most 64 characters"}},

		{"User", user(" Ada@Example.COM ", " Ada "), nil},
		{"UserEmpty", user("", ""), []string{"email required: is required", "name required: is required"}},
		{"UserEmailMalformed", user("ada@", "Ada"), []string{"email invalid: must be a valid email address"}},
		{"UserEmailWithDisplayName", user("Ada <ada@example.com>", "Ada"), []string{"email invalid: must be a valid email address"}},
		{"UserEmailTooLong", user(strings.Repeat("a", 243)+"@example.com", "Ada"), []string{"email too_long: must have at most 254 characters"}},
		{"UserNameTooLong", user("ada@example.com", long), []string{"name too_long: must have at most 200 characters"}},

		{"Key", key("ci", tenancy.Scopes()...), nil},
		{"KeyNoScopes", key("ci"), []string{"scopes required: is required"}},
		{"KeyEmptyScopes", key("ci", []tenancy.Scope{}...), []string{"scopes required: must have at least 1 item"}},
		{"KeyUnknownScope", key("ci", tenancy.ScopeTicketsRead, "operator:read"),
			[]string{"scopes[1] invalid: must be one of: collections:read, collections:write, tickets:read, tickets:write"}},
		{"KeyNameTooLong", key(long, tenancy.ScopeTicketsRead), []string{"name too_long: must have at most 200 characters"}},
		{"KeyTooManyScopes", key("ci", append(tenancy.Scopes(), tenancy.ScopeTicketsRead)...),
			[]string{"scopes too_many: must have at most 4 items"}},
		{"KeyNameNul", key("c\x00i", tenancy.ScopeTicketsRead), []string{"name nul_byte: must not contain NUL (U+0000)"}},

		{"Notification", notify(func(n *tenancy.NewNotification) {
			n.Title, n.Body = strings.Repeat("é", tenancy.MaxNotificationTitle), strings.Repeat("b\n", tenancy.MaxNotificationBody/2)
		}), nil},
		{"NotificationEmpty", notify(func(n *tenancy.NewNotification) { *n = tenancy.NewNotification{} }), []string{
			"type required: is required", "title required: is required"}},
		{"NotificationTypeForm", notify(func(n *tenancy.NewNotification) { n.Type = "Payment" }),
			[]string{`type invalid: must be a dotted lower-case name, e.g. "module.toggled"`}},
		{"NotificationTypeTooLong", notify(func(n *tenancy.NewNotification) { n.Type = "a." + strings.Repeat("b", 63) }),
			[]string{"type too_long: must have at most 64 characters"}},
		{"NotificationTitleTooLong", notify(func(n *tenancy.NewNotification) { n.Title = strings.Repeat("t", tenancy.MaxNotificationTitle+1) }),
			[]string{"title too_long: must have at most 200 characters"}},
		{"NotificationTitleTwoLines", notify(func(n *tenancy.NewNotification) { n.Title = "a\nb" }),
			[]string{"title control_character: must be a single line without control characters"}},
		{"NotificationBodyTooLong", notify(func(n *tenancy.NewNotification) { n.Body = strings.Repeat("b", tenancy.MaxNotificationBody+1) }),
			[]string{"body too_long: must have at most 2000 characters"}},
		{"NotificationKeyTooLong", notify(func(n *tenancy.NewNotification) { n.Key = strings.Repeat("k", 201) }),
			[]string{"key too_long: must have at most 200 characters"}},
		{"NotificationDataTooLarge", notify(func(n *tenancy.NewNotification) {
			n.Data = map[string]any{"blob": strings.Repeat("d", tenancy.MaxNotificationData)}
		}), []string{"data invalid: must encode to at most 8192 bytes of JSON"}},

		{"Search", search(strings.Repeat("q", 200), ""), nil},
		{"SearchTooLong", search(strings.Repeat("q", 201), "usr_x"), []string{
			"q too_long: must have at most 200 characters", "cursor invalid: must be a tenant id"}},
		{"SearchNul", search("a\x00", ""), []string{"q nul_byte: must not contain NUL (U+0000)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if tc.want == nil {
				if !errors.Is(err, errReached) {
					t.Fatalf("got %v, want the input to pass its rules", err)
				}
				return
			}
			var ie *tenancy.InvalidError
			if !errors.As(err, &ie) || !errors.Is(err, tenancy.ErrInvalid) {
				t.Fatalf("got error %v, want an InvalidError", err)
			}
			var got []string
			for _, fe := range ie.Errors() {
				got = append(got, fe.Field+" "+fe.Code+": "+fe.Message)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("errors:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestScopesTag: the tag of CreateAPIKeyInput.Scopes lists Scopes, no
// more and no fewer.
func TestScopesTag(t *testing.T) {
	sf, _ := reflect.TypeFor[tenancy.CreateAPIKeyInput]().FieldByName("Scopes")
	_, list, _ := strings.Cut(sf.Tag.Get("validate"), "oneof=")
	var want []string
	for _, s := range tenancy.Scopes() {
		want = append(want, string(s))
	}
	if got := strings.Fields(list); !slices.Equal(got, want) {
		t.Fatalf("oneof of the Scopes tag: got %q, want %q", got, want)
	}
	if max := fmt.Sprintf(",max=%d,", len(want)); !strings.Contains(sf.Tag.Get("validate"), max) {
		t.Fatalf("the Scopes tag %q lacks %s: as many scopes as there are", sf.Tag.Get("validate"), max)
	}
}
