package tenancytest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

// RunNotifications checks a tenancy.NotificationStore: every method, its
// documented errors, and that no tenant sees or reads another's
// notifications.
func RunNotifications(t *testing.T, newBackend func(t *testing.T) Backend) {
	t.Helper()
	run(t, newBackend, []subtest{
		{"CreateNotification", testCreateNotification},
		{"Notifications", testNotifications},
		{"MarkNotificationRead", testMarkNotificationRead},
		{"MarkNotificationsRead", testMarkNotificationsRead},
		{"MarkNotificationsReadJoinsTransaction", testMarkNotificationsReadTx},
		{"UnreadNotifications", testUnreadNotifications},
		{"Isolation", testNotificationIsolation},
	})
}

func testCreateNotification(t *testing.T, s Backend) {
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
		err := s.Tx.InTx(ctx, func(ctx context.Context) error {
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

func testNotifications(t *testing.T, s Backend) {
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

func testMarkNotificationRead(t *testing.T, s Backend) {
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

func testMarkNotificationsRead(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	var (
		n       []string // n[0] oldest … n[4] newest
		between string   // an id no notification has, between n[3] and n[4]
	)
	for i := range 5 {
		if i == 4 {
			between = id.New(id.Notification) // ids sort by creation
		}
		n = append(n, mustNotification(t, s, tenant.ID, "").ID)
	}
	if _, err := s.MarkNotificationRead(ctx, tenant.ID, n[1], at(1)); err != nil {
		t.Fatalf("MarkNotificationRead: %v", err)
	}

	// Each step runs on what the steps before it left.
	steps := []struct {
		name     string
		upTo     string
		at       int
		want     int64
		wantRead map[string]int // id → minute of its read time; absent: unread
	}{
		{"UpToKeepsNewer", n[2], 2, 2, map[string]int{n[0]: 2, n[1]: 1, n[2]: 2}},
		{"UpToOldestAgain", n[0], 3, 0, map[string]int{n[0]: 2, n[1]: 1, n[2]: 2}},
		{"UpToUnknownPosition", between, 4, 1, map[string]int{n[0]: 2, n[1]: 1, n[2]: 2, n[3]: 4}},
		{"All", "", 5, 1, map[string]int{n[0]: 2, n[1]: 1, n[2]: 2, n[3]: 4, n[4]: 5}},
		{"AllAgain", "", 6, 0, map[string]int{n[0]: 2, n[1]: 1, n[2]: 2, n[3]: 4, n[4]: 5}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			got, err := s.MarkNotificationsRead(ctx, tenant.ID, st.upTo, at(st.at))
			wantErr(t, "MarkNotificationsRead", err, nil)
			if got != st.want {
				t.Fatalf("MarkNotificationsRead(up to %q): marked %d, want %d", st.upTo, got, st.want)
			}
			all, _, err := s.Notifications(ctx, tenant.ID, tenancy.NotificationFilter{Limit: 10})
			wantErr(t, "Notifications", err, nil)
			for _, g := range all {
				minute, read := st.wantRead[g.ID]
				switch {
				case !read && g.ReadAt != nil:
					t.Fatalf("notification %s: read at %v, want unread", g.ID, g.ReadAt)
				case read && (g.ReadAt == nil || !g.ReadAt.Equal(at(minute))):
					t.Fatalf("notification %s: read at %v, want %v", g.ID, g.ReadAt, at(minute))
				}
			}
		})
	}
}

// testMarkNotificationsReadTx: marking runs on the caller's transaction,
// and a rollback leaves the notifications unread.
func testMarkNotificationsReadTx(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	mustNotification(t, s, tenant.ID, "")
	rollback := fmt.Errorf("roll back")
	err := s.Tx.InTx(ctx, func(ctx context.Context) error {
		if n, err := s.MarkNotificationsRead(ctx, tenant.ID, "", at(1)); err != nil || n != 1 {
			return fmt.Errorf("MarkNotificationsRead in a transaction: got %d, %v; want 1", n, err)
		}
		if n, err := s.UnreadNotifications(ctx, tenant.ID); err != nil || n != 0 {
			return fmt.Errorf("UnreadNotifications in the transaction: got %d, %v; want 0", n, err)
		}
		return rollback
	})
	wantErr(t, "InTx", err, rollback)
	if n, err := s.UnreadNotifications(ctx, tenant.ID); err != nil || n != 1 {
		t.Fatalf("UnreadNotifications after a rollback: got %d, %v; want 1", n, err)
	}
}

func testUnreadNotifications(t *testing.T, s Backend) {
	ctx := t.Context()
	tenant := mustTenant(t, s)
	count := func(t *testing.T, want int64) {
		t.Helper()
		got, err := s.UnreadNotifications(ctx, tenant.ID)
		wantErr(t, "UnreadNotifications", err, nil)
		if got != want {
			t.Fatalf("UnreadNotifications: got %d, want %d", got, want)
		}
	}
	t.Run("None", func(t *testing.T) { count(t, 0) })
	var n []string
	for range 3 {
		n = append(n, mustNotification(t, s, tenant.ID, "").ID)
	}
	t.Run("AllUnread", func(t *testing.T) { count(t, 3) })
	t.Run("OneRead", func(t *testing.T) {
		if _, err := s.MarkNotificationRead(ctx, tenant.ID, n[1], at(1)); err != nil {
			t.Fatal(err)
		}
		count(t, 2)
	})
	t.Run("ReadAgainCountsOnce", func(t *testing.T) {
		if _, err := s.MarkNotificationRead(ctx, tenant.ID, n[1], at(2)); err != nil {
			t.Fatal(err)
		}
		count(t, 2)
	})
	t.Run("UnknownTenant", func(t *testing.T) {
		got, err := s.UnreadNotifications(ctx, id.New(id.Tenant))
		wantErr(t, "UnreadNotifications(unknown tenant)", err, nil)
		if got != 0 {
			t.Fatalf("UnreadNotifications(unknown tenant): got %d, want 0", got)
		}
	})
}

func mustNotification(tb testing.TB, s tenancy.NotificationStore, tenantID, key string) tenancy.Notification {
	tb.Helper()
	n := tenancy.Notification{
		ID: id.New(id.Notification), TenantID: tenantID, Type: tenancy.NotificationPaymentSucceeded,
		Title: "Payment received", Body: "Invoice INV-000001 was paid.",
		Data: map[string]any{"invoice_id": "inv_x", "amount": 1999}, CreatedAt: at(0),
	}
	if err := s.CreateNotification(context.Background(), n, key); err != nil {
		tb.Fatalf("CreateNotification(%s): %v", tenantID, err)
	}
	return n
}

// sameNotification fails unless got is want as stored: same fields, times
// equal, data equal once encoded (stores may decode numbers differently).
func sameNotification(tb testing.TB, got, want tenancy.Notification) {
	tb.Helper()
	if got.ID != want.ID || got.TenantID != want.TenantID || got.Type != want.Type ||
		got.Title != want.Title || got.Body != want.Body || !got.CreatedAt.Equal(want.CreatedAt) {
		tb.Fatalf("notification: got %+v, want %+v", got, want)
	}
	if (got.ReadAt == nil) != (want.ReadAt == nil) || (got.ReadAt != nil && !got.ReadAt.Equal(*want.ReadAt)) {
		tb.Fatalf("notification %s read_at: got %v, want %v", want.ID, got.ReadAt, want.ReadAt)
	}
	gotData, _ := json.Marshal(got.Data)
	wantData, _ := json.Marshal(want.Data)
	if string(gotData) != string(wantData) {
		tb.Fatalf("notification %s data: got %s, want %s", want.ID, gotData, wantData)
	}
}

func ids(ns []tenancy.Notification) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}
