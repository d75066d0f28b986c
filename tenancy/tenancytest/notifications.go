package tenancytest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

func testCreateNotification(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	first := mustNotification(t, s, tenant.ID, "evt_1")

	t.Run("StoredAsGiven", func(t *testing.T) {
		got, _, err := s.Notifications(ctx, tenant.ID, tenancy.NotificationFilter{Limit: 10})
		wantErr(t, "Notifications", err, nil)
		if len(got) != 1 {
			t.Fatalf("Notifications: got %d, want 1", len(got))
		}
		sameNotification(t, got[0], first)
	})

	tests := []struct {
		name string
		edit func(n *tenancy.Notification) string // returns the key
		want error
	}{
		{"ErrConflictKey", func(*tenancy.Notification) string { return "evt_1" }, tenancy.ErrConflict},
		{"ErrConflictID", func(n *tenancy.Notification) string { n.ID = first.ID; return "" }, tenancy.ErrConflict},
		{"ErrNotFoundTenant", func(n *tenancy.Notification) string { n.TenantID = id.New(id.Tenant); return "" }, tenancy.ErrNotFound},
		{"WithoutKey", func(*tenancy.Notification) string { return "" }, nil},
		{"AnotherWithoutKey", func(*tenancy.Notification) string { return "" }, nil},
		{"NilData", func(n *tenancy.Notification) string { n.Data = nil; return "" }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := first
			n.ID = id.New(id.Notification)
			key := tc.edit(&n)
			wantErr(t, "CreateNotification", s.CreateNotification(ctx, n, key), tc.want)
		})
	}

	t.Run("ErrConflictKeepsTransaction", func(t *testing.T) {
		later := first
		later.ID = id.New(id.Notification)
		err := s.RunInTx(ctx, func(ctx context.Context) error {
			dup := first
			dup.ID = id.New(id.Notification)
			if err := s.CreateNotification(ctx, dup, "evt_1"); err == nil {
				return fmt.Errorf("CreateNotification with a taken key in a transaction: got no error, want ErrConflict")
			}
			return s.CreateNotification(ctx, later, "evt_2")
		})
		wantErr(t, "a transaction that went on after ErrConflict", err, nil)
		got, _, err := s.Notifications(ctx, tenant.ID, tenancy.NotificationFilter{Limit: 1})
		wantErr(t, "Notifications", err, nil)
		if len(got) != 1 || got[0].ID != later.ID {
			t.Fatalf("newest notification: got %v, want [%s]", ids(got), later.ID)
		}
	})
}

func testNotifications(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	var n []string // n[0] oldest … n[4] newest
	for i := range 5 {
		n = append(n, mustNotification(t, s, tenant.ID, fmt.Sprintf("k%d", i)).ID)
	}
	for _, i := range []int{1, 3} {
		if _, err := s.MarkNotificationRead(ctx, tenant.ID, n[i], at(1)); err != nil {
			t.Fatalf("MarkNotificationRead: %v", err)
		}
	}

	tests := []struct {
		name     string
		filter   tenancy.NotificationFilter
		want     []string
		wantMore bool
	}{
		{"AllNewestFirst", tenancy.NotificationFilter{Limit: 10}, []string{n[4], n[3], n[2], n[1], n[0]}, false},
		{"ExactlyLimit", tenancy.NotificationFilter{Limit: 5}, []string{n[4], n[3], n[2], n[1], n[0]}, false},
		{"FirstPage", tenancy.NotificationFilter{Limit: 2}, []string{n[4], n[3]}, true},
		{"SecondPage", tenancy.NotificationFilter{Limit: 2, Before: n[3]}, []string{n[2], n[1]}, true},
		{"LastPage", tenancy.NotificationFilter{Limit: 2, Before: n[1]}, []string{n[0]}, false},
		{"BeforeOldest", tenancy.NotificationFilter{Limit: 2, Before: n[0]}, []string{}, false},
		{"UnreadOnly", tenancy.NotificationFilter{Limit: 10, UnreadOnly: true}, []string{n[4], n[2], n[0]}, false},
		{"UnreadOnlyPage", tenancy.NotificationFilter{Limit: 1, UnreadOnly: true, Before: n[4]}, []string{n[2]}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, more, err := s.Notifications(ctx, tenant.ID, tc.filter)
			wantErr(t, "Notifications", err, nil)
			if !slices.Equal(ids(got), tc.want) || more != tc.wantMore {
				t.Fatalf("Notifications(%+v): got %v more=%v, want %v more=%v", tc.filter, ids(got), more, tc.want, tc.wantMore)
			}
			for _, g := range got {
				if read := g.ReadAt != nil; read != (g.ID == n[1] || g.ID == n[3]) {
					t.Fatalf("notification %s: got read=%v", g.ID, read)
				}
			}
		})
	}
}

