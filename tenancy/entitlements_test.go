package tenancy_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/id"
	"github.com/tenantkit/tenantkit/tenancy"
)

func TestService_Consume(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tests := []struct {
			name     string
			plan     string
			override *int64 // set when overridden
			unlimit  bool   // override to unlimited
			feature  string
			n        int64
			attempts int
			wantOK   int   // attempts that succeed before the first error
			wantErr  error // the error of the attempts after
		}{
			{"PlanLimit", catalog.PlanFree, nil, false, catalog.FeatureTickets, 1, 5, 3, tenancy.ErrLimitExceeded},
			{"PlanLimitMultiUnit", catalog.PlanFree, nil, false, catalog.FeatureInvoices, 4, 3, 2, tenancy.ErrLimitExceeded},
			{"PlanUnlimited", catalog.PlanEnterprise, nil, false, catalog.FeatureInvoices, 1000, 5, 5, nil},
			{"OverrideRaises", catalog.PlanFree, ptr(5), false, catalog.FeatureTickets, 1, 7, 5, tenancy.ErrLimitExceeded},
			{"OverrideZero", catalog.PlanStarter, ptr(0), false, catalog.FeatureInvoices, 1, 2, 0, tenancy.ErrLimitExceeded},
			{"OverrideUnlimited", catalog.PlanFree, nil, true, catalog.FeatureTickets, 10, 5, 5, nil},
			{"ErrInvalidSeatsNotMetered", catalog.PlanFree, nil, false, catalog.FeatureSeats, 1, 1, 0, tenancy.ErrInvalid},
			{"ErrInvalidUnknownFeature", catalog.PlanFree, nil, false, "support.chat", 1, 1, 0, tenancy.ErrInvalid},
			{"ErrInvalidZeroUnits", catalog.PlanFree, nil, false, catalog.FeatureTickets, 0, 1, 0, tenancy.ErrInvalid},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				tenant := mustTenant(t, e.svc, tc.plan)
				if tc.override != nil || tc.unlimit {
					wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, tenant.ID, tc.feature, tc.override), nil)
				}
				for i := range tc.attempts {
					err := e.svc.Entitlements.Consume(ctx, tenant.ID, tc.feature, tc.n)
					if i < tc.wantOK {
						wantErr(t, "Consume", err, nil)
					} else {
						wantErr(t, "Consume past the limit", err, tc.wantErr)
					}
				}
				if !catalog.Metered(tc.feature) || tc.n < 1 {
					return
				}
				if got, want := mustEntitlement(t, e.svc, tenant.ID, tc.feature).Usage, int64(tc.wantOK)*tc.n; got != want {
					t.Fatalf("usage: got %d, want %d", got, want)
				}
			})
		}
		t.Run("ErrNotFoundTenant", func(t *testing.T) {
			wantErr(t, "Consume", e.svc.Entitlements.Consume(ctx, id.New(id.Tenant), catalog.FeatureTickets, 1), tenancy.ErrNotFound)
		})
		t.Run("NewPeriodStartsAtZero", func(t *testing.T) {
			tenant := mustTenant(t, e.svc, catalog.PlanFree)
			defer e.clock.Set(testNow())
			for range 3 {
				wantErr(t, "Consume in November", e.svc.Entitlements.Consume(ctx, tenant.ID, catalog.FeatureTickets, 1), nil)
			}
			wantErr(t, "Consume past November's limit", e.svc.Entitlements.Consume(ctx, tenant.ID, catalog.FeatureTickets, 1), tenancy.ErrLimitExceeded)
			e.clock.Set(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
			wantErr(t, "Consume in December", e.svc.Entitlements.Consume(ctx, tenant.ID, catalog.FeatureTickets, 1), nil)
			if got := mustEntitlement(t, e.svc, tenant.ID, catalog.FeatureTickets).Usage; got != 1 {
				t.Fatalf("December usage: got %d, want 1", got)
			}
		})
		t.Run("RolledBackWithCaller", func(t *testing.T) {
			tenant := mustTenant(t, e.svc, catalog.PlanFree)
			wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, tenant.ID, catalog.FeatureTickets, ptr(1)), nil)
			errInsert := errors.New("the guarded insert failed")
			err := database.RunInTx(ctx, e.db, func(ctx context.Context) error {
				if err := e.svc.Entitlements.Consume(ctx, tenant.ID, catalog.FeatureTickets, 1); err != nil {
					return err
				}
				return errInsert
			})
			wantErr(t, "RunInTx", err, errInsert)
			if got := mustEntitlement(t, e.svc, tenant.ID, catalog.FeatureTickets).Usage; got != 0 {
				t.Fatalf("usage after the caller rolled back: got %d, want 0", got)
			}
			if got := mustNotifications(t, e.svc, tenant.ID, tenancy.NotificationFilter{}); len(got) != 0 {
				t.Fatalf("notifications after the caller rolled back: got %d, want 0", len(got))
			}
		})
	})
}

