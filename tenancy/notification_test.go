package tenancy_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestService_Notify(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanFree)
		ok := tenancy.NewNotification{
			Type: tenancy.NotificationPaymentSucceeded, Title: "Payment received", Body: "INV-000042 was paid in full.",
			Data: map[string]any{"invoice_id": "inv_x", "amount": int64(9007199254740993)},
		}
		with := func(edit func(n *tenancy.NewNotification)) tenancy.NewNotification {
			n := ok
			n.Data = map[string]any{"invoice_id": "inv_x", "amount": int64(9007199254740993)}
			edit(&n)
			return n
		}
		if _, err := e.svc.Notifications.Notify(ctx, tenant.ID, with(func(n *tenancy.NewNotification) { n.Key = "evt_taken" })); err != nil {
			t.Fatalf("Notify: %v", err)
		}

		tests := []struct {
			name       string
			tenantID   string
			in         tenancy.NewNotification
			wantErr    error
			wantFields []string
		}{
			{"OK", tenant.ID, ok, nil, nil},
			{"OKNilData", tenant.ID, with(func(n *tenancy.NewNotification) { n.Data = nil }), nil, nil},
			{"OKCustomType", tenant.ID, with(func(n *tenancy.NewNotification) { n.Type = "report.ready" }), nil, nil},
			{"OKLongestTitleInRunes", tenant.ID, with(func(n *tenancy.NewNotification) { n.Title = strings.Repeat("é", tenancy.MaxNotificationTitle) }), nil, nil},
			{"OKNewKey", tenant.ID, with(func(n *tenancy.NewNotification) { n.Key = "evt_new" }), nil, nil},
			{"ErrTypeEmpty", tenant.ID, with(func(n *tenancy.NewNotification) { n.Type = "" }), tenancy.ErrInvalid, []string{"type"}},
			{"ErrTypeUndotted", tenant.ID, with(func(n *tenancy.NewNotification) { n.Type = "payment" }), tenancy.ErrInvalid, []string{"type"}},
			{"ErrTypeUpperCase", tenant.ID, with(func(n *tenancy.NewNotification) { n.Type = "Payment.Succeeded" }), tenancy.ErrInvalid, []string{"type"}},
			{"ErrTitleEmpty", tenant.ID, with(func(n *tenancy.NewNotification) { n.Title = "" }), tenancy.ErrInvalid, []string{"title"}},
			{"ErrTitleTooLong", tenant.ID, with(func(n *tenancy.NewNotification) { n.Title = strings.Repeat("t", tenancy.MaxNotificationTitle+1) }), tenancy.ErrInvalid, []string{"title"}},
			{"ErrBodyTooLong", tenant.ID, with(func(n *tenancy.NewNotification) { n.Body = strings.Repeat("b", tenancy.MaxNotificationBody+1) }), tenancy.ErrInvalid, []string{"body"}},
			{"ErrDataTooLarge", tenant.ID, with(func(n *tenancy.NewNotification) {
				n.Data = map[string]any{"blob": strings.Repeat("d", tenancy.MaxNotificationData)}
			}), tenancy.ErrInvalid, []string{"data"}},
			{"ErrDataNotJSON", tenant.ID, with(func(n *tenancy.NewNotification) { n.Data = map[string]any{"ch": make(chan int)} }), tenancy.ErrInvalid, []string{"data"}},
			{"ErrKeyTooLong", tenant.ID, with(func(n *tenancy.NewNotification) { n.Key = strings.Repeat("k", 201) }), tenancy.ErrInvalid, []string{"key"}},
			{"ErrEveryField", tenant.ID, tenancy.NewNotification{Type: "x", Body: strings.Repeat("b", 2001)}, tenancy.ErrInvalid, []string{"type", "title", "body"}},
			{"ErrConflictKey", tenant.ID, with(func(n *tenancy.NewNotification) { n.Key = "evt_taken" }), tenancy.ErrConflict, nil},
			{"ErrNotFoundTenant", id.New(id.Tenant), ok, tenancy.ErrNotFound, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got, err := e.svc.Notifications.Notify(ctx, tc.tenantID, tc.in)
				if tc.wantFields != nil {
					wantFields(t, "Notify", err, tc.wantFields...)
					return
				}
				wantErr(t, "Notify", err, tc.wantErr)
				if tc.wantErr != nil {
					return
				}
				wantData := tc.in.Data
				if wantData == nil {
					wantData = map[string]any{}
				}
				if !id.Valid(id.Notification, got.ID) || got.TenantID != tc.tenantID || got.Type != tc.in.Type || got.Title != tc.in.Title ||
					got.Body != tc.in.Body || jsonOf(t, got.Data) != jsonOf(t, wantData) || !got.CreatedAt.Equal(testNow()) || got.ReadAt != nil {
					t.Fatalf("Notify: got %+v, want %+v", got, tc.in)
				}
				listed := mustNotifications(t, e.svc, tc.tenantID, tenancy.NotificationFilter{Limit: 1})
				if len(listed) != 1 || jsonOf(t, listed[0]) != jsonOf(t, got) {
					t.Fatalf("newest listed: got %s, want %s", jsonOf(t, listed), jsonOf(t, got))
				}
			})
		}
	})
}

