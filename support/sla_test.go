package support_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/catalog"
	"github.com/tenantkit/tenantkit/support"
)

// TestTargets restates the documented table independently of the code.
func TestTargets(t *testing.T) {
	want := map[support.Priority][2]time.Duration{
		support.PriorityUrgent: {time.Hour, 8 * time.Hour},
		support.PriorityHigh:   {4 * time.Hour, 24 * time.Hour},
		support.PriorityNormal: {8 * time.Hour, 72 * time.Hour},
		support.PriorityLow:    {24 * time.Hour, 120 * time.Hour},
	}
	for _, p := range support.Priorities() {
		if got := support.Targets(p); got.FirstResponse != want[p][0] || got.Resolution != want[p][1] {
			t.Errorf("Targets(%s) = %+v, want %v", p, got, want[p])
		}
	}
	if got := support.Targets("whenever"); got != (support.Target{}) {
		t.Errorf("Targets(unknown) = %+v, want zero", got)
	}
}

func TestCreateSetsTargets(t *testing.T) {
	for _, p := range support.Priorities() {
		t.Run(string(p), func(t *testing.T) {
			u := newUnit(t)
			in := validInput()
			in.Priority = string(p)
			tk := mustCreate(t, u.svc, unitTenant, in)
			tg := support.Targets(p)
			if tk.FirstResponseDueAt == nil || !tk.FirstResponseDueAt.Equal(tk.CreatedAt.Add(tg.FirstResponse)) ||
				tk.ResolutionDueAt == nil || !tk.ResolutionDueAt.Equal(tk.CreatedAt.Add(tg.Resolution)) {
				t.Errorf("due times %v, %v; want creation + %v, + %v", tk.FirstResponseDueAt, tk.ResolutionDueAt, tg.FirstResponse, tg.Resolution)
			}
			if tk.SLABreached == nil || *tk.SLABreached || tk.FirstRespondedAt != nil {
				t.Errorf("SLABreached %v, FirstRespondedAt %v; want false, nil", tk.SLABreached, tk.FirstRespondedAt)
			}
		})
	}
	t.Run("ModuleOff", func(t *testing.T) {
		u := newUnit(t)
		u.ent.setModule(catalog.ModuleSLA, false)
		tk := mustCreate(t, u.svc, unitTenant, validInput())
		if tk.FirstResponseDueAt != nil || tk.ResolutionDueAt != nil || tk.SLABreached != nil {
			t.Errorf("without support.sla: %v, %v, %v; want nil, nil, nil", tk.FirstResponseDueAt, tk.ResolutionDueAt, tk.SLABreached)
		}
	})
}

// TestCheckSLA walks a controlled clock past each ticket's targets: each
// breach is marked and notified once; met targets, solved tickets and
// tenants without the module are not.
func TestCheckSLA(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t)
	urgent := validInput()
	urgent.Priority = "urgent" // 1h / 8h
	start := u.clock.Now()
	silent := mustCreate(t, u.svc, unitTenant, urgent)     // nobody answers
	answered := mustCreate(t, u.svc, unitTenant, urgent)   // answered, never solved
	solved := mustCreate(t, u.svc, unitTenant, urgent)     // solved in time
	high := mustCreate(t, u.svc, unitTenant, validInput()) // high: 4h / 24h
	offTenant := mustCreate(t, u.svc, "ten_off", urgent)   // its tenant has the module off at the checks
	u.ent.setModule(catalog.ModuleSLA, false)
	noTargets := mustCreate(t, u.svc, unitTenant, urgent) // made without the module
	u.ent.setModule(catalog.ModuleSLA, true)
	if _, err := u.svc.AgentReply(ctx, unitTenant, answered.ID, "agent-1", "On it"); err != nil {
		t.Fatal(err)
	}
	mustTransition(t, u.svc, unitTenant, solved.ID, support.StatusSolved)

	steps := []struct {
		at        time.Duration // after start
		want      int
		breached  []string
		notTarget string // the target the new notifications name
	}{
		{59 * time.Minute, 0, nil, ""},
		{time.Hour, 1, []string{silent.ID}, support.BreachFirstResponse},
		{2 * time.Hour, 0, []string{silent.ID}, ""},
		{4 * time.Hour, 1, []string{silent.ID, high.ID}, support.BreachFirstResponse},
		{8 * time.Hour, 1, []string{silent.ID, high.ID, answered.ID}, support.BreachResolution},
		{1000 * time.Hour, 0, []string{silent.ID, high.ID, answered.ID}, ""},
	}
	seen := 0
	for _, st := range steps {
		u.clock.now = start.Add(st.at)
		// ten_off has the module off during every check.
		got, err := checkWithTenantOff(ctx, u, "ten_off", u.clock.Now())
		if err != nil || got != st.want {
			t.Fatalf("at +%v: CheckSLA = %d, %v; want %d", st.at, got, err, st.want)
		}
		for _, tk := range []support.Ticket{silent, answered, solved, high, noTargets} {
			stored, _ := u.store.Ticket(ctx, unitTenant, tk.ID)
			want := slices.Contains(st.breached, tk.ID)
			if tk.ID == noTargets.ID {
				if stored.SLABreached != nil {
					t.Errorf("at +%v: ticket without targets has SLABreached %v, want nil", st.at, *stored.SLABreached)
				}
				continue
			}
			if stored.SLABreached == nil || *stored.SLABreached != want {
				t.Errorf("at +%v: ticket %d SLABreached = %v, want %v", st.at, stored.Number, stored.SLABreached, want)
			}
		}
		notes := u.notes.notifications()
		if len(notes) != seen+st.want {
			t.Fatalf("at +%v: %d notifications, want %d", st.at, len(notes), seen+st.want)
		}
		for _, n := range notes[seen:] {
			if n.Type != support.NotificationSLABreached || n.Data["target"] != st.notTarget {
				t.Errorf("at +%v: notification %+v, want type %s about %s", st.at, n, support.NotificationSLABreached, st.notTarget)
			}
		}
		seen = len(notes)
	}
	if stored, _ := u.store.Ticket(ctx, "ten_off", offTenant.ID); *stored.SLABreached {
		t.Errorf("the ticket of a tenant with support.sla off was marked")
	}
	// Back on, the tenant's missed target is marked on the next check.
	if got, err := u.svc.CheckSLA(ctx, u.clock.Now()); err != nil || got != 1 {
		t.Errorf("CheckSLA with ten_off back on = %d, %v; want 1", got, err)
	}
}

// checkWithTenantOff runs CheckSLA while the fake reports support.sla off
// for tenant only.
func checkWithTenantOff(ctx context.Context, u *unit, tenant string, now time.Time) (int, error) {
	u.ent.mu.Lock()
	u.ent.offFor = map[string]string{tenant: catalog.ModuleSLA}
	u.ent.mu.Unlock()
	defer func() {
		u.ent.mu.Lock()
		u.ent.offFor = nil
		u.ent.mu.Unlock()
	}()
	return u.svc.CheckSLA(ctx, now)
}