// thresholds returns the thresholds of the tenant's entitlement.threshold
// notifications of feature, oldest first.
func thresholds(tb testing.TB, e *env, tenantID, feature string) []string {
	tb.Helper()
	var out []string
	ns := mustNotifications(tb, e.svc, tenantID, tenancy.NotificationFilter{Limit: 100})
	for _, n := range slices.Backward(ns) {
		if n.Type == tenancy.NotificationEntitlementThreshold && n.Data["feature"] == feature {
			out = append(out, jsonOf(tb, n.Data["threshold"])+"@"+jsonOf(tb, n.Data["usage"]))
		}
	}
	return out
}

func TestService_ConsumeThresholds(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tests := []struct {
			name  string
			limit *int64
			n     []int64 // units consumed by successive calls
			want  []string
		}{
			{"TenOneByOne", ptr(10), []int64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, []string{"80@8", "100@10"}},
			{"CeilOfEightyPercent", ptr(7), []int64{5, 1, 1}, []string{"80@6", "100@7"}},
			{"BothAtOnce", ptr(1), []int64{1, 1}, []string{"80@1", "100@1"}},
			{"JumpOverEighty", ptr(100), []int64{50, 45, 5}, []string{"80@95", "100@100"}},
			{"BelowEighty", ptr(100), []int64{79}, nil},
			{"RefusedCallsDoNotNotify", ptr(10), []int64{7, 5, 4}, nil},
			{"Unlimited", nil, []int64{1000, 1000}, nil},
			{"ZeroLimit", ptr(0), []int64{1}, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				tenant := mustTenant(t, e.svc, catalog.PlanStarter)
				wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, tenant.ID, catalog.FeatureInvoices, tc.limit), nil)
				for _, n := range tc.n {
					if err := e.svc.Entitlements.Consume(ctx, tenant.ID, catalog.FeatureInvoices, n); err != nil && !errors.Is(err, tenancy.ErrLimitExceeded) {
						t.Fatalf("Consume(%d): %v", n, err)
					}
				}
				if got := thresholds(t, e, tenant.ID, catalog.FeatureInvoices); !slices.Equal(got, tc.want) {
					t.Fatalf("threshold notifications (threshold@usage): got %v, want %v", got, tc.want)
				}
			})
		}

		t.Run("OncePerPeriodWhenLimitChanges", func(t *testing.T) {
			tenant := mustTenant(t, e.svc, catalog.PlanStarter)
			defer e.clock.Set(testNow())
			wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, tenant.ID, catalog.FeatureInvoices, ptr(10)), nil)
			wantErr(t, "Consume", e.svc.Entitlements.Consume(ctx, tenant.ID, catalog.FeatureInvoices, 8), nil)
			wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, tenant.ID, catalog.FeatureInvoices, ptr(20)), nil)
			wantErr(t, "Consume", e.svc.Entitlements.Consume(ctx, tenant.ID, catalog.FeatureInvoices, 12), nil)
			want := []string{"80@8", "100@20"}
			if got := thresholds(t, e, tenant.ID, catalog.FeatureInvoices); !slices.Equal(got, want) {
				t.Fatalf("threshold notifications within one period: got %v, want %v", got, want)
			}
			e.clock.Set(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
			wantErr(t, "Consume in December", e.svc.Entitlements.Consume(ctx, tenant.ID, catalog.FeatureInvoices, 16), nil)
			want = append(want, "80@16")
			if got := thresholds(t, e, tenant.ID, catalog.FeatureInvoices); !slices.Equal(got, want) {
				t.Fatalf("threshold notifications in the next period: got %v, want %v", got, want)
			}
		})

		t.Run("NotificationContent", func(t *testing.T) {
			tenant := mustTenant(t, e.svc, catalog.PlanFree)
			for range 3 {
				wantErr(t, "Consume", e.svc.Entitlements.Consume(ctx, tenant.ID, catalog.FeatureTickets, 1), nil)
			}
			ns := mustNotifications(t, e.svc, tenant.ID, tenancy.NotificationFilter{})
			if len(ns) != 2 {
				t.Fatalf("notifications: got %d, want 2", len(ns))
			}
			got := ns[0] // the newest: 100 %
			want := `{"feature":"support.tickets","limit":3,"period_end":"2026-12-01T00:00:00Z","period_start":"2026-11-01T00:00:00Z","threshold":100,"usage":3}`
			if jsonOf(t, got.Data) != want || got.Title == "" || got.Body == "" || !got.CreatedAt.Equal(testNow()) {
				t.Fatalf("100%% notification: got %+v data %s, want data %s", got, jsonOf(t, got.Data), want)
			}
		})
	})
}