// TestService_NotifyJoinsTransaction checks the promise other domains rely
// on: a notification exists if and only if its cause committed.
func TestService_NotifyJoinsTransaction(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanFree)
		errCause := errors.New("the payment could not be applied")
		n := tenancy.NewNotification{Type: tenancy.NotificationPaymentFailed, Title: "Payment failed"}

		tests := []struct {
			name     string
			causeErr error
			want     int
		}{
			{"RolledBack", errCause, 0},
			{"Committed", nil, 1},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				err := database.RunInTx(ctx, e.db, func(ctx context.Context) error {
					if _, err := e.svc.Notifications.Notify(ctx, tenant.ID, n); err != nil {
						return err
					}
					return tc.causeErr
				})
				wantErr(t, "RunInTx", err, tc.causeErr)
				if got := mustNotifications(t, e.svc, tenant.ID, tenancy.NotificationFilter{}); len(got) != tc.want {
					t.Fatalf("notifications: got %d, want %d", len(got), tc.want)
				}
			})
		}
	})
}

func TestService_Notifications(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant, other := mustTenant(t, e.svc, catalog.PlanFree), mustTenant(t, e.svc, catalog.PlanFree)
		var all []string // newest first
		for range 25 {
			n, err := e.svc.Notifications.Notify(ctx, tenant.ID, tenancy.NewNotification{Type: tenancy.NotificationPaymentRefunded, Title: "Refund"})
			if err != nil {
				t.Fatalf("Notify: %v", err)
			}
			all = append([]string{n.ID}, all...)
		}
		if _, err := e.svc.Notifications.Notify(ctx, other.ID, tenancy.NewNotification{Type: tenancy.NotificationPaymentRefunded, Title: "Other"}); err != nil {
			t.Fatalf("Notify: %v", err)
		}

		tests := []struct {
			name     string
			filter   tenancy.NotificationFilter
			want     []string
			wantMore bool
		}{
			{"DefaultLimit20", tenancy.NotificationFilter{}, all[:20], true},
			{"NextPage", tenancy.NotificationFilter{Before: all[19]}, all[20:], false},
			{"Limit1", tenancy.NotificationFilter{Limit: 1}, all[:1], true},
			{"NegativeLimitIs1", tenancy.NotificationFilter{Limit: -3}, all[:1], true},
			{"LimitAboveMaxClamped", tenancy.NotificationFilter{Limit: 1000}, all, false},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got, more, err := e.svc.Notifications.List(ctx, tenant.ID, tc.filter)
				wantErr(t, "Notifications", err, nil)
				if !slices.Equal(notificationIDs(got), tc.want) || more != tc.wantMore {
					t.Fatalf("Notifications(%+v): got %d ids more=%v, want %d more=%v", tc.filter, len(got), more, len(tc.want), tc.wantMore)
				}
			})
		}
		t.Run("ErrInvalidBefore", func(t *testing.T) {
			_, _, err := e.svc.Notifications.List(ctx, tenant.ID, tenancy.NotificationFilter{Before: "ntf_garbage"})
			wantFields(t, "Notifications(bad before)", err, "cursor")
		})
	})
}

// filterStore records the filter the service hands to the Store.
type filterStore struct {
	tenancy.NotificationStore
	got tenancy.NotificationFilter
}

func (s *filterStore) Notifications(_ context.Context, _ string, f tenancy.NotificationFilter) ([]tenancy.Notification, bool, error) {
	s.got = f
	return nil, false, nil
}

func TestService_NotificationsClampsLimit(t *testing.T) {
	tests := []struct {
		name      string
		limit     int
		wantLimit int
	}{
		{"ZeroIsDefault", 0, 20},
		{"NegativeIsOne", -1, 1},
		{"One", 1, 1},
		{"Max", 100, 100},
		{"AboveMax", 101, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := &filterStore{}
			svc := tenancy.NewNotifications(store)
			if _, _, err := svc.List(t.Context(), "ten_x", tenancy.NotificationFilter{Limit: tc.limit, UnreadOnly: true}); err != nil {
				t.Fatalf("Notifications: %v", err)
			}
			if store.got.Limit != tc.wantLimit || !store.got.UnreadOnly {
				t.Fatalf("filter passed to the store: got %+v, want limit %d and unread only", store.got, tc.wantLimit)
			}
		})
	}
}