func testMarkNotificationRead(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	want := mustNotification(t, s, tenant.ID, "")

	steps := []struct {
		name   string
		at     int
		wantAt int
	}{
		{"First", 2, 2},
		{"AgainKeepsFirst", 7, 2},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			got, err := s.MarkNotificationRead(ctx, tenant.ID, want.ID, at(st.at))
			wantErr(t, "MarkNotificationRead", err, nil)
			read := at(st.wantAt)
			want.ReadAt = &read
			sameNotification(t, got, want)
		})
	}
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := s.MarkNotificationRead(ctx, tenant.ID, id.New(id.Notification), at(3))
		wantErr(t, "MarkNotificationRead(unknown)", err, tenancy.ErrNotFound)
	})
}

// testRunInTx checks that RunInTx commits, rolls back, and nests as a
// savepoint whose failure undoes only its own work.
func testRunInTx(t *testing.T, s tenancy.Store) {
	ctx := t.Context()
	errBoom := errors.New("boom")
	exists := func(t *testing.T, slug string) bool { return tenantExists(t, s, slug) }
	create := func(ctx context.Context, slug string) error { return createBareTenant(ctx, s, slug) }

	t.Run("Commit", func(t *testing.T) {
		slug := "tx-" + unique()
		wantErr(t, "RunInTx", s.RunInTx(ctx, func(ctx context.Context) error { return create(ctx, slug) }), nil)
		if !exists(t, slug) {
			t.Fatalf("tenant created in a committed transaction: not found")
		}
	})
	t.Run("Rollback", func(t *testing.T) {
		slug := "tx-" + unique()
		err := s.RunInTx(ctx, func(ctx context.Context) error {
			if err := create(ctx, slug); err != nil {
				return err
			}
			return errBoom
		})
		wantErr(t, "RunInTx returns fn's error", err, errBoom)
		if exists(t, slug) {
			t.Fatalf("tenant created in a rolled-back transaction: found")
		}
	})
	t.Run("NestedRollbackKeepsOuter", func(t *testing.T) {
		outer, inner := "tx-"+unique(), "tx-"+unique()
		err := s.RunInTx(ctx, func(ctx context.Context) error {
			if err := create(ctx, outer); err != nil {
				return err
			}
			err := s.RunInTx(ctx, func(ctx context.Context) error {
				if err := create(ctx, inner); err != nil {
					return err
				}
				return errBoom
			})
			if !errors.Is(err, errBoom) {
				return fmt.Errorf("inner RunInTx: got %v, want %v", err, errBoom)
			}
			return nil
		})
		wantErr(t, "outer RunInTx", err, nil)
		if !exists(t, outer) || exists(t, inner) {
			t.Fatalf("after a failed savepoint: outer exists=%v, inner exists=%v; want true, false", exists(t, outer), exists(t, inner))
		}
	})
}

// tenantExists reports whether a tenant with slug is stored (outside any
// transaction).
func tenantExists(t *testing.T, s tenancy.Store, slug string) bool {
	t.Helper()
	_, err := s.TenantBySlug(t.Context(), slug)
	if err != nil && !errors.Is(err, tenancy.ErrNotFound) {
		t.Fatalf("TenantBySlug(%s): %v", slug, err)
	}
	return err == nil
}

// createBareTenant stores a minimal tenant with slug on ctx's transaction,
// for the transaction tests.
func createBareTenant(ctx context.Context, s tenancy.Store, slug string) error {
	return s.CreateTenant(ctx, tenancy.Tenant{ID: id.New(id.Tenant), Slug: slug, Name: slug, PlanID: "free", Seats: 2, CreatedAt: at(0)})
}