// TestService_ConsumeConcurrent races 64 consumers, half of them inside
// their own transaction as callers are told to, against a limit of 10.
func TestService_ConsumeConcurrent(t *testing.T) {
	const workers, limit = 64, 10
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanStarter)
		wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, tenant.ID, catalog.FeatureInvoices, ptr(limit)), nil)

		var (
			wg        sync.WaitGroup
			mu        sync.Mutex
			succeeded int
			others    []error
		)
		for i := range workers {
			wg.Go(func() {
				consume := func(ctx context.Context) error {
					return e.svc.Entitlements.Consume(ctx, tenant.ID, catalog.FeatureInvoices, 1)
				}
				var err error
				if i%2 == 0 {
					err = database.RunInTx(ctx, e.db, consume)
				} else {
					err = consume(ctx)
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					succeeded++
				case !errors.Is(err, tenancy.ErrLimitExceeded):
					others = append(others, err)
				}
			})
		}
		wg.Wait()
		if len(others) > 0 {
			t.Fatalf("Consume failed other than ErrLimitExceeded: %v", others)
		}
		if succeeded != limit {
			t.Errorf("successful Consume calls: got %d, want %d", succeeded, limit)
		}
		if got := mustEntitlement(t, e.svc, tenant.ID, catalog.FeatureInvoices).Usage; got != limit {
			t.Errorf("usage: got %d, want %d", got, limit)
		}
		want := []string{"80@8", "100@10"}
		if got := thresholds(t, e, tenant.ID, catalog.FeatureInvoices); !slices.Equal(got, want) {
			t.Errorf("threshold notifications (threshold@usage): got %v, want %v", got, want)
		}
	})
}

func TestService_Entitlements(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		start, end := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

		free := mustTenant(t, e.svc, catalog.PlanFree)
		for range 2 {
			mustMember(t, e.svc, free.ID, mustUser(t, e.svc), tenancy.RoleMember)
		}
		for range 3 {
			wantErr(t, "Consume", e.svc.Entitlements.Consume(ctx, free.ID, catalog.FeatureInvoices, 1), nil)
		}
		wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, free.ID, catalog.FeatureTickets, nil), nil)

		starter := mustTenant(t, e.svc, catalog.PlanStarter)
		mustMember(t, e.svc, starter.ID, mustUser(t, e.svc), tenancy.RoleOwner)

		overSeats := mustTenant(t, e.svc, catalog.PlanGrowth)
		for range 3 {
			mustMember(t, e.svc, overSeats.ID, mustUser(t, e.svc), tenancy.RoleMember)
		}
		wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, overSeats.ID, catalog.FeatureSeats, ptr(1)), nil)

		// limit/remaining -1 stands for null (unlimited).
		type row struct {
			feature                 string
			limit, usage, remaining int64
		}
		tests := []struct {
			name   string
			tenant tenancy.Tenant
			want   []row
		}{
			{"PlanLimitsUsageAndUnlimitedOverride", free, []row{
				{catalog.FeatureInvoices, 10, 3, 7},
				{catalog.FeatureTickets, -1, 0, -1},
				{catalog.FeatureSeats, 2, 2, 0},
			}},
			{"SeatsFromContractNotPlan", starter, []row{
				{catalog.FeatureInvoices, 100, 0, 100},
				{catalog.FeatureTickets, 25, 0, 25},
				{catalog.FeatureSeats, 3, 1, 2},
			}},
			{"SeatsOverrideRemainingNeverNegative", overSeats, []row{
				{catalog.FeatureInvoices, 1000, 0, 1000},
				{catalog.FeatureTickets, 200, 0, 200},
				{catalog.FeatureSeats, 1, 3, 0},
			}},
		}
		orNull := func(p *int64) int64 {
			if p == nil {
				return -1
			}
			return *p
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				es, err := e.svc.Entitlements.List(ctx, tc.tenant.ID)
				wantErr(t, "Entitlements", err, nil)
				var got []row
				for _, en := range es {
					got = append(got, row{en.Feature, orNull(en.Limit), en.Usage, orNull(en.Remaining)})
					if !en.PeriodStart.Equal(start) || !en.PeriodEnd.Equal(end) {
						t.Fatalf("%s period: got %v..%v, want %v..%v", en.Feature, en.PeriodStart, en.PeriodEnd, start, end)
					}
					if one := mustEntitlement(t, e.svc, tc.tenant.ID, en.Feature); jsonOf(t, one) != jsonOf(t, en) {
						t.Fatalf("Entitlement(%s): got %s, want %s as in the list", en.Feature, jsonOf(t, one), jsonOf(t, en))
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Fatalf("Entitlements: got %v, want %v", got, tc.want)
				}
			})
		}

		t.Run("JSON", func(t *testing.T) {
			got := jsonOf(t, mustEntitlement(t, e.svc, free.ID, catalog.FeatureTickets))
			want := `{"feature":"support.tickets","limit":null,"usage":0,"remaining":null,"period_start":"2026-11-01T00:00:00Z","period_end":"2026-12-01T00:00:00Z"}`
			if got != want {
				t.Fatalf("JSON: got %s, want %s", got, want)
			}
			var back tenancy.Entitlement
			if err := json.Unmarshal([]byte(got), &back); err != nil || back.Limit != nil {
				t.Fatalf("decode: got %+v, %v", back, err)
			}
		})
		t.Run("ErrInvalidFeature", func(t *testing.T) {
			_, err := e.svc.Entitlements.Get(ctx, free.ID, "collections.reminders")
			wantFields(t, "Entitlement(unknown feature)", err, "feature")
		})
		t.Run("ErrNotFoundTenant", func(t *testing.T) {
			_, err := e.svc.Entitlements.List(ctx, id.New(id.Tenant))
			wantErr(t, "Entitlements(unknown tenant)", err, tenancy.ErrNotFound)
			_, err = e.svc.Entitlements.Get(ctx, id.New(id.Tenant), catalog.FeatureSeats)
			wantErr(t, "Entitlement(unknown tenant)", err, tenancy.ErrNotFound)
		})
	})
}