func TestService_MarkNotificationRead(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant, other := mustTenant(t, e.svc, catalog.PlanFree), mustTenant(t, e.svc, catalog.PlanFree)
		notify := func(tenantID string) tenancy.Notification {
			n, err := e.svc.Notifications.Notify(ctx, tenantID, tenancy.NewNotification{Type: tenancy.NotificationContractRequestUpdated, Title: "Approved"})
			if err != nil {
				t.Fatalf("Notify: %v", err)
			}
			return n
		}
		read, unread, others := notify(tenant.ID), notify(tenant.ID), notify(other.ID)
		first, later := testNow().Add(time.Hour), testNow().Add(2*time.Hour)

		steps := []struct {
			name       string
			tenantID   string
			id         string
			now        time.Time
			wantErr    error
			wantReadAt time.Time
		}{
			{"Read", tenant.ID, read.ID, first, nil, first},
			{"AgainKeepsFirst", tenant.ID, read.ID, later, nil, first},
			{"ErrNotFoundOtherTenants", tenant.ID, others.ID, first, tenancy.ErrNotFound, time.Time{}},
			{"ErrNotFoundUnknown", tenant.ID, id.New(id.Notification), first, tenancy.ErrNotFound, time.Time{}},
			{"ErrNotFoundGarbage", tenant.ID, "ntf_../../etc", first, tenancy.ErrNotFound, time.Time{}},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				e.clock.Set(st.now)
				defer e.clock.Set(testNow())
				got, err := e.svc.Notifications.MarkRead(ctx, st.tenantID, st.id)
				wantErr(t, "MarkNotificationRead", err, st.wantErr)
				if st.wantErr == nil && (got.ID != st.id || got.ReadAt == nil || !got.ReadAt.Equal(st.wantReadAt)) {
					t.Fatalf("MarkNotificationRead: got %+v, want read at %v", got, st.wantReadAt)
				}
			})
		}
		t.Run("UnreadOnly", func(t *testing.T) {
			got := mustNotifications(t, e.svc, tenant.ID, tenancy.NotificationFilter{UnreadOnly: true})
			if !slices.Equal(notificationIDs(got), []string{unread.ID}) {
				t.Fatalf("unread: got %v, want [%s]", notificationIDs(got), unread.ID)
			}
			if got := mustNotifications(t, e.svc, other.ID, tenancy.NotificationFilter{UnreadOnly: true}); len(got) != 1 {
				t.Fatalf("the other tenant's unread: got %d, want 1", len(got))
			}
		})
	})
}

func notificationIDs(ns []tenancy.Notification) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.ID
	}
	return out
}

func TestService_MarkAllRead(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant, other := mustTenant(t, e.svc, catalog.PlanFree), mustTenant(t, e.svc, catalog.PlanFree)
		var ids []string // oldest first
		for range 4 {
			n, err := e.svc.Notifications.Notify(ctx, tenant.ID, tenancy.NewNotification{Type: tenancy.NotificationModuleToggled, Title: "Toggled"})
			if err != nil {
				t.Fatalf("Notify: %v", err)
			}
			ids = append(ids, n.ID)
		}
		if _, err := e.svc.Notifications.Notify(ctx, other.ID, tenancy.NewNotification{Type: tenancy.NotificationModuleToggled, Title: "Other"}); err != nil {
			t.Fatalf("Notify: %v", err)
		}
		unread := func(t *testing.T, tenantID string, want int64) {
			t.Helper()
			got, err := e.svc.Notifications.UnreadCount(ctx, tenantID)
			if err != nil || got != want {
				t.Fatalf("UnreadCount(%s): got %d, %v; want %d", tenantID, got, err, want)
			}
		}
		unread(t, tenant.ID, 4)

		first, later := testNow().Add(time.Hour), testNow().Add(2*time.Hour)
		steps := []struct {
			name       string
			upTo       string
			now        time.Time
			want       int64
			wantFields []string
			wantUnread int64
		}{
			{"ErrUpToNotAnID", "ntf_garbage", first, 0, []string{"up_to"}, 4},
			{"ErrUpToOtherType", "ccr_01jd0000000000000000000000", first, 0, []string{"up_to"}, 4},
			{"UpToSecond", ids[1], first, 2, nil, 2},
			{"All", "", later, 2, nil, 0},
			{"AllAgain", "", later, 0, nil, 0},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				e.clock.Set(st.now)
				defer e.clock.Set(testNow())
				got, err := e.svc.Notifications.MarkAllRead(ctx, tenant.ID, st.upTo)
				if st.wantFields != nil {
					wantFields(t, "MarkAllRead", err, st.wantFields...)
				} else if err != nil || got != st.want {
					t.Fatalf("MarkAllRead(up to %q): got %d, %v; want %d", st.upTo, got, err, st.want)
				}
				unread(t, tenant.ID, st.wantUnread)
			})
		}
		t.Run("FirstReadTimesKept", func(t *testing.T) {
			for i, n := range mustNotifications(t, e.svc, tenant.ID, tenancy.NotificationFilter{}) {
				want := first // ids[0], ids[1]: the oldest, listed last
				if i < 2 {
					want = later
				}
				if n.ReadAt == nil || !n.ReadAt.Equal(want) {
					t.Fatalf("notification %s: read at %v, want %v", n.ID, n.ReadAt, want)
				}
			}
		})
		t.Run("OtherTenantUntouched", func(t *testing.T) { unread(t, other.ID, 1) })
	})
}
