package bunstore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/tenantkit/tenantkit/event"
	"github.com/tenantkit/tenantkit/event/bunstore"
	"github.com/tenantkit/tenantkit/event/eventtest"
	"github.com/tenantkit/tenantkit/internal/database"
	"github.com/tenantkit/tenantkit/internal/dbtest"
	"github.com/tenantkit/tenantkit/internal/id"
)

// TestStore runs the event.Store conformance suite on SQLite and
// Postgres, the events emptied before each case.
func TestStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		eventtest.Run(t, func(t *testing.T) eventtest.Backend {
			if _, err := database.AcrossTenants(db.NewDelete()).TableExpr("events").Where("TRUE").Exec(context.Background()); err != nil {
				t.Fatalf("empty events: %v", err)
			}
			return eventtest.Backend{Store: bunstore.New(db), InTx: database.NewTransactor(db).InTx}
		})
	}, bunstore.Migrations())
}

// TestCreateEventRefusesDataThatIsNotJSON: the store reads rows back
// unchecked, so it checks the data on the way in.
func TestCreateEventRefusesDataThatIsNotJSON(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		s := bunstore.New(db)
		for _, data := range []string{`{"total":`, `not json`} {
			e := event.Event{ID: id.New(id.Event), Type: "invoice.created", TenantID: "ten_00000000000000000000000001",
				Actor: event.Actor{Type: event.ActorSystem}, Resource: event.Resource{Type: "invoice", ID: "inv_1"},
				Data: json.RawMessage(data), CreatedAt: time.Now()}
			if _, err := s.CreateEvent(t.Context(), e, true); err == nil {
				t.Errorf("CreateEvent with data %q = nil, want an error", data)
			}
			if _, err := s.Event(t.Context(), "", e.ID); err == nil {
				t.Errorf("event with data %q was stored", data)
			}
		}
	}, bunstore.Migrations())
}

// TestWithSubscribers: CreateEvent answers the subscriber expression for
// the event's tenant in its own statement, and stores the event either way.
func TestWithSubscribers(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, db *bun.DB) {
		// A table of the test's own stands for the webhook endpoints.
		ctx := t.Context()
		for _, q := range []string{"DROP TABLE IF EXISTS test_subscribers", "CREATE TABLE test_subscribers (tenant_id TEXT)",
			"INSERT INTO test_subscribers VALUES ('ten_00000000000000000000000001')"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		s := bunstore.New(db, bunstore.WithSubscribers("EXISTS (SELECT 1 FROM test_subscribers WHERE tenant_id = ?)"))
		plain := bunstore.New(db)
		newEvent := func(tenantID string) event.Event {
			return event.Event{ID: id.New(id.Event), Type: "invoice.created", TenantID: tenantID,
				Actor: event.Actor{Type: event.ActorSystem}, Resource: event.Resource{Type: "invoice", ID: "inv_1"},
				Data: json.RawMessage(`{}`), CreatedAt: time.Now()}
		}
		tests := []struct {
			name   string
			store  *bunstore.Store
			tenant string
			ask    bool
			want   bool
		}{
			{"Subscribed", s, "ten_00000000000000000000000001", true, true},
			{"NotSubscribed", s, "ten_00000000000000000000000002", true, false},
			{"PlatformEvent", s, "", true, false},
			{"WithoutTheOption", plain, "ten_00000000000000000000000002", true, true},
			// Not asked, the store only inserts: its answer means nothing.
			{"NotAsked", s, "ten_00000000000000000000000001", false, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := newEvent(tt.tenant)
				got, err := tt.store.CreateEvent(t.Context(), e, tt.ask)
				if err != nil || (tt.ask && got != tt.want) {
					t.Fatalf("CreateEvent = %v, %v; want %v", got, err, tt.want)
				}
				if _, err := s.Event(t.Context(), "", e.ID); err != nil {
					t.Fatalf("event not stored: %v", err)
				}
			})
		}
	}, bunstore.Migrations())
}