func TestService_SetLimit(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		tenant := mustTenant(t, e.svc, catalog.PlanStarter)

		tests := []struct {
			name       string
			ref        string
			feature    string
			limit      *int64
			wantErr    error
			wantFields []string
			wantLimit  *int64
		}{
			{"OKBySlug", tenant.Slug, catalog.FeatureInvoices, ptr(500), nil, nil, ptr(500)},
			{"OKByIDUnlimited", tenant.ID, catalog.FeatureTickets, nil, nil, nil, nil},
			{"OKZero", tenant.ID, catalog.FeatureSeats, ptr(0), nil, nil, ptr(0)},
			{"ErrInvalidNegative", tenant.ID, catalog.FeatureInvoices, ptr(-1), tenancy.ErrInvalid, []string{"limit"}, nil},
			{"ErrInvalidFeature", tenant.ID, "collections.reminders", ptr(1), tenancy.ErrInvalid, []string{"feature"}, nil},
			{"ErrInvalidBoth", tenant.ID, "", ptr(-5), tenancy.ErrInvalid, []string{"feature", "limit"}, nil},
			{"ErrNotFoundTenant", "no-such-tenant", catalog.FeatureInvoices, ptr(1), tenancy.ErrNotFound, nil, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				err := e.svc.Entitlements.SetLimit(ctx, tc.ref, tc.feature, tc.limit)
				if tc.wantFields != nil {
					wantFields(t, "SetLimit", err, tc.wantFields...)
					return
				}
				wantErr(t, "SetLimit", err, tc.wantErr)
				if tc.wantErr != nil {
					return
				}
				got := mustEntitlement(t, e.svc, tenant.ID, tc.feature).Limit
				if jsonOf(t, got) != jsonOf(t, tc.wantLimit) {
					t.Fatalf("limit after SetLimit: got %s, want %s", jsonOf(t, got), jsonOf(t, tc.wantLimit))
				}
			})
		}
		t.Run("CallerPointerNotKept", func(t *testing.T) {
			l := int64(42)
			wantErr(t, "SetLimit", e.svc.Entitlements.SetLimit(ctx, tenant.ID, catalog.FeatureInvoices, &l), nil)
			l = 1
			if got := mustEntitlement(t, e.svc, tenant.ID, catalog.FeatureInvoices).Limit; got == nil || *got != 42 {
				t.Fatalf("limit: got %s, want 42", jsonOf(t, got))
			}
		})
	})
}
